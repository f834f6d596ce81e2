"""`tools._request_input_tool.request_input` (ADK 2.x): the model asks the user, the run pauses, the answer resumes it."""

from __future__ import annotations

from google.genai import types

from adk_nb.agents.llm_agent import LlmAgent
from adk_nb.models import ScriptedModel, call
from adk_nb.runners import InMemoryRunner
from adk_nb.testing import answer, pending, run_turn, summarize
from adk_nb.tools._request_input_tool import request_input


async def test_request_input_pauses_the_turn_until_the_user_answers():
  model = ScriptedModel([call("adk_request_input", message="Which city?"), "Booked for Paris."])
  runner = InMemoryRunner(LlmAgent(name="agent", model=model, tools=[request_input]), app_name="t")
  first = await run_turn(runner, "Book a hotel")
  assert ("agent", "call", "adk_request_input") in summarize(first)
  waiting = await pending(runner)
  assert [item.call_id for item in waiting] and waiting[0].tool == "adk_request_input"
  reply = types.Part(function_response=types.FunctionResponse(
      id=waiting[0].call_id, name="adk_request_input", response={"result": "Paris"}))
  second = await answer(runner, [reply])
  assert summarize(second)[-1] == ("agent", "text", "Booked for Paris.")
  assert model.requests[-1].contents[-1].parts[0].function_response.response == {"result": "Paris"}
  model.assert_complete()


def test_request_input_is_a_long_running_tool_named_for_the_protocol():
  declaration = request_input._get_declaration()
  assert request_input.is_long_running and declaration.name == "adk_request_input"
  schema = declaration.parameters_json_schema or declaration.parameters.model_dump(exclude_none=True)
  assert "message" in schema["properties"] and "message" in schema["required"]


def test_google_adk_2x_samples_import_paths():
  # samples/hitl/request_input_tool and samples/workflows/node_as_tool (google-adk 2.x's contributing/samples)
  from adk_nb.apps import ResumabilityConfig
  from adk_nb.apps._configs import ResumabilityConfig as from_configs
  from adk_nb.tools import request_input as exported

  assert exported is request_input and from_configs is ResumabilityConfig
