"""EvalResults: what an eval run produced, as ADK's EvalSetResult plus pandas frames, comparisons and charts.

The object itself is light (no pandas at import); `cases`, `turns`, `tool_calls`,
`metrics` and `runs` build DataFrames on first use, `plot()` builds plotly figures.
"""

from __future__ import annotations

import functools
import json
import statistics
import time
from pathlib import Path
from typing import Any, Optional, Union

from .eval_metrics import EvalStatus
from .eval_result import EvalCaseResult, EvalSetResult
from ._run import case_status


class EvalResults:
  """The results of running an eval set: per case and run, per turn, per metric.

  Attributes:
    eval_set_result: the results in ADK's EvalSetResult shape (what `save` writes).
    thresholds: metric name -> pass threshold (None for informational metrics).
    wall_time: seconds the whole run took (None when loaded from a file).
  """

  def __init__(self, eval_set_result: EvalSetResult, *, thresholds: Optional[dict[str, Optional[float]]] = None,
               wall_time: Optional[float] = None, label: Optional[str] = None):
    self.eval_set_result = eval_set_result
    if thresholds is None:
      thresholds = {}
      for case in eval_set_result.eval_case_results:
        for m in case.overall_eval_metric_results:
          thresholds.setdefault(m.metric_name, m.criterion.threshold if m.criterion else m.threshold)
    self.thresholds = thresholds
    self.wall_time = wall_time
    self.label = label or eval_set_result.eval_set_id

  # ---- plain accessors ---------------------------------------------------------------------

  @property
  def case_results(self) -> list[EvalCaseResult]:
    """Every case run, ordered by run then case."""
    return self.eval_set_result.eval_case_results

  @property
  def metric_names(self) -> list[str]:
    """The metrics computed, in config order."""
    return list(self.thresholds)

  @property
  def passed(self) -> bool:
    """True when every case run passed."""
    return all(case_status(r) == "passed" for r in self.case_results) and bool(self.case_results)

  def counts(self) -> dict[str, int]:
    """How many case runs passed, failed, errored, timed out."""
    out = {"passed": 0, "failed": 0, "error": 0, "timeout": 0, "not_evaluated": 0}
    for r in self.case_results:
      out[case_status(r)] += 1
    return out

  def failures(self) -> list[str]:
    """One line per case run that did not pass, saying which metric fell short or what went wrong."""
    lines = []
    for r in self.case_results:
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

  def summary(self) -> str:
    """A few lines: counts, pass rate, mean score per metric, wall time."""
    c = self.counts()
    n = len(self.case_results)
    lines = [f"Eval set {self.eval_set_result.eval_set_id!r}: {c['passed']}/{n} case runs passed"
             + (f" ({c['failed']} failed, {c['error']} error, {c['timeout']} timeout)" if n - c["passed"] else "")
             + (f" in {self.wall_time:.2f}s" if self.wall_time is not None else "")]
    for name, threshold in self.thresholds.items():
      scores = [m.score for r in self.case_results for m in r.overall_eval_metric_results
                if m.metric_name == name and m.score is not None]
      mean = statistics.fmean(scores) if scores else None
      lines.append(f"  {name}: mean {_fmt(mean)}" + (f" (threshold {threshold})" if threshold is not None else ""))
    return "\n".join(lines)

  def __repr__(self) -> str:
    return f"<EvalResults {self.summary()}>"

  # ---- files -------------------------------------------------------------------------------

  def save(self, path: Union[str, Path]) -> Path:
    """Writes the results as ADK's EvalSetResult JSON (`*.evalset_result.json`), loadable by `load`."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(self.eval_set_result.model_dump_json(indent=2, exclude_none=True), encoding="utf-8")
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
