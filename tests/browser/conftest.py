"""A JupyterLab server on 127.0.0.1 (token, free port) and headless Chromium driven by playwright.

Skips, saying why, when /usr/bin/chromium (Debian package `chromium`) or playwright is missing.
Playwright never downloads a browser here: it is pointed at the system Chromium.
"""

from __future__ import annotations

import os
import secrets
import subprocess
import sys
import time
import urllib.request

import pytest

from tests.support import free_port

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--no-first-run"]


@pytest.fixture(scope="session")
def lab(tmp_path_factory):
  """(base_url, token, root folder) of a JupyterLab server started for these tests."""
  if not os.path.exists(CHROMIUM):
    pytest.skip(f"{CHROMIUM} is missing: install the Debian package with `apt-get install -y chromium`")
  pytest.importorskip("playwright.sync_api", reason="playwright-python is not installed (pip install playwright)")
  root = tmp_path_factory.mktemp("lab")
  home = tmp_path_factory.mktemp("home")
  token = secrets.token_hex(16)
  env = {k: v for k, v in os.environ.items() if k != "ADK_NB_APPROVE"}
  env.update(JUPYTER_CONFIG_DIR=str(home / "config"), JUPYTER_RUNTIME_DIR=str(home / "runtime"),
             JUPYTERLAB_WORKSPACES_DIR=str(home / "workspaces"), PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD="1")
  # Every cell stays in the page (no windowing), so tests can read every prompt and output.
  tracker = home / "config" / "lab" / "user-settings" / "@jupyterlab" / "notebook-extension"
  tracker.mkdir(parents=True)
  (tracker / "tracker.jupyterlab-settings").write_text('{"windowingMode": "none"}')
  log = open(home / "lab.log", "w")
  # free_port() was free a moment ago; another process (a parallel run, another server) can take it before
  # JupyterLab binds it, so a server that exits at once saying the port is in use is started on a new one.
  for attempt in range(3):
    port, start = free_port(), log.tell()
    proc = subprocess.Popen(
        [sys.executable, "-m", "jupyterlab", "--no-browser", "--ServerApp.ip=127.0.0.1", f"--ServerApp.port={port}",
         f"--IdentityProvider.token={token}", f"--ServerApp.root_dir={root}", "--ServerApp.port_retries=0",
         "--allow-root", "--LabApp.news_url=", "--LabServerApp.check_for_updates_class=jupyterlab.NeverCheckForUpdate"],
        cwd=root, env=env, stdout=log, stderr=subprocess.STDOUT)
    base = f"http://127.0.0.1:{port}"
    if _ready(base, token, proc, deadline=time.monotonic() + 60):
      break
    proc.kill()
    proc.wait()
    log.flush()
    if attempt == 2 or "already in use" not in (home / "lab.log").read_text()[start:]:
      raise RuntimeError(f"JupyterLab did not start; see {home / 'lab.log'}:\n{(home / 'lab.log').read_text()}")
  yield base, token, root
  proc.terminate()
  try:
    proc.wait(timeout=20)
  except subprocess.TimeoutExpired:
    proc.kill()
  log.close()


def _ready(base: str, token: str, proc: subprocess.Popen, deadline: float) -> bool:
  """True once the server answers; False when it exited first or did not answer by the deadline."""
  while True:
    try:
      urllib.request.urlopen(f"{base}/api/status?token={token}", timeout=2)
      return True
    except OSError:
      if proc.poll() is not None or time.monotonic() > deadline:
        return False
      time.sleep(0.2)  # polling the server's readiness, not synchronising the test


@pytest.fixture
def write_notebook(lab):
  """write_notebook(name, cells) -> name: a notebook of code cells in the lab's root folder."""
  import nbformat

  def write(name: str, cells: list[str]) -> str:
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell(c) for c in cells]
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3 (ipykernel)", "language": "python"}
    nbformat.write(nb, lab[2] / name)
    return name
  return write


@pytest.fixture(scope="module")
def browser(lab):
  # Module scope, not session: while sync_playwright is open it keeps an event loop marked
  # running in the main thread, which would break every asyncio test collected after it.
  from playwright.sync_api import sync_playwright

  with sync_playwright() as p:
    chromium = p.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS)
    yield chromium
    chromium.close()


@pytest.fixture
def page(browser):
  context = browser.new_context(viewport={"width": 1280, "height": 1000})
  page = context.new_page()
  yield page
  context.close()


@pytest.fixture
def run_all(lab):
  """Opens a notebook of the lab's root folder in a workspace of its own and clicks Run > Run All Cells."""
  from tests.browser.test_runview import _open_and_run_all

  return lambda page, name: _open_and_run_all(page, lab, name)
