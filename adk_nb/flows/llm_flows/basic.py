"""google-adk's `basic` request processor at its path: the model, the agent's generate_content_config and,
for an agent without tools, the output schema."""

from __future__ import annotations

from . import RequestProcessor


def can_use_output_schema_with_tools(model) -> bool:
  """Whether the model takes a response schema together with function declarations.

  adk_nb never sends both: with tools, the answer arrives through `set_model_response` for every
  model, so this is False (google-adk lets some Gemini models take both).
  """
  return False


class _BasicLlmRequestProcessor(RequestProcessor):
  name = "basic"

  async def _apply(self, agent, invocation_context, llm_request) -> None:
    llm_request.model = agent.canonical_model.model
    config = agent._base_config().model_copy(deep=True)
    if llm_request.config is not None:
      # What earlier steps set on the request wins over the agent's defaults.
      set_fields = {k: v for k, v in llm_request.config.__dict__.items() if v is not None}
      config = config.model_copy(update=set_fields)
    llm_request.config = config
    if agent.output_schema is not None:
      if not agent.tools or can_use_output_schema_with_tools(agent.canonical_model):
        llm_request.set_output_schema(agent.output_schema)


request_processor = _BasicLlmRequestProcessor()
