"""`BaseLlmFlow` at google-adk's path: adk_nb's LLM loop behind google-adk's flow interface.

`run_async` runs the agent's loop (`adk_nb.flows.llm_flow.run_flow`: model calls, tools, transfers,
pauses) whatever processors the flow lists; `_preprocess_async` runs the flow's request processors
and then lets each tool and toolset add itself to the request, as the loop does before each call;
`_postprocess_handle_function_calls_async` runs the calls of a model event;
`_handle_after_model_callback` applies the after-model plugins and callbacks.
"""

from __future__ import annotations

from typing import Any, AsyncGenerator, Optional

from ...agents import _callbacks
from ...agents.callback_context import CallbackContext
from ...events.event import Event
from .. import _functions
from ..llm_flow import add_tools, run_flow, run_function_calls
from . import llm_agent_of, not_in_adk_nb


class BaseLlmFlow:
  """A flow: lists of request and response processors around adk_nb's model-and-tools loop."""

  def __init__(self) -> None:
    self.request_processors: list[Any] = []
    """Steps that build each request (google-adk's processor objects; see `flows.llm_flows`)."""
    self.response_processors: list[Any] = []
    """Kept for google-adk compatibility; adk_nb's loop handles responses itself."""

  async def run_async(self, invocation_context: Any) -> AsyncGenerator[Event, None]:
    """Runs the context's LlmAgent until it answers, pauses or transfers, yielding its events."""
    async for event in run_flow(invocation_context.agent, invocation_context):
      yield event

  async def run_live(self, invocation_context: Any) -> AsyncGenerator[Event, None]:
    """Live (bidirectional audio/video) runs do not exist in adk_nb."""
    not_in_adk_nb("BaseLlmFlow.run_live (live runs)")
    yield  # pragma: no cover

  async def _preprocess_async(self, invocation_context: Any, llm_request: Any) -> AsyncGenerator[Event, None]:
    """Runs the request processors, then each tool's and toolset's `process_llm_request`."""
    agent = llm_agent_of(invocation_context)
    if agent is None:
      return
    for processor in self.request_processors:
      async for event in processor.run_async(invocation_context, llm_request):
        yield event
    await add_tools(agent, invocation_context, llm_request)

  async def _postprocess_handle_function_calls_async(self, invocation_context: Any, function_call_event: Event,
                                                     llm_request: Any) -> AsyncGenerator[Event, None]:
    """Runs the calls of `function_call_event` with the request's tools and yields what follows
    (their answers; for set_model_response, the structured answer too)."""
    _functions.populate_call_ids(function_call_event)
    async for event in run_function_calls(invocation_context.agent, invocation_context, function_call_event,
                                          llm_request.tools_dict):
      yield event

  async def _handle_after_model_callback(self, invocation_context: Any, llm_response: Any,
                                         model_response_event: Event) -> Optional[Any]:
    """The response the after-model plugins and callbacks put in place of `llm_response`, or None."""
    agent = invocation_context.agent
    cc = CallbackContext(invocation_context, event_actions=model_response_event.actions)
    return await _callbacks.run_hooks(invocation_context.plugin_manager, "after_model_callback",
                                      getattr(agent, "_after_model_cbs", []),
                                      callback_context=cc, llm_response=llm_response)
