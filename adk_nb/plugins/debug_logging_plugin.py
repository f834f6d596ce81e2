"""DebugLoggingPlugin: every invocation written to a YAML file, in google-adk 2.x's format.

One YAML document per invocation (each starts with `---`), appended when the invocation ends:
`invocation_id`, `session_id`, `app_name`, `user_id`, `start_time` and `entries`, each entry a
`timestamp`, `entry_type`, `invocation_id`, `agent_name` and `data`. The entry types and their
data fields are google-adk's (`invocation_start`, `user_message`, `agent_start`, `llm_request`,
`llm_response`, `llm_error`, `tool_call`, `tool_response`, `tool_error`, `event`,
`agent_end`, `session_state_snapshot`, `invocation_end`), so tooling that reads google-adk's
`adk_debug.yaml` reads this one. Credentials are redacted as google-adk redacts them (credential
objects, keys that name a secret, `temp:` state, armored private keys), and a file this plugin
creates is readable by its owner only.

The plugin costs nothing when it is not installed: the Runner only calls the hooks of plugins it
was given. PyYAML is needed (google-adk depends on it); it is imported when the plugin is made.
"""

from __future__ import annotations

import dataclasses
import inspect
import logging
import os
import re
from datetime import date, datetime, time
from enum import Enum
from pathlib import Path
from typing import Any, Callable, Literal, Optional

from pydantic import BaseModel, Field

from .base_plugin import BasePlugin

logger = logging.getLogger(__name__)

_REDACTED = "[REDACTED]"
_OUTPUT_FILE_MODE = 0o600
_MAX_DEPTH = 20

# Keys whose value is a secret (after `app:` / `user:` is stripped and camelCase / hyphens folded to
# snake_case), substrings and suffixes that name one: google-adk 2.13's rules.
_SECRET_KEYS = frozenset({
    "access_token", "api_key", "auth_code", "auth_response_uri", "authorization", "client_secret",
    "code_verifier", "google_access_id", "id_token", "password", "private_key", "private_key_id",
    "proxy_authorization", "refresh_token", "secret", "sig", "signature", "token", "x_amz_credential",
    "x_amz_signature", "x_api_key", "x_goog_credential", "x_goog_security_token", "x_goog_signature",
})
_SECRET_PARTS = ("api_key", "credentials", "passwd", "password", "private_key", "secret")
_SECRET_SUFFIXES = ("_token",)
_CAMEL = re.compile(r"(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])")
_PRIVATE_KEY = re.compile(r"-----BEGIN [A-Z0-9 ]*PRIVATE KEY( BLOCK)?-----.*?"
                          r"(-----END [A-Z0-9 ]*PRIVATE KEY( BLOCK)?-----|\Z)", re.DOTALL)
_REFLECT_RETRY_TYPE = "ERROR_HANDLED_BY_REFLECT_AND_RETRY_PLUGIN"
_MCP_ERROR = "The MCP server marked this result as an error (isError=true)."
_RETRY_ERROR = "The tool failed; ReflectAndRetryToolPlugin caught the exception and answered in its place."
_CLASSIFIED_ERROR = "The tool_result_classifier judged this result to be an error."


def _secret_key(key: Any) -> bool:
  if not isinstance(key, str):
    return False
  name = _CAMEL.sub("_", str.__str__(key)).lower().replace("-", "_")
  if name.startswith("temp:"):  # exchanged credentials live there; all temp state is blanked, as google-adk
    return True
  for prefix in ("app:", "user:"):
    if name.startswith(prefix):
      name = name[len(prefix):]
      break
  return name in _SECRET_KEYS or name.endswith(_SECRET_SUFFIXES) or any(p in name for p in _SECRET_PARTS)


def _credential_types() -> tuple[type, ...]:
  from ..auth import auth_credential as ac

  return tuple(getattr(ac, n) for n in ("AuthCredential", "HttpAuth", "HttpCredentials", "OAuth2Auth",
                                        "ServiceAccount", "ServiceAccountCredential") if hasattr(ac, n))


@dataclasses.dataclass(frozen=True)
class ToolResultClassification:
  """A `tool_result_classifier` verdict (google-adk's): status "ERROR" records the call as a tool
  error with `error_message`; "OK" records it as completed."""

  status: Literal["OK", "ERROR"]
  error_message: Optional[str] = None

  def __post_init__(self):
    if self.status not in ("OK", "ERROR"):
      raise ValueError(f"status must be 'OK' or 'ERROR', got {self.status!r}.")
    if self.error_message is not None and not isinstance(self.error_message, str):
      raise ValueError(f"error_message takes a string (or None), not {type(self.error_message).__name__}.")


