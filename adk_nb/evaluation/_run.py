"""Runs eval cases against an agent: fresh session per case, turn by turn, bounded concurrency."""

from __future__ import annotations

import asyncio
import copy
import inspect
import logging
import time
import uuid
from typing import Any, Callable, Container, Iterator, Optional

from google.genai import types

from .eval_case import EvalCase, Invocation, InvocationEvent, InvocationEvents
from .eval_config import EvalConfig
from .eval_metrics import EvalMetric, EvalMetricResult, EvalMetricResultDetails, EvalMetricResultPerInvocation, EvalStatus
from .eval_result import EvalCaseResult
from .evaluator import EvaluationResult
from .metrics import BUILTIN_METRICS, UserMetric, import_function, run_metric
from .result_store import case_status

logger = logging.getLogger("adk_nb.evaluation")

DEFAULT_USER_ID = "test_user_id"


class _UserEvent:
  """The simulated user's message as the simulator sees it in the conversation (the runner does not yield it)."""

  author = "user"

  def __init__(self, content: types.Content):
    self.content = content


class _CaseFailed(Exception):
  """The agent reported an error event; the case stops there."""


def _to_invocation(invocation_id: str, user_content: types.Content, events: list, started: float,
                   duration: float) -> Invocation:
  """One turn as ADK's EvaluationGenerator records it.

  The final answer lives on `final_response` only: its event stays in the intermediate
  events (author, tokens) without content, unless it also calls tools. A later final
  event without text (e.g. audio) does not replace one with text.
  """
  final, final_event, kept = None, None, []
  for event in events:
    content = event.content
    if not content or not content.parts:
      if event.grounding_metadata is not None:
        kept.append(event)
      continue
    if event.is_final_response():
      if final is None or not any(p.text for p in final.parts or []) or any(p.text for p in content.parts):
        final, final_event = content, event
    if event.grounding_metadata is not None or any(
        p.function_call or p.function_response or p.text or p.inline_data for p in content.parts):
      kept.append(event)
  recorded = [InvocationEvent(author=e.author,
                              content=None if e is final_event and not e.get_function_calls() else e.content,
                              grounding_metadata=e.grounding_metadata, usage_metadata=e.usage_metadata,
                              model_version=e.model_version)
              for e in kept]
  return Invocation(invocation_id=invocation_id, user_content=user_content, final_response=final,
                    intermediate_data=InvocationEvents(invocation_events=recorded), creation_timestamp=started,
                    duration=duration)


def resolve_metrics(config: EvalConfig, metrics: Any = None) -> list[tuple[EvalMetric, Callable[..., Any]]]:
  """Pairs every metric to compute with its function: criteria from the config, plus user metrics.

  `metrics` maps a name to a function (or is a list of functions, named after themselves); a
  user metric without a criterion reports its score without passing or failing the case.
  """
  user: dict[str, UserMetric] = {}
  if isinstance(metrics, dict):
    user = dict(metrics)
  elif metrics:
    user = {fn.__name__: fn for fn in metrics}
  out = []
  for metric in config.eval_metrics():
    name = metric.metric_name
    if name in user:
      fn = user.pop(name)
    elif metric.custom_function_path:
      fn = import_function(metric.custom_function_path)
    elif name in BUILTIN_METRICS:
      fn = BUILTIN_METRICS[name]
    else:
      raise ValueError(
          f"Unknown metric {name!r} in the criteria. Built-in metrics: {', '.join(sorted(BUILTIN_METRICS))}; "
          "for your own, pass metrics={name: function} or add custom_metrics to the config."
      )
    out.append((metric, fn))
  for name, fn in user.items():
    out.append((EvalMetric(metric_name=name), fn))
  return out


def _final_status(results: list[EvalMetricResult]) -> EvalStatus:
  status = EvalStatus.NOT_EVALUATED
  for result in results:
    if result.eval_status == EvalStatus.FAILED:
      return EvalStatus.FAILED
    if result.eval_status == EvalStatus.PASSED:
      status = EvalStatus.PASSED
  return status


