"""google-adk 2.x's path for finish_task: `agents.llm.task._finish_task_tool`."""

from __future__ import annotations

from types import SimpleNamespace

from pydantic import BaseModel

from adk_nb.agents.llm.task._finish_task_tool import FINISH_TASK_TOOL_NAME, FinishTaskTool
from adk_nb.agents.llm_agent import LlmAgent
from adk_nb.models import ScriptedModel


class Booking(BaseModel):
  ref: str
  seats: int


async def test_finish_task_tool_at_the_2x_path_takes_task_agent_and_validates():
  agent = LlmAgent(name="booker", mode="task", output_schema=Booking, model=ScriptedModel([]))
  tool = FinishTaskTool(task_agent=agent)
  assert tool.name == FINISH_TASK_TOOL_NAME == "finish_task" and tool.output_schema is Booking
  assert set(tool._get_declaration().parameters_json_schema["properties"]) == {"ref", "seats"}
  assert await tool.run_async(args={"ref": "A1", "seats": 2}, tool_context=None) == "Task completed."
  error = (await tool.run_async(args={"ref": "A1"}, tool_context=None))["error"]
  assert "finish_task" in error and "seats" in error


def test_non_object_results_are_wrapped_under_result():
  # LlmAgent.output_schema takes pydantic models only (google-adk 2.x: any type); the tool takes any.
  tool = FinishTaskTool(task_agent=SimpleNamespace(name="counter", output_schema=list[int]))
  assert tool._wrapper_key == "result"
  assert "result" in tool._get_declaration().parameters_json_schema["properties"]
