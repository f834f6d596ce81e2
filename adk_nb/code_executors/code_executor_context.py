"""`CodeExecutorContext`: a code executor's bookkeeping, kept in session state under ADK's keys."""

from __future__ import annotations

import copy
import dataclasses
import time
from collections.abc import MutableMapping
from typing import Any, Optional

from .code_execution_utils import File

CONTEXT_KEY = "_code_execution_context"
"""State key of the executor's own record (execution id, processed file names)."""
EXECUTION_ID_KEY = "execution_session_id"
PROCESSED_FILES_KEY = "processed_input_files"
INPUT_FILES_KEY = "_code_executor_input_files"
"""State key of the files given to code runs."""
ERROR_COUNTS_KEY = "_code_executor_error_counts"
"""State key of the failed runs in a row, per invocation id."""
RESULTS_KEY = "_code_execution_results"
"""State key of every run's code and output, per invocation id."""


class CodeExecutorContext:
  """Reads and writes a code executor's records in a state mapping, by google-adk's keys.

  Every write assigns a new value to its key (stored values are never changed in place), so with
  an adk_nb `State` (as the LLM loop passes) the writes land in the event's `state_delta` and are
  committed with it: the error count survives between model calls and in every session store.
  """

  def __init__(self, session_state: MutableMapping[str, Any]) -> None:
    self._session_state = session_state
    if CONTEXT_KEY not in session_state:
      session_state[CONTEXT_KEY] = {}
    self._context: dict[str, Any] = copy.deepcopy(dict(session_state[CONTEXT_KEY] or {}))

  def get_state_delta(self) -> dict[str, Any]:
    """The executor's record as a state delta ({'_code_execution_context': {...}})."""
    return {CONTEXT_KEY: copy.deepcopy(self._context)}

  def get_execution_id(self) -> Optional[str]:
    """The execution id shared by a stateful executor's runs, if set."""
    return self._context.get(EXECUTION_ID_KEY)

  def set_execution_id(self, session_id: str) -> None:
    self._context[EXECUTION_ID_KEY] = session_id

  def get_processed_file_names(self) -> list[str]:
    """Names of input files already explored."""
    return list(self._context.get(PROCESSED_FILES_KEY) or [])

  def add_processed_file_names(self, file_names: list[str]) -> None:
    self._context[PROCESSED_FILES_KEY] = self.get_processed_file_names() + list(file_names)

  def get_input_files(self) -> list[File]:
    """The files given to code runs."""
    return [File(**entry) for entry in self._session_state.get(INPUT_FILES_KEY) or []]

  def add_input_files(self, input_files: list[File]) -> None:
    stored = list(self._session_state.get(INPUT_FILES_KEY) or [])
    stored.extend(dataclasses.asdict(f) for f in input_files)
    self._session_state[INPUT_FILES_KEY] = stored

  def clear_input_files(self) -> None:
    if INPUT_FILES_KEY in self._session_state:
      self._session_state[INPUT_FILES_KEY] = []
    if PROCESSED_FILES_KEY in self._context:
      self._context[PROCESSED_FILES_KEY] = []

  def get_error_count(self, invocation_id: str) -> int:
    """Failed runs in a row in this invocation."""
    return int((self._session_state.get(ERROR_COUNTS_KEY) or {}).get(invocation_id, 0))

  def increment_error_count(self, invocation_id: str) -> None:
    counts = dict(self._session_state.get(ERROR_COUNTS_KEY) or {})
    counts[invocation_id] = counts.get(invocation_id, 0) + 1
    self._session_state[ERROR_COUNTS_KEY] = counts

  def reset_error_count(self, invocation_id: str) -> None:
    counts = self._session_state.get(ERROR_COUNTS_KEY)
    if counts is None:
      return
    counts = dict(counts)
    counts.pop(invocation_id, None)
    self._session_state[ERROR_COUNTS_KEY] = counts

  def update_code_execution_result(self, invocation_id: str, code: str, result_stdout: str,
                                   result_stderr: str) -> None:
    """Records one run (code, stdout, stderr, time) under the invocation."""
    results = dict(self._session_state.get(RESULTS_KEY) or {})
    runs = list(results.get(invocation_id) or [])
    runs.append({"code": code, "result_stdout": result_stdout, "result_stderr": result_stderr,
                 "timestamp": int(time.time())})
    results[invocation_id] = runs
    self._session_state[RESULTS_KEY] = results


__all__ = ["CodeExecutorContext"]
