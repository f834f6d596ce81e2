"""How often the live tree, timeline and graph redraw in Chromium while a run streams (JupyterLab, real kernel).

Run: `python -m pytest bench/bench_notebook_browser.py -s -p tests.browser.conftest` (needs /usr/bin/chromium
and playwright, as tests/browser). A SequentialAgent streams 600 tool calls and a 3,000-chunk answer; the
timeline tab is opened as soon as the tree shows, then MutationObservers count each redraw of the timeline,
of the tree's step count (one per batch) and of the graph's node statuses until the run ends. Printed: the
redraws, the most in any one second (budget 10-20) and the mean rate. Nothing is asserted about timing.
"""

from __future__ import annotations

from tests.browser.test_runview import _open_and_run_all

NOTEBOOK = [
    '''%load_ext adk_nb
from IPython.display import display
import adk_nb.notebook as nb
from adk_nb import Agent
from adk_nb.agents import SequentialAgent
from adk_nb.agents.run_config import RunConfig, StreamingMode
from adk_nb.models import ScriptedModel, call
def lookup(item: int) -> dict:
    """Looks an item up."""
    return {"item": item, "ok": True}
script = [call("lookup", item=i) for i in range(600)] + ["x" * 3000]
worker = Agent(name="worker", model=ScriptedModel(script, chunk_size=1, record=False, latency=0.01), tools=[lookup])
pipeline = SequentialAgent(name="pipeline", sub_agents=[worker])
config = RunConfig(streaming_mode=StreamingMode.SSE, max_llm_calls=0)''',
    '''run = nb.run(pipeline, "go", store="memory://", run_config=config)
run.view.display_handle = display(run.view, display_id=True)''',
]

WATCH = """() => {
  window.__timeline = []; window.__graph = []; window.__tree = [];
  const tree = document.querySelector('.adknb-tree');
  const note = (list) => () => list.push(performance.now());  // one callback per synchronous redraw
  new MutationObserver(note(window.__timeline)).observe(tree.querySelector('.adknb-timeline'), {childList: true});
  new MutationObserver(note(window.__tree)).observe(tree.querySelector('.adknb-count'),
      {childList: true, characterData: true, subtree: true});
  new MutationObserver(note(window.__graph)).observe(document.querySelector('.adknb-graph-frame'),
      {attributes: true, subtree: true, attributeFilter: ['data-status']});
}"""


def _rates(times: list[float]) -> tuple[int, int, float]:
  """(redraws, most within any one second, mean per second)."""
  if len(times) < 2:
    return len(times), len(times), 0.0
  peak, start = 0, 0
  for end, t in enumerate(times):
    while t - times[start] > 1000:
      start += 1
    peak = max(peak, end - start + 1)
  return len(times), peak, len(times) / ((times[-1] - times[0]) / 1000)


def test_redraw_rates_of_a_streaming_run(page, lab, write_notebook):
  name = write_notebook("redraw_rates.ipynb", NOTEBOOK)
  _open_and_run_all(page, lab, name)
  page.wait_for_selector(".adknb-tree[data-status='running'] .adknb-timeline-toggle", timeout=60_000)
  page.locator(".adknb-timeline-toggle").first.click()
  page.evaluate(WATCH)
  start = page.evaluate("performance.now()")
  page.wait_for_selector(".adknb-tree[data-status='done']", timeout=180_000)
  end = page.evaluate("performance.now()")
  print(f"\nwatched {(end - start) / 1000:.1f} s of a live run")
  for label, key in (("timeline", "__timeline"), ("tree batches", "__tree"), ("graph statuses", "__graph")):
    n, peak, mean = _rates([t for t in page.evaluate(f"window.{key}") if t <= end])
    print(f"{label:<15} {n:>4} redraws, at most {peak} in one second, {mean:.1f}/s on average")
  assert page.locator(".adknb-timeline .adknb-bar[data-kind='tool_call']").count() == 600  # the last change is drawn
