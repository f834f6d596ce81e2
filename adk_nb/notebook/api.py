"""Runs without magics: `adk_nb.notebook.run(agent, "message")` and `await adk_nb.notebook.arun(...)`."""

from __future__ import annotations

from typing import Any, Optional

from google.genai import types

from ..agents.run_config import RunConfig
from ._loop import running_loop
from ._policy import resolve_policy
from ._sessions import DEFAULT_USER, registry
from .live_run import LiveRun


def _content(message: Any) -> types.Content:
  if isinstance(message, types.Content):
    return message
  if isinstance(message, str):
    if not message.strip():
      raise ValueError("The message is empty; write what the user says to the agent.")
    return types.Content(role="user", parts=[types.Part(text=message)])
  raise TypeError(f"The message must be text or a google.genai types.Content, not {type(message).__name__}.")


def start(agent: Any, message: Any, *, session: Optional[str] = None, new: bool = False,
          user: Optional[str] = None, state: Optional[dict[str, Any]] = None, store: Optional[str] = None,
          approve: Optional[str] = None, run_config: Optional[RunConfig] = None, view: bool = True) -> LiveRun:
  """Starts a run and returns its LiveRun: a task on the kernel's loop, or completed, outside one.

  Raises SessionBusyError while an earlier run in the same session is still running.
  """
  content = _content(message)
  policy = resolve_policy(approve)
  entry = registry.get(agent, store)
  user_id = user or entry.user_id or DEFAULT_USER
  session_id = entry.choose_session(session, user_id, new)
  # Two runs on one session would interleave their events (the SQLite store then fails the first).
  entry.refuse_if_running(session_id, user_id)
  live = LiveRun(entry.runner, user_id=user_id, session_id=session_id, approve=policy, run_config=run_config,
                 view=view, label=entry.name)
  entry.runs.append(live)
  if view:
    live.view  # made now, on the loop's thread, before events arrive
  return live.start(content, dict(state or {}) or None,
                    prepare=lambda: entry.create_if_missing(session_id, user_id, new))


def run(agent: Any, message: Any, **options: Any) -> LiveRun:
  """Runs `agent` on `message` in its notebook session and returns the LiveRun.

  In a kernel the run starts as a task on the kernel's loop and this returns at once
  (`await run` in a later cell, or watch its view); outside a kernel it runs to its end
  or pause first. Options: session, new, user, state (a state delta for the turn), store
  ('memory://' or a database URL; default SQLite under .adk_nb/), approve ('ask', 'auto',
  'deny'; default $ADK_NB_APPROVE or 'ask'), run_config, view. A session runs one run at
  a time: while one runs, another run on it raises SessionBusyError (await the first, or new=True).
  """
  return start(agent, message, **options)


async def arun(agent: Any, message: Any, **options: Any) -> LiveRun:
  """Runs `agent` on `message` and returns the LiveRun once it is done or paused (same options as run)."""
  if running_loop() is None:  # pragma: no cover - an async def always has a running loop
    raise RuntimeError("arun() must be awaited inside a running event loop.")
  return await start(agent, message, **options)
