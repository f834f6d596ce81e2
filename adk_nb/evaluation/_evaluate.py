"""`evaluate(agent, eval_set)`: run an eval set against an agent and get EvalResults back."""

from __future__ import annotations

import hashlib
import json
import logging
import time
from pathlib import Path
from typing import Any, Optional, Union

from ._progress import make_progress
from ._run import plan_jobs, resolve_metrics
from .executors import LocalExecutor, RunSpec, make_executor
from .eval_config import EvalConfig
from .eval_set import EvalSet
from .formats import config_for, load_eval_config, load_eval_set
from .result_store import STORE_FILE, ResultStore, default_root, list_runs, new_run_id
from .results import EvalResults, new_result_id

logger = logging.getLogger("adk_nb.evaluation")


async def evaluate(
    agent: Any,
    eval_set: Union[EvalSet, str, Path],
    config: Union[EvalConfig, dict, str, Path, None] = None,
    *,
    num_runs: int = 1,
    concurrency: int = 8,
    timeout: Optional[float] = None,
    metrics: Any = None,
    judge_model: Any = None,
    cases: Optional[list[str]] = None,
    progress: Union[bool, str] = True,
    keep_sessions: bool = False,
    app_name: Optional[str] = None,
    resume: bool = False,
    run_id: Optional[str] = None,
    results_dir: Union[str, Path, None] = None,
    executor: Any = None,
    user_simulator_model: Any = None,
) -> EvalResults:
  """Runs every case of an eval set against an agent and scores it.

  Each case runs in a fresh in-memory session seeded with its `session_input.state`,
  turn by turn; a case that fails, raises or times out is recorded and the others go on.

  Args:
    agent: an agent, an App, a Runner (its session service is used), or the agent's folder or module
      name (ADK's agent-folder convention; needed by executor='ray', whose workers import it).
    eval_set: an EvalSet or the path of an `*.evalset.json` / legacy `*.test.json` file.
    config: an EvalConfig, a `{"criteria": ...}` dict, or a `test_config.json` path; by default
      the `test_config.json` next to the eval set file, else ADK's defaults
      (tool_trajectory_avg_score 1.0, response_match_score 0.8).
    num_runs: how many times each case runs.
    concurrency: at most this many cases run at once.
    timeout: seconds allowed per case run (None: no limit).
    metrics: user metrics, `{name: fn}` or `[fn, ...]`; `fn(actual, expected)` scores one turn.
      A threshold for one comes from `config` criteria under the same name.
    judge_model: the model for `final_response_match_v2` (a BaseLlm, e.g. ScriptedModel, or a name).
    cases: only these eval ids.
    progress: True (tqdm's widget in notebooks, tqdm's bar in terminals, a line at every 10% in logs and CI),
      False, 'widget', 'bar', 'text'. The bar counts passed / failed / error, turns red at the first failure,
      and a resumed run starts at the case runs it already has.
    keep_sessions: keep each case's full session in the results (`session_details`).
    app_name: the app name sessions are created under (default: the agent's name).
    resume: continue a run that was stopped (killed, interrupted): the case runs it finished are kept and
      not run again. Continues `run_id` if given, else the latest unfinished run of the same eval set,
      cases, runs and metrics under `results_dir`; starts a new run when there is none.
    run_id: the run's id (its folder under `results_dir`); default `<eval set id>_<time>_<n>`.
    results_dir: where runs are stored (default $ADK_NB_EVAL_DIR, else `.adk_nb/eval` in the working folder).
    user_simulator_model: the model that plays the user of `conversation_scenario` cases (a BaseLlm such as
      ScriptedModel, or a name; default: `user_simulator_config.model` of the config, else gemini-2.5-flash).
      It gets the scenario's plan and the dialogue so far, and ends the conversation by saying `</finished>`
      or at `max_allowed_invocations` (default 20) user messages.
    executor: 'local' (default: this process), 'ray' (a Ray cluster at $RAY_ADDRESS, else a local one), or
      `RayExecutor(address=...)`; with Ray, `concurrency` is per worker.

  Results stream to `results_dir/<run id>/results.sqlite` as each case run finishes, so memory does not
  grow with the number of cases and `EvalResults.open(run_id)` reads a run back (also mid-run).
  """
  path = None
  if not isinstance(eval_set, EvalSet):
    path = Path(eval_set)
    eval_set = load_eval_set(path)
  if config is None:
    config = config_for(path) if path is not None else load_eval_config(None)
  elif isinstance(config, dict):
    config = EvalConfig.model_validate(config)
  elif not isinstance(config, EvalConfig):
    if not Path(config).exists():
      raise FileNotFoundError(f"Config file {str(config)!r} not found; give the path of a test_config.json.")
    config = load_eval_config(config)
  selected = eval_set.eval_cases
  if cases is not None:
    known = {c.eval_id for c in selected}
    missing = [c for c in cases if c not in known]
    if missing:
      raise ValueError(f"No case {missing[0]!r} in eval set {eval_set.eval_set_id!r}; cases: {sorted(known)}.")
    selected = [c for c in selected if c.eval_id in set(cases)]
  if not selected:
    raise ValueError(f"Eval set {eval_set.eval_set_id!r} has no cases to run; add cases to 'eval_cases'.")
  if num_runs < 1:
    raise ValueError(f"num_runs must be at least 1, got {num_runs}.")
  if concurrency < 1:
    raise ValueError(f"concurrency must be at least 1, got {concurrency}.")
  resolved = resolve_metrics(config, metrics)
  target = None
  if isinstance(agent, (str, Path)):
    target = str(Path(agent).resolve()) if Path(agent).exists() else str(agent)
    if executor in (None, "local") or isinstance(executor, LocalExecutor):
      from .agent_loader import load_agent_async

      loaded, app = await load_agent_async(target)
      agent = app if app is not None else loaded
  chosen = make_executor(executor)
  spec = RunSpec(agent=agent, agent_target=target, app_name=app_name, metrics=resolved,
                 eval_set_id=eval_set.eval_set_id, timeout=timeout, judge_model=judge_model,
                 keep_sessions=keep_sessions, concurrency=concurrency,
                 user_simulator_config=config.user_simulator_config, user_simulator_model=user_simulator_model)
  chosen.check(spec)
  store = _open_store(eval_set.eval_set_id, selected, num_runs, resolved, resume=resume, run_id=run_id,
                      root=results_dir)
  bar = make_progress(len(selected) * num_runs, progress, label=eval_set.eval_set_id, finished=store.counts())
  sessions: dict = {}

  async def sink(result, index: int) -> None:
    await store.put(result, index)
    if keep_sessions:
      sessions[(result.run, result.eval_id)] = result.session_details

  t0 = time.perf_counter()
  try:
    await chosen.run(spec, plan_jobs(selected, num_runs, store.done()), sink, bar)
  finally:
    store.flush()
    bar.close()
    if spec.retried:
      store.set_meta(retried=(store.meta.get("retried") or []) + [list(k) for k in spec.retried])
  wall = time.perf_counter() - t0 + (store.meta.get("wall_time") or 0.0)
  store.set_meta(wall_time=wall, finished=time.time())
  return EvalResults(store=store, wall_time=wall, sessions=sessions)


