"""Offline helpers for testing agents: the scripted model and one-call turns."""

from __future__ import annotations

from typing import Any, Optional, Union

from google.genai import types

from .events.event import Event
from .models.scripted import ScriptedModel, ScriptExhausted, call

__all__ = ["ScriptedModel", "ScriptExhausted", "call", "run_turn", "user_message"]


def user_message(content: Union[str, types.Content, list[types.Part]]) -> types.Content:
  """A user Content from text, parts or a Content."""
  if isinstance(content, types.Content):
    return content
  if isinstance(content, str):
    return types.Content(role="user", parts=[types.Part(text=content)])
  return types.Content(role="user", parts=list(content))


async def run_turn(
    runner: Any,
    message: Union[str, types.Content, list[types.Part], None],
    *,
    user_id: str = "user",
    session_id: str = "session",
    state_delta: Optional[dict[str, Any]] = None,
    run_config: Any = None,
    include_partial: bool = False,
) -> list[Event]:
  """Runs one turn (creating the session on first use) and returns its events.

  The list starts with the user's message as committed to the session (the Runner stores
  it but, as in ADK, does not yield it), followed by everything the run yielded.
  """
  service = runner.session_service
  session = await service.get_session(app_name=runner.app_name, user_id=user_id, session_id=session_id)
  if session is None:
    session = await service.create_session(app_name=runner.app_name, user_id=user_id, session_id=session_id)
  before = len(session.events)
  events = []
  async for event in runner.run_async(
      user_id=user_id, session_id=session_id,
      new_message=None if message is None else user_message(message),
      state_delta=state_delta, run_config=run_config,
  ):
    if include_partial or not event.partial:
      events.append(event)
  if message is not None or state_delta:
    after = await service.get_session(app_name=runner.app_name, user_id=user_id, session_id=session_id)
    if len(after.events) > before and after.events[before].author == "user":
      events.insert(0, after.events[before])
  return events
