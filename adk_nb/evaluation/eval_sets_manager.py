"""`EvalSetsManager`: where eval sets live (memory, local files); the interface ADK's tools use."""

from __future__ import annotations

import abc
from typing import Optional

from ..errors.not_found_error import NotFoundError
from .eval_case import EvalCase
from .eval_set import EvalSet


class EvalSetsManager(abc.ABC):
  """Creates, lists and edits eval sets of an app, and the cases in them."""

  @abc.abstractmethod
  def get_eval_set(self, app_name: str, eval_set_id: str) -> Optional[EvalSet]:
    """The eval set, or None when there is none with that id."""

  @abc.abstractmethod
  def create_eval_set(self, app_name: str, eval_set_id: str) -> EvalSet:
    """A new empty eval set; ValueError if one with that id exists."""

  @abc.abstractmethod
  def list_eval_sets(self, app_name: str) -> list[str]:
    """The ids of the app's eval sets."""

  @abc.abstractmethod
  def get_eval_case(self, app_name: str, eval_set_id: str, eval_case_id: str) -> Optional[EvalCase]:
    """The case, or None when the set or the case does not exist."""

  @abc.abstractmethod
  def add_eval_case(self, app_name: str, eval_set_id: str, eval_case: EvalCase) -> None:
    """Appends a case; NotFoundError for an unknown set, ValueError for a duplicate case id."""

  @abc.abstractmethod
  def update_eval_case(self, app_name: str, eval_set_id: str, updated_eval_case: EvalCase) -> None:
    """Replaces the case with the same id in place; NotFoundError when set or case is unknown."""

  @abc.abstractmethod
  def delete_eval_case(self, app_name: str, eval_set_id: str, eval_case_id: str) -> None:
    """Removes the case; NotFoundError when set or case is unknown."""


def require_eval_set(manager: EvalSetsManager, app_name: str, eval_set_id: str) -> EvalSet:
  eval_set = manager.get_eval_set(app_name, eval_set_id)
  if eval_set is None:
    raise NotFoundError(f"Eval set `{eval_set_id}` not found for app `{app_name}`; create it first "
                        "(create_eval_set).")
  return eval_set


def find_case(eval_set: EvalSet, eval_case_id: str) -> Optional[EvalCase]:
  return next((case for case in eval_set.eval_cases if case.eval_id == eval_case_id), None)


def with_case_added(eval_set: EvalSet, eval_case: EvalCase) -> EvalSet:
  if find_case(eval_set, eval_case.eval_id) is not None:
    raise ValueError(f"Eval id `{eval_case.eval_id}` already exists in `{eval_set.eval_set_id}` eval set; "
                     "use update_eval_case to change it.")
  eval_set.eval_cases.append(eval_case)
  return eval_set


def with_case_replaced(eval_set: EvalSet, eval_case: EvalCase) -> EvalSet:
  for i, case in enumerate(eval_set.eval_cases):
    if case.eval_id == eval_case.eval_id:
      eval_set.eval_cases[i] = eval_case
      return eval_set
  raise NotFoundError(f"Eval case `{eval_case.eval_id}` not found in eval set `{eval_set.eval_set_id}`.")


def with_case_deleted(eval_set: EvalSet, eval_case_id: str) -> EvalSet:
  case = find_case(eval_set, eval_case_id)
  if case is None:
    raise NotFoundError(f"Eval case `{eval_case_id}` not found in eval set `{eval_set.eval_set_id}`.")
  eval_set.eval_cases.remove(case)
  return eval_set


__all__ = ["EvalSetsManager"]
