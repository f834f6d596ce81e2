"""The ADK 2.x methods every context has (Context, CallbackContext, ToolContext): memory, credentials
requested by a tool, confirmations, UI widgets, run metadata."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Mapping, Optional, Sequence

if TYPE_CHECKING:
  from ..events.ui_widget import UiWidget


class ContextMethods:
  """Mixed into CallbackContext; expects `_invocation_context`, `_event_actions` and `state`."""

  function_call_id: Optional[str] = None
  """The id of the tool call being answered; None outside a tool."""

  @property
  def custom_metadata(self) -> dict[str, Any]:
    """Metadata of this run (`RunConfig.custom_metadata`, or what the invocation carries)."""
    ic = self._invocation_context
    metadata = getattr(ic, "_custom_metadata", None)
    if isinstance(metadata, dict):
      return metadata
    run_config = getattr(ic, "run_config", None)
    return dict(getattr(run_config, "custom_metadata", None) or {})

  def get_invocation_context(self) -> Any:
    """The invocation this context belongs to (ADK 2.x accessor)."""
    return self._invocation_context

  # ---- memory -------------------------------------------------------------------------------------

  def _memory(self, what: str) -> Any:
    service = self._invocation_context.memory_service
    if service is None:
      raise ValueError(f"{what}. Pass memory_service=InMemoryMemoryService() (adk_nb.memory) to the Runner.")
    return service

  async def add_session_to_memory(self) -> None:
    """Saves this session's events to the memory service, so later sessions can recall them."""
    service = self._memory("Cannot add session to memory: memory service is not available")
    await service.add_session_to_memory(self._invocation_context.session)

  async def add_events_to_memory(self, *, events: Sequence[Any],
                                 custom_metadata: Optional[Mapping[str, object]] = None) -> None:
    """Adds the given events to memory, scoped to this app, user and session."""
    service = self._memory("Cannot add events to memory: memory service is not available")
    session = self._invocation_context.session
    await service.add_events_to_memory(app_name=session.app_name, user_id=session.user_id, session_id=session.id,
                                       events=events, custom_metadata=custom_metadata)

  async def add_memory(self, *, memories: Sequence[Any], custom_metadata: Optional[Mapping[str, object]] = None) -> None:
    """Adds memory entries (MemoryEntry) for this app and user."""
    service = self._memory("Cannot add memory: memory service is not available")
    session = self._invocation_context.session
    await service.add_memory(app_name=session.app_name, user_id=session.user_id, memories=memories,
                             custom_metadata=custom_metadata)

  async def search_memory(self, query: str) -> Any:
    """Searches this user's memory; a SearchMemoryResponse."""
    ic = self._invocation_context
    return await self._memory("Memory service is not available").search_memory(app_name=ic.app_name, user_id=ic.user_id,
                                                                    query=query)

  async def delete_memory(self, memory_id: Optional[str] = None) -> None:
    """Removes one memory entry of this user by id."""
    ic = self._invocation_context
    await self._memory("Cannot delete memory: memory service is not available").delete_memory(app_name=ic.app_name, user_id=ic.user_id,
                                                             memory_id=memory_id)

  # ---- what a tool asks of the client ---------------------------------------------------------------

  def request_confirmation(self, *, hint: Optional[str] = None, payload: Optional[Any] = None) -> None:
    """Pauses this tool call until a person approves it; the tool runs again with `tool_confirmation` set."""
    from ..tools.tool_confirmation import ToolConfirmation

    if not self.function_call_id:
      raise ValueError("request_confirmation requires function_call_id: call it from inside a tool "
                       "(its tool_context), where the call being answered is known.")
    self._event_actions.requested_tool_confirmations[self.function_call_id] = ToolConfirmation(
        hint=hint or "", payload=payload)

  def get_auth_response(self, auth_config: Any) -> Any:
    """The credential the client answered an `adk_request_credential` call with; None before it did."""
    from ..auth import auth_handler

    return auth_handler.AuthHandler(auth_config).get_auth_response(self.state)

  def request_credential(self, auth_config: Any) -> None:
    """Asks the client for a credential: the turn ends with an `adk_request_credential` call for it, and once the
    client answered, this tool call runs again and `get_auth_response(auth_config)` returns the credential
    (adk_nb.flows._credentials). Return a short "pending" answer meanwhile; the model does not see it."""
    from ..auth import auth_handler

    if not self.function_call_id:
      raise ValueError("request_credential requires function_call_id: call it from inside a tool "
                       "(its tool_context), where the call being answered is known.")
    self._event_actions.requested_auth_configs[self.function_call_id] = (
        auth_handler.AuthHandler(auth_config).generate_auth_request())

  def render_ui_widget(self, ui_widget: "UiWidget") -> None:
    """Asks the client to render `ui_widget` with the next event (ValueError on a repeated id)."""
    widgets = self._event_actions.render_ui_widgets
    if widgets is None:
      widgets = self._event_actions.render_ui_widgets = []
    if any(w.id == ui_widget.id for w in widgets):
      raise ValueError(f"UI widget with ID '{ui_widget.id}' already exists in the current event actions; "
                       "give each widget its own id.")
    widgets.append(ui_widget)
