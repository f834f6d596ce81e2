"""What an agent sends to a model: history, system instruction, tools, config."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Optional

from google.genai import types
from pydantic import BaseModel, ConfigDict, Field

if TYPE_CHECKING:
  from ..tools.base_tool import BaseTool


class LlmRequest(BaseModel):
  """One request to a model.

  `contents` is a new list on every request, but the Content objects in it are shared
  with earlier requests of the same session (they are never mutated), so building a
  request does not copy the history.
  """

  model_config = ConfigDict(arbitrary_types_allowed=True, extra="forbid")

  model: Optional[str] = None
  """The model name the request is for."""
  contents: list[types.Content] = Field(default_factory=list)
  """The conversation, oldest first."""
  config: types.GenerateContentConfig = Field(default_factory=types.GenerateContentConfig)
  """System instruction, tool declarations, sampling settings, response schema."""
  tools_dict: dict[str, Any] = Field(default_factory=dict, exclude=True)
  """The tools offered, by name (not sent to the model)."""

  def append_instructions(self, instructions: list[str] | str) -> None:
    """Adds text to the system instruction, separated by a blank line."""
    if isinstance(instructions, str):
      instructions = [instructions]
    text = "\n\n".join(i for i in instructions if i)
    if not text:
      return
    current = self.config.system_instruction
    if not current:
      self.config.system_instruction = text
    elif isinstance(current, str):
      self.config.system_instruction = current + "\n\n" + text
    elif isinstance(current, types.Content):
      current.parts = list(current.parts or []) + [types.Part(text=text)]
    else:
      self.config.system_instruction = f"{current}\n\n{text}"

  def append_tools(self, tools: list["BaseTool"]) -> None:
    """Declares tools to the model and registers them by name."""
    declarations = []
    for tool in tools:
      decl = tool._get_declaration()
      if decl is not None:
        declarations.append(decl)
        self.tools_dict[tool.name] = tool
    if not declarations:
      return
    if self.config.tools is None:
      self.config.tools = []
    for t in self.config.tools:
      if isinstance(t, types.Tool) and t.function_declarations is not None:
        t.function_declarations.extend(declarations)
        return
    self.config.tools.append(types.Tool(function_declarations=declarations))

  def set_output_schema(self, base_model: type[BaseModel]) -> None:
    """Asks the model for JSON matching a pydantic model."""
    self.config.response_schema = base_model
    self.config.response_mime_type = "application/json"

  @property
  def system_instruction_text(self) -> str:
    """The system instruction as plain text ('' when unset)."""
    si = self.config.system_instruction
    if si is None:
      return ""
    if isinstance(si, str):
      return si
    if isinstance(si, types.Content):
      return "".join(p.text or "" for p in si.parts or [])
    return str(si)
