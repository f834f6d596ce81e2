"""Span helpers. Agent and model spans are explicit (never "current"): they live across the
yields of async generators, where a context-variable span would leak into the caller and, with
ParallelAgent, into sibling branches. Parents are passed through the InvocationContext instead."""

from __future__ import annotations

import contextlib
import json
import os
from typing import TYPE_CHECKING, Any, Iterator, Optional

if TYPE_CHECKING:
  from ..agents.invocation_context import InvocationContext

_SPAN_KEY = "_otel_span"  # in InvocationContext.__dict__: the span of the agent running in this context
_trace: Any = None
_checked = False


def _api():
  """The opentelemetry.trace module, or None when it is not installed (checked once)."""
  global _trace, _checked
  if not _checked:
    _checked = True
    try:
      from opentelemetry import trace
    except ImportError:
      trace = None
    _trace = trace
  return _trace


def enabled() -> bool:
  """True when spans are recorded: a tracer provider is configured, or ADK_NB_TRACING=1."""
  trace = _api()
  if trace is None:
    return False
  if os.environ.get("ADK_NB_TRACING", "").lower() in ("1", "true", "yes"):
    return True
  return type(trace.get_tracer_provider()).__name__ != "ProxyTracerProvider"


def _tracer():
  return _api().get_tracer("adk_nb")


def _parent_context(ctx: Optional["InvocationContext"]):
  trace = _api()
  parent = ctx.__dict__.get(_SPAN_KEY) if ctx is not None else None
  return trace.set_span_in_context(parent) if parent is not None else None


def _short(value: Any, limit: int = 4000) -> str:
  text = value if isinstance(value, str) else json.dumps(value, default=str)
  return text if len(text) <= limit else text[:limit] + "..."


def invocation_span(ctx: "InvocationContext"):
  """Starts the span of one invocation and attaches it to `ctx`; returns it (or None) to end later."""
  if not enabled():
    return None
  span = _tracer().start_span("invocation", attributes={
      "gen_ai.conversation.id": ctx.session.id,
      "adk_nb.invocation_id": ctx.invocation_id,
      "adk_nb.app_name": ctx.app_name,
      "adk_nb.user_id": ctx.user_id,
      "adk_nb.resumed": ctx.resumed,
  })
  object.__setattr__(ctx, _SPAN_KEY, span)
  return span


def agent_span(ctx: "InvocationContext"):
  """Starts `invoke_agent {name}` under the enclosing agent's span and attaches it to `ctx`."""
  if not enabled():
    return None
  agent = ctx.agent
  span = _tracer().start_span(f"invoke_agent {agent.name}", context=_parent_context(ctx), attributes={
      "gen_ai.operation.name": "invoke_agent",
      "gen_ai.agent.name": agent.name,
      "gen_ai.agent.description": agent.description,
      "gen_ai.conversation.id": ctx.session.id,
      "adk_nb.invocation_id": ctx.invocation_id,
      "adk_nb.branch": ctx.branch or "",
  })
  object.__setattr__(ctx, _SPAN_KEY, span)
  return span


def model_span(ctx: "InvocationContext", model: str):
  """Starts `generate_content {model}` under the agent's span; end it with `end_model_span`."""
  if not enabled():
    return None
  return _tracer().start_span(f"generate_content {model}", context=_parent_context(ctx), attributes={
      "gen_ai.operation.name": "generate_content",
      "gen_ai.request.model": model,
      "gen_ai.agent.name": ctx.agent.name,
      "adk_nb.invocation_id": ctx.invocation_id,
  })


def end_model_span(span, response) -> None:
  """Records usage, finish reason and errors of the final response, then ends the span."""
  if span is None:
    return
  if response is not None:
    usage = response.usage_metadata
    if usage is not None:
      if usage.prompt_token_count is not None:
        span.set_attribute("gen_ai.usage.input_tokens", usage.prompt_token_count)
      if usage.candidates_token_count is not None:
        span.set_attribute("gen_ai.usage.output_tokens", usage.candidates_token_count)
    if response.finish_reason is not None:
      span.set_attribute("gen_ai.response.finish_reasons", [str(response.finish_reason.value)])
    if response.error_code:
      span.set_attribute("error.type", response.error_code)
      _set_error(span, response.error_message or response.error_code)
  span.end()


@contextlib.contextmanager
def tool_span(ctx: "InvocationContext", tool, call) -> Iterator[Any]:
  """`execute_tool {name}` around one tool call (a tool call never yields, so it may be current)."""
  if not enabled():
    yield None
    return
  attributes = {
      "gen_ai.operation.name": "execute_tool",
      "gen_ai.tool.name": tool.name,
      "gen_ai.tool.description": tool.description or "",
      "gen_ai.tool.call.id": call.id or "",
      "adk_nb.tool.arguments": _short(call.args or {}),
  }
  with _tracer().start_as_current_span(f"execute_tool {tool.name}", context=_parent_context(ctx),
                                       attributes=attributes, end_on_exit=True) as span:
    yield span


def record_tool_result(span, result: Any) -> None:
  """Adds the tool's answer (and an error status when it is an error answer) to its span."""
  if span is None:
    return
  span.set_attribute("adk_nb.tool.response", _short(result))
  if isinstance(result, dict) and "error" in result:
    _set_error(span, str(result["error"]))


def end_span(span, error: Optional[BaseException] = None) -> None:
  """Ends a span started by invocation_span or agent_span, recording an error if there was one."""
  if span is None:
    return
  if error is not None:
    _set_error(span, f"{type(error).__name__}: {error}")
  span.end()


def _set_error(span, message: str) -> None:
  trace = _api()
  span.set_status(trace.Status(trace.StatusCode.ERROR, message))
