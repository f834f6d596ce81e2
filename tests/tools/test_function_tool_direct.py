"""FunctionTool called directly (as google-adk tests do): the function's value as is, and the confirmation gate as in ADK."""

from pydantic import BaseModel

from adk_nb import Agent
from adk_nb.agents.invocation_context import InvocationContext
from adk_nb.sessions import InMemorySessionService
from adk_nb.tools import FunctionTool, ToolContext
from adk_nb.tools.tool_confirmation import ToolConfirmation


class Point(BaseModel):
  x: int


async def _tool_context(confirmation=None) -> ToolContext:
  service = InMemorySessionService()
  session = await service.create_session(app_name="app", user_id="u")
  ctx = InvocationContext(session_service=service, invocation_id="e-1", agent=Agent(name="a"), session=session)
  return ToolContext(ctx, function_call_id="call-1", tool_confirmation=confirmation)


async def test_run_async_returns_the_functions_value_unwrapped():
  def add(a: int, b: int) -> int:
    return a + b

  def point() -> Point:
    return Point(x=1)

  tc = await _tool_context()
  assert await FunctionTool(add).run_async(args={"a": 1, "b": 2}, tool_context=tc) == 3
  assert await FunctionTool(point).run_async(args={}, tool_context=tc) == Point(x=1)
  assert "error" in await FunctionTool(add).run_async(args={"a": 1}, tool_context=tc)  # the model can fix it


async def test_a_tool_that_requires_confirmation_asks_when_called_directly():
  ran = []

  def delete(path: str) -> dict:
    ran.append(path)
    return {"deleted": path}

  tool = FunctionTool(delete, require_confirmation=True)
  tc = await _tool_context()
  answer = await tool.run_async(args={"path": "a.txt"}, tool_context=tc)
  assert answer == {"error": "This tool call requires confirmation, please approve or reject."}
  assert list(tc.actions.requested_tool_confirmations) == ["call-1"] and tc.actions.skip_summarization
  rejected = await tool.run_async(args={"path": "a.txt"},
                                  tool_context=await _tool_context(ToolConfirmation(confirmed=False)))
  assert rejected == {"error": "This tool call is rejected."} and ran == []
  approved = await tool.run_async(args={"path": "a.txt"},
                                  tool_context=await _tool_context(ToolConfirmation(confirmed=True)))
  assert approved == {"deleted": "a.txt"} and ran == ["a.txt"]


async def test_missing_arguments_are_an_error_the_model_reads_naming_them():
  def move(x: int, y: int, speed: int = 1) -> int:
    return x + y

  answer = await FunctionTool(move).run_async(args={"speed": 2}, tool_context=await _tool_context())
  assert answer == {"error": "`move()` was called without its required parameter(s) x, y. "
                             "Call it again and pass every required parameter."}


def test_a_callable_objects_description_comes_from_its_call_method():
  class Adder:
    def __call__(self, a: int) -> int:
      """Adds one."""
      return a + 1

  assert FunctionTool(Adder()).description == "Adds one."


async def test_a_require_confirmation_predicate_gets_the_arguments_it_names_and_the_context_when_asked():
  from adk_nb.tools.tool_confirmation import confirmation_required

  tc = await _tool_context()
  seen = []

  async def by_name(amount, tool_context):
    seen.append(("named", amount, tool_context is tc))
    return amount > 100

  def by_kwargs(**kwargs):
    seen.append(("all", sorted(kwargs)))
    return False

  args = {"order_id": "A1", "amount": 250.0}
  assert await confirmation_required(by_name, args, tc) is True
  assert await confirmation_required(by_kwargs, args, tc) is False
  assert await confirmation_required(True, args, tc) is True
  assert seen == [("named", 250.0, True), ("all", ["amount", "order_id", "tool_context"])]


async def test_a_sync_tool_called_with_a_stand_in_context_runs_on_the_default_threads():
  from unittest.mock import MagicMock

  def double(x: int) -> int:
    """Doubles."""
    return 2 * x

  # Tests of user code often pass a MagicMock as tool_context: its run_config is no ToolThreadPoolConfig.
  assert await FunctionTool(double).run_async(args={"x": 4}, tool_context=MagicMock()) == 8


def test_a_long_running_tool_whose_base_declares_nothing_declares_nothing():
  from adk_nb.tools import LongRunningFunctionTool

  class Hidden(FunctionTool):
    def _get_declaration(self):
      return None  # e.g. a tool only callbacks use

  class HiddenLongRunning(LongRunningFunctionTool, Hidden):
    pass

  def wait() -> str:
    """Waits."""
    return "pending"

  assert HiddenLongRunning(wait)._get_declaration() is None
  assert LongRunningFunctionTool(wait)._get_declaration().description.startswith("Waits.\n\nNOTE: ")