async def score_case(case: EvalCase, actual: list[Invocation], metrics: list[tuple[EvalMetric, Callable[..., Any]]],
                     *, judge_model: Any = None) -> tuple[list[EvalMetricResult], list[EvalMetricResultPerInvocation]]:
  """Computes every metric for one run of a case; a metric that raises is NOT_EVALUATED, the others go on."""
  expected = case.conversation
  per_turn = [EvalMetricResultPerInvocation(actual_invocation=a,
                                            expected_invocation=expected[i] if expected and i < len(expected) else None)
              for i, a in enumerate(actual)]
  overall = []
  for metric, fn in metrics:
    error = None
    try:
      result = await run_metric(metric, fn, actual, expected, judge_model=judge_model,
                                conversation_scenario=case.conversation_scenario)
    except Exception as exc:  # one broken metric never hides the others
      logger.warning("Metric %s failed on case %s: %s", metric.metric_name, case.eval_id, exc, exc_info=True)
      result, error = EvaluationResult(), f"{type(exc).__name__}: {exc}"
    # Every result of this metric shares the metric's (validated, read-only) criterion object:
    # re-validating a dump of it per turn kept one copy per result (a third of a case's memory).
    base = {name: getattr(metric, name) for name in EvalMetric.model_fields}
    details = EvalMetricResultDetails(error=error) if error else EvalMetricResultDetails()
    overall.append(EvalMetricResult.model_construct(**base, score=result.overall_score,
                                                    eval_status=result.overall_eval_status, details=details))
    aligned = len(result.per_invocation_results) == len(per_turn)
    for i, entry in enumerate(per_turn):
      per = result.per_invocation_results[i] if aligned else None
      entry.eval_metric_results.append(EvalMetricResult.model_construct(
          **base, score=per.score if per else None,
          eval_status=per.eval_status if per else EvalStatus.NOT_EVALUATED,
          details=EvalMetricResultDetails(**per.details) if per and per.details else EvalMetricResultDetails()))
  return overall, per_turn


class CaseRunner:
  """Runs one case in a fresh session and scores it; never raises for a failing or erroring case."""

  def __init__(self, runner: Any, metrics: list, *, eval_set_id: str, timeout: Optional[float] = None,
               judge_model: Any = None, keep_sessions: bool = False, user_simulator_config: Any = None,
               user_simulator_model: Any = None):
    self.runner, self.metrics, self.eval_set_id = runner, metrics, eval_set_id
    self.timeout, self.judge_model, self.keep_sessions = timeout, judge_model, keep_sessions
    self.user_simulator_config, self.user_simulator_model = user_simulator_config, user_simulator_model

  async def _converse(self, case: EvalCase, user_id: str, session_id: str, turns: list[Invocation]) -> None:
    service, app = self.runner.session_service, self.runner.app_name
    state = copy.deepcopy(case.session_input.state) if case.session_input else {}
    if await service.get_session(app_name=app, user_id=user_id, session_id=session_id) is None:
      await service.create_session(app_name=app, user_id=user_id, state=state, session_id=session_id)
    if case.conversation_scenario is not None:
      await self._simulate(case, user_id, session_id, turns)
      return
    for expected in case.conversation or []:
      await self._turn(expected.user_content, user_id, session_id, turns)

  async def _simulate(self, case: EvalCase, user_id: str, session_id: str, turns: list[Invocation]) -> None:
    """Plays a conversation scenario: the simulated user speaks until it stops or reaches its turn cap."""
    from .simulation import Status
    from .simulation.user_simulator_provider import UserSimulatorProvider

    simulator = UserSimulatorProvider(self.user_simulator_config, model=self.user_simulator_model).provide(case)
    history: list = []
    while True:
      nxt = await simulator.get_next_user_message(history)
      if nxt.status != Status.SUCCESS:
        return
      events = await self._turn(nxt.user_message, user_id, session_id, turns)
      history.append(_UserEvent(nxt.user_message))
      history.extend(events)

  async def _turn(self, user_content: types.Content, user_id: str, session_id: str,
                  turns: list[Invocation]) -> list:
    """Runs one user turn, records it as an Invocation, returns the agent's events."""
    started, t0 = time.time(), time.perf_counter()
    events, invocation_id, error = [], "", None
    try:
      async for event in self.runner.run_async(user_id=user_id, session_id=session_id,
                                               new_message=user_content):
        if event.author == "user":
          invocation_id = event.invocation_id
          continue
        if event.partial:
          continue
        invocation_id = invocation_id or event.invocation_id  # the user's event is not yielded (as in ADK)
        events.append(event)
        if event.error_code and not (event.content and event.content.parts):
          error = f"{event.error_code}: {event.error_message}"
    except Exception as exc:  # the run failed (its error event is already in `events`): an agent error
      error = error or f"{type(exc).__name__}: {exc}"
    turns.append(_to_invocation(invocation_id, user_content, events, started, time.perf_counter() - t0))
    if error:
      raise _CaseFailed(error)
    return events

  async def run(self, case: EvalCase, run: int = 0) -> EvalCaseResult:
    """One run of one case: replay its turns, then score them."""
    si = case.session_input
    user_id = (si.user_id if si and si.user_id else None) or DEFAULT_USER_ID
    if si and si.session_id:
      session_id = si.session_id if run == 0 else f"{si.session_id}-run{run}"
    else:
      session_id = f"eval-{uuid.uuid4().hex[:12]}"
    turns: list[Invocation] = []
    error_type = error_message = None
    try:
      coro = self._converse(case, user_id, session_id, turns)
      await (asyncio.wait_for(coro, self.timeout) if self.timeout else coro)
    except asyncio.TimeoutError:
      error_type, error_message = "timeout", f"the case took longer than timeout={self.timeout}s"
    except _CaseFailed as exc:
      error_type, error_message = "agent_error", str(exc)
    except Exception as exc:  # one erroring case never stops the others
      logger.warning("Eval case %s raised: %s", case.eval_id, exc, exc_info=True)
      error_type, error_message = type(exc).__name__, str(exc)

    overall: list[EvalMetricResult] = []
    if error_type is None:
      overall, per_turn = await score_case(case, turns, self.metrics, judge_model=self.judge_model)
      status = _final_status(overall)
    else:
      expected = case.conversation or []
      per_turn = [EvalMetricResultPerInvocation(actual_invocation=a,
                                                expected_invocation=expected[i] if i < len(expected) else None)
                  for i, a in enumerate(turns)]
      status = EvalStatus.FAILED
    session = await self._finish_session(user_id, session_id)
    return EvalCaseResult(eval_set_file=self.eval_set_id, eval_set_id=self.eval_set_id, eval_id=case.eval_id,
                          final_eval_status=status, overall_eval_metric_results=overall,
                          eval_metric_result_per_invocation=per_turn, session_id=session_id, user_id=user_id,
                          session_details=session, run=run, error_type=error_type, error_message=error_message)

  async def _finish_session(self, user_id: str, session_id: str) -> Any:
    service, app = self.runner.session_service, self.runner.app_name
    try:
      session = None
      if self.keep_sessions:
        session = await service.get_session(app_name=app, user_id=user_id, session_id=session_id)
      # Dropping finished sessions keeps memory flat in the number of cases.
      await service.delete_session(app_name=app, user_id=user_id, session_id=session_id)
      return session
    except Exception:  # cleanup trouble never fails a case
      return None


