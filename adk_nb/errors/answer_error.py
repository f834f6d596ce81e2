"""A message that answers pending calls but cannot resume them. Nothing was committed.

All are `ValueError`s, as google-adk raises for these conditions, so existing `except
ValueError` code keeps working; the subclasses let a client tell them apart (an HTTP server
answers `CallAlreadyAnsweredError` with 409 and `UnknownCallError` with 404).
"""

from __future__ import annotations

from . import codes
from .adk_nb_error import AdkNbError


class AnswerError(AdkNbError, ValueError):
  """The answers in a message do not match what the session waits for."""

  error_code = codes.BAD_ANSWER


class AnswerWithoutIdError(AnswerError):
  """A FunctionResponse has no id, so it cannot be matched to a pending call."""

  error_code = codes.ANSWER_WITHOUT_ID


class CallAlreadyAnsweredError(AnswerError):
  """The call was answered before (a second answer changes nothing)."""

  error_code = codes.CALL_ALREADY_ANSWERED


class UnknownCallError(AnswerError):
  """No call waiting for an answer has this id in the session."""

  error_code = codes.UNKNOWN_CALL


class WrongAnswerKindError(AnswerError):
  """A confirmation answered like a tool result, or a long-running call answered like a confirmation."""

  error_code = codes.WRONG_ANSWER_KIND


class AnswersSpanInvocationsError(AnswerError):
  """One message answers calls of several paused invocations."""

  error_code = codes.ANSWERS_SPAN_INVOCATIONS


class PausingAgentNotInTreeError(AnswerError):
  """The agent that paused is not in the Runner's agent tree."""

  error_code = codes.PAUSING_AGENT_NOT_IN_TREE


class AnswerDoesNotFitError(AnswerError):
  """An answer to an `adk_request_input` call does not fit the request's `response_schema`."""
