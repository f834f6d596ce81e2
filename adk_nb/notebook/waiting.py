"""Waiting for a person: a paused run's cell (or `await run.wait()`) awaits the answer while the buttons stay live.

Under Run All a person expects the notebook to stop at the question and go on after the
answer. A cell that *awaits* lets widget clicks reach the kernel (ipykernel 7.4 and later;
a cell that blocks would never see them, see DESIGN.md §4), so `until_answered` awaits:

- each pause until someone answers it (a button, or code on the loop through `run.decide`),
  then the resumed step, until the run ends done or in error;
- at most `timeout` seconds in all (`ANSWER_TIMEOUT` by default): then `NoAnswer`;
- only while someone can answer: when the run's view has not been drawn by a widget front end
  within `grace` seconds (nbclient and nbmake draw nothing), `NoAnswer` says how to answer;
- until a person stops it (`run.stop_waiting()`, which a kernel interrupt calls): `NoAnswer`.

`NoAnswer` never changes the run: it stays paused, its buttons still answer it, and
`run.approve()` and friends work in a later cell.
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, Optional

from ..errors.adk_nb_error import AdkNbError
from ..inspect.text import short_args

if TYPE_CHECKING:
  from .live_run import LiveRun

ANSWER_TIMEOUT = 900.0
"""Seconds a paused `%%agent` cell (and `run.wait()`) waits for a person by default: 15 minutes (`--wait`)."""
FRONT_END_GRACE = 10.0
"""Seconds a paused cell waits for its view to be drawn (a widget front end says so) before it concludes
that nobody can click (nbclient, nbmake, a closed browser tab)."""


class NoAnswer(AdkNbError, RuntimeError):
  """A paused run got no answer where its caller waited for one. Nothing was answered; the run stays paused."""

  def __init__(self, message: str, run: "LiveRun"):
    super().__init__(message)
    self.run = run
    """The paused run: answer it with `run.approve()`, `run.reject(...)`, `run.respond(...)` or its buttons."""


def how_to_answer(run: "LiveRun", why: str, name: str = "run") -> str:
  """The message of a NoAnswer: what the run waits for, why the wait ended, and every way to answer."""
  waits = ", ".join(f"{p.tool}({short_args(p.args, 40)})" for p in run.pending) or "an answer"
  code = "run.respond(...)" if all(p.kind != "confirmation" for p in run.pending) else \
      "run.approve() or run.reject('why')"
  return (f"{run.label} is paused: it waits for {waits}. {why} Nothing was answered; the run stays paused. "
          f"To answer: click the buttons in its view; or in code, add `--out {name} --no-wait` to the %%agent "
          f"line (the cell then ends at the pause) and call {code.replace('run.', name + '.')} in the next cell; "
          "or let a policy answer confirmations: `--approve auto|deny` or ADK_NB_APPROVE=auto|deny.")


async def until_answered(run: "LiveRun", timeout: Optional[float] = ANSWER_TIMEOUT,
                         grace: float = FRONT_END_GRACE, name: str = "run") -> "LiveRun":
  """Awaits `run` through its pauses until it ends done or in error; raises NoAnswer (see the module)."""
  loop = asyncio.get_running_loop()
  start = loop.time()
  deadline = None if timeout is None else start + timeout
  run._stop_requested = False
  while True:
    await run
    if run.status != "paused":
      return run
    now = loop.time()
    if run._stop_requested:
      raise NoAnswer(how_to_answer(run, "You stopped waiting (kernel interrupt or run.stop_waiting()).", name), run)
    if not run._on_screen and now >= start + grace:
      raise NoAnswer(how_to_answer(run, "Nobody can click here: no widget front end drew its view"
                                   f"{_kernel_note()} (nbclient and nbmake draw none).", name), run)
    if deadline is not None and now >= deadline:
      raise NoAnswer(how_to_answer(run, f"Nobody answered within {timeout:g} s (`--wait SECONDS`).", name), run)
    until = deadline
    if not run._on_screen:
      until = start + grace if until is None else min(until, start + grace)
    wake = run._wakeup = loop.create_future()
    try:
      await asyncio.wait_for(wake, None if until is None else max(0.0, until - now))
    except asyncio.TimeoutError:
      pass
    finally:
      run._wakeup = None


def _kernel_note() -> str:
  """Why clicks cannot arrive on this kernel, when its version is the reason (older than ipykernel 7.4)."""
  try:
    import ipykernel
  except ImportError:
    return ""
  parts = []
  for piece in ipykernel.__version__.split(".")[:2]:
    digits = "".join(c for c in piece if c.isdigit())
    parts.append(int(digits or 0))
  if tuple(parts) >= (7, 4):
    return ""
  return (f"; on ipykernel {ipykernel.__version__} clicks wait until the cell ends (ipykernel 7.4 delivers them "
          "while a cell waits: pip install 'ipykernel>=7.4')")
