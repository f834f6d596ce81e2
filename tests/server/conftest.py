"""Starts real `adk-nb api_server` processes on 127.0.0.1 (a free port each) and stops them after the test."""

import os
import subprocess
import sys
from pathlib import Path

import httpx
import pytest

from tests.cli.conftest import REFUND_AGENT, write_agent


class RunningServer:
  """One `adk-nb api_server` process and an HTTP client pointed at it."""

  def __init__(self, args: list[str], cwd: Path, env: dict):
    self.process = subprocess.Popen([sys.executable, "-m", "adk_nb.cli", "api_server", *args, "--port", "0"],
                                    cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                    env={**os.environ, **env})
    line = self.process.stdout.readline()  # printed once the socket is bound; blocks until then
    if "listening on" not in line:
      self.process.kill()
      raise RuntimeError(f"server did not start: {line}{self.process.stderr.read()}")
    self.url = line.split("listening on ", 1)[1].split()[0]
    self.client = httpx.Client(base_url=self.url, timeout=60)

  def stop(self) -> str:
    self.client.close()
    self.process.terminate()
    try:
      _, err = self.process.communicate(timeout=30)
    except subprocess.TimeoutExpired:
      self.process.kill()
      _, err = self.process.communicate()
    return err


@pytest.fixture
def start_server(tmp_path):
  """`start_server(*args, env={})` -> RunningServer; every server started is stopped at the end."""
  started = []

  def start(*args: str, env: dict | None = None) -> RunningServer:
    server = RunningServer(list(args), tmp_path, env or {})
    started.append(server)
    return server

  yield start
  for server in started:
    server.stop()


@pytest.fixture
def desk(tmp_path):
  """An agent folder (app 'desk_agent') whose refund tool needs approval; each run appends to a log file."""
  log = tmp_path / "refunds.log"
  log.write_text("")
  folder = write_agent(tmp_path / "agents", "desk_agent", REFUND_AGENT)
  return folder, log


@pytest.fixture
def serve_app(tmp_path):
  """`serve_app(**config)` -> an in-process client of the weather app (session 's' of user 'u' created),
  addressed as http://127.0.0.1:8000; `serve_app(folder=...)` serves another agent folder."""
  from starlette.testclient import TestClient

  from adk_nb.server.app import ServerConfig, build_app
  from tests.server.test_api_server import WEATHER
  clients = []

  def start(**config) -> TestClient:
    folder = config.pop("folder", None) or write_agent(tmp_path / "apps", "weather_app", WEATHER)
    app = build_app(ServerConfig(agents_dirs=[str(folder)], session_service_uri="memory://", **config))
    client = TestClient(app, base_url="http://127.0.0.1:8000").__enter__()
    clients.append(client)
    client.post(f"/apps/{folder.name}/users/u/sessions", json={"sessionId": "s"})
    return client

  yield start
  for client in clients:
    client.__exit__(None, None, None)


# The throwaway PostgreSQL server of tests/sessions (initdb on 127.0.0.1, or $ADK_NB_TEST_PG_URL).
from tests.sessions.conftest import pg_database, pg_url, postgres_url  # noqa: E402,F401
