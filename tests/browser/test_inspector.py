"""The inspector in a real JupyterLab and Chromium: structure, every model call, details, rejection, dark theme."""

from __future__ import annotations

import re

from tests.browser.test_runview import _open_and_run_all, _wait_for_cells_to_finish

STRUCTURE_NOTEBOOK = [
    '''%load_ext adk_nb
from adk_nb import Agent
from adk_nb.agents import LoopAgent, ParallelAgent, SequentialAgent
from adk_nb.models import ScriptedModel, call
from adk_nb.tools import exit_loop
critic = Agent(name="critic", model=ScriptedModel(["c1", "c2", call("exit_loop")]), tools=[exit_loop])
reviser = Agent(name="reviser", model=ScriptedModel(["r1", "r2"]))
review = LoopAgent(name="review", sub_agents=[critic, reviser], max_iterations=5)
fan = ParallelAgent(name="fan", sub_agents=[Agent(name="a", model=ScriptedModel(["A"], latency=0.3)),
                                             Agent(name="b", model=ScriptedModel(["B"], latency=0.3))])
root = SequentialAgent(name="pipeline", sub_agents=[fan, review])''',
    '''%%agent root --store memory://
Review <img src=q onerror="window.__pwned=3"> this''',
]

REJECT_NOTEBOOK = [
    '''%load_ext adk_nb
from adk_nb import Agent
from adk_nb.models import ScriptedModel, call
from adk_nb.tools import FunctionTool
def refund(order_id: str, amount: float) -> dict:
    """Refunds an order."""
    return {"status": "refunded"}
support = Agent(name="support", model=ScriptedModel([call("refund", order_id="<b>A1</b>", amount=250.0), "Not refunded."]),
                instruction="Handle <script>window.__pwned=4</script> refunds.",
                tools=[FunctionTool(refund, require_confirmation=True)])''',
    '''%%agent support --store memory://
Refund A1''',
]


def test_loop_order_parallel_lanes_and_every_model_call(page, lab, write_notebook):
  name = write_notebook("structure.ipynb", STRUCTURE_NOTEBOOK)
  _open_and_run_all(page, lab, name)
  page.wait_for_selector(".adknb-tree[data-status='done']", timeout=60_000)
  _wait_for_cells_to_finish(page)  # the display is refreshed as the cell ends; count() does not wait for it
  tree = page.locator(".adknb-tree").first
  assert tree.locator(".adknb-title").inner_text() == "pipeline"  # the agent's name
  # Time order inside the loop, with its iterations.
  loop = tree.locator("details[data-kind='loop']")
  order = loop.evaluate("""el => [...el.querySelectorAll("details[data-kind='iteration'], details[data-kind='agent']")]
                           .map(d => d.querySelector(':scope > summary .adknb-node-title').textContent)""")
  assert order == ["iteration 1", "critic", "reviser", "iteration 2", "critic", "reviser", "iteration 3", "critic"]
  # Parallel branches are lanes inside the parallel container, each named by its branch.
  lanes = tree.locator("details[data-kind='parallel'] > .adknb-children > details[data-kind='agent']")
  assert lanes.count() == 2
  assert [lanes.nth(i).locator(":scope > summary .adknb-meta").inner_text() for i in range(2)] == \
      ["branch fan.a", "branch fan.b"]
  # Every model call is a node with its model's name (7 calls: a, b, critic x3, reviser x2).
  models = tree.locator("details[data-kind='model_call']")
  assert models.count() == 7
  assert set(models.locator(":scope > summary .adknb-node-title").all_inner_texts()) == {"scripted"}
  for i in range(2):  # each parallel model call slept 300 ms: its own time, not the gap since the last event
    ms = lanes.nth(i).locator("details[data-kind='model_call'] > summary .adknb-ms").inner_text()
    assert int(re.match(r"(\d+) ms", ms).group(1)) >= 290
  # The timeline: the same steps as spans, one row each, marked with their agent (parallel branches side by side in time).
  tree.locator(".adknb-timeline-toggle").click()
  # The kernel computes the trace when the tab opens and sends it; wait until it is drawn (no fixed sleep).
  tree.locator(".adknb-timeline .adknb-span[data-lane='critic']").first.wait_for(timeout=30_000)
  lanes_text = [lane for lane in dict.fromkeys(tree.locator(".adknb-timeline .adknb-span").evaluate_all(
      "rows => rows.map(r => r.dataset.lane)")) if lane != "run"]
  assert lanes_text[:4] == ["pipeline", "fan", "a (fan.a)", "b (fan.b)"] and "critic" in lanes_text
  assert tree.locator(".adknb-timeline .adknb-bar[data-kind='model_call']").count() == 7
  a_bar, b_bar = (tree.locator(f".adknb-span[data-lane='{lane}'] .adknb-bar[data-kind='model_call']")
                  for lane in ("a (fan.a)", "b (fan.b)"))
  overlap = page.evaluate("""([a, b]) => { const x = a.getBoundingClientRect(), y = b.getBoundingClientRect();
                                           return Math.min(x.right, y.right) - Math.max(x.left, y.left); }""",
                          [a_bar.element_handle(), b_bar.element_handle()])
  assert overlap > 0  # the two branches' model calls ran at the same time
  tree.locator(".adknb-timeline-toggle").click()
  # Filter: the author's agent and what is inside it; errors only shows nothing here.
  tree.locator(".adknb-filter").fill("reviser")
  visible = tree.locator("details[data-kind='agent']:visible > summary .adknb-node-title").all_inner_texts()
  assert visible == ["reviser", "reviser"]
  tree.locator(".adknb-filter").fill('<img src=z onerror="window.__pwned=5">')
  tree.locator(".adknb-filter").fill("")
  assert 'Review <img src=q onerror="window.__pwned=3"> this' in tree.inner_text()
  assert page.locator(".adknb-tree img").count() == 0
  assert page.evaluate("window.__pwned") is None


