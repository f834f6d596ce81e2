"""A command that cannot do what was asked says so in one line naming the fix: no traceback, nothing lost."""

import socket

from .conftest import adk_nb


def one_line(stderr: str) -> str:
  lines = [line for line in stderr.splitlines() if line.strip()]
  assert len(lines) == 1 and "Traceback" not in stderr, stderr
  return lines[0]


def test_api_server_on_a_busy_port_says_so_and_how_to_pick_another(tmp_path):
  adk_nb("create", "weather", cwd=tmp_path)
  busy = socket.socket()
  busy.bind(("127.0.0.1", 0))
  busy.listen(1)
  try:
    port = busy.getsockname()[1]
    ran = adk_nb("api_server", "weather", "--port", str(port), "--session_service_uri", "memory://", cwd=tmp_path)
  finally:
    busy.close()
  assert ran.returncode == 2
  line = one_line(ran.stderr)
  assert f"port {port} on 127.0.0.1 is already in use" in line and "--port" in line


def test_eval_save_onto_an_existing_file_is_refused_before_running(tmp_path):
  adk_nb("create", "weather", cwd=tmp_path)
  taken = tmp_path / "results.json"
  taken.write_text("keep me")
  ran = adk_nb("eval", "weather", "weather/weather.evalset.json", "--no-progress", "--save", str(taken), cwd=tmp_path)
  assert ran.returncode == 2
  line = one_line(ran.stderr)
  assert "is an existing file; --save takes a folder" in line and "Nothing was run" in line
  assert taken.read_text() == "keep me"


def test_an_unreachable_postgresql_url_is_one_line_naming_the_fix(tmp_path):
  adk_nb("create", "weather", cwd=tmp_path)
  closed = socket.socket()
  closed.bind(("127.0.0.1", 0))
  port = closed.getsockname()[1]
  closed.close()  # nothing listens there now
  url = f"postgresql://ada:secret@127.0.0.1:{port}/adk"
  for command in (["run", "weather"], ["api_server", "weather", "--port", "0"]):
    ran = adk_nb(*command, "--session_service_uri", url, cwd=tmp_path, stdin="hi\nexit\n")
    assert ran.returncode == 2, command
    line = one_line(ran.stderr)
    assert "is unreachable" in line and "Check that the server is running" in line, line
    assert "secret" not in line


def test_ctrl_c_stops_the_api_server_with_one_line(tmp_path):
  import os
  import signal
  import subprocess
  import sys

  adk_nb("create", "weather", cwd=tmp_path)
  server = subprocess.Popen([sys.executable, "-m", "adk_nb.cli", "api_server", "weather", "--port", "0"], cwd=tmp_path,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=dict(os.environ))
  try:
    assert "listening on" in server.stdout.readline()
    server.send_signal(signal.SIGINT)
    _, err = server.communicate(timeout=60)
  finally:
    server.kill()
  assert server.returncode == 130
  assert "stopped (Ctrl-C)" in one_line(err)