def _fingerprint(eval_set_id: str, cases: list, num_runs: int, metrics: list) -> str:
  """What a resumed run must share with the stopped one: eval set, cases, runs, metrics and criteria."""
  spec = [eval_set_id, num_runs, [c.eval_id for c in cases],
          [(m.metric_name, m.criterion.model_dump(mode="json") if m.criterion else m.threshold) for m, _ in metrics]]
  return hashlib.sha256(json.dumps(spec, sort_keys=True, default=str).encode()).hexdigest()[:16]


def _open_store(eval_set_id: str, cases: list, num_runs: int, metrics: list, *, resume: bool, run_id: Optional[str],
                root: Union[str, Path, None]) -> ResultStore:
  fingerprint = _fingerprint(eval_set_id, cases, num_runs, metrics)
  if resume:
    found = run_id
    if found is None:
      stopped = [r for r in list_runs(root) if r["eval_set_id"] == eval_set_id and r["finished"] is None]
      for r in reversed(stopped):
        store = ResultStore.open(r["path"])
        if store.meta.get("fingerprint") == fingerprint:
          logger.info("Resuming eval run %s (%d of %d case runs done).", store.run_id, len(store), r["planned"])
          return store
        store.close()
    elif (Path(root) if root is not None else default_root()).joinpath(found, STORE_FILE).exists():
      store = ResultStore.open(found, root)
      if store.meta.get("fingerprint") != fingerprint:
        store.close()
        raise ValueError(f"Eval run {found!r} ran other cases, runs or metrics than this call; resume it with the "
                         "same eval set, cases, num_runs and criteria, or start a new run (another run_id).")
      return store
  criteria = {m.metric_name: m.criterion.model_dump(mode="json") for m, _ in metrics if m.criterion is not None}
  thresholds = {m.metric_name: (m.criterion.threshold if m.criterion else m.threshold) for m, _ in metrics}
  rid, _ = new_result_id(eval_set_id)
  return ResultStore.create(run_id or new_run_id(eval_set_id), root=root, meta={
      "eval_set_id": eval_set_id, "result_id": rid, "fingerprint": fingerprint, "planned": len(cases) * num_runs,
      "num_runs": num_runs, "thresholds": thresholds, "criteria": criteria, "wall_time": None})
