"""The pydantic base shared by eval formats: camelCase and snake_case keys both accepted."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, alias_generators


class EvalBaseModel(BaseModel):
  """A strict eval-format model: unknown keys are errors, both key spellings are read."""

  model_config = ConfigDict(
      alias_generator=alias_generators.to_camel,
      populate_by_name=True,
      extra="forbid",
      arbitrary_types_allowed=True,
  )
