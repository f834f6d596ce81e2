"""The sessions view in a real JupyterLab and Chromium: list, rename, delete after asking, export, import, open."""

from __future__ import annotations

import os
import pathlib

from tests.browser.test_runview import _open_and_run_all, _wait_for_cells_to_finish

REPO = pathlib.Path(__file__).resolve().parents[2]

EVIL = '<img src=x onerror="window.__pwned=1">'

SESSIONS_NOTEBOOK = [
    '''%load_ext adk_nb
from adk_nb import Agent
from adk_nb.models import ScriptedModel, call
from adk_nb.tools import FunctionTool
refunds = []
def refund(order_id: str, amount: float) -> dict:
    """Refunds an order."""
    refunds.append(order_id)
    return {"status": "refunded"}
support = Agent(name="support", model=ScriptedModel([call("refund", order_id="A1", amount=250.0), "Hi.", "Refunded."]),
                tools=[FunctionTool(refund, require_confirmation=True)])''',
    '''%%agent support --store memory:// --session p1 --no-wait
Refund A1''',
    '''%%agent support --store memory:// --session d1 --out hello_run
hello''',
    '''what_if = await hello_run.fork(new_session_id="what-if")''',
    '''%agent sessions support''',
]


def test_sessions_view_renames_deletes_after_asking_exports_imports_and_opens(page, lab, write_notebook, tmp_path):
  name = write_notebook("sessions.ipynb", SESSIONS_NOTEBOOK)
  _open_and_run_all(page, lab, name)
  view = page.locator(".adknb-sessions").first
  view.wait_for(timeout=90_000)
  _wait_for_cells_to_finish(page)

  def row(session):
    return view.locator(f"tr.adknb-sess-row[data-session='{session}']")

  assert view.locator("tr.adknb-sess-row").count() == 3
  lineage = row("what-if").locator(".adknb-sess-lineage")
  assert lineage.inner_text().startswith("forked from d1 @ e-") and lineage.inner_text().endswith("…")
  assert lineage.get_attribute("title").startswith("forked from d1 at e-")
  assert row("p1").locator(".adknb-sess-status").inner_text() == "‖ paused"
  assert row("d1").locator(".adknb-sess-status").inner_text() == "✓ done"
  assert row("d1").locator(".adknb-sess-current").count() == 1
  # Short columns are not squeezed: each header and status reads on one line.
  lines = view.evaluate("""(root) => [...root.querySelectorAll('th, .adknb-sess-status, .adknb-sess-user, .adknb-sess-events')]
      .filter(el => el.textContent).map(el => { const range = document.createRange(); range.selectNodeContents(el);
                                                return [el.textContent, range.getClientRects().length]; })""")
  assert lines and [line for line in lines if line[1] != 1] == [], lines
  # Every row's buttons are inside the view (none cut off at its right edge).
  right = view.evaluate("root => root.getBoundingClientRect().right")
  assert all(box["x"] + box["width"] <= right for box in
             (b.bounding_box() for b in view.get_by_role("button", name="Delete…").all())), right
  # Rename: the name is shown as text (never HTML).
  row("d1").get_by_role("button", name="Rename").click()
  box = row("d1").locator("input.adknb-sess-rename")
  box.fill(EVIL)
  box.press("Enter")
  row("d1").locator(".adknb-sess-display", has_text=EVIL).wait_for(timeout=30_000)
  assert row("d1").locator(".adknb-sess-id").inner_text() == "d1"
  # Delete asks first; Cancel keeps the session.
  row("d1").get_by_role("button", name="Delete…").click()
  assert "This cannot be undone." in row("d1").locator(".adknb-sess-ask").inner_text()
  row("d1").get_by_role("button", name="Cancel").click()
  assert row("d1").get_by_role("button", name="Open").count() == 1
  row("d1").get_by_role("button", name="Delete…").click()
  row("d1").get_by_role("button", name="Delete", exact=True).click()
  view.locator(".adknb-sess-notice", has_text="Deleted session d1 of user user.").wait_for(timeout=30_000)
  assert view.locator("tr.adknb-sess-row").count() == 2
  # Export writes google-adk's session JSON in the working folder and offers it as a download.
  row("p1").get_by_role("button", name="Export").click()
  view.locator(".adknb-sess-notice", has_text="Exported session p1 to p1.session.json").wait_for(timeout=30_000)
  assert view.locator("a.adknb-sess-download").get_attribute("download") == "p1.session.json"
  assert (lab[2] / "p1.session.json").is_file()
  # Import by path: p1 exists, so it comes in as p1-copy, still paused.
  view.locator("input.adknb-sess-path").fill("p1.session.json")
  view.get_by_role("button", name="Import", exact=True).click()
  view.locator(".adknb-sess-notice", has_text="Imported session p1-copy of user user").wait_for(timeout=30_000)
  assert row("p1-copy").locator(".adknb-sess-status").inner_text() == "‖ paused"
  # Open shows the session below, with its buttons: approving finishes it, and the list follows.
  row("p1").get_by_role("button", name="Open").click()
  view.locator(".adknb-sess-notice", has_text="Opened session p1").wait_for(timeout=30_000)
  output = page.locator(".jp-OutputArea-output", has=page.locator(".adknb-sessions"))
  opened = output.locator(".adknb-tree")
  opened.wait_for(timeout=30_000)
  assert opened.get_attribute("data-status") == "paused"
  output.get_by_role("button", name="Approve", exact=True).click()
  output.locator(".adknb-tree[data-status='done']").wait_for(timeout=60_000)
  row("p1").locator(".adknb-sess-status", has_text="✓ done").wait_for(timeout=30_000)
  assert row("p1-copy").locator(".adknb-sess-status").inner_text() == "‖ paused"
  assert page.evaluate("() => window.__pwned === undefined")
  # The README's screenshot: refreshed only when asked.
  row("p1").get_by_role("button", name="Rename").click()
  row("p1").locator("input.adknb-sess-rename").fill("Refund for order A1")
  row("p1").locator("input.adknb-sess-rename").press("Enter")
  row("p1").locator(".adknb-sess-display", has_text="Refund for order A1").wait_for(timeout=30_000)
  no_news = page.get_by_role("button", name="No", exact=True)  # JupyterLab's news question, over the output
  if no_news.count():
    no_news.first.click()
  page.set_viewport_size({"width": 1100, "height": 1800})
  output.scroll_into_view_if_needed()
  target = (REPO / "docs" if os.environ.get("ADK_NB_UPDATE_SCREENSHOT") else tmp_path) / "sessions.png"
  output.screenshot(path=str(target))
  assert target.stat().st_size > 10_000
