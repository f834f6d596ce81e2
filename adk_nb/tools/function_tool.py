"""FunctionTool: any Python function as a tool, its schema derived from the signature."""

from __future__ import annotations

import inspect
from typing import TYPE_CHECKING, Any, Callable, Optional, Union

from google.genai import types
from pydantic import BaseModel

from ._declaration_variants import for_vertex, response_json_schema, vertex_selected
from ._function_schema import FunctionSignature, ToolArgumentsError, parse_docstring, unwrap_partial
from ._threads import call_in_thread
from .base_tool import BaseTool
from .tool_confirmation import confirmation_gate, confirmation_required

if TYPE_CHECKING:
  from .tool_context import ToolContext


class FunctionTool(BaseTool):
  """Wraps a sync or async function as a tool.

  The model sees the function's name, docstring and parameters (required = no default);
  a `tool_context: ToolContext` parameter is injected and hidden from the model.
  `run_async` returns the function's value as is; the answer the model reads wraps a
  non-dict value as `{'result': value}`.

  Args:
    func: the function.
    require_confirmation: True, or a function of the call's arguments returning True,
      to pause the call until a person approves it.
    run_on_loop: for a sync `func`, call it on the event loop's thread instead of a worker
      thread (adk_nb's default, see `adk_nb.tools._threads`). For quick, non-blocking
      functions only (it saves the 50-200 us hand-off); while it runs, nothing else on the
      loop does, and a cancel waits for it. An `async def` function always runs on the loop.
  """

  def __init__(
      self,
      func: Callable[..., Any],
      *,
      require_confirmation: Union[bool, Callable[..., Any]] = False,
      run_on_loop: bool = False,
  ) -> None:
    inner = unwrap_partial(func)
    name = getattr(inner, "__name__", None) or type(inner).__name__
    doc = inspect.getdoc(inner)
    if not inspect.isroutine(inner) and callable(inner) and getattr(type(inner), "__doc__", None) == doc:
      doc = inspect.getdoc(type(inner).__call__) or doc  # a callable object: its __call__ says what it does
    description, _ = parse_docstring(doc)
    super().__init__(name=name, description=description)
    self.func = func
    self._require_confirmation = require_confirmation
    self._signature = FunctionSignature(func, name)
    self._declarations: dict[bool, types.FunctionDeclaration] = {}  # by: is Vertex AI selected
    target = inner if inspect.isroutine(inner) else getattr(inner, "__call__", inner)
    self._is_async = inspect.iscoroutinefunction(target)
    if not isinstance(run_on_loop, bool):
      raise TypeError(f"FunctionTool(run_on_loop=...) takes True or False, not {run_on_loop!r}.")
    self.run_on_loop = run_on_loop
    """Whether a sync `func` is called on the event loop's thread (declared; never decided by timing)."""

  def _get_declaration(self) -> types.FunctionDeclaration:
    """The declaration the model receives, as google-adk 2.13 writes it for the selected backend
    (`GOOGLE_GENAI_USE_VERTEXAI`): for Vertex AI, `Optional` parameters are `nullable` instead of
    `anyOf` with null, and the return type is sent as `response_json_schema`. Built once per backend."""
    vertex = vertex_selected()
    declaration = self._declarations.get(vertex)
    if declaration is None:
      schema = self._signature.json_schema
      # As google-adk 2.13: no docstring, no description; no parameters, no schema.
      declaration = types.FunctionDeclaration(
          name=self.name,
          description=self.description or None,
          parameters_json_schema=(for_vertex(schema) if vertex else schema) if schema["properties"] else None,
      )
      if vertex:
        response = response_json_schema(self.func)
        declaration.response_json_schema = for_vertex(response) if response else None
      self._declarations[vertex] = declaration
    return declaration

  @property
  def signature(self) -> FunctionSignature:
    """The model-visible parameters (schema and validator)."""
    return self._signature

  def _preprocess_args(self, args: dict[str, Any]) -> dict[str, Any]:
    """The arguments converted to the function's parameter types where they convert (google-adk's
    name); a value that does not convert is kept as it is. Calls validate strictly: `validate_args`."""
    return self._signature.convert_leniently(args)

  def validate_args(self, args: dict[str, Any]) -> dict[str, Any]:
    """Validates arguments against the signature; raises ToolArgumentsError naming the problem."""
    return self._signature.validate(args)

  async def needs_confirmation(self, args: dict[str, Any], tool_context: "ToolContext") -> bool:
    """Whether this call must wait for a person's approval (arguments checked and converted first)."""
    rule = self._require_confirmation
    values = self._signature.validate(args) if callable(rule) else args
    return await confirmation_required(rule, values, tool_context)

  async def run_async(self, *, args: dict[str, Any], tool_context: "ToolContext") -> Any:
    missing = [name for name in self._signature.required if name not in (args or {})]
    if missing:  # the model can fix it, so it reads what was left out
      return {"error": f"`{self.name}()` was called without its required parameter(s) {', '.join(missing)}. "
                       "Call it again and pass every required parameter."}
    try:
      values = self._signature.validate(args)
    except ToolArgumentsError as exc:
      return {"error": str(exc)}
    gated = await confirmation_gate(self, args, tool_context)
    if gated is not None:
      return gated
    if self._signature.context_param:
      values[self._signature.context_param] = tool_context
    positional = [values.pop(n) for n in self._signature.positional_only if n in values]
    if self._is_async:
      result = await self.func(*positional, **values)
    else:
      if self.run_on_loop:
        result = self.func(*positional, **values)
      else:  # see adk_nb.tools._threads
        result = await call_in_thread(self.func, positional, values, tool_context)
      if inspect.isawaitable(result):
        result = await result
    return result  # None from a long-running tool leaves the call pending

  async def _call_live(self, **kwargs: Any) -> Any:  # pragma: no cover - live streaming not supported
    raise NotImplementedError
