"""The `error_code` names adk_nb produces, in two places, and nothing else.

1. On an exception class (`AdkNbError.error_code`, read with `errors.error_code_of(exc)`): what
   a program or the HTTP server (`{"detail", "error_code"}` bodies) matches on. A class
   without its own code inherits `AGENT_ERROR`; codes exist where a client must tell
   conditions apart.
2. On an error event (`Event.error_code`). An event that reports an exception carries the
   exception's class name (or a provider's status string such as 'PERMISSION_DENIED'), as
   google-adk does: see `errors.event_error_code`. A model's refusal carries its finish
   reason ('SAFETY', 'MAX_TOKENS', ...). The only event codes adk_nb writes itself are
   listed in `EVENT_CODES`.

3. In the HTTP server's error bodies, for a request the server refuses itself (`HTTP_CODES`).

Tests check that every name here is produced (some class's `error_code`, or written by the
module that produces it) and that no module spells a code as a string literal.
"""

# -- on exception classes ---------------------------------------------------------------------
AGENT_ERROR = "AGENT_ERROR"
"""Any AdkNbError without a code of its own, and any other exception (`error_code_of`'s default)."""
BAD_ANSWER = "BAD_ANSWER"
"""A message answering pending calls could not be matched to them (AnswerError)."""
ANSWER_WITHOUT_ID = "ANSWER_WITHOUT_ID"
CALL_ALREADY_ANSWERED = "CALL_ALREADY_ANSWERED"
UNKNOWN_CALL = "UNKNOWN_CALL"
WRONG_ANSWER_KIND = "WRONG_ANSWER_KIND"
ANSWERS_SPAN_INVOCATIONS = "ANSWERS_SPAN_INVOCATIONS"
PAUSING_AGENT_NOT_IN_TREE = "PAUSING_AGENT_NOT_IN_TREE"
SESSION_NOT_FOUND = "SESSION_NOT_FOUND"
STALE_SESSION = "STALE_SESSION"
SESSION_STORAGE_ERROR = "SESSION_STORAGE_ERROR"
ALREADY_EXISTS = "ALREADY_EXISTS"
NOT_FOUND = "NOT_FOUND"
MODEL_ERROR = "MODEL_ERROR"
"""A model call failed after its retries (ModelCallError and its children)."""
LLM_CALLS_LIMIT_EXCEEDED = "LLM_CALLS_LIMIT_EXCEEDED"
EVAL_FILE_ERROR = "EVAL_FILE_ERROR"
UNSAFE_ARTIFACT_PATH = "UNSAFE_ARTIFACT_PATH"
AGENT_LOAD_ERROR = "AGENT_LOAD_ERROR"
"""An agent folder or module could not be loaded (cli.agent_loader.AgentLoadError and its children)."""
NOT_AN_AGENT_FOLDER = "NOT_AN_AGENT_FOLDER"
MISSING_ROOT_AGENT = "MISSING_ROOT_AGENT"
AGENT_IMPORT_ERROR = "AGENT_IMPORT_ERROR"

# -- written on events by adk_nb itself ---------------------------------------------------------
UNKNOWN_ERROR = "UNKNOWN_ERROR"
"""The model answered nothing usable (no candidates, no choices, an empty stream)."""
STATE_WRITE_CONFLICT = "STATE_WRITE_CONFLICT"
"""Parallel branches wrote the same state key (reported as an event; the run goes on)."""

EVENT_CODES = (UNKNOWN_ERROR, STATE_WRITE_CONFLICT)
"""The codes adk_nb writes on events that report no exception."""

# -- in the api_server's error bodies, for faults of the request itself -------------------------
# (An exception that reaches the server answers with its class's code above.)
BAD_REQUEST = "BAD_REQUEST"
MALFORMED_JSON = "MALFORMED_JSON"
INVALID_REQUEST = "INVALID_REQUEST"
"""The JSON body parsed but does not have the fields or types the endpoint needs."""
BODY_TOO_LARGE = "BODY_TOO_LARGE"
APP_NOT_FOUND = "APP_NOT_FOUND"
LIVE_NOT_SUPPORTED = "LIVE_NOT_SUPPORTED"
UNSUPPORTED_MEDIA_TYPE = "UNSUPPORTED_MEDIA_TYPE"
"""A JSON endpoint got a body that is not declared `Content-Type: application/json` (415)."""
ORIGIN_NOT_ALLOWED = "ORIGIN_NOT_ALLOWED"
"""A browser page from an origin not in --allow_origins (403)."""
HOST_NOT_ALLOWED = "HOST_NOT_ALLOWED"
"""A loopback-bound server got a request addressed to another host: DNS rebinding (403)."""

HTTP_CODES = (BAD_REQUEST, MALFORMED_JSON, INVALID_REQUEST, BODY_TOO_LARGE, APP_NOT_FOUND, LIVE_NOT_SUPPORTED,
              UNSUPPORTED_MEDIA_TYPE, ORIGIN_NOT_ALLOWED, HOST_NOT_ALLOWED)
"""The codes only the HTTP server writes (beside NOT_FOUND, SESSION_NOT_FOUND, UNSAFE_ARTIFACT_PATH)."""
