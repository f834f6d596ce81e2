"""An eval case's run opened from `results.view()` in a real JupyterLab and Chromium (issue 29 item 5).

The failing case is shown first with its run in the event tree; picking another case in the list
opens that case's run instead.
"""

from __future__ import annotations

from tests.browser.test_runview import _open_and_run_all, _wait_for_cells_to_finish

EVAL_NOTEBOOK = [
    '''%load_ext adk_nb
import tempfile
from google.genai import types
from adk_nb import Agent
from adk_nb.models import ScriptedModel, call
from adk_nb.evaluation import EvalCase, EvalSet, IntermediateData, Invocation, evaluate
def get_price(city: str) -> dict:
    """The price of a trip to a city, in EUR."""
    return {"city": city, "eur": {"Lisbon": 420, "Oslo": 910}[city]}
def script(request):
    last = request.contents[-1].parts[-1]
    if last.function_response:
        answer = last.function_response.response
        return f"A trip to {answer['city']} costs {answer['eur']} EUR."
    return call("get_price", city=last.text.split()[-1])
def turn(query, answer, city):
    return Invocation(user_content=types.Content(role="user", parts=[types.Part(text=query)]),
                      final_response=types.Content(role="model", parts=[types.Part(text=answer)]),
                      intermediate_data=IntermediateData(tool_uses=[types.FunctionCall(name="get_price", args={"city": city})]))
trips = EvalSet(eval_set_id="trips", eval_cases=[
    EvalCase(eval_id="lisbon", conversation=[turn("Price a trip to Lisbon", "A trip to Lisbon costs 420 EUR.", "Lisbon")]),
    EvalCase(eval_id="oslo", conversation=[turn("Price a trip to Oslo", "A trip to Oslo costs 650 EUR.", "Oslo")])])
results = await evaluate(Agent(name="travel", model=ScriptedModel(script), tools=[get_price]), trips,
                         {"criteria": {"response_match_score": 0.9}}, keep_sessions=True, progress=False,
                         results_dir=tempfile.mkdtemp())''',
    '''results.view()''',
]


def test_a_case_picked_in_the_results_view_opens_its_run_in_the_event_tree(page, lab, write_notebook):
  name = write_notebook("eval_runs.ipynb", EVAL_NOTEBOOK)
  _open_and_run_all(page, lab, name)
  output = page.locator(".jp-OutputArea-output", has=page.locator(".adknb-eval"))
  tree = output.locator(".adknb-tree")
  tree.wait_for(timeout=90_000)
  _wait_for_cells_to_finish(page)
  # The failing case comes first, and its run is open in the tree: the tool's result shows where 910 came from.
  assert tree.locator(".adknb-title").first.inner_text() == "oslo · run 0"
  assert 'get_price(city="Oslo")' in tree.inner_text() and "910" in tree.inner_text()
  # Picking the other case opens its run.
  output.locator("select").select_option(label="✓ lisbon · run 0 · passed")
  tree.locator(".adknb-title", has_text="lisbon · run 0").wait_for(timeout=30_000)
  assert 'get_price(city="Lisbon")' in tree.inner_text() and "Oslo" not in tree.inner_text()
