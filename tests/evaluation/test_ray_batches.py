"""RayExecutor's batching and retries, driven against a stand-in for Ray's API in this process (fast, exact):
which case runs a dead worker's batch sends again is decided by the driver, so no cluster is needed here."""

import types

import pytest

from adk_nb.evaluation import RayExecutor, evaluate, executors
from adk_nb.evaluation._ray_worker import CaseWorker
from adk_nb.evaluation.formats import eval_set_from_dict

CRITERIA = {"criteria": {"tool_trajectory_avg_score": 1.0}}
IDS = ["c0", "dies_once", "c2", "c3", "c4", "c5"]
EVAL_SET = {"eval_set_id": "batches", "eval_cases": [
    {"eval_id": i, "conversation": [{"user_content": {"role": "user", "parts": [{"text": i}]},
                                     "final_response": {"role": "model", "parts": [{"text": "ok"}]}}]} for i in IDS]}
AGENT = ("from adk_nb import Agent\nfrom adk_nb.models import ScriptedModel\n"
         "root_agent = Agent(name='batch_agent', model=ScriptedModel(lambda request: 'ok'))\n")


def agent_folder(root, name: str, source: str):
  """An ADK agent folder `root/name` whose agent.py is `source`."""
  folder = root / name
  folder.mkdir()
  (folder / "__init__.py").write_text("from . import agent\n")
  (folder / "agent.py").write_text(source)
  return folder


class ActorDied(Exception):
  pass


class FakeRay:
  """The parts of Ray's API RayExecutor uses. A worker runs its batch's case runs in order and dies (once, the
  first time) when it reaches 'dies_once', after sending back the case runs before it."""

  exceptions = types.SimpleNamespace(RayActorError=ActorDied, RayTaskError=RuntimeError)

  def __init__(self):
    self.batches: list[list[str]] = []
    self.actors: list = []
    self.died = False

  def is_initialized(self):
    return True

  def cluster_resources(self):
    return {"CPU": 1}

  def kill(self, actor):
    actor.dead = True

  def remote(self, cls):
    fake = self

    class Handle:
      def options(self, **_):
        def start(*args):
          fake.actors.append(Actor(fake, cls(*args)))
          return fake.actors[-1]

        return types.SimpleNamespace(remote=start)

    return Handle()


class Actor:
  def __init__(self, fake, worker):
    self.fake, self.worker, self.dead = fake, worker, False
    self.ready = types.SimpleNamespace(remote=self._ready)
    self.run_batch = types.SimpleNamespace(options=lambda **_: types.SimpleNamespace(remote=self._stream))

  async def _ready(self):
    return await self.worker.ready()

  async def _stream(self, batch):
    self.fake.batches.append([case.eval_id for _, case in batch])
    for position, (run, case) in enumerate(batch):
      if self.dead:
        raise ActorDied("the worker had died")
      if case.eval_id == "raises":
        raise RuntimeError("the worker's own error")
      if case.eval_id == "dies_once" and not self.fake.died:
        self.fake.died = self.dead = True
        raise ActorDied("the worker died")
      result = await self.worker.run(case, run)

      async def chunk(position=position, result=result):
        return [(position, result)]

      yield chunk()


async def test_a_dead_batch_sends_again_only_its_unfinished_case_runs_each_alone(tmp_path, monkeypatch):
  fake = FakeRay()
  monkeypatch.setattr(executors, "_import_ray", lambda: fake)
  folder = agent_folder(tmp_path, "batch_agent", AGENT)
  executor = RayExecutor(workers=1, concurrency_per_worker=2)
  results = await evaluate(str(folder), eval_set_from_dict(EVAL_SET), CRITERIA, executor=executor, progress=False,
                           results_dir=tmp_path / "runs")
  # 2 running on the worker and 2 queued there, sent as one batch; it dies after sending c0 back (before a
  # second batch, which goes when half of the worker's 2 slots are free again)
  assert fake.batches[0] == ["c0", "dies_once", "c2", "c3"]
  assert sorted(results.retried) == [(0, "c2"), (0, "c3"), (0, "dies_once")]  # c0 had come back: not run again
  assert fake.batches[1:4] == [["dies_once"], ["c2"], ["c3"]]  # each retried case run alone on the new worker
  assert fake.batches[4:] == [["c4", "c5"]]
  cases = results.cases.set_index("eval_id")
  assert sorted(cases.index) == sorted(IDS) and (cases["status"] == "passed").all()  # each stored once
  assert set(executor.timings) == {"connect_s", "start_workers_s", "run_s"}


async def test_a_workers_own_error_stops_the_run_and_its_workers_are_stopped(tmp_path, monkeypatch):
  fake = FakeRay()
  monkeypatch.setattr(executors, "_import_ray", lambda: fake)
  folder = agent_folder(tmp_path, "batch_agent", AGENT)
  eval_set = {**EVAL_SET, "eval_cases": [{**EVAL_SET["eval_cases"][0], "eval_id": "raises"}]}
  with pytest.raises(RuntimeError, match="the worker's own error"):
    await evaluate(str(folder), eval_set_from_dict(eval_set), CRITERIA, executor=RayExecutor(workers=1),
                   progress=False, results_dir=tmp_path / "runs")
  assert fake.actors and all(actor.dead for actor in fake.actors)  # killed, not left holding the cluster's CPUs


COUNTING_AGENT = """import asyncio
from adk_nb import Agent
from adk_nb.models import ScriptedModel

running = peak = 0
two_inside = asyncio.Event()

async def count(callback_context, llm_request):
  global running, peak
  running += 1
  peak = max(peak, running)
  if running == 2:
    two_inside.set()
  try:  # the first case in stays until a second joins it (a sync point, not a timer); later ones pass through
    await asyncio.wait_for(two_inside.wait(), 30)
  except asyncio.TimeoutError:  # never two at once: peak stays 1 and the test says so
    pass
  running -= 1

root_agent = Agent(name='counting_agent', model=ScriptedModel(lambda request: 'ok'), before_model_callback=count)
"""


async def test_a_worker_runs_at_most_its_concurrency_of_the_case_runs_queued_on_it(tmp_path):
  import sys

  agent_folder(tmp_path, "counting_agent", COUNTING_AGENT)
  worker = CaseWorker("counting_agent", None, [], "batches", None, None, [str(tmp_path)], concurrency=2)
  cases = eval_set_from_dict(EVAL_SET).eval_cases
  finished = [position async for chunk in worker.run_batch([(0, case) for case in cases]) for position, _ in chunk]
  assert sorted(finished) == list(range(len(cases)))
  assert sys.modules["counting_agent.agent"].peak == 2  # six queued, two at a time
