"""`%agent tools AGENT` and `await tools_view(agent)`: every tool an agent's model can call, as a table.

Each row is one tool as the model sees it: its name, kind (function, agent, MCP, OpenAPI),
where it comes from, its description and parameters (from the declaration sent to the
model), and whether a call needs a person's approval. Toolsets are expanded through the
core's `adk_nb.tools.catalog.agent_tools`, so an MCP toolset opens its session as a model
call would. Every text is escaped in the HTML form.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from html import escape
from typing import Any

from ..tools.catalog import ToolInfo, agent_tools

_APPROVAL = {True: "yes", False: "no", "depends": "depends on the call"}


@dataclass
class ToolRow:
  """One tool of an agent, as the table shows it."""

  name: str
  """The name the model calls."""
  kind: str
  """'function', 'agent', 'mcp', 'openapi' or 'other'."""
  origin: str
  """Where it comes from: the function, the MCP server, the OpenAPI operation, the agent."""
  description: str
  """The description the model reads."""
  parameters: dict[str, Any]
  """The parameters' JSON schema as sent to the model ({} for none)."""
  require_confirmation: Any
  """True, False, or 'depends' when a predicate decides per call."""
  toolset: str = ""
  """The toolset it came from, when it came from one."""

  def parameter_summary(self) -> str:
    """`order_id: string, amount?: number`: required names plain, optional ones with `?`."""
    properties = self.parameters.get("properties") or {}
    required = set(self.parameters.get("required") or [])
    return ", ".join(f"{name}{'' if name in required else '?'}: {_type_of(schema)}"
                     for name, schema in properties.items())


def _type_of(schema: Any) -> str:
  if not isinstance(schema, dict):
    return "?"
  kind = schema.get("type")
  if isinstance(kind, list):
    return " | ".join(str(k).lower() for k in kind)
  if kind:
    kind = str(kind).lower()
    if kind == "array":
      return f"array of {_type_of(schema.get('items'))}"
    return kind
  if "anyOf" in schema or "any_of" in schema:
    return " | ".join(_type_of(s) for s in schema.get("anyOf") or schema.get("any_of") or [])
  return "any"


def _row(info: ToolInfo) -> ToolRow:
  declaration = info.declaration or {}
  parameters = declaration.get("parameters_json_schema") or declaration.get("parameters") or {}
  return ToolRow(name=info.name, kind=info.kind, origin=info.origin, description=declaration.get("description") or "",
                 parameters=parameters if isinstance(parameters, dict) else {},
                 require_confirmation=info.needs_approval, toolset=info.toolset or "")


class ToolsTable:
  """The tools of one agent: `rows`, `to_frame()` for pandas, and an escaped HTML table in a notebook."""

  def __init__(self, agent_name: str, rows: list[ToolRow]):
    self.agent_name = agent_name
    self.rows = rows
    """One ToolRow per tool, in the order the model sees them."""

  def to_frame(self):
    """The table as a pandas DataFrame (one row per tool)."""
    import pandas as pd

    return pd.DataFrame([{"name": r.name, "kind": r.kind, "origin": r.origin, "description": r.description,
                          "parameters": r.parameter_summary(), "require_confirmation": r.require_confirmation}
                         for r in self.rows],
                        columns=["name", "kind", "origin", "description", "parameters", "require_confirmation"])

  def __repr__(self) -> str:
    lines = [f"{self.agent_name}: {len(self.rows)} tool{'s' if len(self.rows) != 1 else ''}"]
    for r in self.rows:
      lines.append(f"  {r.name}({r.parameter_summary()}) [{r.kind}] approval: "
                   f"{_APPROVAL.get(r.require_confirmation, r.require_confirmation)}")
    return "\n".join(lines)

  def _repr_html_(self) -> str:
    if not self.rows:
      return f"<div class='adknb-tools'><b>{escape(self.agent_name)}</b> has no tools.</div>"
    head = "".join(f"<th style='text-align:left'>{h}</th>" for h in
                   ("tool", "kind", "from", "description", "parameters", "needs approval"))
    body = []
    for r in self.rows:
      schema = escape(json.dumps(r.parameters, indent=2, ensure_ascii=False))
      params = (f"<details><summary>{escape(r.parameter_summary()) or '(none)'}</summary>"
                f"<pre style='margin:0'>{schema}</pre></details>") if r.parameters else "(none)"
      origin = escape(r.origin) + (f"<br><small>{escape(r.toolset)}</small>" if r.toolset else "")
      approval = escape(str(_APPROVAL.get(r.require_confirmation, r.require_confirmation)))
      body.append(f"<tr><td><code>{escape(r.name)}</code></td><td>{escape(r.kind)}</td><td>{origin}</td>"
                  f"<td style='text-align:left'>{escape(r.description)}</td><td style='text-align:left'>{params}</td>"
                  f"<td>{approval}</td></tr>")
    return (f"<div class='adknb-tools'><b>{escape(self.agent_name)}</b>: {len(self.rows)} tools"
            f"<table><thead><tr>{head}</tr></thead><tbody>{''.join(body)}</tbody></table></div>")


async def tools_view(agent: Any) -> ToolsTable:
  """Every tool `agent`'s model can call (toolsets expanded): `await tools_view(agent)` in a cell."""
  if not hasattr(agent, "name"):
    raise TypeError(f"tools_view takes an agent, got {type(agent).__name__}; e.g. await tools_view(support).")
  return ToolsTable(agent.name, [_row(info) for info in await agent_tools(agent)])
