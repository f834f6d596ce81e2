"""EvalResults: what an eval run produced, as ADK's EvalSetResult plus pandas frames, comparisons and charts.

The object itself is light (no pandas at import, case results read from the run's result
store on demand); `cases`, `turns`, `tool_calls`, `metrics` and `runs` build DataFrames on
first use, `plot()` builds plotly figures.
"""

from __future__ import annotations

import functools
import json
import statistics
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Iterator, Optional, Union

from .eval_config import EvalConfig
from .eval_metrics import EvalStatus
from .eval_result import EvalCaseResult, EvalSetResult
from .result_store import ResultStore, case_status


class StoredCaseResults(Sequence[EvalCaseResult]):
  """The case results of a stored run, read from its file one at a time (nothing is kept in memory).

  Indexing and iterating parse each case again; mutate a copy, not these.
  """

  def __init__(self, store: ResultStore, criteria: dict[str, Any], sessions: Optional[dict] = None):
    self._store, self._criteria, self._sessions = store, criteria, sessions or {}

  def _parse(self, text: str) -> EvalCaseResult:
    result = EvalCaseResult.model_validate_json(text)
    # Every result of a metric shares the configured criterion (its own type, one object), as in a live run.
    for m in result.overall_eval_metric_results:
      m.criterion = self._criteria.get(m.metric_name, m.criterion)
    for turn in result.eval_metric_result_per_invocation:
      for m in turn.eval_metric_results:
        m.criterion = self._criteria.get(m.metric_name, m.criterion)
    result.session_details = self._sessions.get((result.run, result.eval_id))
    return result

  def __len__(self) -> int:
    return len(self._store)

  def __iter__(self) -> Iterator[EvalCaseResult]:
    return map(self._parse, self._store.texts())

  def __getitem__(self, index):  # type: ignore[override]
    if isinstance(index, slice):
      return [self[i] for i in range(*index.indices(len(self)))]
    n = len(self)
    if index < 0:
      index += n
    if not 0 <= index < n:
      raise IndexError(f"case result {index} out of range ({n} case runs)")
    return self._parse(next(self._store.texts(limit=1, offset=index)))


