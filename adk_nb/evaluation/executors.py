"""Where eval case runs execute: in this process (`LocalExecutor`, the default) or on a Ray cluster (`RayExecutor`).

    results = await evaluate("weather", "weather.evalset.json", executor="ray")            # RAY_ADDRESS or a local Ray
    results = await evaluate("weather", "weather.evalset.json",
                             executor=RayExecutor(address="10.0.0.5:6379", concurrency_per_worker=16))

With Ray, each worker (a Ray actor) imports the agent from its module path or agent folder (ADK's
agent-folder convention, loaded by the command line's loader) and runs case runs with its own Runner and
in-memory services. Each worker runs at most `concurrency_per_worker` case runs at once and holds as many
again queued, so a finished case run is replaced at once, not a round trip later. The driver sends them in
batches (one Ray streaming call per batch, a new batch whenever half a worker's slots' worth has come
back); the worker sends back whatever has finished each time it yields, and the driver commits each
result to the run's result store and the progress bar. When a worker dies, the case runs of its
batches that had not come back are run once more, each alone on a worker, and listed in
`EvalResults.retried`; one whose worker dies again is recorded as an error (`error_type='WorkerDied'`).
`ray` is the optional extra `pip install 'adk_nb[ray]'`, imported only here.
"""

from __future__ import annotations

import asyncio
import collections
import logging
import os
import time
from dataclasses import dataclass, field
from typing import Any, Iterator, Optional

from ._run import CaseRunner, Job, ResultSink, runner_for
from .eval_metrics import EvalStatus
from .eval_result import EvalCaseResult
from .result_store import case_status

logger = logging.getLogger("adk_nb.evaluation")


@dataclass
class RunSpec:
  """What every executor needs to run the case runs of one `evaluate` call."""

  agent: Any
  """The agent, App or Runner (local runs)."""
  agent_target: Optional[str]
  """The agent's module path or folder (runs on other processes import it from there)."""
  app_name: Optional[str]
  metrics: list
  eval_set_id: str
  timeout: Optional[float] = None
  judge_model: Any = None
  keep_sessions: bool = False
  concurrency: int = 8
  user_simulator_config: Any = None
  """Options of the simulated user of conversation_scenario cases."""
  user_simulator_model: Any = None
  """The simulated user's model (a model object or name; default: the config's model name)."""
  retried: list = field(default_factory=list)
  """(run, eval_id) of the case runs run again after their worker died (filled by the executor)."""


class LocalExecutor:
  """Runs case runs in this process, at most `concurrency` at once (the default executor)."""

  def check(self, spec: RunSpec) -> None:
    """Raises for arguments this executor cannot run, before the run's store is made."""
    runner_for(spec.agent, spec.app_name)

  async def run(self, spec: RunSpec, jobs: Iterator[Job], sink: ResultSink, progress: Any = None) -> None:
    from ._run import run_jobs

    runner = runner_for(spec.agent, spec.app_name)
    case_runner = CaseRunner(runner, spec.metrics, eval_set_id=spec.eval_set_id, timeout=spec.timeout,
                             judge_model=spec.judge_model, keep_sessions=spec.keep_sessions,
                             user_simulator_config=spec.user_simulator_config,
                             user_simulator_model=spec.user_simulator_model)
    await run_jobs(case_runner, jobs, concurrency=spec.concurrency, progress=progress, sink=sink)


def _import_ray():
  try:
    import ray
  except ImportError as exc:
    raise ImportError("executor='ray' needs Ray: pip install 'adk_nb[ray]' (or pip install ray).") from exc
  return ray


