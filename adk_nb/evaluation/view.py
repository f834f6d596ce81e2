"""The notebook results view: summary, a pass/fail table (with deltas against a baseline), and a case inspector.

Built on stock ipywidgets and escaped HTML. Every model or tool text goes through
`html.escape` before it reaches HTML (outputs of a running notebook are trusted, so
unescaped text could run script). The static HTML form is also the saved-notebook form.
"""

from __future__ import annotations

import html
from typing import Any

_CSS = """<style>
.adknb-eval{font-family:var(--jp-ui-font-family,sans-serif);font-size:13px}
.adknb-eval table{border-collapse:collapse;margin:4px 0}
.adknb-eval th,.adknb-eval td{border:1px solid #ddd;padding:2px 6px;text-align:left;vertical-align:top}
.adknb-eval .pass{background:#e6f4ea}.adknb-eval .fail{background:#fce8e6}.adknb-eval .err{background:#fef7e0}
.adknb-eval .up{color:#137333}.adknb-eval .down{color:#c5221f}
.adknb-eval .cols{display:flex;gap:12px}.adknb-eval .cols>div{flex:1;min-width:0}
.adknb-eval pre{white-space:pre-wrap;margin:0}
</style>"""
_STATUS_CLASS = {"passed": "pass", "failed": "fail", "error": "err", "timeout": "err"}
MAX_ROWS = 200


def _e(value: Any) -> str:
  if value is None or (isinstance(value, float) and value != value):
    return ""
  if isinstance(value, float):
    return f"{value:.3f}"
  return html.escape(str(value))


def _present(value: Any) -> bool:
  return value is not None and not (isinstance(value, float) and value != value) and value != ""


def summary_html(results) -> str:
  """The headline: counts and mean score per metric."""
  lines = results.summary().splitlines()
  return f"<div><b>{_e(lines[0])}</b><br>" + "<br>".join(_e(x.strip()) for x in lines[1:]) + "</div>"


def table_html(results, baseline=None, max_rows: int = MAX_ROWS) -> str:
  """An HTML table: one row per case run, status and metric scores coloured, deltas against `baseline`."""
  cases = results.cases
  deltas = {}
  if baseline is not None:
    cmp = results.compare(baseline).set_index("eval_id")
    deltas = cmp.to_dict("index")
  names = results.metric_names
  head = ["case", "run", "status"] + names + (["change"] if deltas else []) + ["latency s", "error"]
  rows = []
  for _, r in cases.head(max_rows).iterrows():
    cells = [f"<td>{_e(r['eval_id'])}</td>", f"<td>{_e(r['run'])}</td>",
             f"<td class='{_STATUS_CLASS.get(r['status'], '')}'>{_e(r['status'])}</td>"]
    for n in names:
      ok = r[f"{n}_passed"]
      cls = "pass" if ok is True else "fail" if ok is False else ""
      text = _e(r[n])
      d = deltas.get(r["eval_id"], {}).get(f"{n}_delta")
      if d is not None and d == d and d != 0:
        text += f" <span class='{'up' if d > 0 else 'down'}'>({d:+.3f})</span>"
      cells.append(f"<td class='{cls}'>{text}</td>")
    if deltas:
      change = deltas.get(r["eval_id"], {}).get("change", "")
      cls = "fail" if change == "regressed" else "pass" if change == "fixed" else ""
      cells.append(f"<td class='{cls}'>{_e(change)}</td>")
    cells += [f"<td>{_e(r['latency_s'])}</td>", f"<td>{_e(r['error'])}</td>"]
    rows.append("<tr>" + "".join(cells) + "</tr>")
  more = f"<div>… {len(cases) - max_rows} more rows in results.cases</div>" if len(cases) > max_rows else ""
  return ("<table><thead><tr>" + "".join(f"<th>{_e(h)}</th>" for h in head) + "</tr></thead><tbody>"
          + "".join(rows) + "</tbody></table>" + more)


