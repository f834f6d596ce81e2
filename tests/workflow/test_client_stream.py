"""What a client sees of a workflow that pauses: the request, as in google-adk 2.13, and not the checkpoint
adk_nb resumes from (committed to the session only, outside resumable apps). The api_server's
stream: tests/server/test_workflow_stream.py."""

from google.genai import types

from adk_nb import InMemoryRunner, Workflow
from adk_nb.events import RequestInput
from adk_nb.testing import run_turn, session_of


def approve_workflow(nested: bool = False) -> Workflow:
  def draft(node_input: str):
    return "draft of " + node_input

  async def approve(node_input):
    yield RequestInput(message="Publish?", payload={"text": node_input})

  def publish(node_input):
    return f"published: {node_input['ok']}"

  middle = Workflow(name="inner", edges=[("START", approve)]) if nested else approve
  return Workflow(name="wf", edges=[("START", draft, middle, publish)])


def records(events):
  """The workflows' own records among `events`: (author, path, status) of each checkpoint or end marker."""
  return [(e.author, e.node_info.path if e.node_info else None, (e.actions.agent_state or {}).get("status"))
          for e in events if e.actions.agent_state is not None or e.actions.end_of_agent]


async def resume(runner, first):
  [call] = [c for e in first for c in e.get_function_calls()]
  return await run_turn(runner, answer(call.id, "adk_request_input", {"ok": True}))


def answer(call_id, name, response):
  return types.Content(role="user", parts=[types.Part(function_response=types.FunctionResponse(
      id=call_id, name=name, response=response))])


async def test_a_pause_yields_the_request_only_and_the_session_keeps_the_checkpoint_it_resumes_from():
  runner = InMemoryRunner(approve_workflow(), app_name="app")
  first = await run_turn(runner, "post")
  # google-adk 2.13 yields these two on this turn (draft's output, then the request) and nothing else.
  assert [(e.node_info.path, e.output, [c.name for c in e.get_function_calls()]) for e in first[1:]] == [
      ("wf@1/draft@1", "draft of post", []), ("wf@1/approve@1", None, ["adk_request_input"])]
  assert all(e.content is not None or e.output is not None for e in first[1:])
  stored = (await session_of(runner)).events
  assert records(stored) == [("wf", "wf@1", "paused")]

  second = await resume(runner, first)
  assert records(second) == []
  assert [e.output for e in second if e.node_info and e.node_info.path == "wf@1/publish@1"] == ["published: True"]
  assert records((await session_of(runner)).events) == [("wf", "wf@1", "paused"), ("wf", "wf@1", "done")]


async def test_a_pause_inside_a_nested_workflow_shows_neither_workflows_checkpoint():
  runner = InMemoryRunner(approve_workflow(nested=True), app_name="app")
  first = await run_turn(runner, "post")
  assert records(first) == []
  assert [e.node_info.path for e in first[1:]] == ["wf@1/draft@1", "wf@1/inner@1/approve@1"]
  assert records((await session_of(runner)).events) == [("inner", "wf@1/inner@1", "paused"), ("wf", "wf@1", "paused")]

  second = await resume(runner, first)
  assert records(second) == []
  assert [e.output for e in second if e.node_info and e.node_info.path == "wf@1/publish@1"] == ["published: True"]


async def test_a_resumable_app_still_streams_the_checkpoint_as_google_adk_streams_its_own():
  # google-adk 2.13 with ResumabilityConfig(is_resumable=True) yields content-less agent_state events around the
  # request (observed: 4 on this pause turn, its `{"nodes": ...}` format); adk_nb yields its one checkpoint there.
  # (A guard for the resumable branch: on the code before the change the checkpoint was streamed everywhere.)
  from adk_nb.apps import App, ResumabilityConfig

  app = App(name="app", root_agent=approve_workflow(), resumability_config=ResumabilityConfig(is_resumable=True))
  runner = InMemoryRunner(app=app)
  first = await run_turn(runner, "post")
  assert records(first) == [("wf", "wf@1", "paused")] and first[-1].content is None
  second = await resume(runner, first)
  assert records(second) == [("wf", "wf@1", "done")]
  assert [e.output for e in second if e.node_info and e.node_info.path == "wf@1/publish@1"] == ["published: True"]
