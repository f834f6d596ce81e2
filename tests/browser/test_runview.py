"""The RunView in a real JupyterLab and Chromium: live tree, Approve click, and escaping."""

from __future__ import annotations

import os
import pathlib

REPO = pathlib.Path(__file__).resolve().parents[2]

APPROVE_NOTEBOOK = [
    '''%load_ext adk_nb
import asyncio, pathlib, time
from adk_nb import Agent
from adk_nb.models import ScriptedModel, call
from adk_nb.tools import FunctionTool
refunds = []
def refund(order_id: str, amount: float) -> dict:
    """Refunds an order."""
    refunds.append((order_id, amount))
    return {"status": "refunded", "order_id": order_id, "amount": amount}
lookups = []
async def lookup_order(order_id: str) -> dict:
    """Finds an order."""
    lookups.append(order_id)
    if len(lookups) == 2:  # the run goes on once the test has seen it going (a file it writes, not a timer)
        deadline = time.monotonic() + 300
        while not pathlib.Path(GO_FILE).exists() and time.monotonic() < deadline:
            await asyncio.sleep(0.05)
    return {"order_id": order_id, "total": 250.0, "state": "delivered, damaged"}
script = [call("lookup_order", order_id="A1"), call("lookup_order", order_id="A1"),
          call("refund", order_id="A1", amount=250.0), "Order A1 is refunded: $250."]
support = Agent(name="support", model=ScriptedModel(script, latency=0.4), instruction="You handle refunds.",
                tools=[lookup_order, FunctionTool(refund, require_confirmation=lambda amount: amount > 100)])''',
    '''%%agent support --store memory:// --out run --state user:tier=gold
Please refund order A1, it arrived broken.''',
    'print("refund calls:", len(refunds))',
]

XSS_NOTEBOOK = [
    '''%load_ext adk_nb
from adk_nb import Agent
from adk_nb.models import ScriptedModel, call
def fetch_page(url: str) -> dict:
    """Fetches a page."""
    return {"body": "<script>window.__pwned=1</script>"}
evil = Agent(name="evil", model=ScriptedModel([call("fetch_page", url="x"), '<img src=x onerror="window.__pwned=1">']),
             tools=[fetch_page])''',
    '''%%agent evil --store memory:// --state note=<b>bold</b>
Show me <img src=y onerror="window.__pwned=2">''',
]


def _open_and_run_all(page, lab, name):
  base, token, _ = lab
  # A workspace of its own, reset: only this notebook is open.
  page.goto(f"{base}/lab/workspaces/{name.split('.')[0]}/tree/{name}?token={token}&reset")
  page.wait_for_selector(".jp-Notebook .jp-Cell", timeout=60_000)
  # The kernel is connected and idle (status bar), and the notebook has focus.
  page.wait_for_selector(".jp-StatusBar-Widget:has-text('| Idle')", timeout=60_000)
  page.locator(".jp-Notebook .jp-Cell").first.locator(".jp-InputPrompt").click()
  page.click("li.lm-MenuBar-item:has-text('Run')")
  page.click("li.lm-Menu-item:not(.lm-mod-disabled):has-text('Run All Cells')")


def _wait_for_cells_to_finish(page):
  """Every code cell has a number in its prompt. A run's display is refreshed when the run ends, before its
  cell finishes: JupyterLab draws the view anew (what a person opened stays open), and for that moment the
  tree is not in the page. A test that reads the view with checks that do not wait (count, evaluate) waits
  for this first."""
  page.wait_for_function(
      """() => { const prompts = [...document.querySelectorAll('.jp-Notebook .jp-CodeCell .jp-InputPrompt')];
                 return prompts.length > 0 && prompts.every(p => /[0-9]/.test(p.textContent)); }""",
      timeout=60_000)