class EvalResults:
  """The results of running an eval set: per case and run, per turn, per metric.

  Results of `evaluate` live in the run's result store (`run_dir`, an SQLite file written case by
  case), so memory does not grow with the number of cases; `EvalResults.open(run_id)` reads a run
  back, also while it is still running or after it was killed.

  Attributes:
    thresholds: metric name -> pass threshold (None for informational metrics).
    wall_time: seconds the whole run took (None when loaded from a file).
    label: the name charts and comparisons show.
  """

  def __init__(self, eval_set_result: Optional[EvalSetResult] = None, *,
               thresholds: Optional[dict[str, Optional[float]]] = None, wall_time: Optional[float] = None,
               label: Optional[str] = None, store: Optional[ResultStore] = None, sessions: Optional[dict] = None):
    if (eval_set_result is None) == (store is None):
      raise TypeError("EvalResults needs either an EvalSetResult or a ResultStore.")
    self._result, self._store = eval_set_result, store
    self._meta = store.meta if store is not None else {}
    if store is not None:
      self._cases: Sequence[EvalCaseResult] = StoredCaseResults(store, _criteria_of(self._meta), sessions)
      thresholds = thresholds if thresholds is not None else self._meta.get("thresholds", {})
    else:
      self._cases = eval_set_result.eval_case_results
    if thresholds is None:
      thresholds = {}
      for case in self._cases:
        for m in case.overall_eval_metric_results:
          thresholds.setdefault(m.metric_name, m.criterion.threshold if m.criterion else m.threshold)
    self.thresholds = thresholds
    self.wall_time = wall_time
    self.label = label or self.eval_set_id

  @classmethod
  def open(cls, run: Union[str, Path], root: Union[str, Path, None] = None) -> "EvalResults":
    """The results of a stored run: its run id (under `root`, default `.adk_nb/eval`) or its folder.

    Works while the run is still going (partial results) and after it was killed.
    """
    store = ResultStore.open(run, root)
    return cls(store=store, wall_time=store.meta.get("wall_time"))

  def case_events(self, eval_id: str, run: int = 0) -> Optional[list]:
    """The stored events of one case run (its session, kept with `evaluate(..., keep_sessions=True)`),
    or None when the session was not kept. `ResultsView` opens them in the event tree."""
    for case in self.case_results:
      if case.eval_id == eval_id and case.run == run:
        session = case.session_details
        events = getattr(session, "events", None)
        if events is None and isinstance(session, dict):
          events = session.get("events")
        if events is None:
          return None
        from ..events.event import Event

        return [e if isinstance(e, Event) else Event.model_validate(e) for e in events]
    raise KeyError(f"No run {run} of case {eval_id!r} in these results.")

  async def rescore(self, metrics: Any = None, *, config: Any = None, judge_model: Any = None,
                    label: Optional[str] = None) -> "EvalResults":
    """These runs scored again with other metrics or thresholds (`config={'criteria': {...}}` and/or
    `metrics=`, as `evaluate` takes them), without running the agent: new EvalResults; a run that
    ended in an error stays as it was. Await it (`await results.rescore(...)`)."""
    from ._rescore import rescore

    return await rescore(self, metrics, config=config, judge_model=judge_model, label=label)

  # ---- plain accessors ---------------------------------------------------------------------

  @property
  def eval_set_id(self) -> str:
    """The eval set that was run."""
    return self._meta["eval_set_id"] if self._store is not None else self._result.eval_set_id

  @property
  def result_name(self) -> str:
    """File-safe name of these results (the run id of a stored run)."""
    if self._store is not None:
      return self._store.run_id
    return self._result.eval_set_result_name or self._result.eval_set_result_id

  @property
  def run_dir(self) -> Optional[Path]:
    """The folder of the run's result store (None for results loaded from a JSON file)."""
    return self._store.path.parent if self._store is not None else None

  @property
  def case_results(self) -> Sequence[EvalCaseResult]:
    """Every case run, ordered by run then case (read from the result store one at a time)."""
    return self._cases

  @property
  def eval_set_result(self) -> EvalSetResult:
    """All results in ADK's EvalSetResult shape (for a stored run this loads every case into memory)."""
    if self._result is not None:
      return self._result
    return EvalSetResult(eval_set_result_id=self._meta.get("result_id", self.result_name),
                         eval_set_result_name=self.result_name, eval_set_id=self.eval_set_id,
                         eval_case_results=list(self._cases),
                         creation_timestamp=self._meta.get("finished") or self._meta.get("created") or 0.0)

  @property
  def retried(self) -> list[tuple[int, str]]:
    """(run, eval_id) of the case runs run a second time because their Ray worker died."""
    return [tuple(k) for k in self._meta.get("retried") or []]

  @property
  def metric_names(self) -> list[str]:
    """The metrics computed, in config order."""
    return list(self.thresholds)

  @property
  def passed(self) -> bool:
    """True when every case run passed."""
    c = self.counts()
    return c["passed"] == sum(c.values()) > 0

  def counts(self) -> dict[str, int]:
    """How many case runs passed, failed, errored, timed out."""
    if self._store is not None:
      return self._store.counts()
    out = {"passed": 0, "failed": 0, "error": 0, "timeout": 0, "not_evaluated": 0}
    for r in self._cases:
      out[case_status(r)] += 1
    return out

  def failures(self) -> list[str]:
    """One line per case run that did not pass, saying which metric fell short or what went wrong."""
    lines = []
    for r in self._cases:
      status = case_status(r)
      if status == "passed":
        continue
      tag = f"{r.eval_id} (run {r.run})"
      if r.error_type:
        lines.append(f"{tag}: {status}: {r.error_message}")
        continue
      bad = [m for m in r.overall_eval_metric_results if m.eval_status == EvalStatus.FAILED]
      if not bad:
        lines.append(f"{tag}: {status}: no metric produced a verdict")
      for m in bad:
        threshold = m.criterion.threshold if m.criterion else m.threshold
        lines.append(f"{tag}: {m.metric_name} = {_fmt(m.score)} < threshold {threshold}")
    return lines

  def _means(self) -> dict[str, Optional[float]]:
    if self._store is not None:
      return self._store.metric_means()
    scores: dict[str, list[float]] = {}
    for r in self._cases:
      for m in r.overall_eval_metric_results:
        if m.score is not None:
          scores.setdefault(m.metric_name, []).append(m.score)
    return {name: statistics.fmean(values) for name, values in scores.items()}

  def summary(self) -> str:
    """A few lines: counts, pass rate, mean score per metric, wall time."""
    c = self.counts()
    n = sum(c.values())
    planned = self._meta.get("planned")
    lines = [f"Eval set {self.eval_set_id!r}: {c['passed']}/{n} case runs passed"
             + (f" ({c['failed']} failed, {c['error']} error, {c['timeout']} timeout)" if n - c["passed"] else "")
             + (f" in {self.wall_time:.2f}s" if self.wall_time is not None else "")
             + (f"; {planned - n} of {planned} not run yet" if planned and planned > n else "")]
    if self.retried:
      lines.append(f"  {len(self.retried)} case runs were run again after their Ray worker died")
    means = self._means()
    for name, threshold in self.thresholds.items():
      lines.append(f"  {name}: mean {_fmt(means.get(name))}" + (f" (threshold {threshold})" if threshold is not None else ""))
    return "\n".join(lines)

  def __repr__(self) -> str:
    return f"<EvalResults {self.summary()}>"

  # ---- files -------------------------------------------------------------------------------

  def save(self, path: Union[str, Path]) -> Path:
    """Writes the results as ADK's EvalSetResult JSON (`*.evalset_result.json`), loadable by `load`.

    Cases are written one at a time, so saving a large stored run does not load it into memory.
    """
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    if self._result is not None:
      path.write_text(self._result.model_dump_json(indent=2, exclude_none=True), encoding="utf-8")
      return path
    head = EvalSetResult(eval_set_result_id=self._meta.get("result_id", self.result_name),
                         eval_set_result_name=self.result_name, eval_set_id=self.eval_set_id,
                         creation_timestamp=self._meta.get("finished") or self._meta.get("created") or 0.0)
    fields = json.loads(head.model_dump_json(exclude_none=True))
    del fields["eval_case_results"]
    with path.open("w", encoding="utf-8") as f:
      f.write(json.dumps(fields, indent=2)[:-2] + ',\n  "eval_case_results": [')
      for i, text in enumerate(self._store.texts()):
        f.write(("," if i else "") + "\n    " + text)
      f.write("\n  ]\n}\n")
    return path

  @classmethod
  def load(cls, path: Union[str, Path]) -> "EvalResults":
    """Reads results saved by `save` (or by ADK's eval history); runs are numbered in file order if unmarked."""
    text = Path(path).read_text(encoding="utf-8")
    data = json.loads(text)
    if isinstance(data, str):  # ADK once wrote results JSON-encoded twice
      data = json.loads(data)
    result = EvalSetResult.model_validate(data)
    raw_cases = data.get("eval_case_results", data.get("evalCaseResults", []))
    seen: dict[str, int] = {}
    for raw, case in zip(raw_cases, result.eval_case_results):
      if "run" not in raw:
        case.run = seen.get(case.eval_id, 0)
      seen[case.eval_id] = case.run + 1
    return cls(result, label=Path(path).name.split(".")[0])

  # ---- pandas ------------------------------------------------------------------------------

  @functools.cached_property
  def _frames(self) -> dict[str, Any]:
    from ._frames import build_frames

    return build_frames(self)

  @property
  def cases(self):
    """DataFrame, one row per case x run: status, each metric's score and pass, tools, answers, latency, tokens, error."""
    return self._frames["cases"]

  @property
  def turns(self):
    """DataFrame, one row per turn: user message, expected vs actual answer and tools, per-turn metric scores."""
    return self._frames["turns"]

  @property
  def tool_calls(self):
    """DataFrame, one row per tool call (expected and actual), with arguments and the tool's response."""
    return self._frames["tool_calls"]

  @property
  def metrics(self):
    """Long DataFrame: one row per (case, run, level, turn, metric) with score, threshold, status, passed."""
    return self._frames["metrics"]

  @property
  def runs(self):
    """DataFrame, one row per run: counts, pass rate, mean metric scores, latency."""
    return self._frames["runs"]

  def compare(self, baseline: "EvalResults"):
    """DataFrame per case: this run vs `baseline`, with score deltas and a label.

    Labels: 'regressed' (passed before, not now), 'fixed', 'still passing', 'still failing',
    'new' (case not in the baseline), 'removed'. A case passes when all its runs pass.
    """
    from ._frames import compare

    return compare(self, baseline)

  def plot(self, kind: str = "pass_rate", baseline: Optional["EvalResults"] = None):
    """A plotly go.Figure: 'pass_rate' per metric, 'scores' distributions, 'latency', or 'deltas' vs baseline."""
    from ._plots import plot

    return plot(self, kind, baseline)

  # ---- notebook ----------------------------------------------------------------------------

  def view(self, baseline: Optional["EvalResults"] = None):
    """A notebook view: summary, styled table with pass/fail (and deltas), and a case inspector."""
    from .view import ResultsView

    return ResultsView(self, baseline=baseline)

  def _repr_html_(self) -> str:
    from .view import static_html

    return static_html(self)


def _fmt(value: Optional[float]) -> str:
  return "n/a" if value is None else f"{value:.3f}"


def new_result_id(eval_set_id: str) -> tuple[str, str]:
  """(id, file-safe name) for a new EvalSetResult, in ADK's `{app}_{set}_{timestamp}` style."""
  stamp = time.time()
  rid = f"{eval_set_id}_{stamp}"
  return rid, rid.replace("/", "_")


def _criteria_of(meta: dict[str, Any]) -> dict[str, Any]:
  """Metric name -> the typed criterion object a stored run was configured with."""
  criteria = meta.get("criteria") or {}
  if not criteria:
    return {}
  return {m.metric_name: m.criterion for m in EvalConfig(criteria=criteria).eval_metrics()}
