"""Run All as JupyterLab does it, against a real kernel: every queued cell must report its own `idle`.

JupyterLab sends every cell's execute_request at once and marks a cell finished only when a
`status: idle` names that cell's request. The views' first message to the kernel (the event
tree's "hello" once it renders) arrives while a cell runs; ipykernel 7 handles it
concurrently and could hand a finished cell's request back to the next cell, whose `idle` then
named the wrong cell: tutorial 04 stayed `[*]` forever. nbmake runs cells one at a time and
cannot see this.
"""

from __future__ import annotations

import json
import pathlib
import queue
import time

import pytest

jupyter_client = pytest.importorskip("jupyter_client")

NOTEBOOKS = pathlib.Path(__file__).resolve().parents[2] / "notebooks"


def _run_all(cells: list[str], cwd: pathlib.Path, timeout: float = 60) -> tuple[set[int], list[str]]:
  """Queues every cell at once; answers each widget that opens with a front end's 'hello'."""
  from jupyter_client.manager import start_new_kernel

  km, kc = start_new_kernel(kernel_name="python3", cwd=str(cwd), env=_kernel_env())
  try:
    ids = [kc.execute(source) for source in cells]
    index = {msg_id: i for i, msg_id in enumerate(ids)}
    finished: set[int] = set()
    errors: list[str] = []
    deadline = time.monotonic() + timeout
    while len(finished) < len(ids) and time.monotonic() < deadline:
      try:
        msg = kc.get_iopub_msg(timeout=1)
      except queue.Empty:
        continue
      parent = msg["parent_header"].get("msg_id")
      kind = msg["msg_type"]
      if kind == "comm_open":
        hello = kc.session.msg("comm_msg", {"comm_id": msg["content"]["comm_id"],
                                            "data": {"method": "custom", "content": {"type": "hello"}}})
        kc.shell_channel.send(hello)
      elif kind == "status" and msg["content"]["execution_state"] == "idle" and parent in index:
        finished.add(index[parent])
      elif kind == "error":
        errors.append(f"cell {index.get(parent)}: {msg['content']['ename']}: {msg['content']['evalue']}")
    return finished, errors
  finally:
    kc.stop_channels()
    km.shutdown_kernel(now=True)


def _kernel_env() -> dict[str, str]:
  import os

  env = {k: v for k, v in os.environ.items() if k != "ADK_NB_APPROVE"}
  env["ADK_NB_BLOCK_REAL_MODELS"] = "1"
  return env


def test_every_cell_of_the_approval_tutorial_reports_its_own_idle_under_run_all():
  nb = json.loads((NOTEBOOKS / "04_human_in_the_loop.ipynb").read_text())
  cells = ["".join(c["source"]) for c in nb["cells"] if c["cell_type"] == "code"]

  finished, errors = _run_all(cells, NOTEBOOKS)

  assert errors == []
  assert sorted(set(range(len(cells))) - finished) == [], "cells whose idle never came (they would stay [*])"
