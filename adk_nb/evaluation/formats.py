"""Reading and writing eval files: `*.evalset.json`, legacy `*.test.json`, `test_config.json`.

Every reading error is an `EvalFileError` naming the file, the case and the field, e.g.
``cases.evalset.json: case 'weather_paris' (eval_cases[1]): conversation[0].user_content: Field required``.
"""

from __future__ import annotations

import codecs
import json
import os
import time
import uuid
from pathlib import Path
from typing import Any, Optional, Union

from google.genai import types
from pydantic import ValidationError

from ..errors.eval_file_error import EvalFileError  # defined beside adk_nb's other errors; importable here too
from .eval_case import EvalCase, IntermediateData, Invocation, SessionInput
from .eval_config import DEFAULT_EVAL_CONFIG, EvalConfig
from .eval_set import EvalSet

PathLike = Union[str, "os.PathLike[str]"]


def _loc(loc: tuple) -> str:
  out = ""
  for item in loc:
    if isinstance(item, int):
      out += f"[{item}]"
    elif item in ("function-after[_one_conversation()]",) or str(item).startswith(("function-", "tagged-union")):
      continue
    else:
      out += ("." if out else "") + _snake(str(item))
  return out


def _snake(name: str) -> str:
  return "".join("_" + c.lower() if c.isupper() else c for c in name)


def _first_error(exc: ValidationError) -> tuple[str, str]:
  """(field path, message) of the first validation error, with union noise dropped."""
  errors = exc.errors()
  # A field that is a union (IntermediateData | InvocationEvents) reports every branch; the
  # branch whose name matches the keys given is the useful one, so prefer the shortest path.
  err = min(errors, key=lambda e: len(e["loc"])) if errors else {"loc": (), "msg": str(exc)}
  if len(errors) > 1 and all(e["loc"][:1] == err["loc"][:1] for e in errors):
    err = errors[0]
  loc = [x for x in err["loc"] if x not in ("IntermediateData", "InvocationEvents")]
  msg = err["msg"].removeprefix("Value error, ")
  return _loc(tuple(loc)), msg + (f" (got {err['input']!r:.80})" if err.get("type") not in ("missing",) and "input" in err and not isinstance(err["input"], (dict, list)) else "")


def read_json_file(path: PathLike) -> Any:
  """Parses a JSON file of the evaluation (eval set, config, initial session); EvalFileError otherwise."""
  try:
    data = Path(path).read_bytes()
  except FileNotFoundError:
    raise EvalFileError(path, "file not found; check the path (eval sets end in .evalset.json)") from None
  except OSError as exc:
    raise EvalFileError(path, f"cannot be read ({exc.strerror or exc}); check the path and its permissions") from None
  try:
    # A byte-order mark, as some Windows editors write, is fine.
    text = data.removeprefix(codecs.BOM_UTF8).decode("utf-8")
  except UnicodeDecodeError as exc:
    data = data.removeprefix(codecs.BOM_UTF8)
    line = data.count(b"\n", 0, exc.start) + 1
    raise EvalFileError(
        path, f"not UTF-8 text: byte 0x{data[exc.start]:02x} at line {line} cannot be "
        "decoded; save the file as UTF-8") from None
  try:
    return json.loads(text)
  except json.JSONDecodeError as exc:
    raise EvalFileError(path, f"not valid JSON: {exc.msg} at line {exc.lineno}, column {exc.colno}") from None
  except RecursionError:
    raise EvalFileError(
        path, "nested too deeply to read (lists or objects inside each other hundreds of levels "
        "deep); an eval file needs only a few levels") from None




def eval_set_from_dict(data: Any, path: PathLike = "<eval set>") -> EvalSet:
  """Validates a parsed eval set; errors name the case and the field."""
  if not isinstance(data, dict):
    raise EvalFileError(path, f"an eval set is a JSON object with 'eval_set_id' and 'eval_cases', got {type(data).__name__}")
  raw_cases = data.get("eval_cases", data.get("evalCases"))
  if not isinstance(raw_cases, list):
    raise EvalFileError(path, "missing the list of cases; add \"eval_cases\": [...]", field="eval_cases")
  cases = []
  seen = set()
  for i, raw in enumerate(raw_cases):
    name = raw.get("eval_id", raw.get("evalId")) if isinstance(raw, dict) else None
    label = f"{name!r} (eval_cases[{i}])" if name else f"eval_cases[{i}]"
    try:
      case = EvalCase.model_validate(raw)
    except ValidationError as exc:
      field, msg = _first_error(exc)
      raise EvalFileError(path, msg, case=label, field=field or None) from None
    if case.eval_id in seen:
      raise EvalFileError(path, f"duplicate eval_id {case.eval_id!r}; give each case its own id", case=label,
                          field="eval_id")
    seen.add(case.eval_id)
    cases.append(case)
  rest = {k: v for k, v in data.items() if k not in ("eval_cases", "evalCases")}
  rest.setdefault("eval_set_id", rest.pop("evalSetId", None) or Path(str(path)).name.split(".")[0])
  try:
    return EvalSet.model_validate({**rest, "eval_cases": []}).model_copy(update={"eval_cases": cases})
  except ValidationError as exc:
    field, msg = _first_error(exc)
    raise EvalFileError(path, msg, field=field) from None


