"""`EvalSetResultsManager`: where the results of eval runs are kept; the interface ADK's tools use."""

from __future__ import annotations

import abc
import json
import time

from pydantic import ValidationError

from .eval_result import EvalCaseResult, EvalSetResult


class EvalSetResultsManager(abc.ABC):
  """Saves the case results of one eval run as an EvalSetResult, and reads them back."""

  @abc.abstractmethod
  def save_eval_set_result(self, app_name: str, eval_set_id: str, eval_case_results: list[EvalCaseResult]) -> None:
    """Stores a new EvalSetResult made of `eval_case_results`."""

  @abc.abstractmethod
  def get_eval_set_result(self, app_name: str, eval_set_result_id: str) -> EvalSetResult:
    """The stored result; NotFoundError when there is none with that id."""

  @abc.abstractmethod
  def list_eval_set_results(self, app_name: str) -> list[str]:
    """Ids of the app's stored results."""


def result_file_name(result_id: str) -> str:
  """The name an eval set result is stored under: its id with slashes replaced, so it is one file name."""
  return result_id.replace("/", "_")


def new_eval_set_result(app_name: str, eval_set_id: str, eval_case_results: list[EvalCaseResult]) -> EvalSetResult:
  """An EvalSetResult named `<app>_<eval set>_<timestamp>` (slashes replaced, so it is a file name)."""
  now = time.time()
  result_id = f"{app_name}_{eval_set_id}_{now}"
  return EvalSetResult(eval_set_result_id=result_id, eval_set_result_name=result_file_name(result_id),
                       eval_set_id=eval_set_id, eval_case_results=eval_case_results, creation_timestamp=now)


def parse_eval_set_result(text: str) -> EvalSetResult:
  """Reads an EvalSetResult file, including older files that stored the JSON as one JSON string."""
  try:
    return EvalSetResult.model_validate_json(text)
  except (ValidationError, ValueError) as first:
    try:
      decoded = json.loads(text)
    except json.JSONDecodeError:
      raise first from None
    if isinstance(decoded, str):
      return EvalSetResult.model_validate_json(decoded)
    return EvalSetResult.model_validate(decoded)


__all__ = ["EvalSetResultsManager"]