ToolResultClassifier = Callable[..., Optional[ToolResultClassification]]
"""`(*, tool, tool_args, tool_context, result) -> ToolResultClassification | None` (synchronous)."""


class _DebugEntry(BaseModel):
  """One entry of an invocation's document (google-adk's fields)."""

  timestamp: str
  entry_type: str
  invocation_id: Optional[str] = None
  agent_name: Optional[str] = None
  data: dict[str, Any] = Field(default_factory=dict)


class _InvocationDebugState(BaseModel):
  """An invocation's document while it runs (written when it ends)."""

  invocation_id: str
  session_id: str
  app_name: str
  user_id: Optional[str] = None
  start_time: str
  entries: list[_DebugEntry] = Field(default_factory=list)


def _check_classifier(classifier: Any) -> None:
  if classifier is None:
    return
  if not callable(classifier):
    raise ValueError(f"tool_result_classifier takes a function (tool, tool_args, tool_context, result); "
                     f"a {type(classifier).__name__} is not callable.")
  if inspect.iscoroutinefunction(classifier) or inspect.iscoroutinefunction(getattr(classifier, "__call__", None)):
    raise ValueError("tool_result_classifier must be synchronous: define it with `def`, not `async def`.")
  try:
    signature = inspect.signature(classifier)
  except (TypeError, ValueError) as exc:
    raise ValueError(f"tool_result_classifier has no signature inspect can read ({exc}).") from exc
  try:
    signature.bind(tool=None, tool_args=None, tool_context=None, result=None)
  except TypeError as exc:
    raise ValueError("tool_result_classifier must take the keyword arguments tool, tool_args, tool_context and "
                     f"result ({exc}).") from exc


