"""`LocalEvalSetsManager`: eval sets as `<agents_dir>/<app_name>/<eval_set_id>.evalset.json` files.

The layout `adk web` and `adk eval` use, so sets created by either tool are seen by the other.
"""

from __future__ import annotations

import json
import os
import re
import time
from typing import Any, Optional

from ..errors.not_found_error import NotFoundError
from .eval_case import EvalCase, SessionInput
from .eval_set import EvalSet
from .eval_sets_manager import (EvalSetsManager, find_case, require_eval_set, with_case_added, with_case_deleted,
                                with_case_replaced)
from .formats import EvalFileError, _legacy_invocation, eval_set_from_dict

_EVAL_SET_FILE_EXTENSION = ".evalset.json"
_ID = re.compile(r"[A-Za-z0-9_]+")


def convert_eval_set_to_pydantic_schema(eval_set_id: str, eval_set_in_json_format: list[dict[str, Any]]) -> EvalSet:
  """An EvalSet from ADK's older JSON list of cases: `[{"name", "data": [{"query", "reference", ...}],
  "initial_session": {...}}]`, each entry one case, each `data` item one turn."""
  cases = []
  for i, old in enumerate(eval_set_in_json_format):
    if not isinstance(old, dict) or "name" not in old or not isinstance(old.get("data"), list):
      raise EvalFileError(eval_set_id, "each case of the old format is an object with \"name\" and \"data\": [...]",
                          field=f"[{i}]")
    turns = [_legacy_invocation(row, eval_set_id, j) for j, row in enumerate(old["data"])]
    session = old.get("initial_session") or None
    session_input = None
    if session:
      session_input = SessionInput(app_name=session.get("app_name", ""), user_id=session.get("user_id", ""),
                                   state=session.get("state", {}))
    cases.append(EvalCase(eval_id=old["name"], conversation=turns, session_input=session_input,
                          creation_timestamp=time.time()))
  return EvalSet(eval_set_id=eval_set_id, name=eval_set_id, eval_cases=cases, creation_timestamp=time.time())


def load_eval_set_from_file(eval_set_file_path: str, eval_set_id: str) -> EvalSet:
  """Reads an eval set file: the current schema, or the older list-of-cases format (converted)."""
  with open(eval_set_file_path, encoding="utf-8") as f:
    data = json.load(f)
  if isinstance(data, list):
    return convert_eval_set_to_pydantic_schema(eval_set_id, data)
  return eval_set_from_dict(data, eval_set_file_path)


class LocalEvalSetsManager(EvalSetsManager):
  """Eval sets stored as files under `agents_dir`, one folder per app."""

  def __init__(self, agents_dir: str):
    self._agents_dir = agents_dir

  def _path(self, app_name: str, eval_set_id: str) -> str:
    for what, value in (("app_name", app_name), ("eval_set_id", eval_set_id)):
      if not value or "/" in value or "\\" in value or value in (".", ".."):
        raise ValueError(f"Invalid {what} {value!r}: it names one folder or file, without path separators.")
    return os.path.join(self._agents_dir, app_name, eval_set_id + _EVAL_SET_FILE_EXTENSION)

  def get_eval_set(self, app_name: str, eval_set_id: str) -> Optional[EvalSet]:
    path = self._path(app_name, eval_set_id)
    if not os.path.exists(path):
      return None
    return load_eval_set_from_file(path, eval_set_id)

  def create_eval_set(self, app_name: str, eval_set_id: str) -> EvalSet:
    if not _ID.fullmatch(eval_set_id or ""):
      raise ValueError(f"Invalid Eval Set ID {eval_set_id!r}: use letters, digits and underscores "
                       "(`^[a-zA-Z0-9_]+$`).")
    path = self._path(app_name, eval_set_id)
    if os.path.exists(path):
      raise ValueError(f"EvalSet {eval_set_id} already exists for app {app_name}.")
    eval_set = EvalSet(eval_set_id=eval_set_id, name=eval_set_id, eval_cases=[], creation_timestamp=time.time())
    self._write_eval_set_to_path(path, eval_set)
    return eval_set

  def list_eval_sets(self, app_name: str) -> list[str]:
    folder = os.path.join(self._agents_dir, app_name)
    try:
      names = os.listdir(folder)
    except FileNotFoundError:
      raise NotFoundError(f"Eval directory for app `{app_name}` not found (looked in {folder}).") from None
    return sorted(n[:-len(_EVAL_SET_FILE_EXTENSION)] for n in names if n.endswith(_EVAL_SET_FILE_EXTENSION))

  def get_eval_case(self, app_name: str, eval_set_id: str, eval_case_id: str) -> Optional[EvalCase]:
    eval_set = self.get_eval_set(app_name, eval_set_id)
    return None if eval_set is None else find_case(eval_set, eval_case_id)

  def add_eval_case(self, app_name: str, eval_set_id: str, eval_case: EvalCase) -> None:
    eval_set = with_case_added(require_eval_set(self, app_name, eval_set_id), eval_case)
    self._write_eval_set_to_path(self._path(app_name, eval_set_id), eval_set)

  def update_eval_case(self, app_name: str, eval_set_id: str, updated_eval_case: EvalCase) -> None:
    eval_set = with_case_replaced(require_eval_set(self, app_name, eval_set_id), updated_eval_case)
    self._write_eval_set_to_path(self._path(app_name, eval_set_id), eval_set)

  def delete_eval_case(self, app_name: str, eval_set_id: str, eval_case_id: str) -> None:
    eval_set = with_case_deleted(require_eval_set(self, app_name, eval_set_id), eval_case_id)
    self._write_eval_set_to_path(self._path(app_name, eval_set_id), eval_set)

  def _write_eval_set_to_path(self, eval_set_path: str, eval_set: EvalSet) -> None:
    os.makedirs(os.path.dirname(eval_set_path), exist_ok=True)
    with open(eval_set_path, "w", encoding="utf-8") as f:
      f.write(eval_set.model_dump_json(indent=2, exclude_unset=True, exclude_defaults=True, exclude_none=True))


__all__ = ["LocalEvalSetsManager", "convert_eval_set_to_pydantic_schema", "load_eval_set_from_file"]
