"""A real kernel (jupyter_client): a %%agent cell pauses, the kernel goes idle, a click comm_msg resumes it."""

from __future__ import annotations

import os
import queue
import sys
import time

import pytest

jupyter_client = pytest.importorskip("jupyter_client")

SETUP = '''
%load_ext adk_nb
from adk_nb import Agent
from adk_nb.models import ScriptedModel, call
from adk_nb.tools import FunctionTool
refunds = []
def refund(order_id: str, amount: float) -> dict:
  """Refunds an order."""
  refunds.append((order_id, amount))
  return {"status": "refunded"}
agent = Agent(name="support", model=ScriptedModel([call("refund", order_id="A1", amount=250.0), "Refunded A1."]),
              tools=[FunctionTool(refund, require_confirmation=lambda amount: amount > 100)])
'''


class Kernel:
  """A kernel client that runs code and keeps every iopub message."""

  def __init__(self, client):
    self.kc = client
    self.iopub: list[dict] = []

  def execute(self, code: str, timeout: float = 60) -> dict:
    msg_id = self.kc.execute(code)
    reply = self.kc.get_shell_msg(timeout=timeout)
    while reply["parent_header"].get("msg_id") != msg_id:
      reply = self.kc.get_shell_msg(timeout=timeout)
    self.drain_until_idle(msg_id, timeout)
    assert reply["content"]["status"] == "ok", reply["content"]
    return reply

  def drain_until_idle(self, msg_id: str, timeout: float) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
      try:
        msg = self.kc.get_iopub_msg(timeout=1)
      except queue.Empty:
        continue
      self.iopub.append(msg)
      if (msg["msg_type"] == "status" and msg["content"]["execution_state"] == "idle"
          and msg["parent_header"].get("msg_id") == msg_id):
        return
    raise AssertionError(f"kernel did not finish {msg_id} within {timeout} s")

  def value(self, expr: str) -> str:
    msg_id = self.execute(f"print(repr({expr}))")["parent_header"]["msg_id"]
    # stdout may arrive in several stream messages ("'done'", then "\n"): join this cell's.
    text = "".join(m["content"]["text"] for m in self.iopub if m["msg_type"] == "stream"
                   and m["content"]["name"] == "stdout" and m["parent_header"].get("msg_id") == msg_id)
    if not text:
      raise AssertionError("no output")
    return text.strip()

  def widgets(self, model_name: str) -> dict[str, dict]:
    out = {}
    for msg in self.iopub:
      if msg["msg_type"] == "comm_open" and msg["content"].get("target_name") == "jupyter.widget":
        state = msg["content"]["data"]["state"]
        if state.get("_model_name") == model_name:
          out[msg["content"]["comm_id"]] = state
    return out


@pytest.fixture
def kernel(tmp_path):
  env = {k: v for k, v in os.environ.items() if k != "ADK_NB_APPROVE"}
  km = jupyter_client.KernelManager(kernel_name="python3")
  km.kernel_cmd = [sys.executable, "-m", "ipykernel_launcher", "-f", "{connection_file}"]
  km.start_kernel(cwd=str(tmp_path), env=env)
  kc = km.client()
  kc.start_channels()
  try:
    kc.wait_for_ready(timeout=60)
    client = Kernel(kc)
    client.manager = km
    yield client
  finally:
    kc.stop_channels()
    km.shutdown_kernel(now=True)


def test_click_comm_msg_after_a_pause_resumes_the_run_in_the_same_view(kernel):
  kernel.execute(SETUP)
  kernel.execute("%%agent agent --store memory:// --out run --no-wait\nPlease refund order A1")
  assert kernel.value("(run.status, refunds)") == "('paused', [])"
  approve = [cid for cid, state in kernel.widgets("ButtonModel").items() if state.get("description") == "Approve"]
  assert len(approve) == 1
  seen = len(kernel.iopub)
  # The kernel is idle: a click arrives as a comm_msg, exactly as JupyterLab sends it.
  click = kernel.kc.session.msg("comm_msg", {"comm_id": approve[0],
                                             "data": {"method": "custom", "content": {"event": "click"}}})
  kernel.kc.shell_channel.send(click)
  deadline = time.monotonic() + 30
  status = ""
  while time.monotonic() < deadline:  # wait on the condition, not on time
    status = kernel.value("run.status")
    if status == "'done'":
      break
  assert status == "'done'"
  assert kernel.value("refunds") == "[('A1', 250.0)]"
  assert kernel.value("run.final_text") == "'Refunded A1.'"
  # The same tree widget received the resumed steps as incremental custom messages.
  tree = next(cid for cid, state in kernel.widgets("AnyModel").items() if "nodes" in state)
  ops = [m for m in kernel.iopub[seen:] if m["msg_type"] == "comm_msg" and m["content"]["comm_id"] == tree
         and m["content"]["data"].get("method") == "custom"]
  texts = [op[1].get("text") for m in ops for op in m["content"]["data"]["content"].get("ops", []) if op[0] == "add"]
  assert "Refunded A1." in texts


