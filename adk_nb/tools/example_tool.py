"""`ExampleTool`: few-shot examples added to the agent's instruction (not a tool the model calls)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Union

from pydantic import TypeAdapter

from ..examples import example_util
from ..examples.base_example_provider import BaseExampleProvider
from ..examples.example import Example
from .base_tool import BaseTool

if TYPE_CHECKING:
  from ..models.llm_request import LlmRequest
  from .tool_context import ToolContext


class ExampleTool(BaseTool):
  """Puts few-shot examples in the system instruction of every model call: `tools=[ExampleTool([...])]`.

  `examples` is a list of `Example` (or dicts of that shape) or a `BaseExampleProvider`, which is
  asked with the text of the invocation's user message. Nothing is added when the invocation has
  no user message, or when a provider gets an empty query. The model is never offered a function.
  """

  def __init__(self, examples: Union[list[Example], BaseExampleProvider]):
    super().__init__(name="example_tool", description="example tool")
    if isinstance(examples, BaseExampleProvider):
      self.examples: Union[list[Example], BaseExampleProvider] = examples
    elif isinstance(examples, list):
      self.examples = TypeAdapter(list[Example]).validate_python(examples)
    else:
      raise TypeError("ExampleTool takes a list of adk_nb.examples.Example or a BaseExampleProvider, "
                      f"got {type(examples).__name__}.")

  async def run_async(self, *, args: dict[str, Any], tool_context: "ToolContext") -> Any:
    raise RuntimeError("ExampleTool only adds examples to the instruction; a model cannot call it.")

  async def process_llm_request(self, *, tool_context: "ToolContext", llm_request: "LlmRequest") -> None:
    content = tool_context.user_content
    if content is None or not content.parts:
      return
    query = " ".join(p.text for p in content.parts if p.text)
    if not query and isinstance(self.examples, BaseExampleProvider):
      return
    llm_request.append_instructions([example_util.build_example_si(self.examples, query, llm_request.model)])


__all__ = ["ExampleTool"]
