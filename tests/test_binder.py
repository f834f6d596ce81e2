"""The Binder set-up works as repo2docker would use it: a fresh venv, binder/requirements.txt, postBuild, nbmake.

Slow-ish (a fresh virtual environment and a full install): set ADK_NB_BINDER_CHECK=0 to skip it
locally. Skips, saying why, when the package index cannot be reached.
"""

from __future__ import annotations

import glob
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import nbformat
import pytest

REPO = Path(__file__).resolve().parents[1]
BINDER = REPO / "binder"

pytestmark = pytest.mark.skipif(os.environ.get("ADK_NB_BINDER_CHECK", "1") == "0",
                                reason="ADK_NB_BINDER_CHECK=0: the Binder check is switched off")


def _python_for_runtime() -> tuple[str, str]:
  """(interpreter, note): the Python binder/runtime.txt asks for if this machine has it, else this one."""
  wanted = (BINDER / "runtime.txt").read_text().strip().removeprefix("python-")
  candidates = [shutil.which(f"python{wanted}"), *sorted(glob.glob(os.path.expanduser(
      f"~/.pyenv/versions/{wanted}*/bin/python{wanted}"))), f"/usr/bin/python{wanted}"]
  for exe in candidates:
    if exe and os.path.exists(exe):
      done = subprocess.run([exe, "-c", "import sys, venv; print('%d.%d' % sys.version_info[:2])"],
                            capture_output=True, text=True)
      if done.returncode == 0 and done.stdout.strip() == wanted:
        return exe, f"Python {wanted} as runtime.txt asks"
  here = "%d.%d" % sys.version_info[:2]
  return sys.executable, f"Python {here}: runtime.txt asks for {wanted}, which this machine does not have"


def _run(cmd: list[str], what: str, **kwargs) -> subprocess.CompletedProcess:
  done = subprocess.run(cmd, capture_output=True, text=True, **kwargs)
  if done.returncode != 0:
    pytest.fail(f"{what} failed ({done.returncode}):\n{done.stdout[-4000:]}\n{done.stderr[-4000:]}")
  return done


def _clean_env(home: Path, venv: Path) -> dict[str, str]:
  env = {k: v for k, v in os.environ.items()
         if not k.startswith(("JUPYTER", "IPYTHON", "PYTHON", "VIRTUAL_ENV")) and k != "ADK_NB_APPROVE"}
  env.update(HOME=str(home), PATH=f"{venv / 'bin'}{os.pathsep}{env.get('PATH', '')}", VIRTUAL_ENV=str(venv),
             ADK_NB_BLOCK_REAL_MODELS="1", LITELLM_LOCAL_MODEL_COST_MAP="True")
  return env


def test_binder_environment_installs_loads_the_extension_and_runs_the_quickstart(tmp_path):
  started = time.monotonic()
  python, note = _python_for_runtime()
  venv, home = tmp_path / "venv", tmp_path / "home"
  home.mkdir()
  _run([python, "-m", "venv", str(venv)], "python -m venv")
  vpy = str(venv / "bin" / "python")
  # Installing uses the real home, where pip keeps its cache (a second run need not download again).
  env = _clean_env(Path(os.environ.get("HOME", str(home))), venv)

  probe = subprocess.run([vpy, "-m", "pip", "download", "--no-deps", "-q", "-d", str(tmp_path / "probe"),
                          "nbformat"], capture_output=True, text=True, env=env, timeout=300)
  if probe.returncode != 0:
    pytest.skip(f"the package index is unreachable, so the Binder environment cannot be built: "
                f"{probe.stderr.strip()[-300:]}")

  # Exactly what binder/ says, from the repository root (it holds `-e .`), as repo2docker does.
  _run([vpy, "-m", "pip", "install", "-q", "-r", str(BINDER / "requirements.txt")],
       "pip install -r binder/requirements.txt", cwd=REPO, env=env, timeout=1800)
  # The check's own tool, not part of the Binder image.
  _run([vpy, "-m", "pip", "install", "-q", "nbmake"], "pip install nbmake", env=env, timeout=600)
  installed = time.monotonic() - started

  env = _clean_env(home, venv)  # from here on, HOME is empty, as in a fresh Binder image
  _run(["bash", str(BINDER / "postBuild")], "binder/postBuild", cwd=REPO, env=env, timeout=120)
  config = home / ".ipython" / "profile_default" / "ipython_config.py"
  assert "c.InteractiveShellApp.extensions.append('adk_nb')" in config.read_text()
  _run(["bash", str(BINDER / "postBuild")], "binder/postBuild (second run)", cwd=REPO, env=env, timeout=120)
  assert config.read_text().count("extensions.append('adk_nb')") == 1, "postBuild must be idempotent"

  # A notebook with no %load_ext: %%agent works only if postBuild made kernels load adk_nb.
  probe_nb = nbformat.v4.new_notebook()
  probe_nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
  probe_nb.cells = [nbformat.v4.new_code_cell(c) for c in [
      "from adk_nb import Agent\nfrom adk_nb.models import ScriptedModel\n"
      "hello = Agent(name='hello', model=ScriptedModel(['Hi from Binder.']))",
      "%%agent hello --store memory:// --out run\nHello?",
      "import sys\nassert run.final_text == 'Hi from Binder.'\n"
      f"assert sys.prefix == {str(venv)!r}, sys.prefix",
  ]]
  work = tmp_path / "work"
  work.mkdir()
  nbformat.write(probe_nb, work / "autoload.ipynb")
  # 02 keeps its sessions in the default SQLite store (SQLAlchemy's asyncio mode needs greenlet).
  for name in ("01_quickstart.ipynb", "02_state_and_sessions.ipynb"):
    shutil.copy(REPO / "notebooks" / name, work / name)
  _run([vpy, "-m", "pytest", "--nbmake", "--nbmake-timeout=300", "-p", "no:cacheprovider", "-q",
        "autoload.ipynb", "01_quickstart.ipynb", "02_state_and_sessions.ipynb"], "nbmake in the Binder environment",
       cwd=work, env=env, timeout=900)
  total = time.monotonic() - started
  print(f"\nbinder check: {note}; install {installed:.0f} s, total {total:.0f} s")
