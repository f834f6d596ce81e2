"""ADK 2.x Context surface: the tool-call constructor, memory, credentials, widgets, metadata, State(schema=)."""

from __future__ import annotations

import pytest
from google.genai import types
from pydantic import BaseModel

from adk_nb.agents.context import Context
from adk_nb.agents.invocation_context import InvocationContext, new_invocation_context_id
from adk_nb.agents.llm_agent import LlmAgent
from adk_nb.agents.run_config import RunConfig
from adk_nb.auth.auth_credential import AuthCredential, AuthCredentialTypes, OAuth2Auth
from adk_nb.auth.auth_handler import AuthHandler
from adk_nb.auth.auth_tool import AuthConfig
from adk_nb.events.event import Event
from adk_nb.events.ui_widget import UiWidget
from adk_nb.memory import InMemoryMemoryService
from adk_nb.memory.memory_entry import MemoryEntry
from adk_nb.models import ScriptedModel
from adk_nb.sessions import InMemorySessionService
from adk_nb.sessions.state import State, StateSchemaError


async def invocation(memory=None, run_config=None) -> InvocationContext:
  sessions = InMemorySessionService()
  session = await sessions.create_session(app_name="app", user_id="u")
  return InvocationContext(session_service=sessions, invocation_id=new_invocation_context_id(),
                           agent=LlmAgent(name="a", model=ScriptedModel([])), session=session,
                           memory_service=memory, run_config=run_config or RunConfig())


async def test_tool_context_constructor_and_requests():
  ctx = Context(await invocation(), function_call_id="fc-1")
  assert ctx.function_call_id == "fc-1"
  ctx.isolation_scope = "task-1"
  seen = ctx.get_invocation_context()
  assert seen.session is ctx.session and seen.isolation_scope == "task-1"
  assert ctx._invocation_context.isolation_scope is None  # a copy: the run's own context is unchanged
  ctx.request_confirmation(hint="Sure?", payload={"n": 1})
  assert ctx.actions.requested_tool_confirmations["fc-1"].payload == {"n": 1}
  with pytest.raises(ValueError, match="request_confirmation requires function_call_id"):
    Context(ctx._invocation_context).request_confirmation(hint="x")


async def test_request_credential_sends_no_configured_secret_and_reads_the_answer():
  config = AuthConfig(auth_scheme={"type": "oauth2", "flows": {}}, credential_key="k",
                      raw_auth_credential=AuthCredential(auth_type=AuthCredentialTypes.OAUTH2,
                                                         oauth2=OAuth2Auth(client_id="id", client_secret="s3cret")))
  ctx = Context(await invocation(), function_call_id="fc-2")
  ctx.request_credential(config)
  sent = ctx.actions.requested_auth_configs["fc-2"]
  assert sent.raw_auth_credential.oauth2.client_id == "id" and sent.raw_auth_credential.oauth2.client_secret is None
  assert config.raw_auth_credential.oauth2.client_secret == "s3cret"  # the tool's own copy keeps it
  assert ctx.get_auth_response(config) is None
  answer = AuthCredential(auth_type=AuthCredentialTypes.OAUTH2, oauth2=OAuth2Auth(access_token="tok"))
  ctx.state["temp:k"] = answer
  assert ctx.get_auth_response(config).oauth2.access_token == "tok"
  assert AuthHandler(config).has_auth_response(ctx.state)


async def test_memory_methods_reach_the_memory_service():
  memory = InMemoryMemoryService()
  ic = await invocation(memory)
  ic.session.events.append(Event(author="user", content=types.Content(role="user", parts=[types.Part(text="I like tea")])))
  ctx = Context(ic)
  await ctx.add_session_to_memory()
  await ctx.add_memory(memories=[MemoryEntry(content=types.Content(parts=[types.Part(text="likes green tea")]))])
  found = await ctx.search_memory("tea")
  assert len(found.memories) >= 2
  with pytest.raises(ValueError, match="Memory service is not available"):
    await Context(await invocation()).search_memory("tea")


async def test_ui_widgets_and_custom_metadata():
  ctx = Context(await invocation(run_config=RunConfig(custom_metadata={"turn": 1})))
  assert ctx.custom_metadata == {"turn": 1}
  ctx.render_ui_widget(UiWidget(id="w1", provider="mcp", payload={"resource_uri": "ui://x"}))
  with pytest.raises(ValueError, match="already exists"):
    ctx.render_ui_widget(UiWidget(id="w1", provider="mcp"))
  assert [w.id for w in ctx.actions.render_ui_widgets] == ["w1"]
  assert ctx.actions.model_dump(by_alias=True, exclude_none=True)["renderUiWidgets"][0]["provider"] == "mcp"


class Pipeline(BaseModel):
  count: int = 0
  label: str | None = None


def test_state_schema_checks_each_write_and_records_nothing_refused():
  delta: dict = {}
  state = State(value={}, delta=delta, schema=Pipeline)
  state["count"] = 3
  state["temp:scratch"] = object()  # prefixed keys are not checked
  with pytest.raises(StateSchemaError, match="not declared"):
    state["other"] = 1
  with pytest.raises(StateSchemaError, match="count"):
    state.update({"label": "ok", "count": "many"})
  assert set(delta) == {"count", "temp:scratch"} and delta["count"] == 3
  assert isinstance(StateSchemaError("x"), TypeError)


async def test_context_checks_writes_against_its_nodes_state_schema():
  class Node(BaseModel):
    name: str = "n"
    state_schema: type = Pipeline

  ctx = Context(await invocation(), node=Node())
  ctx.state["count"] = 1
  with pytest.raises(StateSchemaError):
    ctx.state["unknown"] = 1
  assert ctx.actions.state_delta == {"count": 1}
