"""The Ray actor behind `RayExecutor`: loads the agent once from its module path, runs case runs on request.

Plain Python (no Ray import): `RayExecutor` wraps it with `ray.remote` on the driver.
"""

from __future__ import annotations

import asyncio
import sys
from typing import Any, Optional

from ._run import CaseRunner, runner_for
from .eval_case import EvalCase
from .eval_result import EvalCaseResult


class CaseWorker:
  """One worker process: its own Runner and in-memory services, several case runs at once (async actor)."""

  def __init__(self, agent_target: str, app_name: Optional[str], metrics: list, eval_set_id: str,
               timeout: Optional[float], judge_model: Any, paths: list[str], user_simulator_config: Any = None,
               user_simulator_model: Any = None):
    for path in reversed(paths):  # the driver's working folder, so module names import as they did there
      if path not in sys.path:
        sys.path.insert(0, path)
    self._spec = (agent_target, app_name, metrics, eval_set_id, timeout, judge_model, user_simulator_config,
                  user_simulator_model)
    self._case_runner: Optional[CaseRunner] = None
    self._lock: Optional[asyncio.Lock] = None

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
