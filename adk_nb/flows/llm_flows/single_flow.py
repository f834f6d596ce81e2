"""`SingleFlow` at google-adk's path: the flow of an LlmAgent that does not transfer."""

from __future__ import annotations

from ..llm_flow import add_output_schema
from . import RequestProcessor, basic, contents, identity, instructions, request_confirmation
from .base_llm_flow import BaseLlmFlow


class _OutputSchemaWithToolsProcessor(RequestProcessor):
  """With tools, output_schema is answered through the set_model_response tool."""

  name = "output_schema"

  async def _apply(self, agent, invocation_context, llm_request) -> None:
    if agent.output_schema is not None and agent.tools:
      add_output_schema(agent, llm_request, has_tools=True)


class SingleFlow(BaseLlmFlow):
  """Model calls and tools, with the request built by google-adk's processor steps."""

  def __init__(self) -> None:
    super().__init__()
    self.request_processors += [basic.request_processor, request_confirmation.request_processor,
                                instructions.request_processor, identity.request_processor,
                                contents.request_processor, _OutputSchemaWithToolsProcessor()]
