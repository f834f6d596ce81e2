"""The one table from adk_nb's exception classes to HTTP statuses (adk_nb/server/errors.py)."""

import subprocess
import sys
from pathlib import Path

import pytest

from adk_nb.artifacts.file_artifact_service import UnsafeArtifactPathError
from adk_nb.errors import (AdkNbError, AlreadyExistsError, AnswerWithoutIdError, CallAlreadyAnsweredError, EvalFileError,
                           NotFoundError, SessionNotFoundError, StaleSessionError, UnknownCallError)
from adk_nb.models import ModelAuthError, ModelRateLimitError, ModelServerError, ModelTimeoutError
from adk_nb.server.errors import STATUS_BY_TYPE, HttpError, UnknownAppError, error_body, status_of
from adk_nb.sessions.database_session_service import SessionStorageError
from adk_nb.tools.mcp_tool.mcp_session_manager import McpConnectionError


@pytest.mark.parametrize("error, status", [
    (SessionNotFoundError("no session s"), 404),
    (NotFoundError("no such thing"), 404),
    (AlreadyExistsError("taken"), 409),
    (StaleSessionError("changed by another writer"), 409),
    (CallAlreadyAnsweredError("answered"), 409),
    (UnknownCallError("no call c1"), 400),
    (AnswerWithoutIdError("no id"), 400),
    (UnsafeArtifactPathError("../x"), 400),
    (EvalFileError("x.evalset.json", "no eval_cases"), 400),
    (SessionStorageError("disk full"), 503),
    (ModelRateLimitError("429 until retries ran out", model="m"), 503),
    (ModelTimeoutError("no answer", model="m"), 504),
    (ModelServerError("500s", model="m"), 502),
    (ModelAuthError("401", model="m"), 502),
    (McpConnectionError("server 'npx files' did not start"), 502),
    (UnknownAppError("nope", ["a"]), 404),
    (HttpError(413, "too big", "BODY_TOO_LARGE"), 413),
])
def test_each_error_class_gets_its_status_and_its_code(error, status):
  assert status_of(error) == status
  body = error_body(error)
  assert body["error_code"] == error.error_code and body["detail"]


def test_an_error_without_a_row_is_a_server_error():
  class Surprise(AdkNbError):
    error_code = "SURPRISE"

  assert status_of(Surprise("?")) is None and status_of(RuntimeError("?")) is None
  assert error_body(Surprise("what happened")) == {"detail": "what happened", "error_code": "SURPRISE"}


def test_no_row_is_shadowed_by_an_earlier_more_general_row():
  for i, (earlier, _) in enumerate(STATUS_BY_TYPE):
    for later, _ in STATUS_BY_TYPE[i + 1:]:
      assert not issubclass(later, earlier), f"{later.__name__} is caught by {earlier.__name__}'s row above it"


def test_the_server_maps_eval_file_errors_without_importing_the_evaluation_package():
  import adk_nb.evaluation
  import adk_nb.evaluation.formats

  assert adk_nb.evaluation.EvalFileError is adk_nb.evaluation.formats.EvalFileError is EvalFileError
  probe = "import sys, adk_nb.server.app; print('adk_nb.evaluation' in sys.modules)"
  root = Path(__file__).resolve().parents[2]  # this checkout's adk_nb, first on sys.path
  done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=120, cwd=root)
  assert done.stdout.strip() == "False", done.stderr[-2000:]


def test_a_typed_error_is_answered_with_its_status_and_a_bug_is_reported_to_the_server(serve_app):
  client = serve_app()
  service = client.app.state.adk.session_service

  async def storage_down(**kwargs):
    raise SessionStorageError("the database is read-only; nothing was written")

  async def bug(**kwargs):
    raise RuntimeError("a bug in a session store")

  service.list_sessions = storage_down
  answer = client.get("/apps/weather_app/users/u/sessions")
  assert answer.status_code == 503 and answer.json()["error_code"] == "SESSION_STORAGE_ERROR"
  service.list_sessions = bug
  # A bug is answered 500 with the same JSON body, and re-raised so the server logs its traceback
  # (the test client raises what the server would log).
  with pytest.raises(RuntimeError, match="a bug in a session store"):
    client.get("/apps/weather_app/users/u/sessions")
  from starlette.testclient import TestClient
  quiet = TestClient(client.app, base_url="http://127.0.0.1:8000", raise_server_exceptions=False)
  answer = quiet.get("/apps/weather_app/users/u/sessions")
  assert answer.status_code == 500 and answer.json() == {"detail": "a bug in a session store",
                                                         "error_code": "AGENT_ERROR"}
