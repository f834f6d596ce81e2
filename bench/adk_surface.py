"""List the public names of google-adk that adk_nb lacks, module by module (for README "Compatibility").

  python bench/adk_surface.py [--adk-python PATH] [--json out.json] [--readme README.md [--fix]]

google-adk's side runs in its own interpreter (`--adk-python`, default bench/.venv-adk/bin/python): every
module under google.adk whose path has no `_`-prefixed part is imported, and its public names are those in
`__all__`, or else the classes, functions and constants defined in the module itself. adk_nb's side checks
each name at the same path with `google.adk` replaced by `adk_nb`. Prints one line per module: the names
adk_nb has, and the ones it lacks (all of them when the module path itself is missing). With `--readme`,
also checks the README's table of lacking names against the measurement: rows naming what adk_nb now has,
and modules that lack names but have no row, so the table cannot drift from the code. `--fix`
rewrites the drifted rows' lists of names (keeping their status) and drops rows that lack nothing.
"""

from __future__ import annotations

import argparse
import importlib
import json
import os
import re
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent

_LIST_ADK = r'''
import importlib, inspect, json, pkgutil, sys, warnings
warnings.simplefilter("ignore")
import google.adk as root
out = {}
for info in pkgutil.walk_packages(root.__path__, "google.adk.", onerror=lambda name: None):
  name = info.name
  if any(part.startswith("_") for part in name.split(".")) or ".tests" in name:
    continue
  try:
    module = importlib.import_module(name)
  except BaseException:
    continue
  names = getattr(module, "__all__", None)
  if names is None:
    names = [n for n, v in vars(module).items() if not n.startswith("_")
             and getattr(v, "__module__", None) == name and (inspect.isclass(v) or inspect.isfunction(v))]
  out[name.replace("google.adk", "adk_nb", 1)] = sorted(set(map(str, names)))
print(json.dumps(out))
'''


def adk_names(python: str) -> dict[str, list[str]]:
  proc = subprocess.run([python, "-c", _LIST_ADK], capture_output=True, text=True, timeout=1200)
  if proc.returncode:
    raise SystemExit(f"listing google-adk failed:\n{proc.stderr[-2000:]}")
  return json.loads(proc.stdout.strip().splitlines()[-1])


def compare(reference: dict[str, list[str]]) -> dict[str, dict[str, list[str]]]:
  """{module: {"has": [...], "lacks": [...], "module_missing": bool}} for adk_nb."""
  result = {}
  for module_name, names in sorted(reference.items()):
    try:
      module = importlib.import_module(module_name)
    except ImportError:
      result[module_name] = {"has": [], "lacks": names, "module_missing": True}
      continue
    has = [n for n in names if hasattr(module, n)]
    result[module_name] = {"has": has, "lacks": [n for n in names if n not in has], "module_missing": False}
  return result


def readme_drift(table: dict[str, dict[str, list[str]]], readme: str) -> list[str]:
  """Problems of README's "module | what adk_nb lacks | status" rows against `table` (empty when in step)."""
  measured = {name.replace("adk_nb", "google.adk", 1): row for name, row in table.items()}
  rows = re.findall(r"^\| `(google\.adk[\w.]*)` \| (.*?) \| .*\|$", readme, re.M)
  problems = []
  for module_name, lacks_text in rows:
    row = measured.get(module_name)
    if row is None:
      problems.append(f"{module_name}: row for a module google-adk does not have")
    elif lacks_text.startswith("whole module"):
      if not row["module_missing"]:
        problems.append(f"{module_name}: row says the whole module; adk_nb has it, lacking {row['lacks'] or 'nothing'}")
    else:
      now_present = [n for n in re.findall(r"`(\w+)`", lacks_text) if n not in row["lacks"]]
      if now_present:
        problems.append(f"{module_name}: row lists {', '.join(now_present)}, which adk_nb now has")
  listed = {module_name for module_name, _ in rows}
  problems += [f"{name}: lacks {', '.join(row['lacks'])} but has no row" for name, row in measured.items()
               if row["lacks"] and name not in listed]
  return problems


def fix_readme(table: dict[str, dict[str, list[str]]], readme: str) -> str:
  """`readme` with each table row's list of lacking names as measured; rows lacking nothing removed."""
  measured = {name.replace("adk_nb", "google.adk", 1): row for name, row in table.items()}
  out = []
  for line in readme.split("\n"):
    match = re.match(r"^\| `(google\.adk[\w.]*)` \| (.*?) \| (.*) \|$", line)
    row = measured.get(match.group(1)) if match else None
    whole = match is not None and match.group(2).startswith("whole module")
    in_step = row is not None and (whole if row["module_missing"] else
                                   not whole and set(re.findall(r"`(\w+)`", match.group(2))) == set(row["lacks"]))
    if row is None or in_step:
      out.append(line)
    elif row["lacks"]:
      lacks = f"whole module ({len(row['lacks'])} names)" if row["module_missing"] else ", ".join(f"`{n}`" for n in row["lacks"])
      out.append(f"| `{match.group(1)}` | {lacks} | {match.group(3)} |")
  return "\n".join(out)


def main() -> int:
  parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
  parser.add_argument("--adk-python", default=os.environ.get("ADK_NB_BENCH_ADK_PYTHON",
                                                             str(REPO / "bench" / ".venv-adk" / "bin" / "python")))
  parser.add_argument("--json", help="write the comparison here")
  parser.add_argument("--readme", help="check this README's table of lacking names against the measurement")
  parser.add_argument("--fix", action="store_true", help="with --readme: bring the drifted rows in step")
  args = parser.parse_args()
  os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
  table = compare(adk_names(args.adk_python))
  names = sum(len(v["has"]) + len(v["lacks"]) for v in table.values())
  have = sum(len(v["has"]) for v in table.values())
  missing_modules = sum(v["module_missing"] for v in table.values())
  print(f"google-adk public modules: {len(table)} ({missing_modules} missing in adk_nb); "
        f"public names: {names} ({have} present in adk_nb)")
  for module_name, row in table.items():
    if row["module_missing"]:
      print(f"{module_name}: module missing ({len(row['lacks'])} names)")
    elif row["lacks"]:
      print(f"{module_name}: lacks {', '.join(row['lacks'])}")
  if args.json:
    Path(args.json).write_text(json.dumps(table, indent=1))
  if args.readme and args.fix:
    Path(args.readme).write_text(fix_readme(table, Path(args.readme).read_text()))
  if args.readme:
    problems = readme_drift(table, Path(args.readme).read_text())
    print(f"README table: {len(problems)} rows out of step" + (":" if problems else ""))
    for problem in problems:
      print(f"  {problem}")
    return 1 if problems else 0
  return 0


if __name__ == "__main__":
  sys.exit(main())
