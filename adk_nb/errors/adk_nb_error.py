"""The root of adk_nb's exceptions, and the two codes an error is known by."""

from __future__ import annotations

import traceback

from . import codes

TRACEBACK_LIMIT = 8_000
"""Characters of a traceback an error event keeps: the innermost frames and the exception."""


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


def traceback_text(exc: BaseException, limit: int = TRACEBACK_LIMIT) -> str:
  """`exc`'s traceback as Python prints it, cut to its last `limit` characters (whole lines).

  The end holds what matters (the frame that raised, the exception and its chained causes
  come before it in the text, outermost first); a note replaces the outer frames cut.
  """
  text = "".join(traceback.format_exception(exc))
  if len(text) <= limit:
    return text
  tail = text[-limit:]
  tail = tail[tail.find("\n") + 1:]  # start at a whole line
  return f"[{len(text) - len(tail):,} characters of outer frames cut]\n{tail}"
