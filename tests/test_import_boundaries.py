"""The notebook, CLI, server and evaluation layers use other packages' public names only.

A private name (`_x`) or private module (`pkg._mod`) of another package is an internal detail its
owner may change at any time; reaching into it is how protocol details leaked across layers before
`adk_nb.events.protocol` existed. Within one package, private modules are fine.
"""

import ast
from pathlib import Path

import adk_nb

PACKAGE = Path(adk_nb.__file__).parent
GUARDED = ("notebook", "cli", "server", "evaluation")


def _private(segment: str) -> bool:
  return segment.startswith("_") and not segment.startswith("__")


def _module_of(node: ast.ImportFrom, module: str) -> str:
  """The absolute module an ImportFrom in `module` (dotted, e.g. adk_nb.notebook.views) names."""
  if not node.level:
    return node.module or ""
  base = module.split(".")[: -node.level]
  return ".".join(base + ([node.module] if node.module else []))


def private_reach_ins(source: str, module: str) -> list[str]:
  """`line target` for each import in `source` (the text of `module`) of another package's private module or name."""
  own = module.split(".")[:2]
  found = []
  for node in ast.walk(ast.parse(source)):
    if isinstance(node, ast.ImportFrom):
      target = _module_of(node, module)
      targets = [(target, alias.name) for alias in node.names]
    elif isinstance(node, ast.Import):
      targets = [(alias.name, "") for alias in node.names]
    else:
      continue
    for target, name in targets:
      parts = target.split(".")
      if parts[0] != "adk_nb" or parts[:2] == own:
        continue
      if any(_private(p) for p in parts[1:]) or _private(name):
        found.append(f"{node.lineno} {target}{'.' + name if name else ''}")
  return found


def guarded_files() -> list[Path]:
  files = []
  for name in GUARDED:
    files += sorted((PACKAGE / name).rglob("*.py")) if (PACKAGE / name).is_dir() else []
    files += [PACKAGE / f"{name}.py"] if (PACKAGE / f"{name}.py").is_file() else []
  return files


def test_guarded_layers_never_import_another_packages_private_names():
  assert guarded_files(), "nothing to check: the guarded packages moved?"
  reach_ins = []
  for path in guarded_files():
    module = ".".join(("adk_nb",) + path.relative_to(PACKAGE).with_suffix("").parts)
    reach_ins += [f"{path.relative_to(PACKAGE.parent)}:{hit}" for hit in private_reach_ins(path.read_text(), module)]
  assert reach_ins == [], "import the public name instead (e.g. adk_nb.events.protocol):\n" + "\n".join(reach_ins)


def test_the_check_catches_a_reach_in():
  source = ("from ..flows._contents import build_contents\nfrom ..runners import _descendants\n"
            "import adk_nb.flows._resume\nfrom ._loop import run_sync\nfrom ..events import protocol\n")
  hits = private_reach_ins(source, "adk_nb.notebook.probe")
  assert [h.split(" ", 1)[1] for h in hits] == [
      "adk_nb.flows._contents.build_contents", "adk_nb.runners._descendants", "adk_nb.flows._resume"]


def test_nothing_outside_flows_imports_a_private_flows_module():
  """The LLM loop's steps (`flows._x`) are private to `flows/`; other packages use `adk_nb.flows`'s names."""
  reach_ins = []
  for path in sorted(PACKAGE.rglob("*.py")):
    parts = path.relative_to(PACKAGE).with_suffix("").parts
    if parts[0] == "flows":
      continue
    module = ".".join(("adk_nb",) + parts)
    if path.name == "__init__.py":
      module += ".__init__"  # relative imports in a package's __init__ start from the package itself
    reach_ins += [f"{path.relative_to(PACKAGE.parent)}:{hit}" for hit in private_reach_ins(path.read_text(), module)
                  if hit.split(" ", 1)[1].startswith("adk_nb.flows._")]
  assert reach_ins == [], "import the name from adk_nb.flows instead:\n" + "\n".join(reach_ins)
