"""Turn claims: a turn holds its session from before it runs anything until it ends.

`Runner.run_async` claims the session right after loading it, before it writes an event, calls
a plugin or runs the agent, and releases it when the turn ends (finished, paused, failed or
cancelled). A store grants the claim atomically, together with the stale check of the
session's copy, so of two turns racing on one session the loser is refused before it has
done anything (`SessionBusyError` or `StaleSessionError`, nothing written).

A claim names its holder (`host/pid/process-nonce/turn-nonce`). A claim left behind by a
process that died (SIGKILL, a crashed kernel) must not lock the session for good, so a store
that finds another holder's claim asks `holder_alive`:

- a claim of this process is alive while the turn holds it (released claims are dropped from
  this process's set at once, before the store is told, so a release cut short by a second
  cancel leaves no live claim behind);
- a claim of another process on this host is alive while that process exists;
- a claim of another host is alive for `lease` seconds after it was taken (the host's
  processes cannot be seen from here).
"""

from __future__ import annotations

import os
import socket
import time
import uuid
from typing import Optional

from ..errors.stale_session_error import SessionBusyError

_HOST = socket.gethostname().replace("/", "_")
_NONCE = uuid.uuid4().hex[:12]
_held: set[str] = set()
"""Tokens of the claims this process holds now."""

DEFAULT_LEASE = 900.0
"""Seconds a claim taken on another host counts as held (processes there cannot be checked)."""


def _process() -> str:
  return f"{_HOST}/{os.getpid()}/{_NONCE}"  # the pid read each time: a forked child is another holder


class TurnClaim:
  """A turn's hold on one session; `await claim.release()` when the turn ends (idempotent)."""

  __slots__ = ("service", "key", "invocation_id", "token", "since", "_told")

  def __init__(self, service: object, key: tuple[str, str, str], invocation_id: str) -> None:
    self.service = service
    self.key = key
    """(app_name, user_id, session_id)."""
    self.invocation_id = invocation_id
    self.token = f"{_process()}/{uuid.uuid4().hex[:12]}"
    """Who holds the claim: host/pid/process nonce/turn nonce."""
    self.since = time.time()
    self._told = False  # whether the store was told of the release
    _held.add(self.token)

  @property
  def held(self) -> bool:
    return self.token in _held

  async def release(self) -> None:
    """Frees the session for the next turn."""
    _held.discard(self.token)  # first, so the claim is dead here even if the store is not reached
    if self._told:
      return
    self._told = True
    release = getattr(self.service, "_release_turn", None)
    if release is not None:
      await release(self)

  def drop(self) -> None:
    """Makes the claim dead in this process at once (a refused claim, a turn nobody reads any
    more); `release()` still tells the store."""
    if _held is not None:  # (None at interpreter exit)
      _held.discard(self.token)


def holder_alive(token: str, since: float, lease: float = DEFAULT_LEASE, now: Optional[float] = None) -> bool:
  """Whether the claim `token` (taken at `since`) still holds its session; see the module docstring."""
  parts = token.rsplit("/", 3)
  if len(parts) != 4:
    return False  # not a claim this code wrote
  host, pid, nonce, _ = parts
  if f"{host}/{pid}/{nonce}" == _process():
    return token in _held
  if host == _HOST and pid.isdigit():
    return _pid_alive(int(pid))
  return (time.time() if now is None else now) - since < lease


def _pid_alive(pid: int) -> bool:
  try:
    os.kill(pid, 0)
  except ProcessLookupError:
    return False
  except PermissionError:
    return True  # exists, owned by another user
  except OSError:
    return True  # cannot tell: keep the claim (the lease does not apply on this host)
  return True


def busy_error(session_id: str, holder_invocation: str, since: float) -> SessionBusyError:
  """The refusal a turn gets when another live turn holds the session."""
  return SessionBusyError(
      f"Session {session_id!r} is in use by another turn (invocation {holder_invocation!r}, started "
      f"{max(0.0, time.time() - since):.1f} s ago); this turn was refused before it ran anything "
      "(nothing was written). Send the message again once that turn has ended or paused."
  )
