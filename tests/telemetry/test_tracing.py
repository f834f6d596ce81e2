"""OpenTelemetry spans: one per invocation, agent, model call and tool call, correctly nested."""

import pytest

from adk_nb import Agent, InMemoryRunner
from adk_nb.agents import ParallelAgent
from adk_nb.telemetry import tracing
from adk_nb.testing import ScriptedModel, call, run_turn

sdk = pytest.importorskip("opentelemetry.sdk.trace", reason="opentelemetry-sdk is not installed")
from opentelemetry.sdk.trace.export import SimpleSpanProcessor  # noqa: E402
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter  # noqa: E402


@pytest.fixture
def spans(monkeypatch):
  exporter = InMemorySpanExporter()
  provider = sdk.TracerProvider()
  provider.add_span_processor(SimpleSpanProcessor(exporter))
  monkeypatch.setenv("ADK_NB_TRACING", "1")
  monkeypatch.setattr(tracing, "_tracer", lambda: provider.get_tracer("adk_nb"))
  return exporter


def _by_name(exporter):
  return {s.name: s for s in exporter.get_finished_spans()}


async def test_a_tool_turn_is_traced_as_nested_gen_ai_spans(spans):
  def add(a: int, b: int) -> int:
    """Adds."""
    return a + b

  def boom() -> int:
    raise ValueError("nope")

  runner = InMemoryRunner(Agent(name="calc", model=ScriptedModel([[call("add", a=1, b=2), call("boom")], "3"]),
                               tools=[add, boom]), app_name="app")
  with pytest.raises(ValueError, match="nope"):  # no on_tool_error_callback: the run fails, as in ADK
    await run_turn(runner, "1+2?")
  names = [s.name for s in spans.get_finished_spans()]
  assert sorted(names) == sorted(["invocation", "invoke_agent calc", "generate_content scripted",
                                  "execute_tool add", "execute_tool boom"])
  got = _by_name(spans)
  invocation, agent, tool = got["invocation"], got["invoke_agent calc"], got["execute_tool add"]
  assert agent.parent.span_id == invocation.context.span_id
  assert tool.parent.span_id == agent.context.span_id
  assert all(s.parent.span_id == agent.context.span_id for s in spans.get_finished_spans()
             if s.name.startswith("generate_content"))
  assert tool.attributes["gen_ai.tool.name"] == "add" and tool.attributes["adk_nb.tool.response"] == '3'  # the tool's own value
  assert agent.attributes["gen_ai.agent.name"] == "calc" and agent.attributes["gen_ai.operation.name"] == "invoke_agent"
  failed = got["execute_tool boom"]
  assert not failed.status.is_ok and "nope" in failed.status.description


async def test_parallel_branches_get_their_own_agent_spans_under_the_parallel_agent(spans):
  par = ParallelAgent(name="fan", sub_agents=[Agent(name=n, model=ScriptedModel([n])) for n in ("a", "b")])
  await run_turn(InMemoryRunner(par, app_name="app"), "go")
  got = _by_name(spans)
  fan = got["invoke_agent fan"]
  assert got["invoke_agent a"].parent.span_id == fan.context.span_id
  assert got["invoke_agent b"].parent.span_id == fan.context.span_id
  assert got["invoke_agent a"].attributes["adk_nb.branch"] == "fan.a"


async def test_without_a_configured_provider_nothing_is_traced(monkeypatch):
  monkeypatch.delenv("ADK_NB_TRACING", raising=False)
  assert not tracing.enabled()  # the test suite never configures a global provider
  runner = InMemoryRunner(Agent(name="a", model=ScriptedModel(["hi"])), app_name="app")
  assert (await run_turn(runner, "hi"))[-1].text == "hi"