def test_tree_grows_approve_click_finishes_the_run_once(page, lab, tmp_path, write_notebook):
  go = lab[2] / "approve.go"
  go.unlink(missing_ok=True)
  name = write_notebook("approve.ipynb", [f"GO_FILE = {str(go)!r}\n" + APPROVE_NOTEBOOK[0], *APPROVE_NOTEBOOK[1:]])
  _open_and_run_all(page, lab, name)
  tree = page.locator(".adknb-tree").first
  tree.wait_for(timeout=60_000)
  page.wait_for_selector(".adknb-tree[data-status='running'] .adknb-node", timeout=60_000)
  first = page.locator(".adknb-tree .adknb-node").count()
  go.write_text("")  # the second lookup waited for this: the run goes on
  # The tree grows while the run is still going (the model answers every 0.4 s).
  page.wait_for_function(
      "n => document.querySelectorAll('.adknb-tree .adknb-node').length > n", arg=first, timeout=30_000)
  page.wait_for_selector(".adknb-tree[data-status='paused']", timeout=60_000)
  assert page.locator(".adknb-tree details[data-kind='approval'][data-status='pending']").count() == 1
  page.get_by_role("button", name="Approve", exact=True).click()
  page.wait_for_selector(".adknb-tree[data-status='done']", timeout=60_000)
  _wait_for_cells_to_finish(page)  # the display is refreshed as the cell ends; count() does not wait for it
  tree_text = tree.inner_text()
  assert "Order A1 is refunded: $250." in tree_text
  assert page.locator(".adknb-tree details[data-kind='tool_call'][data-status='ok']:has-text('refund(')").count() == 1
  assert page.get_by_role("button", name="Approve", exact=True).count() == 0  # the answered row is gone
  # Re-run the last cell: the tool ran exactly once.
  last = page.locator(".jp-Notebook .jp-Cell").nth(2)
  last.locator(".jp-InputArea-editor").click()
  page.keyboard.press("Shift+Enter")
  page.wait_for_selector(".jp-Cell:nth-child(3) .jp-OutputArea-output:has-text('refund calls: 1')", timeout=30_000)
  # The README's screenshot: refreshed only when asked, so a test run leaves the tree clean.
  target = (REPO / "docs" if os.environ.get("ADK_NB_UPDATE_SCREENSHOT") else tmp_path) / "runview.png"
  target.parent.mkdir(exist_ok=True)
  page.locator(".adknb-runview").first.screenshot(path=str(target))
  assert target.stat().st_size > 10_000


def test_model_and_tool_text_is_shown_as_text_never_run(page, lab, write_notebook):
  name = write_notebook("xss.ipynb", XSS_NOTEBOOK)
  _open_and_run_all(page, lab, name)
  page.wait_for_selector(".adknb-tree[data-status='done']", timeout=60_000)
  text = page.locator(".adknb-tree").first.text_content()
  assert '<img src=x onerror="window.__pwned=1">' in text
  assert "<script>window.__pwned=1</script>" in text
  assert 'Show me <img src=y onerror="window.__pwned=2">' in text
  assert "<b>bold</b>" in page.locator(".adknb-state").first.inner_text()
  assert page.locator(".adknb-tree img, .adknb-state img, .adknb-tree script, .adknb-state b").count() == 0
  assert page.evaluate("window.__pwned") is None


FAILING_TOOL_NOTEBOOK = [
    '''%load_ext adk_nb
from adk_nb import Agent
from adk_nb.models import ScriptedModel, call
def charge(card: str) -> dict:
    """Charges a card."""
    raise RuntimeError('gateway refused <img src=x onerror="window.__pwned=3">')
till = Agent(name="till", model=ScriptedModel([call("charge", card="4242")]), tools=[charge])''',
    '''%%agent till --store memory://
Charge it''',
]


def test_a_tool_exception_shows_its_traceback_folded_under_the_error(page, lab, write_notebook):
  name = write_notebook("failing_tool.ipynb", FAILING_TOOL_NOTEBOOK)
  _open_and_run_all(page, lab, name)
  page.wait_for_selector(".adknb-tree[data-status='error']", timeout=60_000)
  # No wait for the cell to finish: a traceback opened just before the display is refreshed stays open.
  # The error node that carries the traceback (a run's error may also appear on a node without one).
  folded = page.locator(".adknb-node[data-kind='error'] > .adknb-traceback:not([hidden])").first
  folded.wait_for(state="visible", timeout=30_000)
  assert folded.get_attribute("open") is None  # folded until clicked
  folded.locator("summary").click()
  page.wait_for_function(
      """() => [...document.querySelectorAll(".adknb-node[data-kind='error'] > .adknb-traceback[open] pre")]
               .some(pre => pre.innerText.startsWith("Traceback (most recent call last):"))""", timeout=30_000)
  text = page.locator(".adknb-node[data-kind='error'] > .adknb-traceback[open] pre").first.inner_text()
  assert text.startswith("Traceback (most recent call last):") and "in charge" in text
  assert 'RuntimeError: gateway refused <img src=x onerror="window.__pwned=3">' in text
  assert page.locator(".adknb-tree img").count() == 0 and page.evaluate("window.__pwned") is None


