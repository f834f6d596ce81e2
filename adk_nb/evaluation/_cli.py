"""`adk-nb eval AGENT_DIR EVALSET...`: run eval sets against an agent; exit 1 when any case fails.

Exit codes: 0 every case passed, 1 some case failed or errored, 2 bad arguments or unreadable files.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
from pathlib import Path


def add_arguments(p: argparse.ArgumentParser) -> None:
  """Declares the eval subcommand's arguments (ADK's `adk eval` spellings are accepted)."""
  p.add_argument("agent_dir", metavar="AGENT_DIR", help="agent folder (agent.py defining root_agent) or module name")
  p.add_argument("eval_sets", metavar="EVALSET", nargs="+",
                 help="*.evalset.json or *.test.json files; 'file.evalset.json:case1,case2' runs only those cases")
  p.add_argument("--config_file_path", "--config", dest="config", default=None,
                 help="test_config.json with criteria (default: the one beside each eval set, else ADK's defaults)")
  p.add_argument("--num_runs", "--num-runs", dest="num_runs", type=int, default=1, help="runs per case (default 1)")
  p.add_argument("--concurrency", type=int, default=8, help="cases run at once (default 8)")
  p.add_argument("--timeout", type=float, default=None, help="seconds allowed per case run")
  p.add_argument("--print_detailed_results", "--detailed", dest="detailed", action="store_true",
                 help="print every failing turn: expected vs actual answer and tools")
  p.add_argument("--save", default=None, help="write results (EvalSetResult JSON) to this folder")
  p.add_argument("--resume", action="store_true",
                 help="continue the latest stopped run of each eval set (finished cases are not run again)")
  p.add_argument("--results_dir", "--results-dir", dest="results_dir", default=None,
                 help="where runs are stored (default $ADK_NB_EVAL_DIR, else .adk_nb/eval)")
  p.add_argument("--no-progress", dest="progress", action="store_false", help="no progress bar")


def _split(spec: str) -> tuple[str, list[str] | None]:
  path, sep, cases = spec.rpartition(":")
  if sep and path and cases and not Path(spec).exists() and not (len(path) == 1 and path.isalpha()):
    return path, [c for c in cases.split(",") if c]
  return spec, None


def run(args: argparse.Namespace) -> int:
  """Runs the eval subcommand; returns the exit code."""
  from ._evaluate import evaluate
  from .agent_loader import load_agent
  from .formats import EvalFileError, load_eval_config

  try:
    agent, app = load_agent(args.agent_dir)
    config = load_eval_config(args.config) if args.config else None
    if args.config and not Path(args.config).exists():
      raise FileNotFoundError(f"config file {args.config!r} not found")
  except (EvalFileError, FileNotFoundError, ImportError, ValueError, SyntaxError) as exc:
    print(f"adk-nb eval: {exc}", file=sys.stderr)
    return 2
  if args.save and Path(args.save).exists() and not Path(args.save).is_dir():
    print(f"adk-nb eval: --save {args.save} is an existing file; --save takes a folder (results are written into "
          "it as NAME.evalset_result.json). Nothing was run.", file=sys.stderr)
    return 2
  target = app if app is not None else agent
  failed = False
  for spec in args.eval_sets:
    path, cases = _split(spec)
    try:
      results = asyncio.run(evaluate(target, path, config, num_runs=args.num_runs, concurrency=args.concurrency,
                                     timeout=args.timeout, cases=cases, resume=args.resume,
                                     results_dir=args.results_dir, progress="bar" if args.progress and
                                     sys.stderr.isatty() else args.progress and "text"))
    except (EvalFileError, FileNotFoundError, ValueError) as exc:
      print(f"adk-nb eval: {exc}", file=sys.stderr)
      return 2
    print(results.summary())
    for line in results.failures():
      print(f"  FAIL {line}")
    if args.detailed:
      _print_detail(results)
    if args.save:
      try:
        out = results.save(Path(args.save) / f"{results.result_name}.evalset_result.json")
      except OSError as exc:  # the run itself is kept in the results store, so nothing is lost
        print(f"adk-nb eval: could not write results to --save {args.save}: {exc.strerror or exc}; the run is kept "
              f"in {results.run_dir} (EvalResults.open({results.result_name!r})).", file=sys.stderr)
        return 2
      print(f"  results saved to {out}")
    failed = failed or not results.passed
  return 1 if failed else 0


def _print_detail(results) -> None:
  turns = results.turns
  cases = results.cases
  bad = cases[cases["status"] != "passed"][["eval_id", "run"]]
  for _, row in bad.iterrows():
    for _, t in turns[(turns["eval_id"] == row["eval_id"]) & (turns["run"] == row["run"])].iterrows():
      print(f"    {t['eval_id']} run {t['run']} turn {t['turn']}: user {t['user']!r}")
      print(f"      expected {t['expected_response']!r} tools {t['expected_tools']}")
      print(f"      actual   {t['actual_response']!r} tools {t['actual_tools']}")
