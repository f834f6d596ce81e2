"""Streams ~10,000 events through a RunView in a real kernel and reports what the notebook layer costs.

Run: `python bench/bench_notebook.py [--events 10000]`. Prints kernel CPU per event (with the
view and, for comparison, the same run without a view), comm messages per second sent to the
browser while the events stream, and the size of the widget state at the end. Offline: the
model is adk_nb's ScriptedModel (a long streamed answer plus many tool calls).
"""

from __future__ import annotations

import argparse
import json
import os
import queue
import sys
import tempfile
import time

import jupyter_client

SETUP = '''
import json, time
from IPython.display import display
import adk_nb.notebook as nb
from adk_nb import Agent
from adk_nb.agents.run_config import RunConfig, StreamingMode
from adk_nb.models import ScriptedModel, call

def lookup(item: int) -> dict:
    """Looks an item up."""
    return {{"item": item, "ok": True}}

CALLS, CHUNKS = {calls}, {chunks}
def make_agent(name):
    script = [call("lookup", item=i) for i in range(CALLS)] + ["x" * CHUNKS]
    return Agent(name=name, model=ScriptedModel(script, chunk_size=1, record=False), tools=[lookup])
config = RunConfig(streaming_mode=StreamingMode.SSE, max_llm_calls=0)
'''

MEASURE = '''
agent = make_agent("{name}")
cpu0, wall0 = time.process_time(), time.perf_counter()
run = nb.run(agent, "go", store="memory://", run_config=config, view={view})
if {view}:
    display(run.view)
await run
cpu, wall = time.process_time() - cpu0, time.perf_counter() - wall0
events = len(run.events) + CHUNKS  # committed events plus the streamed partial chunks
size = len(json.dumps(run.view.tree.get_state(), default=str)) + len(json.dumps(run.view.state.get_state(), default=str)) if {view} else 0
print("RESULT", json.dumps({{"status": run.status, "events": events, "cpu": cpu, "wall": wall, "state_bytes": size,
      "custom_messages": run.view.tree.messages_sent if {view} else 0}}))
'''


def _execute(kc, code: str, timeout: float = 600) -> tuple[list[dict], dict]:
  msg_id = kc.execute(code)
  msgs: list[dict] = []
  deadline = time.monotonic() + timeout
  while time.monotonic() < deadline:
    try:
      msg = kc.get_iopub_msg(timeout=1)
    except queue.Empty:
      continue
    if msg["parent_header"].get("msg_id") != msg_id:
      continue
    msgs.append(msg)
    if msg["msg_type"] == "status" and msg["content"]["execution_state"] == "idle":
      break
  reply = kc.get_shell_msg(timeout=timeout)
  if reply["content"]["status"] != "ok":
    raise RuntimeError(reply["content"])
  return msgs, reply


def _result(msgs: list[dict]) -> dict:
  for msg in msgs:
    if msg["msg_type"] == "stream" and "RESULT" in msg["content"]["text"]:
      return json.loads(msg["content"]["text"].split("RESULT", 1)[1])
  raise RuntimeError("no RESULT line: " + str([m["content"] for m in msgs if m["msg_type"] in ("error", "stream")]))


def main() -> None:
  parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
  parser.add_argument("--events", type=int, default=10_000, help="about how many events to stream")
  args = parser.parse_args()
  calls = args.events * 15 // 100  # each call is 2 committed events (call, result)
  chunks = args.events - 2 * calls
  km = jupyter_client.KernelManager(kernel_name="python3")
  km.kernel_cmd = [sys.executable, "-m", "ipykernel_launcher", "-f", "{connection_file}"]
  km.start_kernel(cwd=tempfile.mkdtemp(), env={k: v for k, v in os.environ.items() if k != "ADK_NB_APPROVE"})
  kc = km.client()
  kc.start_channels()
  try:
    kc.wait_for_ready(timeout=60)
    _execute(kc, SETUP.format(calls=calls, chunks=chunks))
    _execute(kc, MEASURE.format(name="warmup", view=True).replace("CALLS)", "10)"))
    plain_before = _result(_execute(kc, MEASURE.format(name="plain1", view=False))[0])
    msgs, _ = _execute(kc, MEASURE.format(name="viewed", view=True))
    viewed = _result(msgs)
    plain_after = _result(_execute(kc, MEASURE.format(name="plain2", view=False))[0])
    plain = min(plain_before, plain_after, key=lambda r: r["cpu"])
  finally:
    kc.stop_channels()
    km.shutdown_kernel(now=True)
  comm = [m for m in msgs if m["msg_type"] == "comm_msg"]
  per_event = viewed["cpu"] / viewed["events"] * 1000
  plain_per_event = plain["cpu"] / plain["events"] * 1000
  print(f"events streamed:               {viewed['events']:,} ({calls:,} tool calls, {chunks:,} streamed chunks)")
  print(f"kernel CPU per event, RunView: {per_event:.3f} ms  (run without a view: {plain_per_event:.3f} ms; "
        f"view's own share: {per_event - plain_per_event:+.3f} ms; budget 0.2 ms)")
  print(f"run wall time:                 {viewed['wall']:.2f} s")
  print(f"comm messages to the browser:  {len(comm)} in {viewed['wall']:.2f} s = {len(comm) / viewed['wall']:.1f}/s "
        f"({viewed['custom_messages']} tree batches)")
  print(f"final widget state:            {viewed['state_bytes'] / 1024:.0f} KiB (tree snapshot + state scopes)")
  print(f"status:                        {viewed['status']}")


if __name__ == "__main__":
  main()
