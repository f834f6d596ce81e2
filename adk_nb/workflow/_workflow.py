"""Workflow: a graph of nodes (functions, agents, other workflows) wired by `edges`."""

from __future__ import annotations

import logging
from typing import Any, AsyncGenerator, ClassVar, Optional

from pydantic import Field, model_validator

from ..agents.base_agent import BaseAgent
from ..agents.context import Context
from ..agents.invocation_context import InvocationContext
from ..events.event import Event
from . import _checkpoint
from ._graph import Graph
from ._scheduler import GraphResult, Scheduler
from ._values import validate as _validate

logger = logging.getLogger("adk_nb.workflow")


class Workflow(BaseAgent):
  """Runs a graph: each node's output is the input of the nodes its edges lead to.

  `edges` is a list of chains such as `("START", classify, {"long": summarize, DEFAULT_ROUTE:
  passthrough})`, fan-outs `(split, (a, b, c), JoinNode(name="join"))` and `Edge` objects. Run it
  like any agent: `Runner(agent=workflow, ...)`, `InMemoryRunner(workflow)`, or as a node of
  another workflow. Branches after a fan-out run concurrently. A node that yields
  `RequestInput` pauses the invocation; answering it resumes the same invocation, and nodes
  that already completed are not run again. The checkpoint a pause leaves (the scheduler's
  state, read by the resume) is committed to the session but not yielded, so a client sees
  what google-adk shows; a resumable app (`App.resumability_config`) yields it.

  As in google-adk 2.13, no agent callbacks run for the Workflow itself (its own
  before/after_agent_callback, plugins' before/after_agent_callback); its agent nodes get theirs.

  Beyond google-adk 2.13: a loop is capped by `max_iterations` runs per node and invocation;
  a JoinNode that can never fire and (with `strict_routes`) an unmatched route are errors;
  a synchronous function node runs on a worker thread while other nodes run, so it does not
  stall them; a node stops at its `RequestInput`.
  """

  _is_workflow_node: ClassVar[bool] = True
  step_kind: ClassVar[str] = "workflow"

  edges: list[Any] = Field(default_factory=list)
  """Chains of node-likes, fan-out tuples, routing maps {route: node}, or Edge objects."""
  max_concurrency: Optional[int] = None
  """How many graph nodes may run at once (None or <= 0: no limit)."""
  max_iterations: Optional[int] = 1000
  """How many times one node may run in one invocation (loops); None for no cap."""
  strict_routes: bool = False
  """Raise WorkflowDataError when a route matches no edge (default: a warning, and the branch ends)."""
  rerun_on_resume: bool = True
  graph: Optional[Graph] = None
  """The graph built from `edges` (google-adk's `Graph`: `nodes`, `edges`); or pass a Graph instead of edges."""
  state_schema: Any = None
  """A pydantic model naming the state keys nodes read; function node parameters are checked against it."""

  @model_validator(mode="before")
  @classmethod
  def _no_sub_agents(cls, data: Any) -> Any:
    if isinstance(data, dict) and data.get("sub_agents"):
      raise ValueError(
          "Workflow has no sub_agents: put agents in edges, e.g. edges=[('START', agent_a, agent_b)]."
      )
    return data

  def model_post_init(self, __context: Any) -> None:
    super().model_post_init(__context)
    if self.before_agent_callback or self.after_agent_callback:
      logger.warning(
          "Workflow %r: before_agent_callback / after_agent_callback are never called for a Workflow (as in "
          "google-adk 2.13, which drops them). Put the code in a node (e.g. a first or last function node), "
          "on an agent node's own callbacks, or in a plugin's before_run_callback / after_run_callback.",
          self.name)
    if self.edges and self.graph is None:
      self.graph = Graph.from_edge_items(self.edges)
      self.graph.validate_graph()
    elif self.graph is not None:
      # A Graph passed in is checked too (google-adk 2.13 runs it unchecked), but left as given: as
      # in google-adk, unless its owner called validate_graph() it has no terminal nodes, so the
      # workflow has no output of its own.
      from .utils._graph_validation import validate_graph

      validate_graph(self.graph.nodes, self.graph.edges)
    graph = self.graph.compiled() if self.graph is not None else None
    object.__setattr__(self, "_graph", graph)
    if graph is None:
      return
    for node in graph.nodes.values():
      if isinstance(node, BaseAgent) and node.parent_agent is None:
        node.parent_agent = self  # the resume of a pause inside the node enters through this workflow
    if self.state_schema is not None:
      fields = set(getattr(self.state_schema, "model_fields", {}))
      for node in graph.nodes.values():
        names = getattr(node, "_state_parameter_names", None)
        missing = [n for n in (names() if names else []) if n not in fields]
        if missing:
          from ..sessions.state import StateSchemaError

          raise StateSchemaError(
              f"Node {node.name!r} reads state keys {missing} that state_schema "
              f"{self.state_schema.__name__} does not declare; add them to the schema or rename the parameters."
          )

  def find_sub_agent(self, name: str) -> Optional[BaseAgent]:
    if self._graph is None:
      return None
    for node in self._graph.nodes.values():
      if isinstance(node, BaseAgent):
        found = node.find_agent(name)
        if found is not None:
          return found
    return None

  def resume_entry(self, session: Any, invocation_id: str, paused: Any) -> tuple[BaseAgent, Optional[str]]:
    """A paused run of this workflow resumes here, whichever node (static, nested or started by
    `ctx.run_node`) asked: the scheduler restores its checkpoint and walks down to it.

    Only the paused invocation's own events are read (newest first), so finding the entry does
    not depend on how long the session is.
    """
    path = f"{self.name}@1"
    for event in _checkpoint.invocation_events(session.events, invocation_id)[::-1]:
      state = event.actions.agent_state
      if state is not None and state.get("workflow") == path and event.author == self.name:
        if state.get("status") == "paused":
          return self, event.branch
        break
    return super().resume_entry(session, invocation_id, paused)

  async def _handle_before_agent(self, ctx: InvocationContext) -> Optional[Event]:
    return None  # as google-adk 2.13 (a Workflow is a node there): no agent callbacks, plugins' included

  async def _handle_after_agent(self, ctx: InvocationContext) -> Optional[Event]:
    return None

  def _iter_static_children(self):
    return iter(() if self._graph is None else [n for n in self._graph.nodes.values() if n.name != "__START__"])

  async def _run_async_impl(self, ctx: InvocationContext) -> AsyncGenerator[Event, None]:
    node_input = ctx.user_content
    if ctx.user_content is None or any(p.function_response for p in ctx.user_content.parts or []):
      events = _checkpoint.invocation_events(ctx.session.events, ctx.invocation_id)
      node_input = _checkpoint.original_user_content(events)
      if node_input is not None and ctx.user_content is not None:
        # As google-adk: an invocation resumed by an answer has its first message as user content. (A
        # continuation with no message keeps None: time travel's replay of recorded runs reads that.)
        ctx.user_content = node_input
    result = GraphResult()
    async for event in self._graph_events(ctx, f"{self.name}@1", node_input, result, None):
      yield event
    if result.interrupts:
      ctx.pause()
    elif result.has_output and self.output_schema is not None:
      _validate(self.output_schema, result.output)  # an invalid output fails the run

  async def _graph_events(self, ic: InvocationContext, path: str, node_input: Any, result: GraphResult,
                          parent_ctx: Optional[Context], also_output_for: tuple[str, ...] = ()
                          ) -> AsyncGenerator[Event, None]:
    if self._graph is None:
      return
    scheduler = Scheduler(self, ic, path, node_input, result, parent_ctx, also_output_for)
    async for event in scheduler.run():
      yield event
