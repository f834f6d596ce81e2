"""The static HTML form of the views, for nbconvert, nbviewer and GitHub (everything escaped)."""

from __future__ import annotations

from html import escape
from typing import Any, Iterable

from ._tree import to_json_text

_STYLE = (
    "<style>.adknb-static{font:13px/1.4 system-ui,sans-serif}.adknb-static details{margin-left:1em}"
    ".adknb-static pre{white-space:pre-wrap;margin:2px 0 2px 1.5em;background:#f6f6f6;padding:2px 4px}"
    ".adknb-static .k{color:#666;font-size:11px;text-transform:uppercase;margin-right:4px}"
    ".adknb-static .st{font-size:11px;margin-left:6px;color:#555}"
    ".adknb-static table{border-collapse:collapse}.adknb-static td{border:1px solid #ddd;padding:2px 6px;"
    "vertical-align:top}</style>"
)


def _children(nodes: Iterable[dict[str, Any]]) -> dict[Any, list[dict[str, Any]]]:
  out: dict[Any, list[dict[str, Any]]] = {}
  for node in nodes:
    out.setdefault(node.get("parent"), []).append(node)
  return out


def tree_html(nodes: list[dict[str, Any]], status: str = "") -> str:
  """The event tree as nested <details>, every model, tool and state text escaped."""
  kids = _children(nodes)
  parts: list[str] = []

  def walk(node: dict[str, Any]) -> None:
    parts.append("<details open><summary>")
    parts.append(f"<span class='k'>{escape(str(node.get('kind', '')))}</span>{escape(str(node.get('title', '')))}")
    if node.get("status"):
      parts.append(f"<span class='st'>[{escape(str(node['status']))}]</span>")
    if node.get("ms") is not None:
      parts.append(f"<span class='st'>{escape(str(node['ms']))} ms</span>")
    parts.append("</summary>")
    if node.get("text"):
      parts.append(f"<pre>{escape(str(node['text']))}</pre>")
    if node.get("result"):
      parts.append(f"<pre>→ {escape(str(node['result']))}</pre>")
    for child in kids.get(node["id"], []):
      walk(child)
    parts.append("</details>")

  # Nodes whose parent is unknown are shown at the top level rather than lost.
  known = {n["id"] for n in nodes}
  for node in nodes:
    if node.get("parent") is None or node.get("parent") not in known:
      walk(node)
  head = f"<div><b>adk_nb run</b> <span class='st'>{escape(status)}</span></div>" if status else ""
  return head + "".join(parts)


def state_html(scopes: dict[str, dict[str, Any]]) -> str:
  """The state scopes as a table per scope, values escaped."""
  parts = ["<table><tr>"]
  for scope in ("app", "user", "session", "temp"):
    rows = "".join(
        f"<tr><td>{escape(str(k))}</td><td><pre>{escape(to_json_text(v, indent=2))}</pre></td></tr>"
        for k, v in (scopes.get(scope) or {}).items()
    ) or "<tr><td colspan=2><i>empty</i></td></tr>"
    parts.append(f"<td><b>{scope}</b><table>{rows}</table></td>")
  parts.append("</tr></table>")
  return "".join(parts)


def pending_html(pending: list[Any]) -> str:
  """The pending confirmations and long-running calls, escaped."""
  if not pending:
    return ""
  rows = "".join(
      f"<li>{escape(item.kind)}: {escape(item.agent)} → {escape(item.tool)}"
      f"<pre>{escape(to_json_text(item.args, indent=2))}</pre>{escape(item.hint or '')}</li>"
      for item in pending
  )
  return f"<div><b>Waiting for an answer</b><ul>{rows}</ul></div>"


def run_view_html(nodes: list[dict[str, Any]], scopes: dict[str, dict[str, Any]], pending: list[Any],
                  status: str) -> str:
  """The whole RunView as static HTML."""
  return (f"<div class='adknb-static'>{_STYLE}{tree_html(nodes, status)}"
          f"<details><summary>state</summary>{state_html(scopes)}</details>{pending_html(pending)}</div>")
