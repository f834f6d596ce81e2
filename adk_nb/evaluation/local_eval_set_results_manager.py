"""`LocalEvalSetResultsManager`: eval results as files in `<agents_dir>/<app>/.adk/eval_history/`.

The layout `adk web` and `adk eval` use: `<result name>.evalset_result.json`.
"""

from __future__ import annotations

from pathlib import Path

from ..errors.not_found_error import NotFoundError
from .eval_result import EvalCaseResult, EvalSetResult
from .eval_set_results_manager import EvalSetResultsManager, new_eval_set_result, parse_eval_set_result

EVAL_HISTORY_DIR = ".adk/eval_history"
EVAL_SET_RESULT_FILE_EXTENSION = ".evalset_result.json"
_ADK_EVAL_HISTORY_DIR = EVAL_HISTORY_DIR  # google-adk's (private) names for the two
_EVAL_SET_RESULT_FILE_EXTENSION = EVAL_SET_RESULT_FILE_EXTENSION


def _segment(what: str, value: str) -> str:
  if not value or "/" in value or "\\" in value or value in (".", ".."):
    raise ValueError(f"Invalid {what} {value!r}: it names one folder or file, without path separators.")
  return value


class LocalEvalSetResultsManager(EvalSetResultsManager):
  """Eval results stored as JSON files under `agents_dir`."""

  def __init__(self, agents_dir: str):
    self._agents_dir = agents_dir

  def _history(self, app_name: str) -> Path:
    return Path(self._agents_dir) / _segment("app_name", app_name) / EVAL_HISTORY_DIR

  def save_eval_set_result(self, app_name: str, eval_set_id: str, eval_case_results: list[EvalCaseResult]) -> None:
    _segment("eval_set_id", eval_set_id)
    result = new_eval_set_result(app_name, eval_set_id, eval_case_results)
    folder = self._history(app_name)
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / (result.eval_set_result_name + EVAL_SET_RESULT_FILE_EXTENSION)
    path.write_text(result.model_dump_json(indent=2), encoding="utf-8")

  def get_eval_set_result(self, app_name: str, eval_set_result_id: str) -> EvalSetResult:
    path = self._history(app_name) / (_segment("eval_set_result_id", eval_set_result_id)
                                      + EVAL_SET_RESULT_FILE_EXTENSION)
    if not path.exists():
      raise NotFoundError(f"Eval set result `{eval_set_result_id}` not found (looked for {path}).")
    return parse_eval_set_result(path.read_text(encoding="utf-8"))

  def list_eval_set_results(self, app_name: str) -> list[str]:
    folder = self._history(app_name)
    if not folder.is_dir():
      return []
    return [p.name[:-len(EVAL_SET_RESULT_FILE_EXTENSION)] for p in folder.iterdir()
            if p.name.endswith(EVAL_SET_RESULT_FILE_EXTENSION)]


__all__ = ["LocalEvalSetResultsManager"]
