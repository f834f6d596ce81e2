"""Eval on a real local Ray cluster (`ray start --head`, 2 CPUs): workers import the agent folder, a dying
worker's case runs are retried once and reported, results stream into the run's store."""

import os
import shutil
import signal
import subprocess
import sys
import tempfile
import textwrap
import time
from pathlib import Path

import pytest

from adk_nb import Agent
from adk_nb.evaluation import EvalResults, RayExecutor, evaluate
from adk_nb.evaluation.formats import eval_set_from_dict
from adk_nb.models import ScriptedModel
from tests.support import free_port

ray = pytest.importorskip("ray", reason="Ray is not installed: pip install 'adk_nb[ray]' (the dev extra has it)")

CRITERIA = {"criteria": {"tool_trajectory_avg_score": 1.0}}
PROMPTS = [f"case {i}" for i in range(8)] + ["crash once", "crash always"]
EVAL_SET = {"eval_set_id": "on_ray", "eval_cases": [
    {"eval_id": text.replace(" ", "_"),
     "conversation": [{"user_content": {"role": "user", "parts": [{"text": text}]},
                       "final_response": {"role": "model", "parts": [{"text": "ok"}]}}]} for text in PROMPTS]}

AGENT = textwrap.dedent('''
    import os
    from adk_nb import Agent
    from adk_nb.models import ScriptedModel

    MARKER = {marker!r}

    def answer(request):
      text = request.contents[-1].parts[0].text
      if text == "crash once" and not os.path.exists(MARKER):  # the first worker to see it dies
        open(MARKER, "w").close()
        os._exit(1)
      if text == "crash always":
        os._exit(1)
      return f"ok from {{os.getpid()}}"

    root_agent = Agent(name="ray_agent", model=ScriptedModel(answer, latency=0.01))
''')


@pytest.fixture(scope="session")
def ray_cluster():
  """A Ray head on 127.0.0.1 with 2 worker CPUs, started once for the session and stopped after it."""
  folder = Path(tempfile.mkdtemp(prefix="adknb_ray_"))  # short: Ray's socket paths must stay under 108 characters
  # jsonschema's optional rfc3987-syntax builds a grammar for ~3 s of CPU when Ray imports jsonschema; Ray's
  # dashboard agent must start within 15 s, which a loaded 2-core machine missed. The cluster leaves it out.
  stub = folder / "stubs" / "rfc3987_syntax"
  stub.mkdir(parents=True)
  (stub / "__init__.py").write_text("raise ImportError('left out of the test Ray cluster (slow to import)')\n")
  # Ray 2.5x turns token authentication on when ~/.ray/auth_token exists (a local ray.init() writes one); the
  # head and this driver say explicitly that this loopback test cluster runs without it.
  saved_auth_mode = os.environ.get("RAY_AUTH_MODE")
  os.environ["RAY_AUTH_MODE"] = "disabled"
  env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(folder / "stubs"),
                                                                   os.environ.get("PYTHONPATH")]))}
  port = free_port()
  log = open(folder / "head.log", "w+")
  ray_bin = Path(sys.executable).with_name("ray")
  head = subprocess.Popen([str(ray_bin), "start", "--head", "--block", "--node-ip-address=127.0.0.1", f"--port={port}",
                           "--num-cpus=2", "--disable-usage-stats", "--include-dashboard=false",
                           f"--temp-dir={folder / 't'}"], env=env, stdout=log, stderr=subprocess.STDOUT,
                          start_new_session=True)
  try:
    deadline = time.monotonic() + 180
    while "Ray runtime started" not in (folder / "head.log").read_text():
      if head.poll() is not None or time.monotonic() > deadline:
        pytest.fail("ray start --head did not come up:\n" + (folder / "head.log").read_text()[-3000:])
      time.sleep(0.5)  # polling the head's log for readiness (an external process), not synchronising our code
    for attempt in range(3):  # on a loaded machine the new head's GCS can miss ray.init's connect deadline
      try:
        ray.init(address=f"127.0.0.1:{port}", log_to_driver=False)
        break
      except ConnectionError:
        ray.shutdown()
        if attempt == 2:
          raise
    yield f"127.0.0.1:{port}"
  finally:
    ray.shutdown()
    if saved_auth_mode is None:
      os.environ.pop("RAY_AUTH_MODE", None)
    else:
      os.environ["RAY_AUTH_MODE"] = saved_auth_mode
    os.killpg(head.pid, signal.SIGTERM)  # the head and every process it started share its session
    try:
      head.wait(timeout=3)
    except subprocess.TimeoutExpired:
      pass
    try:
      os.killpg(head.pid, signal.SIGKILL)
    except ProcessLookupError:
      pass
    log.close()
    shutil.rmtree(folder, ignore_errors=True)


