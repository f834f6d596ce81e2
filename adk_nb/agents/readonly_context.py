"""A read-only view of the invocation, given to instruction providers."""

from __future__ import annotations

from types import MappingProxyType
from typing import TYPE_CHECKING, Any, Mapping, Optional

if TYPE_CHECKING:
  from google.genai import types

  from ..sessions.session import Session
  from .invocation_context import InvocationContext


class ReadonlyContext:
  """What an instruction provider may read: invocation id, agent, state, user message."""

  def __init__(self, invocation_context: "InvocationContext") -> None:
    self._invocation_context = invocation_context

  @property
  def user_content(self) -> Optional["types.Content"]:
    """The user message that started the invocation."""
    return self._invocation_context.user_content

  @property
  def invocation_id(self) -> str:
    return self._invocation_context.invocation_id

  @property
  def agent_name(self) -> str:
    return self._invocation_context.agent.name

  @property
  def user_id(self) -> str:
    return self._invocation_context.user_id

  @property
  def session(self) -> "Session":
    return self._invocation_context.session

  @property
  def state(self) -> Mapping[str, Any]:
    """The session state, read-only."""
    return MappingProxyType(self._invocation_context.session.state)

  @property
  def run_config(self):
    return self._invocation_context.run_config