def plan_jobs(cases: list[EvalCase], num_runs: int, skip: Container[tuple[int, str]] = ()) -> Iterator[Job]:
  """(run, index in the eval set, case) of every case run still to do, ordered by run then case, made lazily."""
  for run in range(num_runs):
    for i, case in enumerate(cases):
      if (run, case.eval_id) not in skip:
        yield run, i, case


Job = tuple[int, int, EvalCase]
ResultSink = Callable[[EvalCaseResult, int], Any]
"""Takes each finished case run and its index in the eval set; may be async (awaited before the next job)."""


async def run_cases(case_runner: CaseRunner, cases: list[EvalCase], *, num_runs: int = 1, concurrency: int = 8,
                    progress: Any = None, sink: Optional[ResultSink] = None,
                    skip: Container[tuple[int, str]] = ()) -> list[EvalCaseResult]:
  """Runs every case `num_runs` times with at most `concurrency` at once.

  With a `sink`, each result goes to `sink(result, index)` as it finishes and nothing is kept (memory
  stays flat; the return value is empty); without, the results come back ordered by run, then case.
  Case runs whose (run, eval_id) is in `skip` are not run.
  """
  if num_runs < 1:
    raise ValueError(f"num_runs must be at least 1, got {num_runs}.")
  kept: list[tuple[int, int, EvalCaseResult]] = []

  def keep(result: EvalCaseResult, index: int) -> None:
    kept.append((result.run, index, result))

  await run_jobs(case_runner, plan_jobs(cases, num_runs, skip), concurrency=concurrency, progress=progress,
                 sink=sink or keep)
  return [r for _, _, r in sorted(kept, key=lambda k: k[:2])]


async def run_jobs(case_runner: CaseRunner, jobs: Iterator[Job], *, concurrency: int, progress: Any = None,
                   sink: ResultSink) -> None:
  """Runs the jobs with at most `concurrency` at once, handing each result to `sink` (awaited if async)."""
  if concurrency < 1:
    raise ValueError(f"concurrency must be at least 1, got {concurrency}.")

  async def worker() -> None:
    for run, i, case in jobs:  # one shared iterator: each job is taken by exactly one worker
      result = await case_runner.run(case, run)
      written = sink(result, i)
      if inspect.isawaitable(written):
        await written
      if progress is not None:
        progress.advance(case_status(result))

  await asyncio.gather(*[worker() for _ in range(concurrency)])


def runner_for(agent: Any, app_name: Optional[str]) -> Any:
  """A Runner with fresh in-memory sessions for an agent or App (a Runner is used as it is)."""
  from ..apps.app import App
  from ..runners import Runner
  from ..sessions.in_memory_session_service import InMemorySessionService

  if isinstance(agent, Runner):
    return agent
  if isinstance(agent, App):
    return Runner(app=agent, session_service=InMemorySessionService())
  if not hasattr(agent, "run_async"):
    raise TypeError(f"evaluate() needs an agent, an App, a Runner or an agent folder / module name, "
                    f"got {type(agent).__name__}.")
  return Runner(agent=agent, app_name=app_name or getattr(agent, "name", "eval_app"),
                session_service=InMemorySessionService())
