"""Errors raised by workflow graphs: construction mistakes, run-time data mismatches, timeouts."""

from __future__ import annotations

import functools
from typing import Any

from ..errors.adk_nb_error import AdkNbError


class GraphValidationError(AdkNbError, ValueError):
  """The graph in `edges` is malformed (a cycle without routes, a duplicate node or edge, ...)."""


class WorkflowConfigurationError(AdkNbError, ValueError):
  """A node, routing map or workflow is declared in a way that cannot run."""


class WorkflowDataError(AdkNbError, ValueError):
  """A node got data it cannot use at run time (a missing state parameter, an unknown answer)."""


class WorkflowLoopLimitError(AdkNbError, RuntimeError):
  """A node ran more times in one invocation than `Workflow(max_iterations=...)` allows."""


class WorkflowStalledError(AdkNbError, RuntimeError):
  """A JoinNode was left waiting for a predecessor that can no longer run."""


class NodeInterruptedError(BaseException):
  """Unwinds a node whose `ctx.run_node` child asked for input; the workflow then pauses.

  A BaseException (not an AdkNbError) so that a node's own `except Exception` does not swallow the pause.
  """


class NodeTimeoutError(AdkNbError):
  """A node run took longer than its `timeout` (retryable through `retry_config`)."""

  def __init__(self, node_name: str, timeout: float):
    # Positional or by keyword (google-adk's `NodeTimeoutError(node_name=..., timeout=...)`).
    self.node_name = node_name
    self.timeout = timeout
    super().__init__(
        f"Node {node_name!r} timed out after {timeout} seconds; raise timeout=... on the node or add "
        "retry_config=RetryConfig(...) to try again."
    )

  def __reduce__(self):
    return (type(self), (self.node_name, self.timeout))


class NodeMayHaveRunError(AdkNbError, RuntimeError):
  """A node was started before its workflow's run was interrupted (the process stopped, the run was
  cancelled) and never finished: it may have run, so it is not run again."""

  def __init__(self, workflow: str, path: str):
    self.workflow = workflow
    self.path = path
    super().__init__(
        f"Workflow {workflow!r}: node {path!r} was started before this invocation was interrupted (the process "
        "stopped or the run was cancelled) and did not finish. It may have run, so it is not run again: check "
        "its effect, then send a new message to go on. Nodes that completed before the interruption kept "
        "their outputs; nothing else was run."
    )

  def __reduce__(self):
    return (type(self), (self.workflow, self.path))


class DynamicNodeFailError(AdkNbError):
  """What `await ctx.run_node(child)` raises when the child failed (after its retries), as in google-adk 2.x.

  `error` is the child's own exception and `error_node_path` the path of the node that raised it. The
  calling node may catch it; if it does not, its run fails with `error` itself: the workflow and the
  Runner raise the child's original exception, and its one error event is the child's.

  When the child's exception class can be subclassed, the raised object is also an instance of it
  (`except ValueError` around `ctx.run_node` keeps working); its message is google-adk's
  "Dynamic node <name> failed", and the child's exception is `e.error`.
  """

  def __init__(self, *, message: str, error: Exception, error_node_path: str) -> None:
    self.error = error
    self.error_node_path = error_node_path
    # An HTTP error's status and body, lifted so they are not lost on the way up (as google-adk does).
    self.status_code: Any = getattr(error, "status_code", getattr(error, "code", None))
    details = getattr(error, "details", None)
    if details is None and getattr(error, "response", None) is not None:
      details = getattr(error.response, "text", None)
    self.details: Any = details
    # Exception's own __init__, not super(): the child's class (a second base, see dynamic_node_failure)
    # may take other arguments.
    Exception.__init__(self, message)

  def __str__(self) -> str:
    return str(self.args[0]) if self.args else ""

  def __reduce__(self):
    return (_rebuild_failure, (self.args[0] if self.args else "", self.error, self.error_node_path))


def dynamic_node_failure(error: Exception, node_name: str, error_node_path: str) -> DynamicNodeFailError:
  """The DynamicNodeFailError `ctx.run_node` raises for a child that failed with `error`."""
  return _rebuild_failure(f"Dynamic node {node_name} failed", error, error_node_path)


def _rebuild_failure(message: str, error: Exception, error_node_path: str) -> DynamicNodeFailError:
  cls = _failure_class(type(error))
  try:
    failure = cls.__new__(cls)
    DynamicNodeFailError.__init__(failure, message=message, error=error, error_node_path=error_node_path)
  except Exception:  # an exception class with its own __new__: the plain wrapper
    failure = DynamicNodeFailError(message=message, error=error, error_node_path=error_node_path)
  return failure


@functools.lru_cache(maxsize=None)  # one class per exception class (a registry of classes, not of sessions)
def _failure_class(error_type: type) -> type:
  """DynamicNodeFailError that is also an `error_type`, or the plain class."""
  if issubclass(error_type, DynamicNodeFailError):
    return DynamicNodeFailError
  try:
    cls = type("DynamicNodeFailError", (DynamicNodeFailError, error_type), {"__module__": __name__})
  except TypeError:  # a final class (pydantic's ValidationError) or a layout clash
    return DynamicNodeFailError
  cls.__qualname__ = "DynamicNodeFailError"
  return cls
