"""A function node's credential gate (`FunctionNode(auth_config=...)`, google-adk 2.13's workflow auth).

Before the function runs: a credential already in state (`temp:<credential_key>` or `<credential_key>`)
lets it run; an answer to the node's request (`wf_auth:{node path}` in `ctx.resume_inputs`) is kept in
`temp:<credential_key>` and lets it run; otherwise the node yields the `adk_request_credential` request
and pauses. The answer was checked when it arrived (`adk_nb.resume`), so nothing malformed gets here.
"""

from __future__ import annotations

from typing import Any, Optional

AUTH_INTERRUPT_PREFIX = "wf_auth:"
"""The interrupt id prefix of a node's credential request (google-adk's `auth_interrupt_id`)."""


def auth_interrupt_id(node_path: str) -> str:
  """The id of the credential request of the node run at `node_path`."""
  return AUTH_INTERRUPT_PREFIX + node_path


async def auth_gate(auth_config: Any, ctx: Any) -> Optional[Any]:
  """None when the node may run (the credential is in state, or just arrived); else the request to yield."""
  from ..auth.auth_handler import AuthHandler
  from ..flows import credential_from_answer
  from .utils._workflow_hitl_utils import create_auth_request_event

  interrupt_id = auth_interrupt_id(ctx.node_path)
  handler = AuthHandler(auth_config)
  if interrupt_id in ctx.resume_inputs:
    config = auth_config.model_copy(deep=True)
    config.exchanged_auth_credential = credential_from_answer(auth_config, ctx.resume_inputs[interrupt_id])
    stored: dict[str, Any] = {}
    await AuthHandler(config).parse_and_store_auth_response(stored)
    for key, credential in stored.items():
      ctx.state[key] = credential.model_dump(mode="json", exclude_none=True, by_alias=True)
    return None
  if handler.has_auth_response(ctx.state):
    return None
  return create_auth_request_event(auth_config, interrupt_id, ctx.state)
