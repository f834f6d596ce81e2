"""google-adk's `request_confirmation` request processor at its path: runs the tool calls a person just
confirmed (or tells the tool it was rejected) before the next model call.

It reads the confirmation answers (`adk_request_confirmation` function responses) in the session's last
user event and runs them as a resumed invocation does (`adk_nb.flows._resume`), yielding the events
of the calls it ran; without such answers it yields nothing.
"""

from __future__ import annotations

from typing import Any

from ...events.protocol import REQUEST_CONFIRMATION
from .._resume import resume_confirmed_calls
from . import llm_agent_of


class _RequestConfirmationLlmRequestProcessor:
  name = "request_confirmation"

  async def run_async(self, invocation_context: Any, llm_request: Any):
    agent = llm_agent_of(invocation_context)
    events = invocation_context.session.events
    last_user = next((e for e in reversed(events) if e.author == "user"), None)
    if agent is None or last_user is None:
      return
    answers = {r.id: r for r in last_user.get_function_responses() if r.name == REQUEST_CONFIRMATION and r.id}
    if not answers:
      return
    invocation_context.resume_answers.update(answers)
    async for event in resume_confirmed_calls(agent, invocation_context):
      yield event


request_processor = _RequestConfirmationLlmRequestProcessor()
