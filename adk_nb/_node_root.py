"""`Runner(node=...)` (ADK 2.x): what the Runner runs when it is given a node instead of an agent."""

from __future__ import annotations

from typing import Any

from .agents.base_agent import BaseAgent


def root_for_node(node: Any) -> BaseAgent:
  """The root agent that runs `node` for the Runner.

  An agent (a Workflow, an LlmAgent, any BaseAgent) is its own root. Any other node (a BaseNode
  subclass, a FunctionNode, a plain function) runs as the only node of a Workflow of the same
  name, so its events carry the node's name as author, its output is the run's output, and a
  RequestInput it yields pauses and resumes the run as inside any workflow. As in google-adk, the
  answer runs the node again with `ctx.resume_inputs` (the root node reruns on resume whatever its
  `rerun_on_resume`). Its node path is `name@1/name@1` (google-adk 2.13: `name@1`).
  """
  if isinstance(node, BaseAgent):
    return node
  from .workflow._base_node import BaseNode
  from .workflow._workflow import Workflow

  name = getattr(node, "name", None) or getattr(node, "__name__", None)
  if not isinstance(node, BaseNode) and not callable(node):
    raise TypeError(
        f"Runner(node=...) takes a node (a BaseNode, a Workflow, an agent or a function), not "
        f"{type(node).__name__}; wrap plain values in a function or pass agent=... instead."
    )
  if not isinstance(name, str) or not name.isidentifier():
    raise ValueError(f"Runner(node=...) needs a node whose name is a Python identifier, got {name!r}.")
  from .workflow._node import build_node

  return Workflow(name=name, edges=[("START", build_node(node, rerun_on_resume=True))])
