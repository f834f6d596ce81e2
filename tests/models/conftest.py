"""Loopback HTTP servers that speak the providers' real wire formats, for the adapter tests.

A test scripts the server's answers (`server.reply(...)`, `server.stream(...)`), points the real
client library at `server.url`, and reads back what the server received (`server.requests`).
"""

from __future__ import annotations

import collections
import json
import os
import threading
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Optional
from urllib.parse import parse_qs, urlparse

import pytest

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")


@dataclass
class Received:
  """One request the server received."""

  method: str
  path: str
  query: dict[str, list[str]]
  headers: dict[str, str]
  json: Any


@dataclass
class _Answer:
  status: int = 200
  body: Any = None
  headers: dict[str, str] = field(default_factory=dict)
  events: Optional[list] = None  # SSE: dicts, raw strings, or threading.Event gates
  hang: Optional[threading.Event] = None


class Loopback:
  """A scripted HTTP server on 127.0.0.1; each request takes the next scripted answer."""

  def __init__(self) -> None:
    self.requests: list[Received] = []
    self.gate_timeouts = 0
    self._answers: collections.deque[_Answer] = collections.deque()
    self._hangs: list[threading.Event] = []
    self._server = ThreadingHTTPServer(("127.0.0.1", 0), _handler_for(self))
    self._server.daemon_threads = True
    self._thread = threading.Thread(target=self._server.serve_forever, kwargs={"poll_interval": 0.01},
                                    daemon=True)
    self._thread.start()

  @property
  def url(self) -> str:
    """The server's base URL, e.g. 'http://127.0.0.1:40123'."""
    return f"http://127.0.0.1:{self._server.server_port}"

  def reply(self, body: Any, status: int = 200, headers: Optional[dict[str, str]] = None) -> "Loopback":
    """Queues a JSON answer."""
    self._answers.append(_Answer(status, body, dict(headers or {})))
    return self

  def stream(self, events: list, done: bool = False) -> "Loopback":
    """Queues an SSE answer: each dict is one `data:` event, an (event name, dict) pair a named event;
    a threading.Event holds the stream until set."""
    events = list(events) + (["[DONE]"] if done else [])
    self._answers.append(_Answer(events=events))
    return self

  def hang(self) -> "Loopback":
    """Queues an answer that never comes (until the test ends)."""
    gate = threading.Event()
    self._hangs.append(gate)
    self._answers.append(_Answer(hang=gate))
    return self

  @property
  def pending(self) -> int:
    """Scripted answers not yet asked for."""
    return len(self._answers)

  def close(self) -> None:
    for gate in self._hangs:
      gate.set()
    self._server.shutdown()
    self._server.server_close()


def _handler_for(server: Loopback):
  class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args: Any) -> None:  # keep test output quiet
      pass

    def do_POST(self) -> None:
      length = int(self.headers.get("Content-Length") or 0)
      raw = self.rfile.read(length) if length else b""
      url = urlparse(self.path)
      try:
        body = json.loads(raw) if raw else None
      except ValueError:
        body = raw.decode(errors="replace")
      server.requests.append(Received("POST", url.path, parse_qs(url.query), dict(self.headers), body))
      if not server._answers:
        self._send_json(599, {"error": {"message": f"loopback server has no scripted answer for {url.path}"}})
        return
      answer = server._answers.popleft()
      if answer.hang is not None:
        answer.hang.wait(30)
        self.close_connection = True
        return
      if answer.events is not None:
        self._send_sse(answer.events)
        return
      self._send_json(answer.status, answer.body, answer.headers)

    def do_DELETE(self) -> None:  # e.g. a Gemini cachedContents deletion: recorded, answered {}
      url = urlparse(self.path)
      server.requests.append(Received("DELETE", url.path, parse_qs(url.query), dict(self.headers), None))
      self._send_json(200, {})

    def _send_json(self, status: int, body: Any, headers: Optional[dict[str, str]] = None) -> None:
      data = json.dumps(body).encode()
      self.send_response(status)
      self.send_header("Content-Type", "application/json")
      self.send_header("Content-Length", str(len(data)))
      for k, v in (headers or {}).items():
        self.send_header(k, v)
      self.end_headers()
      self.wfile.write(data)
      self.wfile.flush()

    def _send_sse(self, events: list) -> None:
      self.send_response(200)
      self.send_header("Content-Type", "text/event-stream")
      self.send_header("Transfer-Encoding", "chunked")
      self.end_headers()
      for event in events:
        if isinstance(event, threading.Event):
          if not event.wait(60):  # generous: a first chunk can wait on lazy imports in a loaded run
            server.gate_timeouts += 1
          continue
        name = ""
        if isinstance(event, tuple):  # (event name, data): a named SSE event, as Anthropic's API sends
          name, event = f"event: {event[0]}\r\n", event[1]
        text = event if isinstance(event, str) else json.dumps(event)
        self._chunk(f"{name}data: {text}\r\n\r\n".encode())
      self._chunk(b"")

    def _chunk(self, data: bytes) -> None:
      self.wfile.write(f"{len(data):x}\r\n".encode() + data + b"\r\n")
      self.wfile.flush()

  return Handler


@pytest.fixture
def server():
  """A loopback server for one test; it fails the test if scripted answers were left unused."""
  s = Loopback()
  yield s
  s.close()
  assert s.pending == 0, f"{s.pending} scripted answer(s) were never requested"


@pytest.fixture
def retry_waits(monkeypatch):
  """Records the waits between retries instead of sleeping."""
  from adk_nb.models import _retry

  waits: list[float] = []

  async def record(delay: float) -> None:
    waits.append(delay)

  monkeypatch.setattr(_retry, "_sleep", record)
  return waits
