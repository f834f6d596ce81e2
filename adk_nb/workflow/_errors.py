"""Errors raised by workflow graphs: construction mistakes, run-time data mismatches, timeouts."""

from __future__ import annotations

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
    self.node_name = node_name
    self.timeout = timeout
    super().__init__(
        f"Node {node_name!r} did not finish within its timeout of {timeout} s; raise timeout=... on the "
        "node or add retry_config=RetryConfig(...) to try again."
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
