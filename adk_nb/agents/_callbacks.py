"""Callback lists: normalisation, signature checks at construction, and invocation."""

from __future__ import annotations

import inspect
from typing import Any, Callable, Optional, Sequence, Union

from ..errors import codes
from ..errors.adk_nb_error import AdkNbError

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


async def run_hooks(plugin_manager: Any, plugin_hook: str, callbacks: tuple, kind: str,
                    plugin_kwargs: Optional[dict[str, Any]] = None, **kwargs: Any) -> Optional[Any]:
  """Plugins' hook first, then the agent's callbacks; the first non-None result wins.

  A callback that raises is re-raised as CallbackError naming it. `plugin_kwargs` lets a
  plugin hook take differently named arguments (ADK's plugins say `tool_args`, callbacks `args`).
  """
  if plugin_manager is not None and plugin_manager.has(plugin_hook):
    out = await plugin_manager.run(plugin_hook, **(plugin_kwargs if plugin_kwargs is not None else kwargs))
    if out is not None:
      return out
  for cb in callbacks:
    try:
      out = await call(cb, **kwargs)
    except Exception as exc:
      raise CallbackError(kind, cb, exc) from exc
    if out is not None:
      return out
  return None


class CallbackError(AdkNbError, RuntimeError):
  """A user callback raised; the message names the callback."""

  error_code = codes.CALLBACK_ERROR

  def __init__(self, kind: str, cb: Callable[..., Any], error: BaseException):
    name = getattr(cb, "__qualname__", None) or getattr(cb, "__name__", repr(cb))
    self.kind = kind
    self.callback_name = name
    self.error = error
    super().__init__(f"{kind} `{name}` raised {type(error).__name__}: {error}")
