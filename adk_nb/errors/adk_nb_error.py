"""The root of adk_nb's exceptions."""

from __future__ import annotations

from . import codes


class AdkNbError(Exception):
  """Any error adk_nb raises on purpose. `error_code` names the condition for programs (and HTTP mapping)."""

  error_code: str = codes.AGENT_ERROR


def error_code_of(exc: BaseException) -> str:
  """The code an error event reports for `exc`: its class's `error_code`, else AGENT_ERROR."""
  if isinstance(exc, AdkNbError):
    return exc.error_code
  return codes.AGENT_ERROR