SLOW_NOTEBOOK = [
    '''%load_ext adk_nb
import asyncio, pathlib, time
from adk_nb import Agent
from adk_nb.models import ScriptedModel, call
async def lookup(item: int) -> dict:
    """Looks an item up."""
    if item == 2:  # the run goes on once the test has opened the timeline (a file it writes, not a timer)
        deadline = time.monotonic() + 300
        while not pathlib.Path(GO_FILE).exists() and time.monotonic() < deadline:
            await asyncio.sleep(0.05)
    return {"item": item}
slow = Agent(name="slow", model=ScriptedModel([call("lookup", item=1), call("lookup", item=2), "done"], latency=0.2),
             tools=[lookup])''',
    '''%%agent slow --store memory://
Look both up''',
]


def test_a_timeline_opened_while_the_run_streams_stays_open_when_it_ends(page, lab, write_notebook):
  go = lab[2] / "slow.go"
  go.unlink(missing_ok=True)
  name = write_notebook("slow.ipynb", [f"GO_FILE = {str(go)!r}\n" + SLOW_NOTEBOOK[0], *SLOW_NOTEBOOK[1:]])
  _open_and_run_all(page, lab, name)
  page.wait_for_selector(".adknb-tree[data-status='running'] .adknb-timeline-toggle", timeout=60_000)
  page.locator(".adknb-timeline-toggle").first.click()
  page.wait_for_selector(".adknb-tree[data-status='running'] .adknb-timeline-toggle[aria-pressed='true']",
                         timeout=30_000)  # opened while the run still goes (its second lookup waits for `go`)
  go.write_text("")  # the run may end now
  # The cell's display is refreshed when the run ends (a new view of the same widget): the timeline stays open.
  page.wait_for_selector(".adknb-tree[data-status='done']", timeout=60_000)
  tree = page.locator(".adknb-tree").first
  assert tree.locator(".adknb-timeline-toggle").get_attribute("aria-pressed") == "true"
  # The run's last trace comes from the kernel just after 'done' (it is computed in Python): wait for it to be drawn.
  page.wait_for_function(
      """() => { const t = document.querySelector('.adknb-tree');
                 return t && t.querySelectorAll(".adknb-timeline .adknb-bar[data-kind='tool_call']").length >= 2
                          && t.querySelectorAll(".adknb-timeline .adknb-bar[data-kind='model_call']").length >= 3; }""",
      timeout=30_000)
  assert tree.locator(".adknb-timeline .adknb-bar[data-kind='tool_call']").count() == 2
  assert tree.locator(".adknb-timeline .adknb-bar[data-kind='model_call']").count() == 3


def test_request_details_rejection_and_dark_theme(page, lab, write_notebook):
  name = write_notebook("reject.ipynb", REJECT_NOTEBOOK)
  _open_and_run_all(page, lab, name)
  page.wait_for_selector(".adknb-tree[data-status='paused']", timeout=60_000)
  tree = page.locator(".adknb-tree").first
  # The request as sent, on demand; its text (with markup in it) shown literally.
  first_model = tree.locator("details[data-kind='model_call']").first
  first_model.locator(":scope > summary .adknb-info").click()
  detail = tree.locator(".adknb-side")
  detail.locator(".adknb-section-title:has-text('request: system instruction')").wait_for(timeout=30_000)
  assert "Handle <script>window.__pwned=4</script> refunds." in detail.inner_text()
  assert "tool declarations (1)" in detail.inner_text() and '"name": "refund"' in detail.inner_text()
  assert '"functionCall"' in detail.inner_text()
  # The panel: arguments readable in full, no protocol jargon.
  panel = page.locator(".adknb-pending").first
  assert "FunctionResponse" not in panel.inner_text()
  box = panel.locator("textarea").first
  assert '"amount": 250.0' in box.input_value() and box.evaluate("el => el.rows") >= 4
  panel.locator("input[placeholder='reason (optional)']").fill("over the limit")
  page.get_by_role("button", name="Reject", exact=True).click()
  page.wait_for_selector(".adknb-tree[data-status='done']", timeout=60_000)
  call_node = tree.locator("details[data-kind='tool_call']").first
  assert call_node.get_attribute("data-status") == "rejected"
  summary = call_node.locator(":scope > summary").inner_text()
  assert "rejected" in summary and "ok" not in summary.split()
  assert "reason: over the limit" in summary  # readable without unfolding the call
  # Dark theme: every status and label is readable against the tree's background (computed colours).
  page.click("li.lm-MenuBar-item:has-text('Settings')")
  page.click("li.lm-Menu-item:has-text('Theme')")
  page.click("li.lm-Menu-item:has-text('JupyterLab Dark')")
  # The dark stylesheet is in once the tree's own text colour turns light.
  page.wait_for_function("""() => { const c = getComputedStyle(document.querySelector('.adknb-tree')).color
                                     .match(/[\\d.]+/g).map(Number); return c[0] + c[1] + c[2] > 450; }""",
                         timeout=30_000)
  ratios = tree.evaluate(CONTRAST_JS)
  low = {k: v for k, v in ratios.items() if v < 4.5}
  assert ratios and not low, low
  assert page.evaluate("window.__pwned") is None


