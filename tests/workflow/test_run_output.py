"""What a person reads as a workflow run's answer: the output of its terminal node (`reply_text`)."""

from adk_nb import InMemoryRunner, Workflow
from adk_nb.events import RequestInput
from adk_nb.events.protocol import reply_text
from adk_nb.testing import run_turn


def shout(node_input: str):
  return node_input.upper()


def count(node_input: str):
  return {"letters": len(node_input)}


async def test_the_terminal_output_of_the_root_workflow_is_the_reply_and_inner_outputs_are_not():
  inner = Workflow(name="inner", edges=[("START", shout, count)])
  outer = Workflow(name="outer", edges=[("START", inner)])
  events = await run_turn(InMemoryRunner(outer, app_name="app"), "otters")
  replies = [(e.node_info.path, reply_text(e)) for e in events if reply_text(e)]
  # shout@1's output is no reply; count@1 ends inner, which ends outer: that output is the run's.
  assert replies == [("outer@1/inner@1/count@1", '{"letters": 6}')]
  assert reply_text(events[0]) is None  # the user's own message


def test_live_run_final_text_shows_a_function_only_workflows_output():
  import adk_nb.notebook as nb

  run = nb.run(Workflow(name="wf", edges=[("START", shout)]), "hello", store="memory://")
  assert run.status == "done" and run.final_text == "HELLO"


def test_live_run_final_text_after_a_workflow_resumes():
  import adk_nb.notebook as nb

  async def ask(node_input: str):
    yield RequestInput(interrupt_id="go-ahead", message="Shout it?")

  def finish(node_input: dict):
    return f"answer: {node_input['ok']}"

  run = nb.run(Workflow(name="wf", edges=[("START", ask, finish)]), "hi", store="memory://")
  assert run.status == "paused" and run.final_text == ""
  run.respond({"ok": "yes"})
  assert run.status == "done" and run.final_text == "answer: yes"


async def test_a_content_output_is_parsed_by_the_nodes_output_schema():
  from google.genai import types
  from pydantic import BaseModel

  from adk_nb.workflow import BaseNode

  class Person(BaseModel):
    name: str
    age: int

  class Reply(BaseNode):
    async def _run_impl(self, *, ctx, node_input):
      yield types.Content(role="model", parts=[types.Part(text='{"name": "Alice", "age": 30}')])

  events = await run_turn(InMemoryRunner(Workflow(name="wf", edges=[("START", Reply(name="reply", output_schema=Person))]),
                                         app_name="app"), "go")
  assert [e.output for e in events if e.output is not None] == [{"name": "Alice", "age": 30}]
