"""The static HTML form of the views, for nbconvert, nbviewer and GitHub (everything escaped)."""

from __future__ import annotations

from html import escape
from typing import Any, Iterable

from ..events.protocol import REQUEST_INPUT
from ..inspect import LABELS, STATUS_TEXT
from ..inspect.text import readable_hint, to_json_text

# JupyterLab's theme variables first (light, dark, high contrast), plain colours where they are missing
# (GitHub, nbviewer); no colour carries meaning on its own: statuses are words with a symbol.
_STYLE = (
    "<style>.adknb-static{font:13px/1.4 var(--jp-ui-font-family,system-ui,sans-serif);"
    "color:var(--jp-ui-font-color1,inherit)}.adknb-static details{margin-left:1em}"
    ".adknb-static pre{white-space:pre-wrap;margin:2px 0 2px 1.5em;background:var(--jp-layout-color2,#f6f6f6);"
    "color:var(--jp-content-font-color1,inherit);padding:2px 4px}"
    ".adknb-static .k{color:var(--jp-ui-font-color2,#666);font-size:11px;text-transform:uppercase;margin-right:4px}"
    ".adknb-static .st{font-size:11px;margin-left:6px;color:var(--jp-ui-font-color2,#555)}"
    ".adknb-static table{border-collapse:collapse}.adknb-static td{border:1px solid var(--jp-border-color2,#ddd);"
    "padding:2px 6px;vertical-align:top}</style>"
)


def _children(nodes: Iterable[dict[str, Any]]) -> dict[Any, list[dict[str, Any]]]:
  out: dict[Any, list[dict[str, Any]]] = {}
  for node in nodes:
    out.setdefault(node.get("parent"), []).append(node)
  return out


def tree_html(nodes: list[dict[str, Any]], status: str = "", title: str = "") -> str:
  """The event tree as nested <details>, with the live view's labels; every model, tool and state text escaped."""
  kids = _children(nodes)
  parts: list[str] = []

  def walk(node: dict[str, Any]) -> None:
    parts.append("<details><summary>" if node.get("folded") else "<details open><summary>")
    kind = str(node.get("kind", ""))
    parts.append(f"<span class='k'>{escape(LABELS.get(kind, kind))}</span>{escape(str(node.get('title', '')))}")
    if node.get("status"):
      parts.append(f"<span class='st'>{escape(STATUS_TEXT.get(node['status'], node['status']))}</span>")
    if node.get("ms") is not None:
      parts.append(f"<span class='st'>{escape(format_ms(node['ms']))}</span>")
    if node.get("meta"):
      parts.append(f"<span class='st'>{escape(str(node['meta']))}</span>")
    parts.append("</summary>")
    if node.get("text"):
      parts.append(f"<pre>{escape(str(node['text']))}</pre>")
    if node.get("result"):
      parts.append(f"<pre>→ {escape(str(node['result']))}</pre>")
    if node.get("sources") or node.get("queries"):
      parts.append(_grounding_html(node))
    if node.get("traceback"):
      parts.append(f"<details><summary>traceback</summary><pre>{escape(str(node['traceback']))}</pre></details>")
    for child in kids.get(node["id"], []):
      walk(child)
    parts.append("</details>")

  # Nodes whose parent is unknown are shown at the top level rather than lost.
  known = {n["id"] for n in nodes}
  for node in nodes:
    if node.get("parent") is None or node.get("parent") not in known:
      walk(node)
  head = (f"<div><b>{escape(title or 'agent run')}</b> "
          f"<span class='st'>{escape(STATUS_TEXT.get(status, status))}</span></div>") if status or title else ""
  return head + "".join(parts)


def _grounding_html(node: dict[str, Any]) -> str:
  """A grounded model call's sources (links only for http and https, as the step model allows) and searches."""
  items = []
  for source in node.get("sources") or []:
    title = escape(str(source.get("title", "")))
    href = source.get("href") or ""
    items.append(f"<li><a href='{escape(href, quote=True)}' target='_blank' rel='noopener noreferrer'>{title}</a></li>"
                 if href else f"<li>{title}</li>")
  queries = "".join(f"<li>{escape(str(q))}</li>" for q in node.get("queries") or [])
  out = f"<div class='src'>sources<ul>{''.join(items)}</ul></div>" if items else ""
  return out + (f"<div class='src'>searched<ul>{queries}</ul></div>" if queries else "")


def format_ms(ms: float) -> str:
  """A duration as people read it: '850 ms', '4.2 s' (the live view formats the same way)."""
  return f"{ms:.0f} ms" if ms < 1000 else f"{ms / 1000:.1f} s"


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
  rows = "".join(_pending_row(item) for item in pending)
  return f"<div><b>Waiting for an answer</b><ul>{rows}</ul></div>"


def _pending_row(item: Any) -> str:
  warning = "<br>⚠ may have run: an earlier run of this call was interrupted" if item.may_have_run else ""
  if item.tool == REQUEST_INPUT:
    payload = item.args.get("payload")
    shown = f"<pre>{escape(to_json_text(payload, indent=2))}</pre>" if payload is not None else ""
    return f"<li>input: {escape(item.agent)} asks: {escape(str(item.args.get('message') or ''))}{shown}</li>"
  return (f"<li>{escape(item.kind)}: {escape(item.agent)} → {escape(item.tool)}{warning}"
          f"<pre>{escape(to_json_text(item.args, indent=2))}</pre>{escape(readable_hint(item.hint))}</li>")


def run_view_html(nodes: list[dict[str, Any]], scopes: dict[str, dict[str, Any]], pending: list[Any],
                  status: str, title: str = "") -> str:
  """The whole RunView as static HTML."""
  return (f"<div class='adknb-static'>{_STYLE}{tree_html(nodes, status, title)}"
          f"<details><summary>state</summary>{state_html(scopes)}</details>{pending_html(pending)}</div>")
