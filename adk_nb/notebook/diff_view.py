"""Two runs side by side, drawn from `diff_runs`' frame (`diff_view(a, b)` or `DiffView(frame)`).

Static HTML (everything a model or tool produced is escaped), so it shows the same in JupyterLab,
in a saved notebook on GitHub and in nbconvert output. Rows where the runs differ are marked "≠"
(never by colour alone), and the first divergence also says so in words.
"""

from __future__ import annotations

from html import escape
from typing import Any

from ..inspect import LABELS
from ..inspect.diff import diff_runs, first_divergence


class DiffView:
  """Draws a `diff_runs` frame: step, kind, author, what run A and run B did, side by side."""

  def __init__(self, frame: Any, a_title: str = "A", b_title: str = "B"):
    self.frame = frame
    """The `diff_runs` DataFrame drawn."""
    self.a_title, self.b_title = a_title, b_title

  def _repr_html_(self) -> str:
    frame = self.frame
    first = first_divergence(frame)
    head = ("<p>The runs did the same at every step.</p>" if first is None
            else f"<p>First divergence at step {first}.</p>")
    rows = []
    for row in frame.itertuples(index=False):
      mark = "=" if row.same else "≠"
      note = " (first divergence)" if first is not None and row.step == first else ""
      rows.append(
          f"<tr><td>{row.step}</td><td title='{'same' if row.same else 'different'}'>{mark}{escape(note)}</td>"
          f"<td>{escape(LABELS.get(row.kind, row.kind))}</td><td>{escape(str(row.author))}</td>"
          f"<td><pre>{escape(str(row.a))}</pre></td><td><pre>{escape(str(row.b))}</pre></td></tr>")
    return (f"<div class='adk-nb-diff'>{head}<table><thead><tr><th>step</th><th></th><th>kind</th><th>author</th>"
            f"<th>{escape(self.a_title)}</th><th>{escape(self.b_title)}</th></tr></thead>"
            f"<tbody>{''.join(rows)}</tbody></table></div>")


def diff_view(a: Any, b: Any, a_title: str = "A", b_title: str = "B") -> DiffView:
  """`diff_runs(a, b)` drawn side by side; `.frame` holds the DataFrame."""
  return DiffView(diff_runs(a, b), a_title, b_title)
