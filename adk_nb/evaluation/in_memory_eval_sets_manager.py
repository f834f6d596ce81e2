"""`InMemoryEvalSetsManager`: eval sets in a dict, for tests and throwaway runs."""

from __future__ import annotations

import time
from typing import Optional

from .eval_case import EvalCase
from .eval_set import EvalSet
from .eval_sets_manager import (EvalSetsManager, find_case, require_eval_set, with_case_added, with_case_deleted,
                                with_case_replaced)


class InMemoryEvalSetsManager(EvalSetsManager):
  """Keeps eval sets in this process's memory, per app; gone when the process ends."""

  def __init__(self) -> None:
    self._eval_sets: dict[str, dict[str, EvalSet]] = {}

  def get_eval_set(self, app_name: str, eval_set_id: str) -> Optional[EvalSet]:
    return self._eval_sets.get(app_name, {}).get(eval_set_id)

  def create_eval_set(self, app_name: str, eval_set_id: str) -> EvalSet:
    sets = self._eval_sets.setdefault(app_name, {})
    if eval_set_id in sets:
      raise ValueError(f"EvalSet {eval_set_id} already exists for app {app_name}.")
    sets[eval_set_id] = EvalSet(eval_set_id=eval_set_id, eval_cases=[], creation_timestamp=time.time())
    return sets[eval_set_id]

  def list_eval_sets(self, app_name: str) -> list[str]:
    return list(self._eval_sets.get(app_name, {}))

  def get_eval_case(self, app_name: str, eval_set_id: str, eval_case_id: str) -> Optional[EvalCase]:
    eval_set = self.get_eval_set(app_name, eval_set_id)
    return None if eval_set is None else find_case(eval_set, eval_case_id)

  def add_eval_case(self, app_name: str, eval_set_id: str, eval_case: EvalCase) -> None:
    with_case_added(require_eval_set(self, app_name, eval_set_id), eval_case)

  def update_eval_case(self, app_name: str, eval_set_id: str, updated_eval_case: EvalCase) -> None:
    with_case_replaced(require_eval_set(self, app_name, eval_set_id), updated_eval_case)

  def delete_eval_case(self, app_name: str, eval_set_id: str, eval_case_id: str) -> None:
    with_case_deleted(require_eval_set(self, app_name, eval_set_id), eval_case_id)


__all__ = ["InMemoryEvalSetsManager"]