@pytest.fixture
def agent_folder(tmp_path):
  folder = tmp_path / "ray_agent"
  folder.mkdir()
  (folder / "__init__.py").write_text("from . import agent\n")
  (folder / "agent.py").write_text(AGENT.format(marker=str(tmp_path / "crashed_once")))
  return folder


async def test_an_eval_set_runs_on_two_ray_workers_and_a_dead_worker_is_retried_once(ray_cluster, agent_folder,
                                                                                    tmp_path):
  # 3 at once per worker: the crashing cases die inside batches with other cases, whose unfinished runs are
  # retried (alone, so only a case that kills its worker on its own is recorded as WorkerDied).
  executor = RayExecutor(address=ray_cluster, concurrency_per_worker=3)
  results = await evaluate(str(agent_folder), eval_set_from_dict(EVAL_SET), CRITERIA, executor=executor,
                           progress=False, results_dir=tmp_path / "runs")
  cases = results.cases.set_index("eval_id")
  assert sorted(cases.index) == sorted(c["eval_id"] for c in EVAL_SET["eval_cases"])  # each case run once
  workers = {text.rsplit(" ", 1)[1] for text in cases["final_response"].dropna()}
  assert len(workers) >= 2 and str(os.getpid()) not in workers  # the cases ran in the cluster's worker processes
  assert (cases.drop(index=["crash_always"])["status"] == "passed").all()
  assert (tmp_path / "crashed_once").exists()  # its first worker died; the retry passed
  assert cases.loc["crash_always", "error_type"] == "WorkerDied"
  assert "died twice" in cases.loc["crash_always", "error"]
  assert {(0, "crash_once"), (0, "crash_always")} <= set(results.retried)
  assert "were run again after their Ray worker died" in results.summary()
  assert EvalResults.open(results.run_dir).counts()["passed"] == 9  # stored as it streamed back
  assert set(executor.timings) == {"connect_s", "start_workers_s", "run_s"}


async def test_a_worker_that_cannot_import_the_agent_stops_the_run_with_the_reason(ray_cluster, tmp_path):
  with pytest.raises(RuntimeError, match="could not load the agent.*no_such_agent_module"):
    await evaluate("no_such_agent_module", eval_set_from_dict(EVAL_SET), CRITERIA,
                   executor=RayExecutor(address=ray_cluster, workers=1), progress=False, results_dir=tmp_path)


async def test_ray_needs_the_agent_module_path_not_an_object(tmp_path):
  agent = Agent(name="a", model=ScriptedModel(["ok"]))
  with pytest.raises(ValueError, match="agent folder or module name"):
    await evaluate(agent, eval_set_from_dict(EVAL_SET), CRITERIA, executor="ray", progress=False,
                   results_dir=tmp_path)
  assert not list(tmp_path.iterdir())  # refused before any run was stored
  with pytest.raises(ValueError, match="executor='nope'"):
    await evaluate(agent, eval_set_from_dict(EVAL_SET), CRITERIA, executor="nope", progress=False,
                   results_dir=tmp_path)
