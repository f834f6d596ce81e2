"""Streams ~10,000 events through a RunView in a real kernel and reports what the notebook layer costs.

Run: `python bench/bench_notebook.py [--events 10000] [--profile]`. Offline: the model is adk_nb's
ScriptedModel (many tool calls, then a long answer streamed one character per chunk).

Three variants of the same run, each in a fresh kernel after a short warm-up (the run's sync tool
on worker threads, adk_nb's default; `--tool-on-loop` declares it `run_on_loop=True`):

- `no view`: the run alone (the step model is still built: every view reads it);
- `default`: one agent, its RunView displayed as a `%%agent` cell shows it (event tree, state,
  approval panel, artifacts);
- `graph`: the same agent inside a SequentialAgent, so the RunView also carries the live graph;
- `timeline`: the default view with its timeline tab open. The trace's rows are computed in the
  kernel (`adk_nb.inspect.timeline.trace`) only while the tab is open, pushed after tree batches at
  most 4 times a second (less when computing one costs more); the browser only draws them.

For each: kernel CPU per streamed event (budget 0.1 ms; also without the scripted model's own work,
measured alone in the same kernel), wall time, comm messages per second,
the peak rate of tree batches and of graph status updates over any one second (budget 10-20/s),
and the final widget state (budget 1 MiB for 10,000 events).
`--profile` also prints the viewed runs' top functions (cProfile inside the kernel, CPU time).
Report CPU beside wall time and the load average: a shared machine moves both.
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import queue
import sys
import tempfile
import time

import jupyter_client

SETUP = '''
import cProfile, io, json, os, pstats, time
from IPython.display import display
import adk_nb.notebook as nb
from adk_nb import Agent
from adk_nb.agents import SequentialAgent
from adk_nb.agents.run_config import RunConfig, StreamingMode
from adk_nb.models import ScriptedModel, call
from adk_nb.tools import FunctionTool

def lookup(item: int) -> dict:
    """Looks an item up."""
    return {{"item": item, "ok": True}}

CALLS, CHUNKS = {calls}, {chunks}
PROFILE_SORT, PROFILE_FILTER = os.environ.get("PROFILE_SORT", "tottime"), os.environ.get("PROFILE_FILTER", "")
def make_agent(name, calls=CALLS, graph=False):
    script = [call("lookup", item=i) for i in range(calls)] + ["x" * CHUNKS]
    tool = FunctionTool(lookup, run_on_loop=True) if {tool_on_loop} else lookup
    worker = Agent(name=name, model=ScriptedModel(script, chunk_size=1, record=False), tools=[tool])
    return SequentialAgent(name=name + "_pipeline", sub_agents=[worker]) if graph else worker
config = RunConfig(streaming_mode=StreamingMode.SSE, max_llm_calls=0)

import gc
GC = {{"cpu": 0.0, "n": 0, "t": 0.0, "gens": [0, 0, 0], "gen_cpu": [0.0, 0.0, 0.0]}}
def _gc_timer(phase, info):  # the collector's CPU time during a run: a bigger heap makes each full collection dearer
    if phase == "start":
        GC["t"] = time.process_time()
    else:
        spent = time.process_time() - GC["t"]
        GC["cpu"] += spent; GC["n"] += 1; GC["gens"][info["generation"]] += 1; GC["gen_cpu"][info["generation"]] += spent
gc.callbacks.append(_gc_timer)

async def model_double_cpu(calls):
    """CPU time of the scripted model alone producing the same replies (what a real model's client would cost instead)."""
    from adk_nb.models import LlmRequest
    model = make_agent("double", calls=calls).model
    start = time.process_time()
    for _ in range(calls + 1):
        async for _response in model.generate_content_async(LlmRequest(), stream=True):
            pass
    return time.process_time() - start

def widget_state(run):
    view = run.view
    parts = [view.tree, view.state, view.artifacts] + ([view.graph] if view.graph is not None else [])
    return sum(len(json.dumps(w.get_state(), default=str)) for w in parts)
'''

MEASURE = '''
agent = make_agent("{name}", calls={calls}, graph={graph})
profiler = cProfile.Profile(time.process_time) if {profile} else None
GC.update(cpu=0.0, gens=[0, 0, 0], gen_cpu=[0.0, 0.0, 0.0])
cpu0, wall0 = time.process_time(), time.perf_counter()
if profiler: profiler.enable()
run = nb.run(agent, "go", store="memory://", run_config=config, view={view})
if {view}:  # as `%%agent` shows it: refreshed (with its static HTML) when the run ends
    run.view.display_handle = display(run.view, display_id=True)
    run.view.tree.timeline = {timeline}
await run
if profiler: profiler.disable()
cpu, wall = time.process_time() - cpu0, time.perf_counter() - wall0
gc_cpu, gc_gens, gc_gen_cpu = GC["cpu"], list(GC["gens"]), [round(x, 3) for x in GC["gen_cpu"]]
events = len(run.events) + CHUNKS  # committed events plus the streamed partial chunks
model_cpu = await model_double_cpu({calls})
if profiler:
    out = io.StringIO(); pstats.Stats(profiler, stream=out).sort_stats(PROFILE_SORT).print_stats(PROFILE_FILTER, 30)
    print(out.getvalue())
print("RESULT", json.dumps({{"status": run.status, "events": events, "cpu": cpu, "wall": wall, "model_cpu": model_cpu, "gc": gc_cpu, "gc_gens": gc_gens, "gc_gen_cpu": gc_gen_cpu,
      "state_bytes": widget_state(run) if {view} else 0,
      "tree": run.view.tree.model_id if {view} else None,
      "graph": run.view.graph.model_id if {view} and run.view.graph is not None else None}}))
'''


def _execute(kc, code: str, timeout: float = 600) -> list[dict]:
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
  return msgs


def _result(msgs: list[dict]) -> dict:
  for msg in msgs:
    if msg["msg_type"] == "stream" and "RESULT" in msg["content"]["text"]:
      text = msg["content"]["text"]
      result = json.loads(text.split("RESULT", 1)[1])
      result["printed"] = "\n".join(m["content"]["text"] for m in msgs if m["msg_type"] == "stream"
                                    ).split("RESULT", 1)[0].strip()
      return result
  raise RuntimeError("no RESULT line: " + str([m["content"] for m in msgs if m["msg_type"] in ("error", "stream")]))


def _sent_at(msg: dict) -> float:
  date = msg["header"]["date"]
  return date.timestamp() if isinstance(date, datetime.datetime) else datetime.datetime.fromisoformat(
      str(date).replace("Z", "+00:00")).timestamp()


def _peak_per_second(times: list[float]) -> int:
  """The most messages sent within any one second."""
  times = sorted(times)
  best, start = 0, 0
  for end, t in enumerate(times):
    while t - times[start] > 1.0:
      start += 1
    best = max(best, end - start + 1)
  return best


def _comm_figures(msgs: list[dict], result: dict) -> dict:
  comm = [m for m in msgs if m["msg_type"] == "comm_msg"]
  tree = [m for m in comm if m["content"]["comm_id"] == result["tree"]
          and m["content"]["data"].get("method") == "custom"
          and m["content"]["data"].get("content", {}).get("type") == "ops"]
  traces = [m for m in comm if m["content"]["comm_id"] == result["tree"]
            and m["content"]["data"].get("content", {}).get("type") == "trace"]
  graph = [m for m in comm if m["content"]["comm_id"] == result["graph"]
           and "status" in (m["content"]["data"].get("state") or {})]
  return {"comm": len(comm), "comm_per_s": len(comm) / result["wall"],
          "comm_peak": _peak_per_second([_sent_at(m) for m in comm]),
          "traces": len(traces), "trace_peak": _peak_per_second([_sent_at(m) for m in traces]),
          "tree_batches": len(tree), "tree_peak": _peak_per_second([_sent_at(m) for m in tree]),
          "graph_updates": len(graph), "graph_peak": _peak_per_second([_sent_at(m) for m in graph])}


def _kernel():
  km = jupyter_client.KernelManager(kernel_name="python3")
  km.kernel_cmd = [sys.executable, "-m", "ipykernel_launcher", "-f", "{connection_file}"]
  km.start_kernel(cwd=tempfile.mkdtemp(), env={k: v for k, v in os.environ.items() if k != "ADK_NB_APPROVE"})
  kc = km.client()
  kc.start_channels()
  kc.wait_for_ready(timeout=60)
  return km, kc


def measure(variant: str, calls: int, chunks: int, profile: bool, tool_on_loop: bool = False) -> dict:
  """One run of `variant` in a fresh kernel (after a short warm-up run), so every run starts from the same heap."""
  view, graph, timeline = variant != "no view", variant == "graph", variant == "timeline"
  km, kc = _kernel()
  try:
    _execute(kc, SETUP.format(calls=calls, chunks=chunks, tool_on_loop=tool_on_loop))
    _execute(kc, MEASURE.format(name="warmup", view=view, graph=graph, timeline=timeline, profile=False, calls=10))
    msgs = _execute(kc, MEASURE.format(name="measured", view=view, graph=graph, timeline=timeline,
                                       profile=profile and view, calls=calls))
  finally:
    kc.stop_channels()
    km.shutdown_kernel(now=True)
  result = _result(msgs)
  result.update(_comm_figures(msgs, result))
  return result


def main() -> None:
  parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
  parser.add_argument("--events", type=int, default=10_000, help="about how many events to stream")
  parser.add_argument("--repeat", type=int, default=2, help="runs of each variant (the least CPU is shown)")
  parser.add_argument("--profile", action="store_true", help="print the viewed runs' top functions (cProfile)")
  parser.add_argument("--tool-on-loop", action="store_true",
                      help="declare the sync tool FunctionTool(lookup, run_on_loop=True): no hand-off to a worker thread")
  args = parser.parse_args()
  calls = args.events * 15 // 100  # each call is 2 committed events (call, result)
  chunks = args.events - 2 * calls
  load_before = os.getloadavg()
  measured: dict[str, list[dict]] = {"no view": [], "default": [], "graph": [], "timeline": []}
  for _ in range(args.repeat):  # interleaved, so a change in the machine's load touches every variant
    for variant in measured:
      measured[variant].append(measure(variant, calls, chunks, args.profile, args.tool_on_loop))
  runs = {name: min(results, key=lambda r: r["cpu"]) for name, results in measured.items()}
  spread = {name: [r["cpu"] / r["events"] * 1000 for r in results] for name, results in measured.items()}
  load_after = os.getloadavg()
  print(f"{datetime.datetime.now():%Y-%m-%d %H:%M}; load average {load_before[0]:.1f} before, "
        f"{load_after[0]:.1f} after (1 min); {os.cpu_count()} cores")
  print(f"events streamed per run: {runs['default']['events']:,} ({calls:,} tool calls, {chunks:,} streamed chunks); "
        f"the sync tool runs on {'the event loop (run_on_loop=True)' if args.tool_on_loop else 'worker threads'}")
  print()
  print(f"{'run':<9} {'CPU/event':>10} {'CPU s':>6} {'wall s':>6} {'GC s':>5} {'comm msgs':>9} {'/s':>5} {'peak/s':>6} "
        f"{'tree batches':>12} {'peak/s':>6} {'graph updates':>13} {'peak/s':>6} {'widget state':>12}")
  for name in ("no view", "default", "graph", "timeline"):
    r = runs[name]
    viewed = name != "no view"
    print(f"{name:<9} {r['cpu'] / r['events'] * 1000:>7.3f} ms {r['cpu']:>6.2f} {r['wall']:>6.2f} {r['gc']:>5.2f} "
          + (f"{r['comm']:>9} {r['comm_per_s']:>5.1f} {r['comm_peak']:>6} {r['tree_batches']:>12} {r['tree_peak']:>6} "
             + (f"{r['graph_updates']:>13} {r['graph_peak']:>6}" if r["graph"] else f"{'-':>13} {'-':>6}")
             + f" {r['state_bytes'] / 1024:>8.0f} KiB" if viewed else "")
          + ("" if r["status"] == "done" else f"  status {r['status']}"))
  base = runs["no view"]["cpu"] / runs["no view"]["events"] * 1000
  for name in ("default", "graph", "timeline"):
    r = runs[name]
    print(f"{name}: the view's own share {r['cpu'] / r['events'] * 1000 - base:+.3f} ms per event")
  print("without the scripted model's own work (building its replies and chunks, measured alone in the same "
        "kernel): " + "; ".join(f"{name} {(r['cpu'] - r['model_cpu']) / r['events'] * 1000:.3f} ms per event"
                                for name, r in runs.items()))
  print("CPU per event of every run (ms): " + "; ".join(f"{name} " + ", ".join(f"{x:.3f}" for x in xs)
                                                        for name, xs in spread.items()))
  print("budgets: 0.1 ms of kernel CPU per event; comm messages bounded; tree (and timeline) and graph "
        "updates at most 10-20/s; widget state under 1 MiB")
  print(f"timeline: {runs['timeline']['traces']} traces sent, peak {runs['timeline']['trace_peak']}/s")
  print("timeline: the kernel computes the trace while the tab is open, pushed after tree batches at most 4/s")
  if args.profile:
    for name in ("default", "graph"):
      print(f"\n---- {name}: top functions by own CPU time ----\n{runs[name]['printed']}")


if __name__ == "__main__":
  main()
