"""The base of the credential models: camelCase on the wire, snake_case in Python, extra keys kept."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, alias_generators


class CredentialModel(BaseModel):
  """Accepts both spellings of a field (`client_id` / `clientId`) and keeps keys it does not know."""

  model_config = ConfigDict(extra="allow", alias_generator=alias_generators.to_camel, populate_by_name=True)

  def __repr_args__(self):
    # Unknown keys may hold secrets (a provider's extra token field): show the key, hide the value.
    extra = self.__pydantic_extra__ or {}
    for key, value in super().__repr_args__():
      yield key, ("<hidden>" if key in extra else value)
