"""FunctionNode: a plain Python function (sync, async, generator) as a workflow node."""

from __future__ import annotations

import asyncio
import collections.abc
import inspect
import logging
import types as types_mod
import typing
from typing import Any, AsyncGenerator, Callable, Literal, Union

from google.genai import types
from pydantic import BaseModel, TypeAdapter, model_validator

from ..agents.context import Context
from ..events.event import Event
from ..events.request_input import RequestInput
from ..tools.tool_confirmation import REJECTED_RESPONSE, ToolConfirmation
from ..tools._function_schema import unwrap_partial as _unwrap_partial
from ._base_node import BaseNode
from ._errors import WorkflowConfigurationError, WorkflowDataError

logger = logging.getLogger("adk_nb.workflow")

_GENERATOR_ORIGINS = (collections.abc.Generator, collections.abc.AsyncGenerator, collections.abc.Iterator,
                      collections.abc.AsyncIterator, collections.abc.Iterable, collections.abc.AsyncIterable)

_EMPTY = inspect.Parameter.empty


class _Param:
  __slots__ = ("name", "kind", "annotation", "adapter", "default")

  def __init__(self, name: str, kind: str, annotation: Any, default: Any):
    self.name = name
    self.kind = kind  # 'ctx' | 'input' | 'state'
    self.annotation = annotation
    self.default = default
    self.adapter = None
    if annotation is not _EMPTY and annotation is not Any and kind != "ctx":
      try:
        self.adapter = TypeAdapter(annotation)
      except Exception:  # an annotation pydantic cannot validate is passed through unchecked
        self.adapter = None


def _content_text(content: types.Content) -> str:
  parts = content.parts or []
  if any(p.text is None and not p.thought for p in parts):
    # A node typed `str` gets the message's text only: say what it does not see (an image, a file).
    logger.warning("A node input typed str was given a message with non-text parts (%s); the node gets its "
                   "text only. Type the parameter types.Content to receive every part.",
                   ", ".join(sorted({_part_kind(p) for p in parts if p.text is None})))
  return "".join(p.text for p in parts if p.text and not p.thought)


def _part_kind(part: types.Part) -> str:
  for name in ("inline_data", "file_data", "function_call", "function_response", "executable_code",
               "code_execution_result"):
    if getattr(part, name, None) is not None:
      return name
  return "other"


def _is_text_annotation(annotation: Any) -> bool:
  """str, or an Optional / Union whose only non-None member is str."""
  if annotation is str:
    return True
  members = [a for a in typing.get_args(annotation) if a is not type(None)]
  return typing.get_origin(annotation) in (Union, types_mod.UnionType) and members == [str]


def coerce(value: Any, param: _Param) -> Any:
  """The value converted to the parameter's annotation (user Content becomes its text for `str`)."""
  annotation = param.annotation
  if isinstance(value, types.Content) and annotation is not _EMPTY and annotation is not types.Content:
    text = _content_text(value)
    if _is_text_annotation(annotation):
      return text
    if param.adapter is not None:
      return param.adapter.validate_json(text)
    return text
  if param.adapter is None or annotation is types.Content:
    return value
  return param.adapter.validate_python(value)


