"""Errors adk_nb raises, at ADK's module paths, under one root that carries an `error_code`.

`AdkNbError` is the root; each class carries its `error_code` (`errors.codes` lists them, and
says which code an error *event* carries instead: the class name, as in google-adk). Classes that ADK users
catch as built-in types keep those bases (an `AnswerError` is still a `ValueError`, a
`StaleSessionError` a `RuntimeError`), so code written for google-adk keeps working.
"""

from . import codes
from .adk_nb_error import AdkNbError, error_code_of, event_error_code, traceback_text
from .already_exists_error import AlreadyExistsError
from .eval_file_error import EvalFileError
from ._invocation_not_found_error import InvocationNotFoundError
from .answer_error import (AnswerDoesNotFitError, AnswersSpanInvocationsError, AnswerError, AnswerWithoutIdError,
                           CallAlreadyAnsweredError, PausingAgentNotInTreeError, UnknownCallError, WrongAnswerKindError)
from .not_found_error import NotFoundError
from .session_not_found_error import SessionNotFoundError
from .stale_session_error import SessionBusyError, StaleSessionError

__all__ = [
    "AdkNbError", "AlreadyExistsError", "AnswerDoesNotFitError", "AnswerError", "AnswerWithoutIdError", "AnswersSpanInvocationsError",
    "CallAlreadyAnsweredError", "EvalFileError", "InvocationNotFoundError", "NotFoundError", "PausingAgentNotInTreeError",
    "SessionBusyError", "SessionNotFoundError",
    "StaleSessionError", "UnknownCallError", "WrongAnswerKindError", "codes", "error_code_of",
    "event_error_code", "traceback_text",
]
