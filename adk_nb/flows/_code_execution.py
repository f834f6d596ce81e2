"""The code executor's steps in the LLM loop: the request (Gemini's tool, or code as text) and running
the code in an answer, with google-adk's retry and error-count rules.

An answer holding a code block (with a non-built-in executor) is not committed as such: the loop
commits the answer cut to end with the code (an `executable_code` part), runs the code on a
worker thread, commits the result (a `code_execution_result` part, the executor's state records,
saved files as artifacts) and calls the model again, which reads code and result as fenced text.
"""

from __future__ import annotations

import base64
import datetime
from typing import TYPE_CHECKING, AsyncGenerator, Optional

from google.genai import types

from ..code_executors.base_code_executor import BaseCodeExecutor, execute_off_loop
from ..code_executors.built_in_code_executor import BuiltInCodeExecutor
from ..code_executors.code_execution_utils import CodeExecutionInput, CodeExecutionUtils, code_parts_as_text, find_code
from ..code_executors.code_executor_context import ERROR_COUNTS_KEY, CodeExecutorContext
from ..events.event import Event
from ..events.event_actions import EventActions
from ..sessions.state import State
from . import _planning

if TYPE_CHECKING:
  from ..agents.invocation_context import InvocationContext
  from ..agents.llm_agent import LlmAgent
  from ..models.llm_request import LlmRequest
  from ..models.llm_response import LlmResponse


def apply_to_request(agent: "LlmAgent", request: "LlmRequest") -> None:
  """Adds Gemini's code tool, or turns earlier code and results in the history into fenced text."""
  executor = agent.code_executor
  if executor is None:
    return
  if isinstance(executor, BuiltInCodeExecutor):
    executor.process_llm_request(request)
  fence = executor.code_block_delimiters[0] if executor.code_block_delimiters else ("", "")
  # The history's Contents are shared with the session: converted ones are copies.
  request.contents = [code_parts_as_text(c, fence, executor.execution_result_delimiters)
                      for c in request.contents]


async def save_generated_images(agent: "LlmAgent", ctx: "InvocationContext",
                                response: "LlmResponse") -> tuple["LlmResponse", Optional[Event]]:
  """With Gemini's code execution: images in the answer saved as artifacts, each part replaced by
  'Saved as artifact: NAME. ', and the event that records the artifact versions.

  google-adk yields that event after every answer, empty or not; adk_nb only when it saved something.
  """
  content = response.content
  if not isinstance(agent.code_executor, BuiltInCodeExecutor):
    return response, None
  if content is None or not any(_is_image(p) for p in content.parts or []):
    return response, None
  if ctx.artifact_service is None:
    raise ValueError("BuiltInCodeExecutor produced an image but the Runner has no artifact service: pass "
                     "artifact_service=InMemoryArtifactService() to the Runner.")
  actions = EventActions()
  parts = []
  for part in content.parts:
    if not _is_image(part):
      parts.append(part)
      continue
    data = part.inline_data
    name = data.display_name or (datetime.datetime.now().astimezone().strftime("%Y%m%d_%H%M%S") + "."
                                 + data.mime_type.split("/")[-1])
    actions.artifact_delta[name] = await ctx.artifact_service.save_artifact(
        app_name=ctx.app_name, user_id=ctx.user_id, session_id=ctx.session.id, filename=name,
        artifact=types.Part.from_bytes(data=data.data, mime_type=data.mime_type))
    parts.append(types.Part(text=f"Saved as artifact: {name}. "))
  response = response.model_copy(update={"content": content.model_copy(update={"parts": parts})})
  return response, Event(invocation_id=ctx.invocation_id, author=agent.name, branch=ctx.branch, actions=actions)


def _is_image(part: types.Part) -> bool:
  return part.inline_data is not None and (part.inline_data.mime_type or "").startswith("image/")


def code_to_run(agent: "LlmAgent", ctx: "InvocationContext",
                response: "LlmResponse") -> Optional[tuple[str, types.Content]]:
  """(code, the answer cut to end with it) when the agent's executor should run code from this
  answer; None for partial answers, answers without code, the built-in executor, and once the
  invocation's failed runs in a row reached `error_retry_attempts`."""
  executor = agent.code_executor
  if executor is None or isinstance(executor, BuiltInCodeExecutor) or response.partial:
    return None
  content = response.content
  if content is None or not content.parts:
    return None
  failed = (ctx.session.state.get(ERROR_COUNTS_KEY) or {}).get(ctx.invocation_id, 0)
  if failed >= executor.error_retry_attempts:
    return None
  # The model's own thoughts are not code to run, but go back with the answer (their signatures);
  # under a rewriting planner only signed thoughts are the model's (the planner marks its own).
  signed_only = _planning.rewrites_responses(agent.planner)
  thoughts = [p for p in content.parts if p.thought and (p.thought_signature or not signed_only)]
  rest = [p for p in content.parts if not any(p is t for t in thoughts)]
  code, cut = find_code(rest, executor.code_block_delimiters)
  if code is None:
    return None
  return code, content.model_copy(update={"parts": thoughts + cut})


async def run_code(agent: "LlmAgent", ctx: "InvocationContext", code: str,
                   code_event: Event) -> AsyncGenerator[Event, None]:
  """Commits the code event, runs the code off the event loop, then yields the result event."""
  executor: BaseCodeExecutor = agent.code_executor
  yield code_event
  actions = EventActions()
  records = CodeExecutorContext(State(value=ctx.session.state, delta=actions.state_delta))
  execution_id = None
  if executor.stateful:
    execution_id = records.get_execution_id()
    if not execution_id:
      execution_id = ctx.session.id
      records.set_execution_id(execution_id)
  run = CodeExecutionInput(code=code, input_files=records.get_input_files(), execution_id=execution_id)
  result = await execute_off_loop(executor, ctx, run)
  records.update_code_execution_result(ctx.invocation_id, code, result.stdout, result.stderr)
  if result.stderr:
    records.increment_error_count(ctx.invocation_id)
  else:
    records.reset_error_count(ctx.invocation_id)
  actions.state_delta.update(records.get_state_delta())
  for file in result.output_files:
    if ctx.artifact_service is None:
      raise ValueError(f"The code run produced {file.name!r} but the Runner has no artifact service: pass "
                       "artifact_service=InMemoryArtifactService() to the Runner.")
    data = file.content if isinstance(file.content, bytes) else base64.b64decode(file.content)
    actions.artifact_delta[file.name] = await ctx.artifact_service.save_artifact(
        app_name=ctx.app_name, user_id=ctx.user_id, session_id=ctx.session.id, filename=file.name,
        artifact=types.Part.from_bytes(data=data, mime_type=file.mime_type))
  yield Event(invocation_id=ctx.invocation_id, author=agent.name, branch=ctx.branch, actions=actions,
              content=types.Content(role="model", parts=[CodeExecutionUtils.build_code_execution_result_part(result)]))
