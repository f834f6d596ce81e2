"""The inspector's newer panels in a real JupyterLab and Chromium: the live workflow graph and its click filter, the
reply form of a RequestInput, and the artifacts tab."""

from __future__ import annotations

import os
import pathlib

from tests.browser.test_runview import _open_and_run_all, _wait_for_cells_to_finish

REPO = pathlib.Path(__file__).resolve().parents[2]

WORKFLOW_NOTEBOOK = [
    '''%load_ext adk_nb
from adk_nb import Agent, Context, Workflow
from adk_nb.events import RequestInput
from adk_nb.models import ScriptedModel
from adk_nb.workflow import JoinNode
writer = Agent(name="writer", model=ScriptedModel(["Brew: coffee that knows you.", "Brew: coffee that knows you!"]),
               instruction="Write a one-line blurb.")
def critic(ctx: Context, node_input: str):
    ctx.route = "ok" if node_input.endswith("!") else '<img src=x onerror="window.__pwned=7">'
    return node_input
async def spelling(node_input: str):
    return "ok"
async def tone(node_input: str):
    return "upbeat"
async def ask(node_input: dict):
    yield RequestInput(message='Publish <img src=y onerror="window.__pwned=8">?', payload={"checks": node_input})
def publish(node_input: dict):
    return "published" if node_input.get("approved") else "kept"
blurbs = Workflow(name="blurbs", edges=[
    ("START", writer, critic, {'<img src=x onerror="window.__pwned=7">': writer, "ok": (spelling, tone)}),
    ((spelling, tone), JoinNode(name="checks"), ask, publish)])''',
    '''%%agent blurbs --store memory://
A coffee machine that learns''',
]


def test_the_workflow_graph_follows_the_run_and_the_reply_form_resumes_it(page, lab, write_notebook, tmp_path):
  name = write_notebook("workflow.ipynb", WORKFLOW_NOTEBOOK)
  _open_and_run_all(page, lab, name)
  page.wait_for_selector(".adknb-tree[data-status='paused']", timeout=60_000)
  graph = page.locator(".adknb-graph").first
  graph.wait_for(timeout=30_000)

  def node(label):
    return graph.locator(".adknb-gnode", has=page.locator(".adknb-gnode-label", has_text=label))

  # Each node says its status in words (colour only repeats it); a loop's node counts its runs.
  node("ask").locator(".adknb-gnode-status").filter(has_text="‖ paused").wait_for(timeout=30_000)
  assert node("writer").locator(".adknb-gnode-status").text_content() == "✓ done · 2 runs"
  assert node("publish").locator(".adknb-gnode-status").text_content() == "○ waiting"
  assert node("ask").get_attribute("data-status") == "paused"
  # The route that loops back is labelled with its name, shown as text.
  labels = graph.locator(".adknb-edge-label").all_text_contents()
  assert '<img src=x onerror="window.__pwned=7">' in labels and "ok" in labels
  # The tree groups the run by node path: workflow > node runs, the agent node holding its model call.
  tree = page.locator(".adknb-tree").first
  workflow = tree.locator("details[data-kind='workflow']")
  titles = workflow.locator(":scope > .adknb-children > details > summary .adknb-node-title").all_inner_texts()
  assert titles == ["writer@1", "critic@1", "writer@2", "critic@2", "spelling@1", "tone@1", "checks@1", "ask@1"]
  assert workflow.locator("details[data-kind='node']:has-text('writer@2') details[data-kind='model_call']").count() == 1
  # Clicking a node filters the tree to its runs.
  node("critic").click()
  page.wait_for_function("() => document.querySelector('.adknb-filter').value === 'critic'", timeout=30_000)
  visible = tree.locator("details[data-kind='node']:visible > summary .adknb-node-title").all_inner_texts()
  assert visible == ["critic@1", "critic@2"]
  tree.locator(".adknb-filter").fill("")
  tree.locator(".adknb-filter").dispatch_event("input")
  # The reply form: the question as text, what it shows, an answer box.
  panel = page.locator(".adknb-pending").first
  assert 'blurbs asks: Publish <img src=y onerror="window.__pwned=8">?' in panel.inner_text()
  assert '"tone": "upbeat"' in panel.inner_text()
  panel.locator(".adknb-input-answer textarea").fill('{"approved": true}')
  panel.get_by_role("button", name="Send answer").click()
  page.wait_for_selector(".adknb-tree[data-status='done']", timeout=60_000)
  node("publish").locator(".adknb-gnode-status").filter(has_text="✓ done").wait_for(timeout=30_000)
  assert "published" in tree.inner_text()
  assert page.locator(".adknb-graph img, .adknb-tree img, .adknb-pending img").count() == 0
  assert page.evaluate("window.__pwned") is None
  # The README's screenshot of the inspector (graph, tree, timeline): refreshed only when asked.
  tree.locator(".adknb-timeline-toggle").click()
  # The trace is computed in the kernel and sent after 'done': wait until the critic's spans are drawn.
  page.wait_for_function(
      """() => [...document.querySelectorAll('.adknb-tree .adknb-timeline .adknb-span')]
                 .some(r => r.dataset.lane === 'critic')""", timeout=30_000)
  lanes = [lane for lane in dict.fromkeys(tree.locator(".adknb-timeline .adknb-span").evaluate_all(
      "rows => rows.map(r => r.dataset.lane)")) if lane != "run"]
  assert lanes[:3] == ["blurbs", "writer", "critic"]  # each span says its workflow node (all runs of a node alike)
  no_news = page.get_by_role("button", name="No", exact=True)  # JupyterLab's news question, over the output
  if no_news.count():
    no_news.first.click()
  page.set_viewport_size({"width": 1100, "height": 2400})  # the whole view inside the notebook panel
  page.locator(".adknb-runview").first.scroll_into_view_if_needed()
  target = (REPO / "docs" if os.environ.get("ADK_NB_UPDATE_SCREENSHOT") else tmp_path) / "inspector.png"
  target.parent.mkdir(exist_ok=True)
  page.locator(".adknb-runview").first.screenshot(path=str(target))
  assert target.stat().st_size > 10_000
  # Dark theme: every node's words stay readable on its box (computed colours, not a screenshot).
  page.click("li.lm-MenuBar-item:has-text('Settings')")
  page.click("li.lm-Menu-item:has-text('Theme')")
  page.click("li.lm-Menu-item:has-text('JupyterLab Dark')")
  page.wait_for_function("""() => { const c = getComputedStyle(document.querySelector('.adknb-graph')).color
                                     .match(/[\\d.]+/g).map(Number); return c[0] + c[1] + c[2] > 450; }""",
                         timeout=30_000)
  ratios = graph.evaluate(GRAPH_CONTRAST_JS)
  assert {"start[waiting]", "agent[done]", "node[done]", "join[done]"} <= set(ratios), ratios
  assert min(ratios.values()) >= 4.5, ratios


