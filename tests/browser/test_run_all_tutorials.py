"""Every tutorial under Run All in a real JupyterLab: every cell finishes (a number in its prompt), none fails.

nbmake runs cells one at a time and waits for each reply, so it cannot see a cell that the front
end keeps at `[*]` because the kernel's `idle` for it named another cell (tutorial 04 did so).
"""

from __future__ import annotations

import pathlib
import shutil

import pytest

NOTEBOOKS = pathlib.Path(__file__).resolve().parents[2] / "notebooks"
TUTORIALS = sorted(p.name for p in NOTEBOOKS.glob("*.ipynb"))

_ALL_DONE = """() => {
  const prompts = [...document.querySelectorAll('.jp-Notebook .jp-CodeCell .jp-InputPrompt')];
  return prompts.length > 0 && prompts.every(p => !p.textContent.includes('*'));
}"""


@pytest.mark.parametrize("name", TUTORIALS)
def test_run_all_finishes_every_cell(page, lab, run_all, name):
  root = lab[2]
  shutil.copy(NOTEBOOKS / name, root / name)
  shutil.copytree(NOTEBOOKS / "cassettes", root / "cassettes", dirs_exist_ok=True)
  run_all(page, name)
  page.wait_for_function(
      "() => [...document.querySelectorAll('.jp-Notebook .jp-CodeCell .jp-InputPrompt')]"
      ".some(p => p.textContent.includes('*'))", timeout=60_000)
  page.wait_for_function(_ALL_DONE, timeout=240_000)
  prompts = page.locator(".jp-Notebook .jp-CodeCell .jp-InputPrompt").all_inner_texts()
  errors = page.locator(".jp-OutputArea-output[data-mime-type='application/vnd.jupyter.stderr'], "
                        ".jp-RenderedText[data-mime-type='application/vnd.jupyter.error']").all_inner_texts()
  assert not [e for e in errors if "Traceback" in e or "Error" in e], errors
  unfinished = [i for i, p in enumerate(prompts) if not any(ch.isdigit() for ch in p)]
  assert unfinished == [], f"cells that never ran or never finished: {unfinished} ({prompts})"
