"""Callback lists: normalisation, signature checks at construction, and invocation."""

from __future__ import annotations

import inspect
from typing import Any, Awaitable, Callable, Optional, Sequence, Union


CallbackOrList = Union[Callable[..., Any], Sequence[Callable[..., Any]], None]

# The keyword arguments ADK passes to each kind of callback.
SIGNATURES: dict[str, tuple[str, ...]] = {
    "before_agent_callback": ("callback_context",),
    "after_agent_callback": ("callback_context",),
    "before_model_callback": ("callback_context", "llm_request"),
    "after_model_callback": ("callback_context", "llm_response"),
    "on_model_error_callback": ("callback_context", "llm_request", "error"),
    "before_tool_callback": ("tool", "args", "tool_context"),
    "after_tool_callback": ("tool", "args", "tool_context", "tool_response"),
    "on_tool_error_callback": ("tool", "args", "tool_context", "error"),
}


def normalize(kind: str, value: CallbackOrList, owner: str) -> tuple[Callable[..., Any], ...]:
  """Turns a callback or list of callbacks into a tuple, checking each one's signature."""
  if value is None:
    return ()
  callbacks = list(value) if isinstance(value, (list, tuple)) else [value]
  expected = SIGNATURES[kind]
  for cb in callbacks:
    if not callable(cb):
      raise TypeError(f"{owner}: {kind} must be callable or a list of callables, got {cb!r}.")
    try:
      sig = inspect.signature(cb)
    except (TypeError, ValueError):
      continue  # builtins without a signature: trust them
    try:
      sig.bind(**{name: None for name in expected})
    except TypeError:
      name = getattr(cb, "__name__", repr(cb))
      wanted = ", ".join(expected)
      raise TypeError(
          f"{owner}: {kind} `{name}{sig}` cannot be called as `{name}({wanted})`. "
          f"Define it as `def {name}({wanted}): ...` (ADK passes these as keyword arguments)."
      ) from None
  return tuple(callbacks)


async def call(cb: Callable[..., Any], **kwargs: Any) -> Any:
  """Calls a sync or async callback with keyword arguments."""
  result = cb(**kwargs)
  if inspect.isawaitable(result):
    result = await result
  return result


async def run_chain(callbacks: tuple[Callable[..., Any], ...], **kwargs: Any) -> Optional[Any]:
  """Runs callbacks in order; the first non-None result short-circuits the rest."""
  for cb in callbacks:
    result = await call(cb, **kwargs)
    if result is not None:
      return result
  return None


async def run_hooks(plugin_manager: Any, hook: str, callbacks: tuple,
                    plugin_kwargs: Optional[dict[str, Any]] = None, **kwargs: Any) -> Optional[Any]:
  """Plugins' hook first, then the agent's callbacks; the first non-None result wins.

  A callback that raises lets its own exception through (as in ADK, so `except` clauses and
  error codes see the original class), with a note naming the callback. `plugin_kwargs` lets
  a plugin hook take differently named arguments (ADK's plugins say `tool_args`, callbacks `args`).
  """
  if plugin_manager is not None and plugin_manager.has(hook):
    try:
      out = await plugin_manager.run(hook, **(plugin_kwargs if plugin_kwargs is not None else kwargs))
    except Exception as exc:
      mark_raised_by_hook(exc)
      raise
    if out is not None:
      return out
  for cb in callbacks:
    try:
      out = await call(cb, **kwargs)
    except Exception as exc:
      name = getattr(cb, "__qualname__", None) or getattr(cb, "__name__", repr(cb))
      exc.add_note(f"(raised by {hook} `{name}`)")
      mark_raised_by_hook(exc)
      raise
    if out is not None:
      return out
  return None


_HOOK_MARK = "_adk_nb_raised_by_hook"


def mark_raised_by_hook(exc: BaseException) -> None:
  """Tags an exception as coming from a callback or plugin, so error handlers meant for the
  model or the tool (on_model_error_callback, on_tool_error_callback) let it through."""
  try:
    setattr(exc, _HOOK_MARK, True)
  except AttributeError:  # exceptions with __slots__: nothing to tag, handled as the tool's or model's
    pass


def raised_by_hook(exc: BaseException) -> bool:
  """True when a callback or plugin raised `exc` (see mark_raised_by_hook)."""
  return getattr(exc, _HOOK_MARK, False)


_ORIGIN = "_adk_nb_origin"


def mark_origin(exc: BaseException, agent_name: str, branch: Optional[str]) -> None:
  """Records the innermost agent an exception escaped from (the author of its error event)."""
  if getattr(exc, _ORIGIN, None) is None:
    try:
      setattr(exc, _ORIGIN, (agent_name, branch))
    except AttributeError:
      pass


_REPORTED = "_adk_nb_reported_in"


def mark_reported(exc: BaseException, invocation_id: str) -> None:
  """Records that an error event about `exc` was already yielded in this invocation (by the
  workflow node it escaped from), so enclosing nodes and the Runner do not report it again."""
  try:
    setattr(exc, _REPORTED, invocation_id)
  except AttributeError:
    pass


def reported_in(exc: BaseException) -> Optional[str]:
  """The invocation whose events already report `exc` (see mark_reported), if any."""
  return getattr(exc, _REPORTED, None)


def take_origin(exc: BaseException) -> Optional[tuple[str, Optional[str]]]:
  """The (agent name, branch) an exception escaped from, forgetting it (and any hook or
  reported mark), so an enclosing run (AgentTool's caller) reports the exception for its own
  agent, in its own session."""
  origin = getattr(exc, _ORIGIN, None)
  for attr in (_ORIGIN, _HOOK_MARK, _REPORTED):
    if hasattr(exc, attr):
      try:
        delattr(exc, attr)
      except AttributeError:
        pass
  return origin


# google-adk's callback type aliases (re-exported from agents.base_agent and agents.llm_agent): a
# callback or a list of callbacks; each may be sync or async and returns None to let the step run.
_Maybe = Union[Any, Awaitable[Any]]
BeforeAgentCallback = Union[Callable[..., _Maybe], list[Callable[..., _Maybe]]]
"""`(callback_context) -> Content | None`; Content skips the agent."""
AfterAgentCallback = BeforeAgentCallback
"""`(callback_context) -> Content | None`; Content is added after the agent's reply."""
BeforeModelCallback = BeforeAgentCallback
"""`(callback_context, llm_request) -> LlmResponse | None`; a response skips the model call."""
AfterModelCallback = BeforeAgentCallback
"""`(callback_context, llm_response) -> LlmResponse | None`; a response replaces the model's."""
OnModelErrorCallback = BeforeAgentCallback
"""`(callback_context, llm_request, error) -> LlmResponse | None`; a response replaces the error."""
BeforeToolCallback = BeforeAgentCallback
"""`(tool, args, tool_context) -> dict | None`; a dict skips the tool and is its result."""
AfterToolCallback = BeforeAgentCallback
"""`(tool, args, tool_context, tool_response) -> dict | None`; a dict replaces the result."""
OnToolErrorCallback = BeforeAgentCallback
"""`(tool, args, tool_context, error) -> dict | None`; a dict becomes the result instead of the error."""
InstructionProvider = Callable[..., Union[str, Awaitable[str]]]
"""`(readonly_context) -> str`: an instruction computed for each request."""
