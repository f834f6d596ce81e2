"""Instructions executed per tool turn and per streamed notebook event, counted by valgrind (callgrind).

Wall and CPU time on this project's shared 2-core VM move with the load and with the day (the same
code measured 1.7x slower on 2026-12-02 than on 2026-12-01). The number of machine instructions a
piece of work executes does not: it compares two versions of the code measured on different days,
or under load. It is not time (cache misses, system calls and thread hand-offs are not in it), so
report it beside a same-day timing, never instead of one.

Each figure is a difference of two whole-process counts, so start-up and imports cancel out:
(count at the larger size - count at the smaller) / (difference in turns or events).

- `tool_turn`: workload (a') of bench/workloads.py (one LlmAgent, a sync tool declared on the loop,
  the model calls it and answers), turns 50 -> 150 in one session;
- `notebook` / `notebook_view`: `adk_nb.notebook.run` of an agent that calls a sync tool 150 (450)
  times and then streams 700 (2,100) one-character chunks, with no view / with its RunView (the
  widgets have no kernel here, so nothing is serialised for a front end: a real kernel adds that);
  `notebook_loop` / `notebook_view_loop`: the same with the tool declared `run_on_loop=True` (a checkout
  older than that flag gets the plain function, which it moved onto the loop itself after 3 quick calls).

`--repo PATH` measures another checkout (e.g. `git worktree add --detach /tmp/old REV`), with this
script's workloads; an old checkout whose workloads.py lacks `tool_turns_on_loop` is measured with
`tool_turns` (before 2026-12-01 evening a quick sync tool moved onto the loop by itself).

  python bench/bench_instructions.py [--repo PATH] [--only tool_turn notebook notebook_view]

Needs valgrind (Debian `valgrind`); each figure takes 2-6 minutes (callgrind runs ~50x slower).
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile

BENCH_DIR = os.path.dirname(os.path.abspath(__file__))
REPO_ROOT = os.path.dirname(BENCH_DIR)

TOOL_TURN = '''
import asyncio, sys
repo, n = sys.argv[1], int(sys.argv[2])
sys.path[:0] = [repo + "/bench", repo]
import workloads
fw = workloads.Framework("adk_nb")
work = getattr(workloads, "tool_turns_on_loop", None) or workloads.tool_turns
asyncio.run(work(fw, n))
print("units", n, file=sys.stderr)
'''

NOTEBOOK = '''
import asyncio, sys
repo, scale, view, on_loop = sys.argv[1], int(sys.argv[2]), sys.argv[3] == "view", sys.argv[4] == "loop"
sys.path.insert(0, repo)
import inspect
import adk_nb.notebook as nb
from adk_nb import Agent
from adk_nb.agents.run_config import RunConfig, StreamingMode
from adk_nb.models import ScriptedModel, call
from adk_nb.tools import FunctionTool

def lookup(item: int) -> dict:
    """Looks an item up."""
    return {"item": item, "ok": True}

def agent(name, calls, chunks):
    script = [call("lookup", item=i) for i in range(calls)] + ["x" * chunks]
    # Declared on the loop where the checkout can declare it (before that, a quick sync tool moved there itself).
    declarable = "run_on_loop" in inspect.signature(FunctionTool).parameters
    tool = FunctionTool(lookup, run_on_loop=True) if on_loop and declarable else lookup
    return Agent(name=name, model=ScriptedModel(script, chunk_size=1, record=False), tools=[tool])

config = RunConfig(streaming_mode=StreamingMode.SSE, max_llm_calls=0)

async def main():
    warm = nb.run(agent("warm", 20, 20), "go", store="memory://", run_config=config, view=view)
    await warm
    run = nb.run(agent("measured", 150 * scale, 700 * scale), "go", store="memory://", run_config=config, view=view)
    await run
    print("units", len(run.events) + 700 * scale, file=sys.stderr)

asyncio.run(main())
'''

FIGURES = {
    "tool_turn": (TOOL_TURN, ("50", "150"), [], "instructions per tool turn (turns 50-150)"),
    "notebook": (NOTEBOOK, ("1", "3"), ["noview", "thread"], "instructions per streamed event, no view"),
    "notebook_view": (NOTEBOOK, ("1", "3"), ["view", "thread"], "instructions per streamed event, with a RunView"),
    "notebook_loop": (NOTEBOOK, ("1", "3"), ["noview", "loop"],
                      "instructions per streamed event, no view, the tool declared on the loop"),
    "notebook_view_loop": (NOTEBOOK, ("1", "3"), ["view", "loop"],
                           "instructions per streamed event, with a RunView, the tool declared on the loop"),
}


def _count(script: str, repo: str, size: str, extra: list[str]) -> tuple[int, int]:
  """(instructions, units of work) of one whole process under callgrind."""
  with tempfile.TemporaryDirectory() as tmp:
    path = os.path.join(tmp, "work.py")
    with open(path, "w") as f:
      f.write(script)
    env = {**os.environ, "PYTHONPATH": repo, "ADK_NB_BLOCK_REAL_MODELS": "1"}
    proc = subprocess.run(
        ["valgrind", "--tool=callgrind", f"--callgrind-out-file={tmp}/out", sys.executable, path, repo, size, *extra],
        capture_output=True, text=True, env=env, cwd=tmp)
  collected = re.search(r"Collected : (\d+)", proc.stderr)
  units = re.search(r"^units (\d+)$", proc.stderr, re.M)
  if proc.returncode != 0 or not collected or not units:
    raise RuntimeError(f"the measured process failed (exit {proc.returncode}):\n{proc.stderr[-3000:]}")
  return int(collected.group(1)), int(units.group(1))


def measure(name: str, repo: str) -> float:
  script, (small, large), extra, _ = FIGURES[name]
  low, high = _count(script, repo, small, extra), _count(script, repo, large, extra)
  return (high[0] - low[0]) / (high[1] - low[1])


def main(argv=None) -> int:
  parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
  parser.add_argument("--repo", default=REPO_ROOT, help="the adk_nb checkout to measure (default: this one)")
  parser.add_argument("--only", nargs="*", choices=sorted(FIGURES), default=sorted(FIGURES))
  args = parser.parse_args(argv)
  if shutil.which("valgrind") is None:
    parser.error("valgrind is not installed: `apt-get install valgrind` (Debian), then run this again")
  repo = os.path.abspath(args.repo)
  head = subprocess.run(["git", "-C", repo, "rev-parse", "--short", "HEAD"], capture_output=True, text=True)
  print(f"checkout {repo} at {head.stdout.strip() or '?'}; Python {sys.version.split()[0]}")
  for name in args.only:
    per_unit = measure(name, repo)
    print(f"{name}: {per_unit / 1e3:,.1f}k {FIGURES[name][3]}", flush=True)
  return 0


if __name__ == "__main__":
  sys.exit(main())
