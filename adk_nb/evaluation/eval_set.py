"""An eval set: a named list of eval cases, stored as `*.evalset.json`."""

from __future__ import annotations

from typing import Optional

from pydantic import ConfigDict

from ._base import EvalBaseModel
from .eval_case import EvalCase


class EvalSet(EvalBaseModel):
  """A named collection of eval cases; load one with `adk_nb.evaluation.load_eval_set(path)`."""

  model_config = ConfigDict(extra="ignore")  # as ADK: unknown top-level keys are ignored

  eval_set_id: str
  """Unique id of the set."""
  name: Optional[str] = None
  """Display name."""
  description: Optional[str] = None
  """What the set checks."""
  eval_cases: list[EvalCase]
  """The cases."""
  creation_timestamp: float = 0.0
  """When the set was created."""