def load_eval_set(path: PathLike, *, initial_session: Optional[dict[str, Any]] = None) -> EvalSet:
  """Reads an eval set: ADK's `*.evalset.json` (snake or camelCase keys) or a legacy `*.test.json` list.

  Args:
    path: the file.
    initial_session: for legacy files only, `{"state": ..., "user_id": ...}` every case starts with.
  """
  data = read_json_file(path)
  if isinstance(data, list):
    return legacy_eval_set(data, path, initial_session=initial_session)
  return eval_set_from_dict(data, path)


def _legacy_invocation(row: Any, path: PathLike, i: int) -> Invocation:
  case = Path(str(path)).name
  if not isinstance(row, dict):
    raise EvalFileError(path, f"each entry is an object with 'query', got {type(row).__name__}", case=case,
                        field=f"[{i}]")
  if not isinstance(row.get("query"), str):
    raise EvalFileError(path, "missing the user's message; add \"query\": \"...\"", case=case, field=f"[{i}].query")
  calls = []
  for j, use in enumerate(row.get("expected_tool_use") or []):
    if not isinstance(use, dict) or not isinstance(use.get("tool_name"), str):
      raise EvalFileError(path, "each expected tool use needs \"tool_name\" (and \"tool_input\": {...})",
                          case=case, field=f"[{i}].expected_tool_use[{j}].tool_name")
    args = use.get("tool_input", {})
    if not isinstance(args, dict):
      raise EvalFileError(path, "tool_input must be an object of arguments", case=case,
                          field=f"[{i}].expected_tool_use[{j}].tool_input")
    calls.append(types.FunctionCall(name=use["tool_name"], args=args))
  replies = []
  for j, reply in enumerate(row.get("expected_intermediate_agent_responses") or []):
    if not isinstance(reply, dict) or "author" not in reply or "text" not in reply:
      raise EvalFileError(path, "each intermediate response needs \"author\" and \"text\"", case=case,
                          field=f"[{i}].expected_intermediate_agent_responses[{j}]")
    replies.append((reply["author"], [types.Part(text=reply["text"])]))
  return Invocation(
      invocation_id=str(uuid.uuid4()),
      user_content=types.Content(role="user", parts=[types.Part(text=row["query"])]),
      final_response=types.Content(role="model", parts=[types.Part(text=row.get("reference", "") or "")]),
      intermediate_data=IntermediateData(tool_uses=calls, intermediate_responses=replies),
  )


def legacy_eval_set(rows: list, path: PathLike = "<legacy>", *,
                    initial_session: Optional[dict[str, Any]] = None) -> EvalSet:
  """Converts a legacy `*.test.json` list of turns into an EvalSet with one multi-turn case, as ADK does."""
  name = os.fspath(path)
  conversation = [_legacy_invocation(row, path, i) for i, row in enumerate(rows)]
  session_input = None
  if initial_session:
    session_input = SessionInput(app_name=initial_session.get("app_name", ""),
                                 user_id=initial_session.get("user_id", ""),
                                 state=initial_session.get("state", {}))
  case = EvalCase(eval_id=name, conversation=conversation, session_input=session_input,
                  creation_timestamp=time.time())
  return EvalSet(eval_set_id=Path(name).name.split(".")[0], eval_cases=[case], creation_timestamp=time.time())


def save_eval_set(eval_set: EvalSet, path: PathLike) -> Path:
  """Writes an eval set as ADK's `*.evalset.json` (snake_case keys, None fields left out)."""
  path = Path(path)
  path.parent.mkdir(parents=True, exist_ok=True)
  path.write_text(eval_set.model_dump_json(indent=2, exclude_none=True), encoding="utf-8")
  return path


_CONFIG_KEYS = frozenset({"criteria", "custom_metrics", "customMetrics", "user_simulator_config",
                          "userSimulatorConfig"})


def load_eval_config(path: Optional[PathLike] = None, *, default: Optional[EvalConfig] = None) -> EvalConfig:
  """Reads `test_config.json`; ADK's default criteria when `path` is None, empty or missing."""
  if not path or not Path(path).exists():
    return default or DEFAULT_EVAL_CONFIG
  data = read_json_file(path)
  if not isinstance(data, dict):
    raise EvalFileError(path, "a test config is an object like {\"criteria\": {\"tool_trajectory_avg_score\": 1.0}}")
  # ADK's test_config.json keys, in either spelling; anything else is most likely a typo that
  # would leave the run without criteria.
  unknown = [k for k in data if k not in _CONFIG_KEYS]
  if unknown:
    raise EvalFileError(path, f"unknown key {unknown[0]!r}; a test config has \"criteria\" (and optionally "
                        "\"custom_metrics\", \"user_simulator_config\")", field=unknown[0])
  try:
    return EvalConfig.model_validate(data)
  except ValidationError as exc:
    field, msg = _first_error(exc)
    raise EvalFileError(path, msg, field=field) from None


def config_for(eval_set_path: PathLike) -> EvalConfig:
  """The `test_config.json` next to an eval set file, or ADK's default criteria."""
  return load_eval_config(Path(eval_set_path).parent / "test_config.json")
