"""`BuiltInCodeExecutor`: Gemini's own code execution tool."""

from __future__ import annotations

from typing import TYPE_CHECKING, Optional

from google.genai import types

from .base_code_executor import BaseCodeExecutor
from .code_execution_utils import CodeExecutionInput, CodeExecutionResult

if TYPE_CHECKING:
  from ..agents.invocation_context import InvocationContext
  from ..models.llm_request import LlmRequest


def is_gemini_model(model: Optional[str]) -> bool:
  """True for a Gemini model name (also as a path, 'projects/.../models/gemini-2.5-flash')."""
  return bool(model) and model.rsplit("/", 1)[-1].startswith("gemini-")


class BuiltInCodeExecutor(BaseCodeExecutor):
  """Lets a Gemini model write and run Python on Google's side (`tools: [{codeExecution: {}}]`).

  The model's answer carries the code and its output as `executable_code` and
  `code_execution_result` parts; they are kept on the event. Images the code produced are saved
  as artifacts (the part becomes "Saved as artifact: NAME."). With another model the request
  is refused before it is sent.
  """

  def execute_code(self, invocation_context: "InvocationContext",
                   code_execution_input: CodeExecutionInput) -> Optional[CodeExecutionResult]:
    return None  # the model runs the code itself

  def process_llm_request(self, llm_request: "LlmRequest") -> None:
    """Adds Gemini's code execution tool to the request; refuses a model that is not Gemini."""
    if not is_gemini_model(llm_request.model):
      raise ValueError(f"BuiltInCodeExecutor is Gemini's code execution tool and cannot be used with model "
                       f"{llm_request.model!r}; use a gemini-2.x model, or UnsafeLocalCodeExecutor to run the "
                       "model's code on this machine.")
    llm_request.config.tools = [*(llm_request.config.tools or []),
                                types.Tool(code_execution=types.ToolCodeExecution())]


__all__ = ["BuiltInCodeExecutor"]