class DebugLoggingPlugin(BasePlugin):
  """Writes each invocation's model requests and responses, tool calls, events and final session
  state to a YAML file (google-adk 2.x's plugin, same constructor and file format).

  Example:
      >>> runner = Runner(agent=my_agent, plugins=[DebugLoggingPlugin(output_path="/tmp/adk_debug.yaml")])

  The file holds whole prompts and answers (credentials redacted): it is created mode 600 and a
  warning is logged once when an existing file is readable by others.
  """

  def __init__(self, *, name: str = "debug_logging_plugin", output_path: str = "adk_debug.yaml",
               include_session_state: bool = True, include_system_instruction: bool = True,
               tool_result_classifier: Optional[ToolResultClassifier] = None):
    super().__init__(name)
    try:
      import yaml  # noqa: F401
    except ImportError as exc:
      raise ImportError("DebugLoggingPlugin writes YAML and needs PyYAML: pip install pyyaml "
                        "(nothing was written).") from exc
    _check_classifier(tool_result_classifier)
    self._output_path = Path(output_path)
    self._include_session_state = include_session_state
    self._include_system_instruction = include_system_instruction
    self._tool_result_classifier = tool_result_classifier
    self._invocation_states: dict[str, _InvocationDebugState] = {}
    self._errored_calls: set[tuple[str, Optional[str]]] = set()
    self._warned_about_mode = False
    self._credentials: Optional[tuple[type, ...]] = None

  # ---- serialization -----------------------------------------------------------------------

  @staticmethod
  def _get_timestamp() -> str:
    return datetime.now().isoformat()

  def _safe_serialize(self, obj: Any, depth: int = 0) -> Any:
    """JSON-ready, with credentials redacted (google-adk's `_safe_serialize`)."""
    if obj is None:
      return None
    if self._credentials is None:
      self._credentials = _credential_types()
    if isinstance(obj, self._credentials):
      return _REDACTED
    if depth > _MAX_DEPTH:
      return f"<{type(obj).__name__} ...>"
    if isinstance(obj, Enum):
      return self._safe_serialize(obj.value, depth + 1)
    if isinstance(obj, str):
      return _PRIVATE_KEY.sub(_REDACTED, str.__str__(obj))
    if isinstance(obj, (bool, int, float)):
      return obj
    if isinstance(obj, (date, time)):
      return obj.isoformat()
    if isinstance(obj, (list, tuple)):
      return [self._safe_serialize(item, depth + 1) for item in obj]
    if isinstance(obj, dict):
      return {k: _REDACTED if _secret_key(k) else self._safe_serialize(v, depth + 1) for k, v in obj.items()}
    if isinstance(obj, BaseModel):
      if self._holds_credential(obj, 0):
        fields = {**obj.__dict__, **(obj.__pydantic_extra__ or {})}
        return self._safe_serialize({k: v for k, v in fields.items() if v is not None}, depth)
      try:
        dumped = obj.model_dump(mode="json", exclude_none=True)
      except Exception:
        return str(obj)
      return self._safe_serialize(dumped, depth)
    if isinstance(obj, bytes):
      return f"<bytes: {len(obj)} bytes>"
    try:
      return str(obj)
    except Exception:
      return "<unserializable>"

  def _holds_credential(self, obj: Any, depth: int) -> bool:
    if depth > _MAX_DEPTH:
      return False
    if isinstance(obj, self._credentials):
      return True
    if isinstance(obj, BaseModel):
      values = [*obj.__dict__.values(), *(obj.__pydantic_extra__ or {}).values()]
    elif isinstance(obj, dict):
      values = list(obj.values())
    elif isinstance(obj, (list, tuple, set, frozenset)):
      values = list(obj)
    else:
      return False
    return any(self._holds_credential(v, depth + 1) for v in values)

  def _serialize_content(self, content: Any) -> Optional[dict[str, Any]]:
    if content is None:
      return None
    parts = []
    for part in content.parts or []:
      data: dict[str, Any] = {}
      if part.text:
        data["text"] = part.text
      if part.function_call:
        fc = part.function_call
        data["function_call"] = {"id": fc.id, "name": fc.name, "args": self._safe_serialize(fc.args)}
      if part.function_response:
        fr = part.function_response
        data["function_response"] = {"id": fr.id, "name": fr.name, "response": self._safe_serialize(fr.response)}
      if part.inline_data:
        data["inline_data"] = {"mime_type": part.inline_data.mime_type,
                               "display_name": getattr(part.inline_data, "display_name", None),
                               "_data_omitted": True}
      if part.file_data:
        data["file_data"] = {"file_uri": part.file_data.file_uri, "mime_type": part.file_data.mime_type}
      if part.code_execution_result:
        data["code_execution_result"] = {"outcome": str(part.code_execution_result.outcome),
                                         "output": part.code_execution_result.output}
      if part.executable_code:
        data["executable_code"] = {"language": str(part.executable_code.language),
                                   "code": part.executable_code.code}
      if data:
        parts.append(data)
    return {"role": content.role, "parts": parts}

  def _add_entry(self, invocation_id: str, entry_type: str, agent_name: Optional[str] = None, **data: Any) -> None:
    state = self._invocation_states.get(invocation_id)
    if state is None:
      logger.warning("Invocation %s has no debug document (it began before the plugin was added?); "
                     "this entry is not recorded.", invocation_id)
      return
    state.entries.append(_DebugEntry(timestamp=self._get_timestamp(), entry_type=entry_type,
                                     invocation_id=invocation_id, agent_name=agent_name,
                                     data=self._safe_serialize(data)))

  # ---- run hooks -----------------------------------------------------------------------------

  async def before_run_callback(self, *, invocation_context):
    ic = invocation_context
    session = ic.session
    self._invocation_states[ic.invocation_id] = _InvocationDebugState(
        invocation_id=ic.invocation_id, session_id=session.id, app_name=session.app_name, user_id=ic.user_id,
        start_time=self._get_timestamp())
    self._add_entry(ic.invocation_id, "invocation_start", agent_name=getattr(ic.agent, "name", None), branch=ic.branch)
    return None

  async def on_user_message_callback(self, *, invocation_context, user_message):
    self._add_entry(invocation_context.invocation_id, "user_message", content=self._serialize_content(user_message))
    return None

  async def on_event_callback(self, *, invocation_context, event):
    data: dict[str, Any] = {
        "event_id": event.id, "author": event.author, "content": self._serialize_content(event.content),
        "is_final_response": event.is_final_response(), "partial": event.partial,
        "turn_complete": event.turn_complete, "branch": event.branch}
    actions = event.actions
    if actions:
      acts: dict[str, Any] = {}
      if actions.state_delta:
        acts["state_delta"] = self._safe_serialize(actions.state_delta)
      if actions.artifact_delta:
        acts["artifact_delta"] = dict(actions.artifact_delta)
      if actions.transfer_to_agent:
        acts["transfer_to_agent"] = actions.transfer_to_agent
      if actions.escalate:
        acts["escalate"] = actions.escalate
      if actions.requested_auth_configs:
        acts["requested_auth_configs"] = len(actions.requested_auth_configs)
      if acts:
        data["actions"] = acts
    if event.grounding_metadata:
      data["has_grounding_metadata"] = True
    if event.usage_metadata:
      um = event.usage_metadata
      data["usage_metadata"] = {"prompt_token_count": um.prompt_token_count,
                                "candidates_token_count": um.candidates_token_count,
                                "total_token_count": um.total_token_count}
    if event.error_code:
      data["error_code"] = event.error_code
      data["error_message"] = event.error_message
    if event.long_running_tool_ids:
      data["long_running_tool_ids"] = list(event.long_running_tool_ids)
    node_info = getattr(event, "node_info", None)
    if node_info is not None and node_info.path:
      data["node_path"] = node_info.path
      if event.partial is not True:
        if event.output is not None and node_info.message_as_output is not True:
          data["node_output"] = self._safe_serialize(event.output)
        if event.error_code and not _is_model_stop(event.error_code):
          data["node_error"] = {"error_code": event.error_code, "error_message": event.error_message}
    self._add_entry(invocation_context.invocation_id, "event", agent_name=event.author, **data)
    return None

  async def after_run_callback(self, *, invocation_context):
    ic = invocation_context
    state = self._invocation_states.get(ic.invocation_id)
    if state is None:
      logger.warning("Invocation %s has no debug document (it began before the plugin was added?); "
                     "nothing is written for it.", ic.invocation_id)
      return
    if self._include_session_state:
      self._add_entry(ic.invocation_id, "session_state_snapshot", state=self._safe_serialize(ic.session.state),
                event_count=len(ic.session.events))
    self._add_entry(ic.invocation_id, "invocation_end")
    try:
      self._write(state.model_dump(mode="json", exclude_none=True))
    except Exception as exc:
      logger.error("The debug document of invocation %s could not be written to %s: %s", ic.invocation_id,
                   self._output_path, exc)
    finally:
      self._invocation_states.pop(ic.invocation_id, None)
      self._errored_calls = {c for c in self._errored_calls if c[0] != ic.invocation_id}

  async def on_run_error_callback(self, *, invocation_context, error):
    # google-adk writes nothing for a failed run (after_run_callback only follows a run that ended
    # well, and it keeps the entries in memory); adk_nb writes the failed invocation's document too,
    # so the requests that led to the failure are in the file.
    await self.after_run_callback(invocation_context=invocation_context)

  def _write(self, document: dict[str, Any]) -> None:
    import yaml

    fd = os.open(self._output_path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, _OUTPUT_FILE_MODE)
    if not self._warned_about_mode and os.fstat(fd).st_mode & 0o077:
      self._warned_about_mode = True
      logger.warning("Debug output file %s is readable beyond its owner and holds whole prompts and responses; "
                     "make it private with `chmod 600`.", self._output_path)
    with os.fdopen(fd, "a", encoding="utf-8") as f:
      f.write("---\n")
      yaml.dump(document, f, default_flow_style=False, allow_unicode=True, sort_keys=False, width=120)

  # ---- agent and model hooks -----------------------------------------------------------------

  async def before_agent_callback(self, *, agent, callback_context):
    self._add_entry(callback_context.invocation_id, "agent_start", agent_name=callback_context.agent_name,
              branch=callback_context._invocation_context.branch)
    return None

  async def after_agent_callback(self, *, agent, callback_context):
    self._add_entry(callback_context.invocation_id, "agent_end", agent_name=callback_context.agent_name)
    return None

  async def before_model_callback(self, *, callback_context, llm_request):
    data: dict[str, Any] = {"model": llm_request.model, "content_count": len(llm_request.contents),
                            "contents": [self._serialize_content(c) for c in llm_request.contents]}
    if llm_request.tools_dict:
      data["tools"] = list(llm_request.tools_dict.keys())
    config = llm_request.config
    if config:
      cfg: dict[str, Any] = {}
      si = config.system_instruction
      if self._include_system_instruction and si:
        cfg["system_instruction"] = si
      elif si:
        if isinstance(si, str):
          cfg["system_instruction_length"] = len(si)
        else:
          cfg["has_system_instruction"] = True
      for key in ("temperature", "top_p", "top_k", "max_output_tokens"):
        if getattr(config, key) is not None:
          cfg[key] = getattr(config, key)
      if config.response_mime_type:
        cfg["response_mime_type"] = config.response_mime_type
      if config.response_schema:
        cfg["has_response_schema"] = True
      if cfg:
        data["config"] = cfg
    self._add_entry(callback_context.invocation_id, "llm_request", agent_name=callback_context.agent_name, **data)
    return None

  async def after_model_callback(self, *, callback_context, llm_response):
    r = llm_response
    data: dict[str, Any] = {"content": self._serialize_content(r.content), "partial": r.partial,
                            "turn_complete": r.turn_complete}
    final = r.partial is not True
    if final and r.error_code:
      data["error_code"] = r.error_code
      data["error_message"] = r.error_message
    if r.usage_metadata:
      um = r.usage_metadata
      data["usage_metadata"] = {"prompt_token_count": um.prompt_token_count,
                                "candidates_token_count": um.candidates_token_count,
                                "total_token_count": um.total_token_count,
                                "cached_content_token_count": um.cached_content_token_count}
    if r.grounding_metadata:
      data["has_grounding_metadata"] = True
    if final and r.finish_reason:
      data["finish_reason"] = str(r.finish_reason)
    if r.model_version:
      data["model_version"] = r.model_version
    self._add_entry(callback_context.invocation_id, "llm_response", agent_name=callback_context.agent_name, **data)
    return None

  async def on_model_error_callback(self, *, callback_context, llm_request, error):
    self._add_entry(callback_context.invocation_id, "llm_error", agent_name=callback_context.agent_name,
              error_type=type(error).__name__, error_message=str(error), model=llm_request.model)
    return None

  # ---- tool hooks ----------------------------------------------------------------------------

  async def before_tool_callback(self, *, tool, tool_args, tool_context):
    self._add_entry(tool_context.invocation_id, "tool_call", agent_name=tool_context.agent_name, tool_name=tool.name,
              function_call_id=tool_context.function_call_id, args=self._safe_serialize(tool_args))
    return None

  async def after_tool_callback(self, *, tool, tool_args, tool_context, result):
    call = (tool_context.invocation_id, tool_context.function_call_id)
    if call in self._errored_calls:  # a later plugin's answer to an error already recorded
      self._errored_calls.discard(call)
      return None
    error = self._result_error(tool, tool_args, tool_context, result)
    if error is not None:
      self._add_entry(tool_context.invocation_id, "tool_error", agent_name=tool_context.agent_name, tool_name=tool.name,
                function_call_id=tool_context.function_call_id, args=self._safe_serialize(tool_args),
                result=self._safe_serialize(result), error_message=error)
      return None
    self._add_entry(tool_context.invocation_id, "tool_response", agent_name=tool_context.agent_name, tool_name=tool.name,
              function_call_id=tool_context.function_call_id, result=self._safe_serialize(result))
    return None

  async def on_tool_error_callback(self, *, tool, tool_args, tool_context, error):
    data = {"agent_name": tool_context.agent_name, "tool_name": tool.name,
            "function_call_id": tool_context.function_call_id, "args": self._safe_serialize(tool_args),
            "error_type": type(error).__name__, "error_message": str(error)}
    self._errored_calls.add((tool_context.invocation_id, tool_context.function_call_id))
    self._add_entry(tool_context.invocation_id, "tool_error", **data)
    return None

  def _result_error(self, tool, tool_args, tool_context, result) -> Optional[str]:
    """The error a result reports without raising (google-adk's rules), else None."""
    fields = result if isinstance(result, dict) else (
        getattr(result, "__dict__", {}) if type(result).__name__ == "CallToolResult" else {})
    if fields.get("response_type") == _REFLECT_RETRY_TYPE:
      for key in ("error_details", "error_type"):
        if isinstance(fields.get(key), str) and fields[key]:
          return fields[key]
      return _RETRY_ERROR
    if self._tool_result_classifier is not None:
      try:
        verdict = self._tool_result_classifier(tool=tool, tool_args=tool_args, tool_context=tool_context,
                                               result=result)
        if inspect.isawaitable(verdict):
          if inspect.iscoroutine(verdict):
            verdict.close()
          raise TypeError("the classifier returned an awaitable")
        if verdict is not None and not isinstance(verdict, ToolResultClassification):
          raise TypeError("the classifier returned something other than a ToolResultClassification")
      except Exception:
        verdict = None
        logger.warning("tool_result_classifier raised or answered wrongly for tool %s; the result is judged by "
                       "the default rule instead.", tool.name)
      if verdict is not None:
        return None if verdict.status == "OK" else (verdict.error_message or _CLASSIFIED_ERROR)
    if fields.get("isError") is True or fields.get("is_error") is True:
      return _MCP_ERROR
    return None


def _is_model_stop(code: str) -> bool:
  """True for an error code that is a model finish or block reason (not a node failure)."""
  from google.genai import types

  return code in {r.value for r in types.FinishReason} | {r.value for r in types.BlockedReason}


__all__ = ["DebugLoggingPlugin", "ToolResultClassification", "ToolResultClassifier"]
