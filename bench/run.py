"""Benchmarks adk_nb against google-adk on the same workloads and prints a table with ratios.

  python bench/run.py            # N = 25 / 200 / 1,000 (google-adk needs several minutes)
  python bench/run.py --quick    # small N, seconds; figures only show that everything runs

google-adk runs from its own virtual environment, never from adk_nb's: bench/.venv-adk is
created (python -m venv + pip install google-adk) when missing, unless ADK_NB_BENCH_ADK_PYTHON
(or --adk-python) names an interpreter that already has it. Each framework and workload runs in
a fresh subprocess (bench/workloads.py), so nothing is shared between them. Results go to
bench/results/latest.json; the Markdown table printed at the end can be pasted into the README.
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import platform
import subprocess
import sys
import time
from typing import Any, Optional

BENCH_DIR = os.path.dirname(os.path.abspath(__file__))
REPO_ROOT = os.path.dirname(BENCH_DIR)
WORKLOADS_PY = os.path.join(BENCH_DIR, "workloads.py")
ADK_VENV = os.path.join(BENCH_DIR, ".venv-adk")
RESULTS = os.path.join(BENCH_DIR, "results", "latest.json")

# (workload, N, N in --quick mode)
PLAN = [("tool_turns", 1000, 20), ("tool_turns_on_loop", 1000, 20), ("sequential_runs", 1000, 20),
        ("parallel_runs", 10, 3)]
BUDGET_MS = {"tool_turns": 1.0, "tool_turns_on_loop": 0.4, "sequential_runs": 1.5, "parallel_runs": 55.0}
LABELS = {
    "tool_turns": "(a) one tool turn (call, tool, answer), ms per turn at turn N",
    "tool_turns_on_loop": "(a') (a) with the sync tool on the event loop (adk_nb: run_on_loop=True), ms per turn",
    "sequential_runs": "(b) 3-agent SequentialAgent with output_key, ms per run at run N",
    "parallel_runs": "(c) ParallelAgent, 8 children x 50 ms model, wall ms per run (median)",
}


def _has_google_adk(python: str) -> bool:
  try:
    done = subprocess.run([python, "-c", "import google.adk"], capture_output=True, timeout=120)
  except (OSError, subprocess.TimeoutExpired):
    return False
  return done.returncode == 0


def adk_python(explicit: Optional[str] = None, install: bool = True) -> Optional[str]:
  """The interpreter that runs google-adk: the one given, else bench/.venv-adk (created if missing)."""
  explicit = explicit or os.environ.get("ADK_NB_BENCH_ADK_PYTHON")
  if explicit:
    if not _has_google_adk(explicit):
      sys.exit(f"{explicit} cannot import google.adk; install it there (pip install google-adk) "
               "or unset ADK_NB_BENCH_ADK_PYTHON to let bench/run.py build bench/.venv-adk.")
    return explicit
  python = os.path.join(ADK_VENV, "Scripts" if os.name == "nt" else "bin", "python")
  if os.path.exists(python) and _has_google_adk(python):
    return python
  if not install:
    return None
  print(f"Installing google-adk into {ADK_VENV} (once; a few minutes) ...", file=sys.stderr)
  subprocess.run([sys.executable, "-m", "venv", ADK_VENV], check=True)
  subprocess.run([python, "-m", "pip", "install", "--quiet", "google-adk"], check=True)
  return python


def framework_version(python: str, framework: str) -> str:
  code = ("import google.adk as m" if framework == "google-adk" else
          f"import sys; sys.path.insert(0, {REPO_ROOT!r}); import adk_nb as m") + "; print(m.__version__)"
  done = subprocess.run([python, "-c", code], capture_output=True, text=True)
  return done.stdout.strip() or "?"


def run_workload(python: str, framework: str, workload: str, n: int, quick: bool) -> dict[str, Any]:
  """Runs one workload in a fresh subprocess and returns its figures."""
  cmd = [python, WORKLOADS_PY, "--framework", framework, "--workload", workload, "--n", str(n)]
  if quick:
    cmd.append("--quick")
  # stderr (progress, tracebacks) goes straight to the terminal.
  done = subprocess.run(cmd, stdout=subprocess.PIPE, text=True, cwd=REPO_ROOT)
  if done.returncode != 0:
    raise RuntimeError(f"{framework} {workload} failed (exit {done.returncode}); its error is above.")
  return json.loads(done.stdout.strip().splitlines()[-1])


def _fmt(ms: Optional[float]) -> str:
  if ms is None:
    return "n/a"
  return f"{ms:.2f}" if ms < 10 else f"{ms:.1f}" if ms < 100 else f"{ms:.0f}"


def _ratio(adk: Optional[float], ours: Optional[float]) -> str:
  if adk is None or ours is None or ours <= 0:
    return "n/a"
  return f"{adk / ours:.1f}x" if adk / ours < 100 else f"{adk / ours:.0f}x"


def table(results: dict[str, dict[str, dict[str, Any]]], quick: bool = False) -> str:
  """The Markdown table: one row per workload and N, google-adk vs adk_nb and the speed-up."""
  rows = ["| workload | N | google-adk | adk_nb | speed-up | adk_nb budget |",
          "|---|---:|---:|---:|---:|---|"]
  adk = results.get("google-adk", {})
  ours = results.get("adk_nb", {})
  for workload, _, _ in PLAN:
    a, o = adk.get(workload), ours.get(workload)
    if a is None and o is None:
      continue
    budget = f"< {BUDGET_MS[workload]:g} ms"
    if workload == "parallel_runs":
      av = a and a["median_ms"]
      ov = o and o["median_ms"]
      rows.append(f"| {LABELS[workload]} | {(o or a or {}).get('runs', '')} | {_fmt(av)} | {_fmt(ov)} | "
                  f"{_ratio(av, ov)} | {budget}{_verdict(ov, workload, quick)} |")
      continue
    points = list((o or a or {}).get("ms_at", {}))
    for n in points:
      av = a and a["ms_at"].get(n)
      ov = o and o["ms_at"].get(n)
      rows.append(f"| {LABELS[workload]} | {n} | {_fmt(av)} | {_fmt(ov)} | {_ratio(av, ov)} | "
                  f"{budget}{_verdict(ov, workload, quick)} |")
  a, o = adk.get("tool_turns"), ours.get("tool_turns")
  if a or o:
    n = (o or a)["n"]
    av = a and a["peak_rss_mb"] - a["rss_after_import_mb"]
    ov = o and o["peak_rss_mb"] - o["rss_after_import_mb"]
    fmt = lambda mb: "n/a" if mb is None else f"{mb:.0f} MB"
    rows.append(f"| (a) peak RSS growth over the run (above RSS after import) | {n} | {fmt(av)} | {fmt(ov)} | "
                f"{_ratio(av, ov)} | |")
  return "\n".join(rows)


def _window(results) -> int:
  for per_framework in results.values():
    for result in per_framework.values():
      if "window" in result:
        return result["window"]
  return 0


def _verdict(ms: Optional[float], workload: str, quick: bool) -> str:
  if ms is None or quick:  # small-N figures say nothing about the budget
    return ""
  return " ok" if ms < BUDGET_MS[workload] else " **missed**"


def calibration_s() -> float:
  """The least of 3 timings of a fixed pure-Python loop: how fast this machine runs Python today.

  The same code measured 1.7-2.5x slower on some days than on others on this project's shared VM; a figure is
  only compared with another whose day gave about the same calibration (or side by side, or in instructions:
  bench/bench_instructions.py)."""
  best = float("inf")
  for _ in range(3):
    start = time.perf_counter()
    sum(i * i for i in range(10_000_000))
    best = min(best, time.perf_counter() - start)
  return best


def main(argv=None) -> int:
  parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
  parser.add_argument("--quick", action="store_true", help="small N, for smoke tests (figures are not meaningful)")
  parser.add_argument("--adk-python", help="interpreter with google-adk (default: $ADK_NB_BENCH_ADK_PYTHON "
                      "or bench/.venv-adk, created when missing)")
  parser.add_argument("--only", choices=["adk_nb", "google-adk"], help="run one framework only")
  parser.add_argument("--workload", action="append", choices=[w for w, _, _ in PLAN],
                      help="run only this workload (repeatable)")
  args = parser.parse_args(argv)

  pythons = {}
  if args.only != "google-adk":
    pythons["adk_nb"] = sys.executable
  if args.only != "adk_nb":
    pythons["google-adk"] = adk_python(args.adk_python)
  results: dict[str, dict[str, Any]] = {name: {} for name in pythons}
  for workload, n, quick_n in PLAN:
    if args.workload and workload not in args.workload:
      continue
    for framework, python in pythons.items():
      size = quick_n if args.quick else n
      print(f"{framework:>10}  {workload}  N={size} ...", file=sys.stderr, flush=True)
      results[framework][workload] = run_workload(python, framework, workload, size, args.quick)

  report = {
      "date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
      "quick": args.quick,
      "machine": {"python": platform.python_version(), "platform": platform.platform(),
                  "cpus": os.cpu_count(), "calibration_s": calibration_s()},
      "versions": {name: framework_version(python, name) for name, python in pythons.items()},
      "results": results,
  }
  os.makedirs(os.path.dirname(RESULTS), exist_ok=True)
  with open(RESULTS, "w") as f:
    json.dump(report, f, indent=2)
  versions = ", ".join(f"{name} {v}" for name, v in report["versions"].items())
  print(f"\nScripted model, no network; {versions}; Python {platform.python_version()}, "
        f"{os.cpu_count()} CPUs. (a), (b): median of the {_window(results)} turns/runs up to N, one session.{' QUICK MODE: small N, figures not meaningful.' if args.quick else ''}\n")
  print(table(results, quick=args.quick))
  print(f"\nThis machine's speed today: {report['machine']['calibration_s']:.2f} s for a fixed pure-Python loop "
        "(calibration_s in latest.json; 0.96-1.04 s on 2026-12-02). Compare figures from days whose loop agrees.")
  notes = [f"{name}: {r['parallel_runs']['overhead_ms']:.1f} ms over a floor of {r['parallel_runs']['floor_ms']:.1f} ms"
           for name, r in results.items() if "parallel_runs" in r]
  if notes:
    print(f"\n(c) above 8 bare concurrent 50 ms sleeps measured next to each run: {'; '.join(notes)}.")
  print(f"\n(raw figures: {os.path.relpath(RESULTS, REPO_ROOT)})")
  return 0


if __name__ == "__main__":
  sys.exit(main())
