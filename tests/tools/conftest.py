"""Real MCP servers for the toolset tests: a stdio subprocess and HTTP servers on 127.0.0.1."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest
from tests.support import free_port  # noqa: F401  (the tool tests import it from here)

SERVER = Path(__file__).with_name("mcp_server.py")


def child_pids() -> set[int]:
  """Live (non-zombie) child processes of this test process, read from /proc."""
  me, found = os.getpid(), set()
  for entry in os.listdir("/proc"):
    if not entry.isdigit():
      continue
    try:
      stat = Path(f"/proc/{entry}/stat").read_text()
    except OSError:
      continue
    fields = stat.rsplit(")", 1)[1].split()
    if int(fields[1]) == me and fields[0] != "Z":
      found.add(int(entry))
  return found


def pid_alive(pid: int) -> bool:
  try:
    state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
  except OSError:
    return False
  return state != "Z"


def wait_until(predicate, timeout: float = 30.0, what: str = "condition") -> None:
  """Polls `predicate` until true (bounded); fails the test naming `what` otherwise."""
  deadline = time.monotonic() + timeout
  while not predicate():
    if time.monotonic() > deadline:
      pytest.fail(f"timed out after {timeout:g} s waiting for {what}")
    time.sleep(0.05)


def _start_http(mode: str, path: str, log):
  port = free_port()
  proc = subprocess.Popen([sys.executable, str(SERVER), mode, str(port)], stdout=log, stderr=log)

  def listening() -> bool:
    if proc.poll() is not None:
      pytest.fail(f"the {mode} MCP test server exited with {proc.returncode}")
    with socket.socket() as s:
      return s.connect_ex(("127.0.0.1", port)) == 0

  return proc, port, listening


@pytest.fixture(scope="module")
def http_servers(tmp_path_factory):
  """A streamable-HTTP MCP server and an SSE MCP server on 127.0.0.1 (started together)."""
  log = open(tmp_path_factory.mktemp("mcp") / "http.log", "w")
  started = [_start_http("http", "/mcp", log), _start_http("sse", "/sse", log)]
  try:
    for _, port, listening in started:
      wait_until(listening, 60, f"the MCP test server on port {port}")
    yield {"http": f"http://127.0.0.1:{started[0][1]}/mcp", "sse": f"http://127.0.0.1:{started[1][1]}/sse"}
  finally:
    for proc, _, _ in started:
      proc.terminate()
      proc.wait(timeout=30)
    log.close()


@pytest.fixture
def errlog(tmp_path):
  """A file for the stdio servers' stderr (their tracebacks would clutter the test output)."""
  with open(tmp_path / "server-stderr.log", "w") as f:
    yield f
