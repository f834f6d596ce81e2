"""OpenTelemetry tracing of runs: invocations, agents, model calls and tool calls.

Spans follow the OpenTelemetry GenAI semantic conventions (`invoke_agent {name}`,
`generate_content {model}`, `execute_tool {name}`, with `gen_ai.*` attributes), as google-adk's do.
Tracing costs nothing unless `opentelemetry` is installed and a tracer provider is configured
(`trace.set_tracer_provider(...)`), or `ADK_NB_TRACING=1` forces the global tracer.
"""

from .tracing import agent_span, enabled, invocation_span, model_span, tool_span

__all__ = ["agent_span", "enabled", "invocation_span", "model_span", "tool_span"]
