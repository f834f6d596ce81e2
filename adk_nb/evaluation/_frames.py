"""pandas frames of eval results (imported only when a frame is asked for)."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any, Optional

from .result_store import case_status
from .eval_case import (
  Invocation,
  content_text,
  get_all_tool_calls,
  get_all_tool_responses,
)
from .eval_metrics import EvalStatus

if TYPE_CHECKING:
  import pandas as pd


def _call_text(call) -> str:
  args = ", ".join(f"{k}={json.dumps(v, default=str)}" for k, v in (call.args or {}).items())
  return f"{call.name}({args})"


def _tools(inv: Optional[Invocation]) -> list[str]:
  return [] if inv is None else [_call_text(c) for c in get_all_tool_calls(inv.intermediate_data)]


def _tokens(inv: Invocation) -> Optional[int]:
  data = inv.intermediate_data
  events = getattr(data, "invocation_events", None) or []
  counts = [e.usage_metadata.total_token_count for e in events
            if e.usage_metadata is not None and e.usage_metadata.total_token_count is not None]
  return sum(counts) if counts else None


def _passed(status: EvalStatus):
  if status == EvalStatus.PASSED:
    return True
  if status == EvalStatus.FAILED:
    return False
  return None


def build_frames(results) -> dict[str, pd.DataFrame]:
  """The cases, turns, tool_calls, metrics and runs frames of an EvalResults."""
  import pandas as pd  # the reporting stack loads only when a frame or chart is asked for
  names = results.metric_names
  case_rows, turn_rows, call_rows, metric_rows = [], [], [], []
  for r in results.case_results:
    status = case_status(r)
    key = {"eval_set_id": r.eval_set_id, "eval_id": r.eval_id, "run": r.run}
    turns = r.eval_metric_result_per_invocation
    latency = [t.actual_invocation.duration for t in turns if t.actual_invocation.duration is not None]
    tokens = [x for x in (_tokens(t.actual_invocation) for t in turns) if x is not None]
    row = {**key, "status": status, "passed": status == "passed", "turns": len(turns)}
    overall = {m.metric_name: m for m in r.overall_eval_metric_results}
    for name in names:
      m = overall.get(name)
      row[name] = m.score if m else None
      row[f"{name}_passed"] = _passed(m.eval_status) if m else None
    last = turns[-1] if turns else None
    row.update({
        "expected_tools": [_tools(t.expected_invocation) for t in turns],
        "actual_tools": [_tools(t.actual_invocation) for t in turns],
        "expected_response": content_text(last.expected_invocation.final_response)
        if last and last.expected_invocation else None,
        "final_response": content_text(last.actual_invocation.final_response) if last else None,
        "latency_s": sum(latency) if latency else None,
        "tokens": sum(tokens) if tokens else None,
        "error": r.error_message,
        "error_type": r.error_type,
        "session_id": r.session_id,
    })
    case_rows.append(row)
    for m in r.overall_eval_metric_results:
      threshold = m.criterion.threshold if m.criterion else m.threshold
      metric_rows.append({**key, "level": "case", "turn": None, "metric": m.metric_name, "score": m.score,
                          "threshold": threshold, "status": m.eval_status.name, "passed": _passed(m.eval_status)})
    for i, t in enumerate(turns):
      a, e = t.actual_invocation, t.expected_invocation
      trow = {**key, "turn": i, "user": content_text(a.user_content),
              "expected_response": content_text(e.final_response) if e else None,
              "actual_response": content_text(a.final_response),
              "expected_tools": _tools(e), "actual_tools": _tools(a),
              "latency_s": a.duration, "tokens": _tokens(a)}
      for m in t.eval_metric_results:
        trow[m.metric_name] = m.score
        threshold = m.criterion.threshold if m.criterion else m.threshold
        metric_rows.append({**key, "level": "turn", "turn": i, "metric": m.metric_name, "score": m.score,
                            "threshold": threshold, "status": m.eval_status.name, "passed": _passed(m.eval_status),
                            "rationale": (m.details.model_extra or {}).get("rationale") if m.details else None})
      turn_rows.append(trow)
      responses = {fr.id: fr.response for fr in get_all_tool_responses(a.intermediate_data) if fr.id}
      for side, inv in (("expected", e), ("actual", a)):
        if inv is None:
          continue
        for j, c in enumerate(get_all_tool_calls(inv.intermediate_data)):
          call_rows.append({**key, "turn": i, "side": side, "index": j, "name": c.name,
                            "args": json.dumps(c.args or {}, sort_keys=True, default=str),
                            "response": json.dumps(responses[c.id], default=str) if side == "actual" and c.id in responses
                            else None})
  cases = pd.DataFrame(case_rows, columns=_case_columns(names))
  turns_df = pd.DataFrame(turn_rows)
  if turns_df.empty:
    turns_df = pd.DataFrame(columns=["eval_set_id", "eval_id", "run", "turn", "user", "expected_response",
                                     "actual_response", "expected_tools", "actual_tools", "latency_s", "tokens"])
  calls = pd.DataFrame(call_rows, columns=["eval_set_id", "eval_id", "run", "turn", "side", "index", "name", "args",
                                           "response"])
  metrics = pd.DataFrame(metric_rows, columns=["eval_set_id", "eval_id", "run", "level", "turn", "metric", "score",
                                               "threshold", "status", "passed", "rationale"])
  metrics["turn"] = metrics["turn"].astype("Int64")
  return {"cases": cases, "turns": turns_df, "tool_calls": calls, "metrics": metrics, "runs": _runs(cases, names)}


def _case_columns(names: list[str]) -> list[str]:
  cols = ["eval_set_id", "eval_id", "run", "status", "passed", "turns"]
  for n in names:
    cols += [n, f"{n}_passed"]
  return cols + ["expected_tools", "actual_tools", "expected_response", "final_response", "latency_s", "tokens",
                 "error", "error_type", "session_id"]


def _runs(cases: pd.DataFrame, names: list[str]) -> pd.DataFrame:
  import pandas as pd  # the reporting stack loads only when a frame or chart is asked for
  rows = []
  for run, group in cases.groupby("run", sort=True):
    status = group["status"]
    row = {"run": run, "cases": len(group), "passed": int((status == "passed").sum()),
           "failed": int((status == "failed").sum()), "error": int((status == "error").sum()),
           "timeout": int((status == "timeout").sum()), "pass_rate": float((status == "passed").mean())}
    for n in names:
      row[f"mean_{n}"] = pd.to_numeric(group[n], errors="coerce").mean()
    row["mean_latency_s"] = pd.to_numeric(group["latency_s"], errors="coerce").mean()
    rows.append(row)
  return pd.DataFrame(rows, columns=["run", "cases", "passed", "failed", "error", "timeout", "pass_rate"]
                      + [f"mean_{n}" for n in names] + ["mean_latency_s"])


def per_case(results) -> pd.DataFrame:
  """One row per case over its runs: pass rate, passed (all runs passed), mean score per metric."""
  import pandas as pd  # the reporting stack loads only when a frame or chart is asked for
  cases = results.cases
  if cases.empty:
    return pd.DataFrame(columns=["eval_id", "pass_rate", "passed"] + results.metric_names).set_index("eval_id")
  agg = {"pass_rate": ("passed", "mean"), "runs": ("run", "count")}
  out = cases.groupby("eval_id", sort=False).agg(**agg)
  out["passed"] = out["pass_rate"] >= 1.0
  for n in results.metric_names:
    out[n] = pd.to_numeric(cases[n], errors="coerce").groupby(cases["eval_id"], sort=False).mean()
  return out


def compare(current, baseline) -> pd.DataFrame:
  """Current vs baseline per case: pass rates, metric means, deltas and a regressed / fixed label."""
  import pandas as pd  # the reporting stack loads only when a frame or chart is asked for
  cur, base = per_case(current), per_case(baseline)
  names = list(dict.fromkeys(current.metric_names + baseline.metric_names))
  ids = list(dict.fromkeys(list(base.index) + list(cur.index)))
  rows = []
  for eval_id in ids:
    in_cur, in_base = eval_id in cur.index, eval_id in base.index
    row: dict[str, Any] = {"eval_id": eval_id}
    row["baseline_passed"] = bool(base.loc[eval_id, "passed"]) if in_base else None
    row["passed"] = bool(cur.loc[eval_id, "passed"]) if in_cur else None
    row["baseline_pass_rate"] = float(base.loc[eval_id, "pass_rate"]) if in_base else None
    row["pass_rate"] = float(cur.loc[eval_id, "pass_rate"]) if in_cur else None
    for n in names:
      b = float(base.loc[eval_id, n]) if in_base and n in base.columns and pd.notna(base.loc[eval_id, n]) else None
      c = float(cur.loc[eval_id, n]) if in_cur and n in cur.columns and pd.notna(cur.loc[eval_id, n]) else None
      row[f"{n}_baseline"], row[n] = b, c
      row[f"{n}_delta"] = c - b if b is not None and c is not None else None
    if not in_base:
      label = "new"
    elif not in_cur:
      label = "removed"
    elif row["baseline_passed"] and not row["passed"]:
      label = "regressed"
    elif not row["baseline_passed"] and row["passed"]:
      label = "fixed"
    else:
      label = "still passing" if row["passed"] else "still failing"
    row["change"] = label
    rows.append(row)
  cols = ["eval_id", "change", "baseline_passed", "passed", "baseline_pass_rate", "pass_rate"]
  for n in names:
    cols += [f"{n}_baseline", n, f"{n}_delta"]
  return pd.DataFrame(rows, columns=cols)