class FunctionNode(BaseNode):
  """Wraps a callable as a node. Its parameters are bound by name:

  - `ctx` (or a parameter annotated `Context`) gets the node's Context;
  - `node_input` gets the output of the previous node, coerced to its annotation (START gives
    the user's message: its text for `str`, the `types.Content` itself when unannotated);
  - every other parameter is read from session state, falling back to its default
    (`parameter_binding='state'`), or from the keys of a dict input (`'node_input'`).

  The return value (or each yielded value of a generator) is the node's output.

  With `require_confirmation` (True, or a predicate over the bound arguments) the node asks a
  person first: it yields a RequestInput with interrupt id `wf_tool_confirmation:{node path}`
  whose answer is a ToolConfirmation (`{"confirmed": true}`); approved, the function runs
  (with `ctx.tool_confirmation` set); rejected, the output is `{"error": "This tool call is
  rejected."}` and the function never runs. Such a node runs again on resume.
  """

  func: Callable[..., Any]
  """The wrapped function."""
  parameter_binding: Literal["state", "node_input"] = "state"
  """Where parameters other than ctx/node_input come from: session state, or a dict node input."""
  require_confirmation: Union[bool, Callable[..., Any]] = False
  """Ask a person to approve each run (True), or those for which this predicate of the arguments is true."""
  state_schema: Any = None
  """A pydantic model the node's state writes are checked against (StateSchemaError), instead of its workflow's."""
  auth_config: Any = None
  """An `AuthConfig`: the node asks the client for this credential before its function runs, unless state
  already holds it. It pauses on an `adk_request_credential` call (id `wf_auth:{node path}`); the client's
  answer (the authConfig with `exchangedAuthCredential` filled in, or the credential alone) is kept in
  `temp:<credential_key>` and the node runs again, reading it with `ctx.get_auth_response(auth_config)`.
  Needs rerun_on_resume=True, as in google-adk."""

  @model_validator(mode="before")
  @classmethod
  def _defaults(cls, data: Any) -> Any:
    if isinstance(data, dict) and data.get("func") is not None:
      func = data["func"]
      if not callable(func):
        raise WorkflowConfigurationError(f"FunctionNode(func=...) needs a callable, got {type(func).__name__}.")
      if not data.get("name"):
        inner = _unwrap_partial(func)  # a functools.partial is named after the function it wraps
        name = getattr(inner, "__name__", None) or type(inner).__name__
        if not name.isidentifier():
          raise WorkflowConfigurationError(
              f"Cannot name a node after {func!r} ({name!r} is not an identifier); give it a name: "
              "node(func, name='my_step') or FunctionNode(func=..., name='my_step')."
          )
        data = {**data, "name": name}
      if not data.get("description") and inspect.getdoc(func):
        data = {**data, "description": inspect.getdoc(func).splitlines()[0]}
    if isinstance(data, dict) and data.get("require_confirmation"):
      if data.get("rerun_on_resume") is False:
        raise WorkflowConfigurationError(
            f"FunctionNode {data.get('name')!r}: require_confirmation needs rerun_on_resume=True (the node runs "
            "again once the person answered); drop rerun_on_resume=False."
        )
      # google-adk raises unless rerun_on_resume=True is passed too; it is implied here.
      data = {**data, "rerun_on_resume": True}
    if isinstance(data, dict) and data.get("auth_config") is not None:
      from ..auth.auth_tool import AuthConfig

      if not isinstance(data["auth_config"], AuthConfig):
        raise WorkflowConfigurationError(
            f"FunctionNode {data.get('name')!r}: auth_config must be an AuthConfig (adk_nb.auth), got "
            f"{type(data['auth_config']).__name__}.")
      if data.get("rerun_on_resume") is not True:
        # As google-adk 2.13 (which raises the same): the function runs only once the credential arrived.
        raise WorkflowConfigurationError(
            f"FunctionNode {data.get('name')!r} with auth_config requires rerun_on_resume=True (the node runs "
            "again once the client sent the credential): pass rerun_on_resume=True."
        )
    return data

  def model_post_init(self, __context: Any) -> None:
    func = _unwrap_partial(self.func)  # kinds and annotations are the wrapped function's
    target = func if (inspect.isfunction(func) or inspect.ismethod(func)) else getattr(func, "__call__", func)
    try:
      signature = inspect.signature(self.func)  # a partial's own: its bound arguments are not parameters
    except (TypeError, ValueError):
      signature = None
    try:
      hints = inspect.get_annotations(target, eval_str=True)
    except Exception:
      hints = {}
    params = []
    if signature is not None:
      for p in signature.parameters.values():
        if p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD):
          continue
        annotation = hints.get(p.name, p.annotation)
        if p.name == "ctx" or (isinstance(annotation, type) and issubclass(annotation, Context)):
          kind = "ctx"
        elif p.name == "node_input":
          kind = "input"
        else:
          kind = "state"
        params.append(_Param(p.name, kind, annotation, p.default))
    object.__setattr__(self, "_params", tuple(params))
    inner = getattr(func, "__call__", None) if not inspect.isroutine(func) else func
    object.__setattr__(self, "_is_async_gen", inspect.isasyncgenfunction(func) or inspect.isasyncgenfunction(inner))
    object.__setattr__(self, "_is_gen", inspect.isgeneratorfunction(func) or inspect.isgeneratorfunction(inner))
    object.__setattr__(self, "_is_coro", inspect.iscoroutinefunction(func) or inspect.iscoroutinefunction(inner))
    object.__setattr__(self, "_is_plain_sync", not (self._is_async_gen or self._is_gen or self._is_coro
                                                    or self.require_confirmation or self.auth_config is not None))
    ret = hints.get("return")
    if typing.get_origin(ret) in _GENERATOR_ORIGINS:  # a generator's schema is what it yields
      ret = (typing.get_args(ret) or (None,))[0]
    if (self.output_schema is None and isinstance(ret, type) and issubclass(ret, BaseModel)
        and not issubclass(ret, (Event, RequestInput, types.Content))):  # an Event, request or message: no schema
      self.output_schema = ret
    for p in params:
      if p.kind == "input" and self.input_schema is None and isinstance(p.annotation, type) \
          and issubclass(p.annotation, BaseModel):
        self.input_schema = p.annotation
    if self.parameter_binding == "node_input":
      self._infer_node_input_schemas(ret)

  def _infer_node_input_schemas(self, ret: Any) -> None:
    """With `parameter_binding='node_input'` the parameters are the node's input: as google-adk, the
    JSON schemas of the parameters (ctx left out) and of the return type become `input_schema` /
    `output_schema` (a JSON-schema dict documents; it does not validate)."""
    from ..tools._function_schema import FunctionSignature

    if self.input_schema is None:
      try:
        schema = dict(FunctionSignature(self.func, self.name).json_schema)
        hidden = {p.name for p in self._params if p.kind == "ctx"}
        schema["properties"] = {k: v for k, v in schema.get("properties", {}).items() if k not in hidden}
        if "required" in schema:
          schema["required"] = [k for k in schema["required"] if k not in hidden]
        self.input_schema = schema
      except Exception:  # a signature pydantic cannot describe: no schema, as before
        pass
    if self.output_schema is None and ret is not None and ret is not type(None):
      try:
        self.output_schema = TypeAdapter(ret).json_schema()
      except Exception:
        pass

  def _state_parameter_names(self) -> list[str]:
    return [p.name for p in self._params if p.kind == "state"]

  def _bind(self, ctx: Context, node_input: Any) -> dict[str, Any]:
    kwargs: dict[str, Any] = {}
    source = None
    if self.parameter_binding == "node_input":
      source = node_input.model_dump() if isinstance(node_input, BaseModel) else node_input
      if not isinstance(source, dict):
        source = {}
    for p in self._params:
      if p.kind == "ctx":
        kwargs[p.name] = ctx
        continue
      if p.kind == "input":
        value = node_input
      else:
        store = source if source is not None else ctx._state_to_read()
        if p.name in store:
          value = store[p.name]
        elif p.default is not _EMPTY:
          kwargs[p.name] = p.default
          continue
        else:
          where = "the node input" if source is not None else "session state"
          raise WorkflowDataError(
              f'Missing value for parameter "{p.name}" of node {self.name!r}: not found in {where} '
              f"and it has no default. Set state[{p.name!r}] in an earlier node (or with "
              f"run_async(state_delta=...)), give the parameter a default, or take it as node_input."
          )
      try:
        kwargs[p.name] = coerce(value, p)
      except Exception as exc:
        raise WorkflowDataError(
            f"Node {self.name!r}: parameter {p.name!r} expects {getattr(p.annotation, '__name__', p.annotation)}, "
            f"got {type(value).__name__}: {exc}"
        ) from exc
    return kwargs

  async def _confirmation_gate(self, ctx: Context, node_input: Any, kwargs: dict[str, Any]) -> Any:
    """None to go ahead; else what the node yields instead of running (a request, or the rejection)."""
    interrupt_id = f"wf_tool_confirmation:{ctx.node_path}"
    if interrupt_id in ctx.resume_inputs:
      response = ctx.resume_inputs[interrupt_id]
      try:
        confirmation = (response if isinstance(response, ToolConfirmation)
                        else ToolConfirmation.from_response_dict(response))
      except Exception as exc:
        raise WorkflowDataError(
            f"Node {self.name!r}: the answer to its confirmation request must be a ToolConfirmation such as "
            f'{{"confirmed": true}}, got {response!r}.'
        ) from exc
      ctx.tool_confirmation = confirmation
      return None if confirmation.confirmed else dict(REJECTED_RESPONSE)
    args = {name: value for name, value in kwargs.items() if value is not ctx}
    if not await self._needs_confirmation(ctx, node_input, args):
      return None
    from ._checkpoint import encode

    return RequestInput(interrupt_id=interrupt_id, message=f"Should {self.name}() run? Approve or reject it.",
                        payload={"tool_name": self.name, "args": encode(args)}, response_schema=ToolConfirmation)

  async def _needs_confirmation(self, ctx: Context, node_input: Any, args: dict[str, Any]) -> bool:
    check = self.require_confirmation
    if not callable(check):
      return bool(check)
    try:
      parameters = inspect.signature(check).parameters
    except (TypeError, ValueError):
      parameters = {}
    offered = {**args, "ctx": ctx, "tool_context": ctx, "node_input": node_input}
    if any(p.kind is p.VAR_KEYWORD for p in parameters.values()):
      kwargs = {k: v for k, v in offered.items() if k not in ("ctx", "tool_context")}
    else:
      kwargs = {k: v for k, v in offered.items() if k in parameters}
    answer = check(**kwargs)
    if inspect.isawaitable(answer):
      answer = await answer
    return bool(answer)

  async def _run_impl(self, *, ctx: Context, node_input: Any) -> AsyncGenerator[Any, None]:
    kwargs = self._bind(ctx, node_input)
    if self.require_confirmation:
      instead = await self._confirmation_gate(ctx, node_input, kwargs)
      if instead is not None:
        yield instead
        return
    if self.auth_config is not None:
      from ._node_auth import auth_gate

      request = await auth_gate(self.auth_config, ctx)
      if request is not None:
        yield request
        return
    offload = getattr(ctx, "_offload", False)  # a ctx of another kind (a test double) runs inline
    if self._is_async_gen:
      async for item in self.func(**kwargs):
        yield item
    elif self._is_coro:
      yield await self.func(**kwargs)
    elif self._is_gen:
      gen = self.func(**kwargs)
      done = object()
      while True:
        item = (await asyncio.to_thread(next, gen, done)) if offload else next(gen, done)
        if item is done:
          break
        yield item
    elif offload:
      # Other nodes are running: a blocking function must not stall them.
      yield await asyncio.to_thread(self.func, **kwargs)
    else:
      yield self.func(**kwargs)