def case_html(results, eval_id: str, run: int = 0) -> str:
  """Expected and actual trajectories of one case run, side by side, turn by turn."""
  turns = results.turns
  rows = turns[(turns["eval_id"] == eval_id) & (turns["run"] == run)]
  calls = results.tool_calls
  calls = calls[(calls["eval_id"] == eval_id) & (calls["run"] == run)]
  case = results.cases[(results.cases["eval_id"] == eval_id) & (results.cases["run"] == run)]
  out = [f"<h4>{_e(eval_id)} · run {_e(run)}</h4>"]
  if len(case) and _present(case.iloc[0]["error"]):
    out.append(f"<div class='err'>{_e(case.iloc[0]['error_type'])}: {_e(case.iloc[0]['error'])}</div>")
  for _, t in rows.iterrows():
    def side(name: str, response_col: str) -> str:
      sc = calls[(calls["turn"] == t["turn"]) & (calls["side"] == name)]
      tools = "".join(f"<li><code>{_e(c['name'])}</code> {_e(c['args'])}"
                      + (f" → {_e(c['response'])}" if _present(c["response"]) else "") + "</li>" for _, c in sc.iterrows())
      return (f"<div><b>{name}</b><ol>{tools or '<li><i>no tool calls</i></li>'}</ol>"
              f"<pre>{_e(t[response_col])}</pre></div>")

    scores = " · ".join(f"{_e(n)} {_e(t[n])}" for n in results.metric_names if n in t)
    out.append(f"<div><b>turn {_e(t['turn'])}</b> user: <i>{_e(t['user'])}</i> <small>{scores}</small></div>"
               f"<div class='cols'>{side('expected', 'expected_response')}{side('actual', 'actual_response')}</div>")
  return "".join(out)


def static_html(results, baseline=None) -> str:
  """The whole view as static HTML (for saved notebooks, nbconvert, GitHub)."""
  return f"<div class='adknb-eval'>{_CSS}{summary_html(results)}{table_html(results, baseline)}</div>"


def _widgets():
  import ipywidgets

  return ipywidgets


class ResultsView:
  """Live results view: summary, table, and a case picker showing expected vs actual side by side.

  Failing case runs are listed first in the picker. The picked case run's expected and actual
  trajectories show side by side, and its run opens in the event tree when its session was kept
  (`evaluate(..., keep_sessions=True)`).
  """

  def __init__(self, results, baseline=None):
    w = _widgets()
    self.results, self.baseline = results, baseline
    cases = results.cases
    order = sorted(range(len(cases)), key=lambda i: (cases.iloc[i]["status"] == "passed", i))
    options = [(f"{'✗' if cases.iloc[i]['status'] != 'passed' else '✓'} {cases.iloc[i]['eval_id']} · run "
                f"{cases.iloc[i]['run']} · {cases.iloc[i]['status']}", (cases.iloc[i]["eval_id"], int(cases.iloc[i]["run"])))
               for i in order]
    self.picker = w.Dropdown(options=options, description="case", layout=w.Layout(width="60%"))
    self.detail = w.HTML()
    self.table = w.HTML(value=f"<div class='adknb-eval'>{_CSS}{table_html(results, baseline)}</div>")
    self.header = w.HTML(value=f"<div class='adknb-eval'>{summary_html(results)}</div>")
    self.picker.observe(lambda change: self.show(*change["new"]), names="value")
    self.tree = None
    """The selected case run's event tree (None when its session was not kept)."""
    self.widget = w.VBox([self.header, self.table, self.picker, self.detail])
    if options:
      self.show(*options[0][1])

  def show(self, eval_id: str, run: int = 0) -> None:
    """Shows one case run's expected and actual trajectories, and its run in the event tree (the
    inspector every run has) when its session was kept (`evaluate(..., keep_sessions=True)`)."""
    self.detail.value = f"<div class='adknb-eval'>{_CSS}{case_html(self.results, eval_id, run)}</div>"
    events = self.results.case_events(eval_id, run)
    self.tree = None
    note = ""
    if events:
      # The notebook layer registers the viewer (adk_nb.notebook.recorded); this module never imports it.
      from ..inspect.opener import open_run

      self.tree = open_run(events, f"{eval_id} · run {run}")
      if self.tree is None:
        note = ("<div class='adknb-eval'><i>This run's events were kept: import adk_nb.notebook "
                "(or run %load_ext adk_nb) to open it in the event tree.</i></div>")
    if note:
      self.detail.value += note
    self.widget.children = [self.header, self.table, self.picker, self.detail] + ([self.tree] if self.tree else [])

  def _repr_mimebundle_(self, **kwargs: Any):
    bundle = self.widget._repr_mimebundle_(**kwargs) or {}
    bundle["text/html"] = static_html(self.results, self.baseline)
    return bundle
