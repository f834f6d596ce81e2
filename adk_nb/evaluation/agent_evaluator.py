"""AgentEvaluator: ADK's pytest entry point, `await AgentEvaluator.evaluate("my_agent", "tests/x.test.json")`."""

from __future__ import annotations

import csv
import logging
import os
import statistics
import uuid
from pathlib import Path
from typing import Any, Optional

from .eval_case import content_text, get_all_tool_calls
from .eval_config import EvalConfig
from .eval_metrics import BaseCriterion, EvalStatus
from .eval_set import EvalSet
from .formats import load_eval_config, load_eval_set, read_json_file, save_eval_set

logger = logging.getLogger("adk_nb.evaluation")

NUM_RUNS = 2
"""ADK's default number of runs per case."""


class AgentEvaluator:
  """Evaluates an agent module against eval files and fails (AssertionError) when a metric falls short.

  Same signatures as google-adk's AgentEvaluator. A case's metric passes when its score,
  averaged over every turn of every run, reaches the threshold; a run that errored or
  timed out fails its case.
  """

  @staticmethod
  def find_config_for_test_file(test_file: str) -> EvalConfig:
    """The test_config.json next to `test_file`, or ADK's default criteria."""
    return load_eval_config(os.path.join(os.path.dirname(test_file), "test_config.json"))

  @staticmethod
  async def evaluate_eval_set(
      agent_module: str,
      eval_set: EvalSet,
      criteria: Optional[dict[str, float]] = None,
      eval_config: Optional[EvalConfig] = None,
      num_runs: int = NUM_RUNS,
      agent_name: Optional[str] = None,
      print_detailed_results: bool = True,
      artifact_service: Optional[Any] = None,
      output_file: Optional[str] = None,
      app_name: Optional[str] = None,
      eval_set_results_manager: Optional[Any] = None,
  ):
    """Runs one EvalSet against the agent in `agent_module`; raises AssertionError listing every failure.

    Returns the EvalResults (ADK returns None) so a test can look further.
    """
    from ..runners import Runner
    from ..sessions.in_memory_session_service import InMemorySessionService
    from ._progress import make_progress
    from ._run import CaseRunner, resolve_metrics, run_cases
    from .agent_loader import load_agent_async
    from .eval_result import EvalSetResult
    from .results import EvalResults, new_result_id

    if num_runs < 1:
      raise ValueError(f"`num_runs` must be at least 1, got {num_runs}.")
    if eval_set_results_manager is not None and not app_name:
      raise ValueError("Pass app_name too: eval_set_results_manager files each result under an app name.")
    if not eval_set or not eval_set.eval_cases:
      raise ValueError("The eval set has no cases, so there is nothing to pass or fail; add eval_cases.")
    if criteria:
      eval_config = EvalConfig(criteria={k: BaseCriterion(threshold=v) for k, v in criteria.items()})
    if eval_config is None:
      raise ValueError("`eval_config` is required (or the deprecated `criteria`).")

    agent, app = await load_agent_async(agent_module, agent_name)
    if app is not None and not agent_name:
      runner = Runner(app=app, session_service=InMemorySessionService(), artifact_service=artifact_service)
    else:
      runner = Runner(agent=agent, app_name=app_name or "test_app", session_service=InMemorySessionService(),
                      artifact_service=artifact_service)
    metrics = resolve_metrics(eval_config)
    case_runner = CaseRunner(runner, metrics, eval_set_id=eval_set.eval_set_id)
    bar = make_progress(len(eval_set.eval_cases) * num_runs, False)
    case_results = await run_cases(case_runner, eval_set.eval_cases, num_runs=num_runs, concurrency=8, progress=bar)
    rid, name = new_result_id(eval_set.eval_set_id)
    results = EvalResults(EvalSetResult(eval_set_result_id=rid, eval_set_result_name=name,
                                        eval_set_id=eval_set.eval_set_id, eval_case_results=case_results),
                          thresholds={m.metric_name: m.criterion.threshold for m, _ in metrics})
    if eval_set_results_manager is not None:
      eval_set_results_manager.save_eval_set_result(app_name, eval_set.eval_set_id, case_results)

    failures, rows = [], []
    by_case: dict[str, list] = {}
    for r in case_results:
      by_case.setdefault(r.eval_id, []).append(r)
    for eval_id, runs in by_case.items():
      for metric, _ in metrics:
        name, threshold = metric.metric_name, metric.criterion.threshold
        per_turn = [(t, m) for r in runs for t in r.eval_metric_result_per_invocation
                    for m in t.eval_metric_results if m.metric_name == name]
        scores = [m.score for _, m in per_turn if m.score is not None]
        if not per_turn:
          continue
        mean = statistics.fmean(scores) if scores else None
        status = (EvalStatus.NOT_EVALUATED if mean is None else
                  EvalStatus.PASSED if mean >= threshold else EvalStatus.FAILED)
        if print_detailed_results:
          AgentEvaluator._print_details(eval_id, name, threshold, mean, status, per_turn)
        if status == EvalStatus.FAILED:
          failures.append(f"{name} for {agent_module} Failed. Expected {threshold}, but got {mean}.")
        elif status == EvalStatus.NOT_EVALUATED:
          failures.append(f"{name} for {agent_module} was not evaluated (no score was produced); see the logs.")
        rows += [{"eval_set_id": eval_set.eval_set_id, "eval_id": eval_id, "metric_name": name,
                  "score": m.score, "threshold": threshold, "eval_status": m.eval_status.name,
                  "prompt": content_text(t.actual_invocation.user_content),
                  "expected_response": content_text(t.expected_invocation.final_response) if t.expected_invocation else "",
                  "actual_response": content_text(t.actual_invocation.final_response)} for t, m in per_turn]
      broken = [r for r in runs if r.error_type]
      if broken:
        failures.append(f"{eval_id} for {agent_module} Failed. {len(broken)} of {len(runs)} runs could not finish: "
                        + "; ".join(f"{r.error_type}: {r.error_message}" for r in broken))
    if output_file:
      Path(output_file).parent.mkdir(parents=True, exist_ok=True)
      with open(output_file, "w", newline="", encoding="utf-8") as f:
        writer = csv.DictWriter(f, fieldnames=list(rows[0]) if rows else ["eval_id"])
        writer.writeheader()
        writer.writerows(rows)
    message = "Following are all the test failures."
    if not print_detailed_results:
      message += " Re-run with print_detailed_results=True for per-turn detail."
    assert not failures, message + "\n" + "\n".join(failures)
    return results

  @staticmethod
  async def evaluate(
      agent_module: str,
      eval_dataset_file_path_or_dir: str,
      num_runs: int = NUM_RUNS,
      agent_name: Optional[str] = None,
      initial_session_file: Optional[str] = None,
      print_detailed_results: bool = True,
      artifact_service: Optional[Any] = None,
      output_file: Optional[str] = None,
      app_name: Optional[str] = None,
      eval_set_results_manager: Optional[Any] = None,
  ) -> None:
    """Evaluates the agent of `agent_module` on a file, or on every `*.test.json` under a folder.

    Each file uses the `test_config.json` beside it (ADK's defaults otherwise). Files may be
    EvalSet JSON or the legacy list format; `initial_session_file` seeds legacy files' state.
    """
    if num_runs < 1:
      raise ValueError(f"`num_runs` must be at least 1, got {num_runs}.")
    target = str(eval_dataset_file_path_or_dir)
    if os.path.isdir(target):
      files = sorted(str(p) for p in Path(target).rglob("*.test.json"))
    else:
      files = [target]
    if not files:
      raise ValueError(f"No `*.test.json` eval files found in {target}, so there is nothing to evaluate.")
    initial_session = {}
    if initial_session_file:
      initial_session = read_json_file(initial_session_file)
    for test_file in files:
      config = AgentEvaluator.find_config_for_test_file(test_file)
      eval_set = load_eval_set(test_file, initial_session=initial_session)
      await AgentEvaluator.evaluate_eval_set(
          agent_module=agent_module, eval_set=eval_set, eval_config=config, num_runs=num_runs,
          agent_name=agent_name, print_detailed_results=print_detailed_results, artifact_service=artifact_service,
          output_file=output_file, app_name=app_name, eval_set_results_manager=eval_set_results_manager)

  @staticmethod
  def migrate_eval_data_to_new_schema(old_eval_data_file: str, new_eval_data_file: str,
                                      initial_session_file: Optional[str] = None) -> None:
    """Rewrites a legacy `*.test.json` file as an `*.evalset.json` EvalSet file."""
    if not old_eval_data_file or not new_eval_data_file:
      raise ValueError("Give both old_eval_data_file and new_eval_data_file.")
    initial = read_json_file(initial_session_file) if initial_session_file else None
    eval_set = load_eval_set(old_eval_data_file, initial_session=initial)
    eval_set.eval_set_id = str(uuid.uuid4())
    save_eval_set(eval_set, new_eval_data_file)

  @staticmethod
  def _print_details(eval_id: str, name: str, threshold: float, mean: Optional[float], status: EvalStatus,
                     per_turn: list) -> None:
    print(f"Summary: `{status}` for Metric: `{name}` on case `{eval_id}`. Expected threshold: `{threshold}`, "
          f"actual value: `{mean}`.")
    for t, m in per_turn:
      expected = t.expected_invocation
      print(f"  - {m.eval_status.name:<13} score={m.score} prompt={content_text(t.actual_invocation.user_content)!r}")
      print(f"      expected: {content_text(expected.final_response) if expected else ''!r} "
            f"tools={[c.name for c in get_all_tool_calls(expected.intermediate_data)] if expected else []}")
      print(f"      actual:   {content_text(t.actual_invocation.final_response)!r} "
            f"tools={[c.name for c in get_all_tool_calls(t.actual_invocation.intermediate_data)]}")
