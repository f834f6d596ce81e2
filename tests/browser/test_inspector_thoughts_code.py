"""Thoughts folded under their model call and model-written code with its output, in a real JupyterLab and Chromium."""

from __future__ import annotations

from tests.browser.test_runview import _open_and_run_all, _wait_for_cells_to_finish

NOTEBOOK = [
    '''%load_ext adk_nb
from google.genai import types
from adk_nb import Agent
from adk_nb.code_executors import UnsafeLocalCodeExecutor
from adk_nb.models import ScriptedModel
from adk_nb.planners import BuiltInPlanner
payload = '<img src=x onerror="window.__pwned=7">'
model = ScriptedModel([[types.Part(text="plan: " + payload, thought=True),
                        "Computing.\\n```python\\nprint('" + payload + "')\\n```"], "Printed it."])
coder = Agent(name="coder", model=model, code_executor=UnsafeLocalCodeExecutor(),
              planner=BuiltInPlanner(thinking_config=types.ThinkingConfig(include_thoughts=True)))''',
    '''%%agent coder --store memory://
Print the payload''',
]


def test_thoughts_are_folded_and_code_and_its_output_show_as_text(page, lab, write_notebook):
  name = write_notebook("thoughts_code.ipynb", NOTEBOOK)
  _open_and_run_all(page, lab, name)
  page.wait_for_selector(".adknb-tree[data-status='done']", timeout=60_000)
  _wait_for_cells_to_finish(page)
  tree = page.locator(".adknb-tree").first
  payload = '<img src=x onerror="window.__pwned=7">'
  # The thought: a folded step labelled "thoughts" under the first model call, apart from its answer.
  first_call = tree.locator("details[data-kind='model_call']").first
  thought = first_call.locator("details[data-kind='thought']")
  assert thought.count() == 1
  assert thought.evaluate("d => d.open") is False
  assert thought.locator(":scope > summary .adknb-kind").inner_text().lower() == "thoughts"
  assert payload not in first_call.locator(":scope > .adknb-text").inner_text()
  thought.locator(":scope > summary").click()
  assert thought.locator(":scope > .adknb-text").inner_text() == "plan: " + payload
  # The code: a step with its language, the code as text and its output with an ok status.
  code = tree.locator("details[data-kind='code']")
  assert code.count() == 1
  assert code.locator(":scope > summary .adknb-node-title").inner_text() == "python"
  assert code.locator(":scope > summary .adknb-node-status").inner_text() == "✓ ok"
  assert code.locator(":scope > .adknb-text").inner_text() == f"print('{payload}')"
  assert payload in code.locator(":scope > .adknb-result").inner_text()
  # Nothing was parsed as HTML: no image element anywhere in the tree, and the handler never ran.
  assert tree.locator("img").count() == 0
  assert page.evaluate("window.__pwned") is None