SLOW_TOOLS_NOTEBOOK = [
    '''%load_ext adk_nb
import asyncio, pathlib, time
from adk_nb import Agent
from adk_nb.models import ScriptedModel, call
async def lookup(item: int) -> dict:
    """Looks an item up."""
    if item == 3:  # the run goes on once the test has opened what it opens (a file it writes, not a timer)
        deadline = time.monotonic() + 300
        while not pathlib.Path(GO_FILE).exists() and time.monotonic() < deadline:
            await asyncio.sleep(0.05)
    return {"item": item, "note": "<b>in stock</b>"}
slow = Agent(name="slow", model=ScriptedModel([call("lookup", item=1), call("lookup", item=2), call("lookup", item=3),
                                               "done"], latency=0.2), tools=[lookup])''',
    '''%%agent slow --store memory:// --out run
Look them up''',
    'run.view  # the same view shown again',
]


def test_steps_and_details_opened_during_a_run_stay_open_when_it_ends(page, lab, write_notebook):
  go = lab[2] / "slow_tools.go"
  go.unlink(missing_ok=True)
  name = write_notebook("slow_tools.ipynb", [f"GO_FILE = {str(go)!r}\n" + SLOW_TOOLS_NOTEBOOK[0],
                                             *SLOW_TOOLS_NOTEBOOK[1:]])
  _open_and_run_all(page, lab, name)
  tree = page.locator(".adknb-tree").first
  first_call = tree.locator("details[data-kind='tool_call'][data-status='ok']").first
  first_call.wait_for(timeout=60_000)
  # The tool call starts folded; open it, and the first model call's details, while the run still goes.
  assert first_call.evaluate("d => d.open") is False
  first_call.locator(":scope > summary").click()
  first_model = tree.locator("details[data-kind='model_call']").first
  first_model.locator(":scope > summary .adknb-info").click()
  tree.locator(".adknb-side .adknb-section-title").first.wait_for(timeout=30_000)
  assert page.locator(".adknb-tree[data-status='running']").count() == 1  # the third lookup waits for `go`
  page.evaluate("() => { document.querySelector('.adknb-tree').dataset.drawnBefore = 'yes'; }")
  go.write_text("")  # the run may end now
  page.wait_for_selector(".adknb-tree[data-status='done']", timeout=60_000)
  _wait_for_cells_to_finish(page)
  # The run's display was refreshed when it ended: the tree is a new drawing of the same widget ...
  assert page.locator(".adknb-tree[data-drawn-before]").count() == 0
  # ... and what was opened is still open, with its content.
  assert first_call.evaluate("d => d.open") is True
  assert first_call.locator(":scope > .adknb-result").is_visible()
  assert '"note": "<b>in stock</b>"' in first_call.locator(":scope > .adknb-result").inner_text()
  detail = tree.locator(".adknb-side")
  detail.locator(".adknb-section-title:has-text('request')").first.wait_for(timeout=30_000)
  assert detail.is_visible()
  # The others keep their defaults: the later tool calls are still folded.
  assert tree.locator("details[data-kind='tool_call']").nth(1).evaluate("d => d.open") is False
  # The same view shown again in the next cell opens the same steps.
  again = page.locator(".adknb-tree").nth(1).locator("details[data-kind='tool_call']")
  again.nth(2).wait_for(timeout=30_000)
  assert [again.nth(i).evaluate("d => d.open") for i in range(3)] == [True, False, False]
  assert tree.locator("b").count() == 0
