"""The Ray actor behind `RayExecutor`: loads the agent once from its module path, runs batches of case runs.

Plain Python (no Ray import): `RayExecutor` wraps it with `ray.remote` on the driver.
"""

from __future__ import annotations

import asyncio
import contextlib
import sys
from typing import Any, AsyncIterator, Optional

from ._run import CaseRunner, runner_for
from .eval_case import EvalCase
from .eval_result import EvalCaseResult


class CaseWorker:
  """One worker process: its own Runner and in-memory services, several case runs at once (async actor)."""

  def __init__(self, agent_target: str, app_name: Optional[str], metrics: list, eval_set_id: str,
               timeout: Optional[float], judge_model: Any, paths: list[str], user_simulator_config: Any = None,
               user_simulator_model: Any = None, concurrency: int = 0):
    for path in reversed(paths):  # the driver's working folder, so module names import as they did there
      if path not in sys.path:
        sys.path.insert(0, path)
    self._spec = (agent_target, app_name, metrics, eval_set_id, timeout, judge_model, user_simulator_config,
                  user_simulator_model)
    self._case_runner: Optional[CaseRunner] = None
    self._lock: Optional[asyncio.Lock] = None
    self._slots = asyncio.Semaphore(concurrency) if concurrency else contextlib.nullcontext()
    """At most `concurrency` case runs at once (0: no limit), whatever the driver has sent ahead."""

  async def _runner(self) -> CaseRunner:
    if self._case_runner is None:
      self._lock = self._lock or asyncio.Lock()
      async with self._lock:
        if self._case_runner is None:
          from .agent_loader import load_agent_async

          target, app_name, metrics, eval_set_id, timeout, judge_model, sim_config, sim_model = self._spec
          agent, app = await load_agent_async(target)
          runner = runner_for(app if app is not None else agent, app_name)
          self._case_runner = CaseRunner(runner, metrics, eval_set_id=eval_set_id, timeout=timeout,
                                         judge_model=judge_model, user_simulator_config=sim_config,
                                         user_simulator_model=sim_model)
    return self._case_runner

  async def ready(self) -> bool:
    """Loads the agent (so an import error surfaces before any case is sent)."""
    await self._runner()
    return True

  async def run(self, case: EvalCase, run: int) -> EvalCaseResult:
    """One case run, scored."""
    return await (await self._runner()).run(case, run)

  async def run_batch(self, batch: list[tuple[int, EvalCase]]) -> AsyncIterator[list[tuple[int, EvalCaseResult]]]:
    """Runs the (run, case) pairs of `batch` (at most `concurrency` of this worker's case runs at once);
    yields [(position in batch, result), ...] as they finish.

    Each yield carries all the results finished since the last one, so a Ray streaming call sends a few
    messages per batch instead of one per case, and the driver knows which positions are still running.
    """
    case_runner = await self._runner()
    finished: asyncio.Queue = asyncio.Queue()

    async def one(position: int, run: int, case: EvalCase) -> None:
      try:
        async with self._slots:
          result = await case_runner.run(case, run)
        finished.put_nowait((position, result))
      except Exception as exc:  # raised by the generator below, so the driver sees the worker's error
        finished.put_nowait((position, exc))

    tasks = [asyncio.create_task(one(position, run, case)) for position, (run, case) in enumerate(batch)]
    try:
      left = len(tasks)
      while left:
        chunk = [await finished.get()]
        while not finished.empty():
          chunk.append(finished.get_nowait())
        for _, outcome in chunk:
          if isinstance(outcome, Exception):
            raise outcome
        left -= len(chunk)
        yield chunk
    finally:
      for task in tasks:
        task.cancel()
