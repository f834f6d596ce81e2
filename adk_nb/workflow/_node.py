"""`node()` (decorator and factory) and `Node` (a node class with a `run_node_impl` method)."""

from __future__ import annotations

from typing import Any, AsyncGenerator, Literal, Optional

from pydantic import PrivateAttr, model_validator

from ..agents.context import Context
from ._base_node import START, BaseNode
from ._errors import WorkflowConfigurationError
from ._function_node import FunctionNode
from ._retry_config import RetryConfig
from .utils._workflow_graph_utils import build_node


def node(
    node_like: Any = None,
    *,
    name: Optional[str] = None,
    rerun_on_resume: Optional[bool] = None,
    retry_config: Optional[RetryConfig] = None,
    timeout: Optional[float] = None,
    parameter_binding: Literal["state", "node_input"] = "state",
    parallel_worker: bool = False,
    max_parallel_workers: Optional[int] = None,
    require_confirmation: Any = None,
    auth_config: Any = None,
    **unsupported: Any,
) -> Any:
  """Makes a node from a function or agent, with options. Use as `@node`, `@node(...)` or `node(f, ...)`.

  With `parallel_worker=True` the node runs once per item of a list input, concurrently (at most
  `max_parallel_workers` at a time), and outputs the list of results in order. With
  `require_confirmation` (True or a predicate) a function node asks a person to approve each
  run first (see FunctionNode). With `auth_config` a function node asks the client for that credential before
  it runs, unless state holds it (see FunctionNode.auth_config).
  """
  if unsupported:
    raise WorkflowConfigurationError(
        f"node() options not supported by adk_nb yet: {sorted(unsupported)}. Supported: name, "
        "rerun_on_resume, retry_config, timeout, parameter_binding, parallel_worker, max_parallel_workers, "
        "require_confirmation, auth_config."
    )
  if max_parallel_workers is not None and not parallel_worker:
    raise WorkflowConfigurationError(
        "max_parallel_workers can only be set when parallel_worker is True; pass parallel_worker=True or "
        "leave max_parallel_workers out."
    )
  if max_parallel_workers is not None and max_parallel_workers < 1:
    raise WorkflowConfigurationError(
        "max_parallel_workers must be greater than or equal to 1; use None for no limit."
    )

  def build(target: Any) -> BaseNode:
    options = dict(name=name, rerun_on_resume=rerun_on_resume, retry_config=retry_config, timeout=timeout)
    if callable(target) and not isinstance(target, BaseNode):
      if require_confirmation:
        options["require_confirmation"] = require_confirmation
      if auth_config is not None:
        options["auth_config"] = auth_config
      built = FunctionNode(func=target, parameter_binding=parameter_binding,
                           **{k: v for k, v in options.items() if v is not None})
    else:
      if auth_config is not None:
        raise WorkflowConfigurationError(
            f"node(auth_config=...) applies to a function, not to {type(target).__name__}; give the credential "
            "to the tools that need it (AuthenticatedFunctionTool) instead.")
      built = build_node(target, **options)
    if parallel_worker:
      from ._parallel_worker import _ParallelWorker

      return _ParallelWorker(name=built.name, description=built.description, worker=built,
                             max_parallel_workers=max_parallel_workers)
    return built

  if node_like is None:
    return build
  return build(node_like)


class Node(BaseNode):
  """A node class: subclass it and implement `run_node_impl(self, *, ctx, node_input)`.

  `run_node_impl` may return a value (the output) or be an async generator like `_run_impl`.
  With `parallel_worker=True` the node runs once per item of a list input, concurrently (at most
  `max_parallel_workers` at a time), and outputs the list of results in order, as `node(...,
  parallel_worker=True)` does for a function.
  """

  parallel_worker: bool = False
  """Run once per item of a list input (each item a `ctx.run_node` child of this node)."""
  max_parallel_workers: Optional[int] = None
  """With `parallel_worker`: how many items run at once (None: all)."""
  _inner_node: Optional[BaseNode] = PrivateAttr(default=None)

  @model_validator(mode="after")
  def _check_parallel_worker(self) -> "Node":
    if self.max_parallel_workers is not None:
      if not self.parallel_worker:
        raise WorkflowConfigurationError(
            "max_parallel_workers can only be set when parallel_worker is True; pass parallel_worker=True or "
            "leave max_parallel_workers out."
        )
      if self.max_parallel_workers < 1:
        raise WorkflowConfigurationError(
            "max_parallel_workers must be greater than or equal to 1; use None for no limit."
        )
    return self

  def model_post_init(self, context: Any) -> None:
    super().model_post_init(context)
    self._wrap_items()

  def model_copy(self, *, update: Optional[dict[str, Any]] = None, deep: bool = False) -> "Node":
    copied = super().model_copy(update=update, deep=deep)
    copied._wrap_items()
    return copied

  def _wrap_items(self) -> None:
    # The items run through a _ParallelWorker around a copy of this node that is not one itself.
    self._inner_node = None
    if self.parallel_worker:
      from ._parallel_worker import _ParallelWorker

      self._inner_node = _ParallelWorker(name=self.name, worker=self.model_copy(update={"parallel_worker": False,
                                                                                       "max_parallel_workers": None}),
                                         max_parallel_workers=self.max_parallel_workers)

  def _iter_static_children(self):
    return iter(() if self._inner_node is None else (self._inner_node,))

  async def run_node_impl(self, *, ctx: Context, node_input: Any) -> Any:
    raise NotImplementedError(f"{type(self).__name__} must implement run_node_impl(*, ctx, node_input).")

  async def _run_impl(self, *, ctx: Context, node_input: Any) -> AsyncGenerator[Any, None]:
    if self._inner_node is not None:
      async for item in self._inner_node._run_impl(ctx=ctx, node_input=node_input):
        yield item
      return
    result = self.run_node_impl(ctx=ctx, node_input=node_input)
    if hasattr(result, "__aiter__"):
      async for item in result:
        yield item
    else:
      yield await result if hasattr(result, "__await__") else result