class RayExecutor:
  """Runs case runs on a Ray cluster: one actor per worker, each running several case runs at once.

  Args:
    address: the cluster to join ('host:port', 'auto', or None for $RAY_ADDRESS, else a local Ray
      started in this process). Ignored when Ray is already initialised in this process.
    workers: how many worker actors (default: the cluster's CPUs).
    concurrency_per_worker: case runs a worker runs at once (default: evaluate's `concurrency`); as many
      more wait queued on it.
    num_cpus: CPUs each worker actor reserves (default 1, so workers spread over the cluster's CPUs).
    init_kwargs: more keyword arguments for `ray.init` (e.g. `runtime_env` to ship your code to a remote cluster).
  """

  def __init__(self, address: Optional[str] = None, *, workers: Optional[int] = None,
               concurrency_per_worker: Optional[int] = None, num_cpus: float = 1,
               init_kwargs: Optional[dict[str, Any]] = None):
    if workers is not None and workers < 1:
      raise ValueError(f"workers must be at least 1, got {workers}.")
    self.address, self.workers, self.num_cpus = address, workers, num_cpus
    self.concurrency_per_worker = concurrency_per_worker
    self.init_kwargs = dict(init_kwargs or {})
    self.timings: dict[str, float] = {}
    """Seconds of the last run: connect_s (joining the cluster), start_workers_s (workers importing the agent)
    and run_s (sending, running and storing the case runs)."""

  def _connect(self):
    ray = _import_ray()
    if not ray.is_initialized():
      ray.init(address=self.address, **{"log_to_driver": False, **self.init_kwargs})
    return ray

  def check(self, spec: RunSpec) -> None:
    """Raises for arguments a Ray run cannot take, before the run's store is made."""
    if not spec.agent_target:
      raise ValueError("executor='ray' imports the agent on every worker: pass its agent folder or module name "
                       "(e.g. evaluate('weather', ...)) instead of an agent object.")
    if spec.keep_sessions:
      raise ValueError("keep_sessions=True keeps sessions in this process; it cannot be used with executor='ray'.")
    _import_ray()

  async def run(self, spec: RunSpec, jobs: Iterator[Job], sink: ResultSink, progress: Any = None) -> None:
    self.check(spec)
    started = time.perf_counter()
    ray = self._connect()
    self.timings = {"connect_s": time.perf_counter() - started}
    from ._ray_worker import CaseWorker

    remote_worker = ray.remote(CaseWorker)
    count = self.workers or max(1, int(ray.cluster_resources().get("CPU", 1) // max(self.num_cpus, 1e-9)))
    per_worker = self.concurrency_per_worker or spec.concurrency
    args = (spec.agent_target, spec.app_name, spec.metrics, spec.eval_set_id, spec.timeout, spec.judge_model,
            [os.getcwd()], spec.user_simulator_config, spec.user_simulator_model, per_worker)
    # Sent to a worker: up to twice what it runs at once. The worker starts a queued case run the moment
    # one finishes, instead of waiting for the driver to hear of it and send another (with only what it
    # runs in flight, its slots were a quarter empty on average and case runs took 1.5-1.7x their floor).
    ahead = 2 * per_worker

    def start_worker():
      return remote_worker.options(num_cpus=self.num_cpus, max_concurrency=ahead + 1, max_restarts=0,
                                   max_task_retries=0).remote(*args)

    slots = [[start_worker(), 0] for _ in range(count)]  # [actor, generation]
    try:
      await _ready(ray, [a for a, _ in slots])
    except Exception:
      for actor, _ in slots:
        ray.kill(actor)
      raise
    self.timings["start_workers_s"] = time.perf_counter() - started - self.timings["connect_s"]
    running = time.perf_counter()
    retry: collections.deque = collections.deque()
    attempts: dict[tuple[int, str], int] = {}
    budget = [2 * count]  # replacement workers allowed, so a crash loop cannot go on for ever
    refill = max(1, per_worker // 2)

    async def emit(result: EvalCaseResult, index: int) -> None:
      written = sink(result, index)
      if written is not None:
        await written
      if progress is not None:
        progress.advance(case_status(result))

    def take(size: int) -> list:
      batch = []
      while len(batch) < size:
        job = next(jobs, None)
        if job is None:
          break
        batch.append(job)
      return batch

    async def drive(slot: list) -> None:
      """Keeps `ahead` case runs sent to one worker (it runs `per_worker` of them at once), in batches."""
      in_flight = [0]
      woken = asyncio.Event()
      batches: set = set()
      alone = [False]  # a retried case run is in flight by itself

      async def consume(actor: Any, generation: int, batch: list) -> None:
        waiting = dict(enumerate(batch))
        try:
          stream = actor.run_batch.options(num_returns="streaming").remote([(run, case) for run, _, case in batch])
          async for ref in stream:
            for position, result in await ref:
              _, index, _ = waiting.pop(position)
              in_flight[0] -= 1
              await emit(result, index)
            woken.set()
        except ray.exceptions.RayActorError as exc:
          if slot[1] == generation:  # the first of this worker's batches to notice: replace the worker
            ray.kill(actor)
            slot[1] += 1
            slot[0] = start_worker() if budget[0] > 0 else None
            budget[0] -= 1
          for job in waiting.values():  # the case runs it had not finished; those it sent back stay done
            run, index, case = job
            key = (run, case.eval_id)
            attempts[key] = attempts.get(key, 0) + 1
            if attempts[key] == 1:
              logger.warning("A Ray worker died running case %s (run %d); running it once more.", case.eval_id, run)
              spec.retried.append(key)
              retry.append(job)
            else:
              await emit(worker_died(spec.eval_set_id, case.eval_id, run, exc), index)
        finally:
          in_flight[0] -= len(waiting)
          woken.set()

      while True:
        if not batches:
          alone[0] = False
        room = ahead - in_flight[0]
        if slot[0] is not None and not alone[0] and retry:
          # A case run whose worker died runs alone on its next worker, so a second death is its own.
          if not batches:
            alone[0] = True
            in_flight[0] += 1
            batches.add(asyncio.ensure_future(consume(slot[0], slot[1], [retry.popleft()])))
            continue
        elif slot[0] is not None and not alone[0] and (room >= refill or not batches):
          batch = take(room)
          if batch:
            in_flight[0] += len(batch)
            batches.add(asyncio.ensure_future(consume(slot[0], slot[1], batch)))
            continue
        if not batches:
          return
        woken.clear()
        wake = asyncio.ensure_future(woken.wait())
        await asyncio.wait([wake, *batches], return_when=asyncio.FIRST_COMPLETED)
        wake.cancel()
        for task in [t for t in batches if t.done()]:
          batches.discard(task)
          task.result()  # a worker's own error (not its death) stops the eval with that error

    try:
      while True:
        live = [s for s in slots if s[0] is not None]
        if not live:
          raise RuntimeError("Every Ray worker died and no replacement could be started; see the Ray logs "
                             "(ray logs cluster) for why.")
        await _gather(drive(s) for s in live)
        if not retry:
          break
    finally:  # also when a worker's error or a cancelled cell stops the run: no actor is left holding CPUs
      self.timings["run_s"] = time.perf_counter() - running
      for actor, _ in slots:
        if actor is not None:
          ray.kill(actor)


async def _gather(coros) -> None:
  import asyncio

  await asyncio.gather(*coros)


async def _ready(ray, actors: list) -> None:
  """Waits for every worker to import the agent; an import error stops the eval with the worker's message."""
  try:
    for actor in actors:
      await actor.ready.remote()
  except ray.exceptions.RayTaskError as exc:
    cause = exc.cause if getattr(exc, "cause", None) is not None else exc
    raise RuntimeError(f"A Ray worker could not load the agent: {cause}. Each worker imports it from the same "
                       "path or module name: make it importable on every node (same folder, or "
                       "init_kwargs={'runtime_env': {'working_dir': ...}}).") from None


def worker_died(eval_set_id: str, eval_id: str, run: int, exc: BaseException) -> EvalCaseResult:
  """The result recorded for a case run whose worker died on both tries."""
  return EvalCaseResult(eval_set_file=eval_set_id, eval_set_id=eval_set_id, eval_id=eval_id,
                        final_eval_status=EvalStatus.FAILED, run=run, error_type="WorkerDied",
                        error_message=f"the Ray worker running this case died twice ({type(exc).__name__}); "
                                      "the case itself may crash its process")


def make_executor(executor: Any) -> Any:
  """The executor for evaluate's `executor=` argument: None/'local', 'ray', or an executor object."""
  if executor is None or executor == "local":
    return LocalExecutor()
  if executor == "ray":
    return RayExecutor()
  if hasattr(executor, "run") and hasattr(executor, "check"):
    return executor
  raise ValueError(f"executor={executor!r}: use 'local' (default), 'ray', or RayExecutor(address=...).")