GRAPH_CONTRAST_JS = """root => {
  const rgb = s => (s.match(/[\\d.]+/g) || []).map(Number).slice(0, 3);
  const lum = ([r, g, b]) => { const f = c => { c /= 255; return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4; };
                              return 0.2126 * f(r) + 0.7152 * f(g) + 0.0722 * f(b); };
  const out = {};
  for (const node of root.querySelectorAll(".adknb-gnode")) {
    const box = lum(rgb(getComputedStyle(node.querySelector("rect")).fill));
    for (const text of node.querySelectorAll("text")) {
      if (!text.textContent.trim()) continue;
      const ink = lum(rgb(getComputedStyle(text).fill));
      const ratio = (Math.max(ink, box) + 0.05) / (Math.min(ink, box) + 0.05);
      const key = `${node.dataset.kind}[${node.dataset.status}]`;
      out[key] = Math.min(out[key] || 99, Math.round(ratio * 10) / 10);
    }
  }
  return out;
}"""


ARTIFACTS_NOTEBOOK = [
    '''%load_ext adk_nb
import base64
from google.genai import types
from adk_nb import Agent
from adk_nb.models import ScriptedModel, call
from adk_nb.tools import ToolContext
DOT = base64.b64decode("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==")
async def make_files(tool_context: ToolContext) -> dict:
    """Saves the report files."""
    await tool_context.save_artifact("notes.txt", types.Part(text="draft"))
    await tool_context.save_artifact("notes.txt", types.Part(text='<img src=x onerror="window.__pwned=9"> final'))
    await tool_context.save_artifact("dot.png", types.Part.from_bytes(data=DOT, mime_type="image/png"))
    await tool_context.save_artifact("report.pdf", types.Part.from_bytes(data=b"%PDF-1.4", mime_type="application/pdf"))
    return {"saved": 3}
reporter = Agent(name="reporter", model=ScriptedModel([call("make_files"), "Saved."]), tools=[make_files])''',
    '''%%agent reporter --store memory://
Write the report''',
]


def test_the_artifacts_tab_previews_text_images_and_offers_downloads(page, lab, write_notebook):
  name = write_notebook("artifacts.ipynb", ARTIFACTS_NOTEBOOK)
  _open_and_run_all(page, lab, name)
  page.wait_for_selector(".adknb-tree[data-status='done']", timeout=60_000)
  _wait_for_cells_to_finish(page)  # the display is refreshed as the cell ends; count() does not wait for it
  tab = page.locator(".adknb-artifacts").first
  tab.locator(".adknb-artifact").first.wait_for(timeout=30_000)
  assert tab.locator(".adknb-artifact-name").all_inner_texts() == ["dot.png", "notes.txt", "report.pdf"]
  notes = tab.locator(".adknb-artifact", has_text="notes.txt")
  assert notes.locator("button").all_inner_texts() == ["v0", "v1"]
  notes.get_by_role("button", name="v1").click()
  text = tab.locator(".adknb-artifact-text")
  text.wait_for(timeout=30_000)
  assert text.inner_text() == '<img src=x onerror="window.__pwned=9"> final'  # shown as written
  tab.locator(".adknb-artifact", has_text="dot.png").get_by_role("button", name="v0").click()
  image = tab.locator("img.adknb-artifact-image")
  image.wait_for(timeout=30_000)
  page.wait_for_function("img => img.complete && img.naturalWidth === 1", arg=image.element_handle(), timeout=30_000)
  tab.locator(".adknb-artifact", has_text="report.pdf").get_by_role("button", name="v0").click()
  link = tab.locator("a.adknb-artifact-download")
  link.filter(has_text="report.pdf").wait_for(timeout=30_000)
  assert link.get_attribute("download") == "report.pdf" and tab.locator("img").count() == 0
  with page.expect_download() as download:
    link.click()
  assert download.value.suggested_filename == "report.pdf"
  assert page.evaluate("window.__pwned") is None
