"""What an agent sends to a model: history, system instruction, tools, config."""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any, Optional

from google.genai import types
from pydantic import BaseModel, ConfigDict, Field

from ..utils.trusted import trusted

if TYPE_CHECKING:
  from ..tools.base_tool import BaseTool

logger = logging.getLogger("adk_nb.models")


def _split_instruction_content(content: types.Content) -> tuple[list[str], list[types.Content]]:
  """The instruction texts of a Content, with a named reference for each data part, and a
  user content per data part that carries the data itself."""
  texts: list[str] = []
  carried: list[types.Content] = []
  for part in content.parts or []:
    if part.text:
      texts.append(part.text)
      continue
    data = part.inline_data or part.file_data
    if data is None:
      continue
    kind = "inline_data" if part.inline_data is not None else "file_data"
    ref = f"{kind}_{len(carried)}"
    details = [f"'{data.display_name}'"] if data.display_name else []
    if kind == "file_data" and data.file_uri:
      details.append(f"URI: {data.file_uri}")
    if data.mime_type:
      details.append(f"type: {data.mime_type}")
    suffix = f" ({', '.join(details)})" if details else ""
    label = "inline binary data" if kind == "inline_data" else "file data"
    texts.append(f"[Reference to {label}: {ref}{suffix}]")
    noun = "inline data" if kind == "inline_data" else "file data"
    carried.append(types.Content(role="user", parts=[types.Part(text=f"Referenced {noun}: {ref}"), part]))
  return texts, carried


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
  cache_config: Optional[Any] = None
  """The app's ContextCacheConfig, when context caching is on."""
  cache_metadata: Optional[Any] = None
  """The cache state found on this agent's latest event (a CacheMetadata)."""
  cacheable_contents_token_count: Optional[int] = None
  """The prompt token count of this agent's previous model call (decides whether a cache is worth making)."""

  def append_instructions(self, instructions: "list[str] | types.Content") -> list[types.Content]:
    """Adds to the system instruction (a string), each piece separated by a blank line.

    `instructions` is a list of strings, or a Content (e.g. a static instruction): its text
    parts are added, and each inline or file data part is named in the instruction
    (`[Reference to inline binary data: inline_data_0 (type: image/png)]`) and sent as a user
    content holding the data, as google-adk does. Returns those user contents (they are also
    appended to `contents`). A bare string is refused: wrap it in a list.
    """
    if isinstance(instructions, types.Content):
      texts, extra = _split_instruction_content(instructions)
    elif isinstance(instructions, list) and all(isinstance(i, str) for i in instructions):
      texts, extra = [i for i in instructions if i], []
    else:
      raise TypeError(
          f"append_instructions takes a list of strings or a types.Content, not {type(instructions).__name__}; "
          "wrap a single string in a list: append_instructions([text])."
      )
    if texts:
      text = "\n\n".join(texts)
      current = self.config.system_instruction
      if not current:
        self.config.system_instruction = text
      elif isinstance(current, str):
        self.config.system_instruction = current + "\n\n" + text
      else:
        logger.warning("system_instruction is a %s, which instructions cannot be added to; set it to a string.",
                       type(current).__name__)
    if extra:
      self.contents.extend(extra)
    return extra

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
    # The declarations are the tools' own, validated when made: the Tool around them needs no check.
    self.config.tools.append(trusted(types.Tool, function_declarations=declarations))

  def set_output_schema(self, output_schema: Any = None, *, base_model: Any = None) -> None:
    """Asks the model for JSON of `output_schema`: a pydantic model class, `list[Model]`, `list[str]`,
    a JSON-schema dict or a `types.Schema` (sent as `response_schema` as given, as google-adk does).
    `base_model=` is google-adk's older keyword for the same."""
    schema = output_schema if output_schema is not None else base_model
    if schema is None:
      raise ValueError("set_output_schema needs a schema: set_output_schema(MyModel) (or list[str], a JSON-schema "
                       "dict, a types.Schema).")
    self.config.response_schema = schema
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
