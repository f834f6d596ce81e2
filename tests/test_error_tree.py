"""One root for adk_nb's errors, and error codes that are all produced somewhere."""

from __future__ import annotations

import importlib
import inspect
import pkgutil
from pathlib import Path

import adk_nb
from adk_nb.errors import AdkNbError, codes, error_code_of, event_error_code

# Exception classes that may stay outside AdkNbError, each with the reason.
OUTSIDE_THE_ROOT = {
    # A private signal raised and caught inside EvalRunner.run_case's own module; it never
    # reaches a caller (an agent error becomes the case's `error_type` 'agent_error').
    "adk_nb.evaluation._run._CaseFailed",
    # A control signal (a BaseException, as in google-adk): unwinds a node whose ctx.run_node child
    # paused; the workflow scheduler catches it and the run pauses. It never reaches a caller.
    "adk_nb.workflow._errors.NodeInterruptedError",
}


def adk_nb_modules():
  for info in pkgutil.walk_packages(adk_nb.__path__, "adk_nb."):
    if info.name.endswith("__main__"):
      continue  # running it parses sys.argv
    try:
      yield importlib.import_module(info.name)
    except ModuleNotFoundError as exc:  # an optional extra that is not installed here
      assert not (exc.name or "").startswith("adk_nb"), exc


def exception_classes():
  for module in adk_nb_modules():
    for obj in vars(module).values():
      if inspect.isclass(obj) and issubclass(obj, BaseException) and obj.__module__ == module.__name__:
        yield obj


def test_every_exception_adk_nb_defines_derives_from_adk_nb_error():
  classes = list(exception_classes())
  assert len(classes) > 30  # the walk found the package's modules
  outside = {f"{c.__module__}.{c.__qualname__}" for c in classes if not issubclass(c, AdkNbError)}
  assert outside == OUTSIDE_THE_ROOT


def test_errors_keep_the_builtin_bases_adk_users_catch():
  from adk_nb.models.guard import RealModelCallBlocked
  from adk_nb.tools._function_schema import ToolArgumentsError
  from adk_nb.tools.mcp_tool import McpConnectionError
  from adk_nb.tools.openapi_tool import OpenApiSpecError
  from adk_nb.workflow._errors import GraphValidationError, WorkflowStalledError

  assert issubclass(GraphValidationError, ValueError) and issubclass(WorkflowStalledError, RuntimeError)
  assert issubclass(OpenApiSpecError, ValueError) and issubclass(ToolArgumentsError, ValueError)
  assert issubclass(McpConnectionError, ConnectionError) and issubclass(RealModelCallBlocked, RuntimeError)


def test_every_listed_code_is_produced():
  on_classes = {c.error_code for c in exception_classes() if issubclass(c, AdkNbError)}
  listed = {name: value for name, value in vars(codes).items() if name.isupper() and isinstance(value, str)}
  source = "\n".join(p.read_text() for p in Path(adk_nb.__file__).parent.rglob("*.py") if p.parent.name != "errors")
  for name, value in listed.items():
    if value in codes.EVENT_CODES or value in codes.HTTP_CODES:
      assert f"codes.{name}" in source, f"{name} is listed as an event or HTTP code but no module writes it"
    else:
      assert value in on_classes, f"{name} is listed but no exception class carries it"


def test_events_carry_the_class_name_and_programs_the_class_code():
  from adk_nb.errors import CallAlreadyAnsweredError

  exc = CallAlreadyAnsweredError("answered twice")
  assert (event_error_code(exc), error_code_of(exc)) == ("CallAlreadyAnsweredError", "CALL_ALREADY_ANSWERED")
  assert (event_error_code(KeyError("x")), error_code_of(KeyError("x"))) == ("KeyError", "AGENT_ERROR")


def test_no_module_spells_a_code_as_a_string():
  """Codes are written through `codes.NAME`, so a renamed or misspelt code fails at import, not in a client."""
  import ast

  listed = {value for name, value in vars(codes).items() if name.isupper() and isinstance(value, str)}
  spelt = []
  for path in Path(adk_nb.__file__).parent.rglob("*.py"):
    if path.parent.name == "errors":
      continue
    for node in ast.walk(ast.parse(path.read_text())):
      if isinstance(node, ast.Constant) and node.value in listed:
        spelt.append(f"{path.relative_to(Path(adk_nb.__file__).parent)}:{node.lineno} {node.value!r}")
  assert spelt == []
