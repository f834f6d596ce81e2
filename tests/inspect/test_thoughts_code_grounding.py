"""Thoughts, model-written code and its output, search grounding, compaction: what the step model shows of them."""

from google.genai import types

from adk_nb import Agent
from adk_nb.code_executors import UnsafeLocalCodeExecutor
from adk_nb.events.event import Event
from adk_nb.events.event_actions import EventActions, EventCompaction
from adk_nb.inspect import LABELS, steps_of
from adk_nb.models import ScriptedModel
from adk_nb.models.cache_metadata import CacheMetadata
from adk_nb.notebook._static import tree_html
from adk_nb.planners import BuiltInPlanner
import adk_nb.notebook as nb

XSS = "<img src=x onerror=alert(1)>"


def by_kind(steps, kind):
  return [s for s in steps.steps.values() if s.kind == kind]


def model_event(parts, **extra):
  return Event(author="agent", invocation_id="inv1", model_version="gemini-x",
               content=types.Content(role="model", parts=parts), **extra)


def test_thoughts_are_a_folded_step_under_their_model_call_and_not_in_the_answer():
  thinking = types.ThinkingConfig(include_thoughts=True)
  model = ScriptedModel([[types.Part(text=f"Sunny means {XSS}", thought=True), "It is sunny."]])
  agent = Agent(name="thinker", model=model, planner=BuiltInPlanner(thinking_config=thinking))
  run = nb.run(agent, "Weather?", store="memory://", view=False)
  [call] = by_kind(run.steps, "model_call")
  [thought] = by_kind(run.steps, "thought")
  assert call.text == "It is sunny."
  assert thought.parent == call.id and thought.text == f"Sunny means {XSS}" and LABELS["thought"] == "thoughts"
  node = thought.as_node()
  assert node["folded"] is True and node["title"] == "thoughts"
  html = tree_html([s.as_node() for s in run.steps.steps.values()])
  assert "<img" not in html and "Sunny means &lt;img src=x" in html
  assert "<details><summary><span class='k'>thoughts</span>" in html  # folded: no 'open'


def test_local_code_and_its_output_are_one_code_step_with_a_status(tmp_path):
  model = ScriptedModel([f"Let me compute.\n```python\nprint('{XSS}', 6 * 7)\n```",
                         "```python\nraise SystemExit('boom')\n```", "It failed."])
  agent = Agent(name="coder", model=model, code_executor=UnsafeLocalCodeExecutor())
  run = nb.run(agent, "6 x 7?", store="memory://", view=False)
  ok, failed = by_kind(run.steps, "code")
  assert (ok.title, ok.text, ok.status) == ("python", f"print('{XSS}', 6 * 7)", "ok")
  assert f"{XSS} 42" in ok.result
  assert self_parent_kind(run.steps, ok) == "model_call"
  assert failed.status == "error" and "boom" in failed.result
  node = ok.as_node()
  assert node["kind"] == "code" and XSS in node["text"] and XSS in node["result"]
  html = tree_html([s.as_node() for s in run.steps.steps.values()])
  assert "<img" not in html and "&lt;img src=x onerror=alert(1)&gt;" in html


def self_parent_kind(steps, step):
  return steps.steps[step.parent].kind


def test_built_in_code_execution_parts_in_one_response():
  event = model_event([types.Part.from_executable_code(code="print(1)", language="PYTHON"),
                       types.Part.from_code_execution_result(outcome="OUTCOME_FAILED", output="Traceback: x"),
                       types.Part(text="Done.")])
  steps = steps_of([event])
  [call] = by_kind(steps, "model_call")
  [code] = by_kind(steps, "code")
  assert call.text == "Done." and code.parent == call.id
  assert (code.title, code.text, code.status, code.result) == ("python", "print(1)", "error", "Traceback: x")


def test_grounding_sources_are_links_only_for_http_and_queries_are_kept():
  grounding = types.GroundingMetadata(
      web_search_queries=["weather paris"],
      grounding_chunks=[types.GroundingChunk(web=types.GroundingChunkWeb(uri="https://a.example/x", title=XSS)),
                        types.GroundingChunk(web=types.GroundingChunkWeb(uri="javascript:alert(1)", title="bad"))])
  steps = steps_of([model_event([types.Part(text="Sunny.")], grounding_metadata=grounding)])
  [call] = by_kind(steps, "model_call")
  node = call.as_node()
  assert node["sources"] == [{"title": XSS, "href": "https://a.example/x"}, {"title": "bad", "href": ""}]
  assert node["queries"] == ["weather paris"]
  html = tree_html([node])
  assert "<a href='https://a.example/x'" in html and "&lt;img src=x" in html and "<img" not in html
  assert "javascript:" not in html.split("bad")[0].rsplit("<li>", 1)[-1]
  assert "href='javascript" not in html and "weather paris" in html


def test_compaction_is_a_marker_saying_how_many_events_it_replaced_and_cache_is_in_the_meta():
  events = [Event(author="user", invocation_id="i1", timestamp=10.0,
                  content=types.Content(role="user", parts=[types.Part(text="hi")])),
            model_event([types.Part(text="hello")], timestamp=11.0,
                        cache_metadata=CacheMetadata(fingerprint="abcdef1234", contents_count=2)),
            Event(author="user", invocation_id="i2", timestamp=12.0,
                  content=types.Content(role="user", parts=[types.Part(text="more")]))]
  summary = types.Content(role="model", parts=[types.Part(text="They greeted.")])
  events.append(Event(author="user", invocation_id="c1", timestamp=13.0, actions=EventActions(
      compaction=EventCompaction(start_timestamp=10.0, end_timestamp=11.0, compacted_content=summary))))
  steps = steps_of(events)
  [marker] = by_kind(steps, "compaction")
  assert (marker.title, marker.text, marker.parent) == ("summarised 2 events", "They greeted.", None)
  [call] = by_kind(steps, "model_call")
  assert "cache fingerprint abcdef12 (2 contents)" in call.meta()


def test_details_of_a_grounded_call_list_its_sources_and_searches():
  from adk_nb.inspect.details import step_details
  grounding = types.GroundingMetadata(
      web_search_queries=["q1"],
      grounding_chunks=[types.GroundingChunk(web=types.GroundingChunkWeb(uri="https://a.example/x", title="A"))])
  event = model_event([types.Part(text="Sunny.")], grounding_metadata=grounding)
  [call] = by_kind(steps_of([event]), "model_call")
  sections = {s["title"]: s["text"] for s in step_details(call, [event])["sections"]}
  assert sections["grounding (sources, searches)"] == "A <https://a.example/x>\nsearched: q1"


def test_a_live_run_shows_the_compaction_its_turn_triggered():
  from adk_nb.apps import App, EventsCompactionConfig
  from adk_nb.apps.llm_event_summarizer import LlmEventSummarizer
  chat = Agent(name="chat", model=ScriptedModel(lambda request: "noted"))
  app = App(name="trip", root_agent=chat, events_compaction_config=EventsCompactionConfig(
      compaction_interval=2, overlap_size=0, summarizer=LlmEventSummarizer(llm=ScriptedModel(lambda r: "Sum."))))
  first = nb.run(app, "one", store="memory://", view=False)
  assert by_kind(first.steps, "compaction") == []
  second = nb.run(app, "two", store="memory://", view=False)
  [marker] = by_kind(second.steps, "compaction")
  assert (marker.title, marker.text, marker.parent) == ("summarised 4 events", "Sum.", None)  # both turns
  # The run's own events stay as yielded: the marker is a step, not an event of the run.
  assert all(e.actions.compaction is None for e in second.events)
