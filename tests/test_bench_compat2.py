"""bench/adk_compat2.py: google-adk's results are kept per test file, so a grown selection runs only what is new."""

from __future__ import annotations

import argparse
import importlib.util
import json
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def _compat2():
  spec = importlib.util.spec_from_file_location("adk_compat2", REPO / "bench" / "adk_compat2.py")
  module = importlib.util.module_from_spec(spec)
  spec.loader.exec_module(module)
  return module


def _tree(tmp_path: Path, files: dict[str, str]) -> Path:
  src = tmp_path / "adk-2x"
  for rel, text in files.items():
    path = src / "tests" / "unittests" / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
  return src


class _Runs:
  """Stands in for pytest: records which files each interpreter was asked to run, and passes one item per file."""

  def __init__(self):
    self.calls: list[tuple[str, list[str]]] = []

  def __call__(self, python, root, files, env, timeout):
    self.calls.append((python, list(files)))
    return {rel: {"test_one": ["passed", ""]} for rel in files}


def _measure(compat2, monkeypatch, src: Path, work: Path, runs: _Runs) -> dict:
  monkeypatch.setattr(compat2.adk_compat, "run_tests", runs)
  monkeypatch.setattr(compat2.adk_compat, "ensure_plugins", lambda python, work, tag: {})
  monkeypatch.setattr(compat2.adk_compat, "adk_module_paths", lambda python: frozenset())
  args = argparse.Namespace(adk_src=str(src), files=None, adk_python="adk-python", nb_python="nb-python",
                            nb_src=str(REPO), timeout=5, refresh_adk=False)
  return compat2.measure(args, work)


def test_a_grown_selection_runs_google_adk_on_the_new_and_changed_files_only(tmp_path, monkeypatch):
  compat2 = _compat2()
  work = tmp_path / "work"
  work.mkdir()
  src = _tree(tmp_path, {"workflow/test_a.py": "a", "events/test_b.py": "b"})
  runs = _Runs()
  _measure(compat2, monkeypatch, src, work, runs)
  assert runs.calls == [("adk-python", ["events/test_b.py", "workflow/test_a.py"]),
                        ("nb-python", ["events/test_b.py", "workflow/test_a.py"])]

  # A file of a newly selected area appears and another changes: google-adk runs those two, adk_nb all three.
  (src / "tests" / "unittests" / "skills").mkdir()
  (src / "tests" / "unittests" / "skills" / "test_c.py").write_text("c")
  (src / "tests" / "unittests" / "events" / "test_b.py").write_text("b, changed")
  runs = _Runs()
  data = _measure(compat2, monkeypatch, src, work, runs)
  assert runs.calls == [("adk-python", ["events/test_b.py", "skills/test_c.py"]),
                        ("nb-python", ["events/test_b.py", "skills/test_c.py", "workflow/test_a.py"])]
  assert sorted(data["results"]["google-adk"]) == ["events/test_b.py", "skills/test_c.py", "workflow/test_a.py"]

  runs = _Runs()
  _measure(compat2, monkeypatch, src, work, runs)
  assert runs.calls == [("nb-python", ["events/test_b.py", "skills/test_c.py", "workflow/test_a.py"])]


def test_an_earlier_whole_selection_cache_is_used_only_while_its_key_matches_the_sources(tmp_path, monkeypatch):
  compat2 = _compat2()
  work = tmp_path / "work"
  work.mkdir()
  src = _tree(tmp_path, {"workflow/test_a.py": "a", "events/test_b.py": "b"})
  unittests = src / "tests" / "unittests"
  files = ["events/test_b.py", "workflow/test_a.py"]
  earlier = {rel: {"test_one": ["failed", "as google-adk ran it then"]} for rel in files}
  key = compat2.cache_key(unittests, files, "adk-python")
  (work / f"google-adk-results-{key}.json").write_text(json.dumps(earlier))
  stale = {"workflow/test_a.py": {"test_one": ["passed", ""]}}
  (work / "google-adk-results-0123456789abcdef.json").write_text(json.dumps(stale))  # a key that never matches
  runs = _Runs()
  data = _measure(compat2, monkeypatch, src, work, runs)
  assert runs.calls == [("nb-python", files)]  # nothing for google-adk to run
  assert data["results"]["google-adk"] == earlier

  (unittests / "workflow" / "test_a.py").write_text("a, changed")  # the earlier cache no longer holds for it
  runs = _Runs()
  data = _measure(compat2, monkeypatch, src, work, runs)
  assert runs.calls[0] == ("adk-python", ["workflow/test_a.py"])
  assert data["results"]["google-adk"]["workflow/test_a.py"] == {"test_one": ["passed", ""]}
  assert data["results"]["google-adk"]["events/test_b.py"] == earlier["events/test_b.py"]
