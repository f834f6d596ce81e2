"""The one table from exception types to HTTP statuses, and the JSON error body every endpoint answers.

The body is FastAPI's shape, which ADK clients read (`{"detail": "..."}`), plus adk_nb's `error_code`
(`adk_nb.errors.codes`) so programs can match on a name.
"""

from __future__ import annotations

from typing import Optional

from ..artifacts.file_artifact_service import UnsafeArtifactPathError
from ..errors import (AdkNbError, AlreadyExistsError, AnswerError, CallAlreadyAnsweredError, EvalFileError,
                      NotFoundError, SessionNotFoundError, StaleSessionError, codes, error_code_of)
from ..models import ModelCallError, ModelRateLimitError, ModelTimeoutError
from ..sessions.database_session_service import SessionStorageError
from ..tools.mcp_tool.mcp_session_manager import McpConnectionError


class HttpError(AdkNbError):
  """An error raised by the server itself (bad request, unknown app, oversize body), with its status."""

  def __init__(self, status: int, detail: str, error_code: str):
    super().__init__(detail)
    self.status, self.detail, self.error_code = status, detail, error_code


class UnknownAppError(HttpError):
  """The request names an app this server does not serve."""

  def __init__(self, app_name: str, served: list[str]):
    super().__init__(404, f"App {app_name!r} not found; this server serves: {', '.join(served) or 'nothing'}.",
                     codes.APP_NOT_FOUND)


# The one table: exception class -> HTTP status, by the class hierarchy (a subclass is caught by its
# base's row unless it has its own row above it). Most specific first: the first matching row wins;
# tests/server/test_errors.py checks that no row is shadowed by an earlier one. Anything else is 500.
STATUS_BY_TYPE: list[tuple[type[BaseException], int]] = [
    (HttpError, 0),  # carries its own status
    (SessionNotFoundError, 404),
    (NotFoundError, 404),
    (AlreadyExistsError, 409),
    (StaleSessionError, 409),  # another request (maybe another replica) wrote the session first: retry
    (CallAlreadyAnsweredError, 409),  # an AnswerError, but a retry of an answer already applied
    (AnswerError, 400),  # the answer does not match what the session waits for
    (UnsafeArtifactPathError, 400),
    (EvalFileError, 400),
    (SessionStorageError, 503),  # the database is unreachable, read-only or full: nothing was written
    (ModelRateLimitError, 503),  # the model provider's quota: retry later
    (ModelTimeoutError, 504),
    (ModelCallError, 502),  # the model provider failed or refused our credentials
    (McpConnectionError, 502),  # a tool's MCP server could not be started or reached
]


def status_of(exc: BaseException) -> Optional[int]:
  """The HTTP status for `exc`, or None when it is a server error (500)."""
  for kind, status in STATUS_BY_TYPE:
    if isinstance(exc, kind):
      return exc.status if isinstance(exc, HttpError) else status
  return None


def error_body(exc: BaseException) -> dict:
  """`{"detail": message, "error_code": code}` for `exc`."""
  detail = exc.detail if isinstance(exc, HttpError) else str(exc) or type(exc).__name__
  return {"detail": detail, "error_code": error_code_of(exc)}
