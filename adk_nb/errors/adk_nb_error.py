"""The root of adk_nb's exceptions, and the two codes an error is known by."""

from __future__ import annotations

from . import codes


class AdkNbError(Exception):
  """Any error adk_nb raises on purpose. `error_code` names the condition for programs (and HTTP mapping).

  Subclasses keep the built-in base google-adk users catch (`class AnswerError(AdkNbError,
  ValueError)`), so `except ValueError` still works.
  """

  error_code: str = codes.AGENT_ERROR


def error_code_of(exc: BaseException) -> str:
  """The code a program or an HTTP error body reports for `exc`: its class's `error_code`, else AGENT_ERROR."""
  if isinstance(exc, AdkNbError):
    return exc.error_code
  return codes.AGENT_ERROR


def event_error_code(exc: BaseException) -> str:
  """The `error_code` of the event that reports `exc`, as in google-adk: the provider's status
  string when the exception carries one (e.g. 'PERMISSION_DENIED'), else the exception's class name."""
  status = getattr(exc, "status", None)
  return status if isinstance(status, str) else type(exc).__name__