SLOW_TOOL = '''
%load_ext adk_nb
import threading
from pathlib import Path
from adk_nb import Agent
from adk_nb.models import ScriptedModel, call
release = threading.Event()
def export(name: str) -> dict:
  """Exports a report through a blocking client."""
  Path("started").touch()
  release.wait(60)
  Path("finished").touch()
  return {"exported": name}
agent = Agent(name="clerk", model=ScriptedModel([call("export", name="q3"), "Exported."]), tools=[export])
'''


def test_a_kernel_interrupt_stops_a_cell_whose_sync_tool_blocks(kernel, tmp_path):
  kernel.execute(SLOW_TOOL)
  msg_id = kernel.kc.execute("%%agent agent --store memory:// --out run\nExport q3")
  deadline = time.monotonic() + 60
  while not (tmp_path / "started").exists():  # wait on the condition, bounded
    assert time.monotonic() < deadline, "the tool never started"
    time.sleep(0.05)
  kernel.manager.interrupt_kernel()
  reply = kernel.kc.get_shell_msg(timeout=30)
  while reply["parent_header"].get("msg_id") != msg_id:
    reply = kernel.kc.get_shell_msg(timeout=30)
  kernel.drain_until_idle(msg_id, 30)
  assert not (tmp_path / "finished").exists()  # the cell ended while the tool still blocked
  assert reply["content"]["status"] == "error"
  assert kernel.value("run.status") == "'error'"
  kernel.execute("release.set()")


def _run_all_as_a_person(kernel, cells: list[str], draw: bool, click: bool, timeout: float = 90):
  """Queues every cell at once (Run All); a front end that draws says 'hello' for each tree, and clicks Approve.

  Returns ({cell index: stdout}, {cell index: error}, [('click', cell index idle so far) ...] in order).
  """
  ids = [kernel.kc.execute(source) for source in cells]
  index = {msg_id: i for i, msg_id in enumerate(ids)}
  out: dict[int, str] = {}
  errors: dict[int, str] = {}
  order: list[tuple] = []
  finished: set[int] = set()
  deadline = time.monotonic() + timeout
  while len(finished) < len(ids) and time.monotonic() < deadline:
    try:
      msg = kernel.kc.get_iopub_msg(timeout=1)
    except queue.Empty:
      continue
    kernel.iopub.append(msg)
    parent, kind, content = msg["parent_header"].get("msg_id"), msg["msg_type"], msg["content"]
    if kind == "comm_open" and content.get("target_name") == "jupyter.widget":
      state = content["data"]["state"]
      if draw and "nodes" in state:  # the event tree, drawn: it asks for everything so far
        kernel.kc.shell_channel.send(kernel.kc.session.msg("comm_msg", {
            "comm_id": content["comm_id"], "data": {"method": "custom", "content": {"type": "hello"}}}))
      if click and state.get("description") == "Approve":
        order.append(("click", sorted(finished)))
        kernel.kc.shell_channel.send(kernel.kc.session.msg("comm_msg", {
            "comm_id": content["comm_id"], "data": {"method": "custom", "content": {"event": "click"}}}))
    elif kind == "stream" and parent in index:
      out[index[parent]] = out.get(index[parent], "") + content["text"]
    elif kind == "error" and parent in index:
      errors[index[parent]] = f"{content['ename']}: {content['evalue']}"
    elif kind == "status" and content["execution_state"] == "idle" and parent in index:
      finished.add(index[parent])
      order.append(("idle", index[parent]))
  assert len(finished) == len(ids), f"cells {sorted(set(range(len(ids))) - finished)} never finished"
  return out, errors, order


def test_run_all_stops_at_the_approval_and_goes_on_after_the_click(kernel):
  cells = [SETUP, "%%agent agent --store memory:// --out run\nPlease refund order A1",
           "print(run.status, refunds, run.decisions[0]['by'])"]
  out, errors, order = _run_all_as_a_person(kernel, cells, draw=True, click=True)
  assert errors == {}
  # The click came while the paused cell still awaited (only the setup cell had finished) ...
  assert order.index(("click", [0])) < order.index(("idle", 1))
  # ... and the next cell ran on the finished run.
  assert out[2].strip() == "done [('A1', 250.0)] button"


def test_run_all_with_no_front_end_fails_the_paused_cell_saying_how_to_answer(kernel):
  cells = [SETUP + "import adk_nb.notebook.waiting as waiting\nwaiting.FRONT_END_GRACE = 0.5\n",
           "%%agent agent --store memory:// --out run\nPlease refund order A1"]
  out, errors, _ = _run_all_as_a_person(kernel, cells, draw=False, click=False)
  assert list(errors) == [1]
  assert errors[1].startswith("NoAnswer: support is paused: it waits for refund(")
  assert "no widget front end drew its view" in errors[1] and "--approve auto|deny" in errors[1]
  assert kernel.value("(run.status, refunds)") == "('paused', [])"  # nothing was answered; answer it now
  kernel.execute("run.approve()\nawait run")
  assert kernel.value("(run.status, refunds)") == "('done', [('A1', 250.0)])"