RESTART_NOTEBOOK = [
    '''%load_ext adk_nb
from adk_nb import Agent
from adk_nb.models import ScriptedModel, call
from adk_nb.tools import FunctionTool
def refund(order_id: str, amount: float) -> dict:
    """Refunds an order."""
    open("refunds.log", "a").write(f"{order_id} {amount}\\n")
    return {"status": "refunded"}
def reply(request):  # a function of the request: the same after a restart (a list would start over)
    answered = any(p.function_response for c in request.contents for p in c.parts or [])
    return "Refunded A7." if answered else call("refund", order_id="A7", amount=300.0)
support = Agent(name="support", model=ScriptedModel(reply), tools=[FunctionTool(refund, require_confirmation=True)])''',
    '''%%agent support --session after-restart
Refund A7''',
    '%agent resume support',
]


def test_a_pause_reopened_after_a_kernel_restart_is_approved_there(page, lab, write_notebook):
  name = write_notebook("restart.ipynb", RESTART_NOTEBOOK[:2])
  _open_and_run_all(page, lab, name)
  page.wait_for_selector(".adknb-tree[data-status='paused']", timeout=60_000)
  # Restart the kernel: the pause lives on in .adk_nb/sessions.db (SQLite in the working folder).
  page.click("li.lm-MenuBar-item:has-text('Kernel')")
  page.click("li.lm-Menu-item:not(.lm-mod-disabled):has-text('Restart Kernel…')")
  page.click(".jp-Dialog-button.jp-mod-accept")
  page.wait_for_selector(".jp-StatusBar-Widget:has-text('| Idle')", timeout=60_000)
  # A new kernel: define the agent again, then re-open the paused run in a new cell.
  first = page.locator(".jp-Notebook .jp-Cell").first
  first.locator(".jp-InputArea-editor").click()
  page.keyboard.press("Shift+Enter")
  last = page.locator(".jp-Notebook .jp-Cell").nth(1)
  last.locator(".jp-InputArea-editor").click()
  page.keyboard.press("Escape")
  page.keyboard.press("b")  # a new cell below
  page.keyboard.press("Enter")
  page.keyboard.type("%agent resume support")
  page.keyboard.press("Shift+Enter")
  reopened = page.locator(".jp-Notebook .jp-Cell").nth(2).locator(".adknb-tree")
  reopened.wait_for(timeout=60_000)
  page.wait_for_function("el => el.dataset.status === 'paused'", arg=reopened.element_handle(), timeout=60_000)
  assert reopened.locator("details[data-kind='approval'][data-status='pending']").count() == 1
  page.locator(".jp-Notebook .jp-Cell").nth(2).get_by_role("button", name="Approve", exact=True).click()
  page.wait_for_function("el => el.dataset.status === 'done'", arg=reopened.element_handle(), timeout=60_000)
  assert "Refunded A7." in reopened.inner_text()
  assert (lab[2] / "refunds.log").read_text() == "A7 300.0\n"


CONTRAST_JS = """root => {
  const rgb = s => (s.match(/[\\d.]+/g) || []).map(Number);
  const lum = ([r, g, b]) => { const f = c => { c /= 255; return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4; };
                              return 0.2126 * f(r) + 0.7152 * f(g) + 0.0722 * f(b); };
  const background = el => { for (let e = el; e; e = e.parentElement) { const c = rgb(getComputedStyle(e).backgroundColor);
                               if (c.length === 3 || (c.length === 4 && c[3] > 0.5)) return c.slice(0, 3); }
                             return [255, 255, 255]; };
  const out = {};
  for (const sel of [".adknb-status", ".adknb-title", ".adknb-node-status", ".adknb-kind", ".adknb-node-title", ".adknb-ms", "pre"]) {
    for (const el of root.querySelectorAll(sel)) {
      if (!el.textContent.trim()) continue;
      const a = lum(rgb(getComputedStyle(el).color).slice(0, 3)), b = lum(background(el));
      const ratio = (Math.max(a, b) + 0.05) / (Math.min(a, b) + 0.05);
      const key = sel + (el.dataset.status ? `[${el.dataset.status}]` : "");
      out[key] = Math.min(out[key] || 99, Math.round(ratio * 10) / 10);
    }
  }
  return out;
}"""
