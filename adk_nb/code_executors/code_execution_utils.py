"""The data a code run takes and gives (`File`, `CodeExecutionInput`, `CodeExecutionResult`) and the
part conversions between answers, runs and requests (`CodeExecutionUtils`)."""

from __future__ import annotations

import base64
import binascii
import dataclasses
from typing import Optional, Union

from google.genai import types


@dataclasses.dataclass(frozen=True)
class File:
  """A file given to or produced by a code run."""

  name: str
  """The file name with its extension, e.g. 'data.csv'."""
  content: Union[str, bytes]
  """The content: base64 text, or the raw bytes."""
  mime_type: str = "text/plain"
  """The MIME type, e.g. 'image/png'."""


@dataclasses.dataclass
class CodeExecutionInput:
  """One code run to do."""

  code: str
  """The Python source."""
  input_files: list[File] = dataclasses.field(default_factory=list)
  """Files the code may read."""
  execution_id: Optional[str] = None
  """Shared by the runs of a session when the executor is stateful."""


@dataclasses.dataclass
class CodeExecutionResult:
  """What a code run produced."""

  stdout: str = ""
  """Standard output."""
  stderr: str = ""
  """Standard error; non-empty means the run failed."""
  output_files: list[File] = dataclasses.field(default_factory=list)
  """Files the run produced (saved as artifacts)."""
  exit_code: Optional[int] = None
  """The process's exit status, when the executor has one."""


class CodeExecutionUtils:
  """Part conversions for code execution, as google-adk names them."""

  @staticmethod
  def get_encoded_file_content(data: bytes) -> bytes:
    """`data` as base64 (returned unchanged when it already is base64)."""
    try:
      if base64.b64encode(base64.b64decode(data, validate=True)) == data:
        return data
    except (binascii.Error, ValueError):
      pass
    return base64.b64encode(data)

  @staticmethod
  def extract_code_and_truncate_content(content: types.Content,
                                        code_block_delimiters: list[tuple[str, str]]) -> Optional[str]:
    """The first code block of `content`, which is cut to end with it (in place), or None.

    An `executable_code` part not followed by its result wins; otherwise the text parts are read
    as one text and the earliest block between any delimiter pair is taken; the content becomes
    the text before it plus the code as an `executable_code` part.
    """
    code, parts = find_code(content.parts or [], code_block_delimiters)
    if code is not None:
      content.parts = parts
    return code

  @staticmethod
  def build_executable_code_part(code: str) -> types.Part:
    """A Python `executable_code` part."""
    return types.Part.from_executable_code(code=code, language=types.Language.PYTHON)

  @staticmethod
  def build_code_execution_result_part(code_execution_result: CodeExecutionResult) -> types.Part:
    """The `code_execution_result` part for a run: stderr when it failed, else stdout and saved files."""
    result = code_execution_result
    if result.stderr:
      return types.Part.from_code_execution_result(outcome=types.Outcome.OUTCOME_FAILED, output=result.stderr)
    pieces = []
    if result.stdout or not result.output_files:
      pieces.append(f"Code execution result:\n{result.stdout}\n")
    if result.output_files:
      pieces.append("Saved artifacts:\n" + ",".join(f"`{f.name}`" for f in result.output_files))
    return types.Part.from_code_execution_result(outcome=types.Outcome.OUTCOME_OK, output="\n\n".join(pieces))

  @staticmethod
  def convert_code_execution_parts(content: types.Content, code_block_delimiter: tuple[str, str],
                                   execution_result_delimiters: tuple[str, str]) -> None:
    """Rewrites, in place, a trailing code part as fenced text, and a lone result part as fenced user text."""
    converted = code_parts_as_text(content, code_block_delimiter, execution_result_delimiters)
    if converted is not content:
      content.parts = converted.parts
      content.role = converted.role


def find_code(parts: list[types.Part], delimiters: list[tuple[str, str]]) -> tuple[Optional[str], list[types.Part]]:
  """(first code block, the parts cut to end with it) or (None, parts); `parts` are not changed."""
  for index, part in enumerate(parts):
    if part.executable_code is not None:
      answered = index + 1 < len(parts) and parts[index + 1].code_execution_result is not None
      if not answered:
        return part.executable_code.code, list(parts[:index + 1])
  texts = [p for p in parts if p.text]
  if not texts:
    return None, parts
  text = "\n".join(p.text for p in texts)
  best: Optional[tuple[int, int, int]] = None  # (start of block, start of code, end of code)
  for lead, trail in delimiters:
    start = text.find(lead)
    if start < 0:
      continue
    end = text.find(trail, start + len(lead))
    if end < 0:
      continue
    if best is None or start < best[0]:
      best = (start, start + len(lead), end)
  if best is None:
    return None, parts
  code = text[best[1]:best[2]]
  if not code:
    return None, parts
  cut = []
  if best[0] > 0:
    cut.append(texts[0].model_copy(update={"text": text[:best[0]]}))
  cut.append(CodeExecutionUtils.build_executable_code_part(code))
  return code, cut


def code_parts_as_text(content: types.Content, code_block_delimiter: tuple[str, str],
                       execution_result_delimiters: tuple[str, str]) -> types.Content:
  """`content`, or a converted copy: a trailing code part becomes fenced text; a content that is only
  a result becomes fenced text from the user (as the model reads a tool's output)."""
  parts = content.parts or []
  if not parts:
    return content
  last = parts[-1]
  if last.executable_code is not None:
    text = code_block_delimiter[0] + (last.executable_code.code or "") + code_block_delimiter[1]
    return content.model_copy(update={"parts": [*parts[:-1], types.Part(text=text)]})
  if len(parts) == 1 and last.code_execution_result is not None:
    output = last.code_execution_result.output
    text = "" if output is None else execution_result_delimiters[0] + output + execution_result_delimiters[1]
    return types.Content(role="user", parts=[types.Part(text=text)])
  return content


__all__ = ["CodeExecutionInput", "CodeExecutionResult", "CodeExecutionUtils", "File"]
