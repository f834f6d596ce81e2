"""What a person meets in a real JupyterLab and Chromium (issue 30): Run All waits at an approval, Enter sends in
the chat, long state keys leave room for their values."""

from __future__ import annotations

import os
import pathlib

from tests.browser.test_runview import _open_and_run_all, _wait_for_cells_to_finish

REPO = pathlib.Path(__file__).resolve().parents[2]

WAITING_NOTEBOOK = [
    '''%load_ext adk_nb
from adk_nb import Agent
from adk_nb.models import ScriptedModel, call
from adk_nb.tools import FunctionTool
refunds = []
def refund(order_id: str, amount: float) -> dict:
    """Refunds an order."""
    refunds.append((order_id, amount))
    return {"status": "refunded"}
support = Agent(name="support", model=ScriptedModel([call("refund", order_id="A1", amount=250.0), "Refunded A1."]),
                tools=[FunctionTool(refund, require_confirmation=True)])''',
    '''%%agent support --store memory:// --out run
Please refund order A1''',
    'print("next cell saw:", run.status, len(refunds))',
]


def test_run_all_stops_at_the_approval_and_goes_on_after_the_click(page, lab, write_notebook):
  name = write_notebook("waits.ipynb", WAITING_NOTEBOOK)
  _open_and_run_all(page, lab, name)
  page.wait_for_selector(".adknb-tree[data-status='paused']", timeout=60_000)
  approve = page.get_by_role("button", name="Approve", exact=True)
  approve.wait_for(timeout=30_000)
  # The paused cell is still running (it awaits the person), so the next cell has not run.
  cells = page.locator(".jp-Notebook .jp-CodeCell")
  assert cells.nth(1).locator(".jp-InputPrompt").inner_text().strip() == "[*]:"
  assert cells.nth(2).locator(".jp-OutputArea-output").count() == 0
  approve.click()  # reaches the kernel while the cell awaits
  output = cells.nth(2).locator(".jp-OutputArea-output")
  output.wait_for(timeout=60_000)
  assert output.inner_text().strip() == "next cell saw: done 1"
  _wait_for_cells_to_finish(page)
  assert page.locator(".jp-Notebook .jp-OutputArea-output[data-mime-type*='error']").count() == 0


CHAT_NOTEBOOK = [
    '''from adk_nb import Agent
from adk_nb.models import ScriptedModel
from adk_nb.notebook.chat import chat
helper = Agent(name="helper", model=ScriptedModel(["First reply.", "Second reply."]))
view = chat(helper, store="memory://", session="enter")
view''',
    'print(repr([text for who, text in view.messages if who == "user"]))',
]


def test_enter_sends_the_chat_message_and_shift_enter_is_a_newline(page, lab, write_notebook):
  base, token, _ = lab
  name = write_notebook("chat_enter.ipynb", CHAT_NOTEBOOK)
  _open_and_run_all(page, lab, name)
  chat_view = page.locator(".adknb-chat").first
  chat_view.wait_for(timeout=60_000)
  page.wait_for_selector(".adknb-chat-log:has-text('No messages yet')", timeout=30_000)
  box = chat_view.locator("textarea").first
  box.click()
  page.keyboard.type("Hello")
  page.keyboard.press("Enter")
  page.wait_for_selector(".adknb-chat-log:has-text('First reply.')", timeout=30_000)
  page.wait_for_function("() => document.querySelector('.adknb-chat textarea').value === ''", timeout=30_000)
  box.click()
  page.keyboard.type("line one")
  page.keyboard.press("Shift+Enter")  # a newline in the box: neither sent nor a notebook "run cell"
  page.keyboard.type("line two")
  assert box.input_value() == "line one\nline two"
  assert "line one" not in page.locator(".adknb-chat-log").inner_text()
  page.keyboard.press("Enter")
  page.wait_for_selector(".adknb-chat-log:has-text('Second reply.')", timeout=30_000)
  # The words sent are the words typed: no newline from the Enter that sent them.
  last = page.locator(".jp-Notebook .jp-CodeCell").nth(1)
  last.locator(".jp-InputArea-editor").click()
  page.keyboard.press("Shift+Enter")
  page.wait_for_selector(".jp-OutputArea-output:has-text('line two')", timeout=30_000)
  assert "['Hello', 'line one\\nline two']" in last.locator(".jp-OutputArea-output").inner_text()
  # Shift+Enter in the box did not run the chat's cell again.
  assert page.locator(".jp-Notebook .jp-CodeCell").nth(0).locator(".jp-InputPrompt").inner_text().strip() == "[1]:"
  assert page.locator(".adknb-chat").count() == 1


STATE_NOTEBOOK = [
    '''from adk_nb.notebook.views import StateView
StateView(scopes={"app": {}, "user": {"user:last_booking": {"hotel": "Ritz", "nights": 3}},
                  "session": {"booking_confirmation_code": "RZ-2026-12-01-0042"}, "temp": {}}, editable=True)''',
]


def test_a_long_state_key_leaves_its_value_room_and_edit_on_one_line(page, lab, write_notebook):
  name = write_notebook("state_keys.ipynb", STATE_NOTEBOOK)
  page.set_viewport_size({"width": 900, "height": 900})  # a laptop's half screen
  _open_and_run_all(page, lab, name)
  page.wait_for_selector(".adknb-state .adknb-row", timeout=60_000)
  _wait_for_cells_to_finish(page)
  rows = page.evaluate("""() => [...document.querySelectorAll('.adknb-state .adknb-row')].map(row => {
      const value = row.querySelector('.adknb-value code, .adknb-value summary');
      const edit = row.querySelector('.adknb-edit');
      const lines = node => { const r = document.createRange(); r.selectNodeContents(node);
                              return new Set([...r.getClientRects()].map(c => Math.round(c.top))).size; };
      return {key: row.querySelector('.adknb-key').textContent, valueLines: lines(value), editLines: lines(edit)};
  })""")
  assert [r["key"] for r in rows] == ["user:last_booking", "booking_confirmation_code"]
  for row in rows:
    assert row["editLines"] == 1, row  # "edit", not "edi / t"
    assert row["valueLines"] <= 2, row  # the value reads as text, not a column of one or two characters a line


DETAILS_NOTEBOOK = [
    '''%load_ext adk_nb
from adk_nb import Agent
from adk_nb.models import ScriptedModel
rules = "\\n".join(f"Rule {i}: answer politely and cite the order number." for i in range(80))
clerk = Agent(name="clerk", model=ScriptedModel(["Hello."]), instruction=rules)''',
    '''%%agent clerk --store memory://
Hi''',
]


def test_details_show_beside_the_tree_with_previous_and_next_step_and_read_in_the_page(page, lab, write_notebook):
  name = write_notebook("details.ipynb", DETAILS_NOTEBOOK)
  page.set_viewport_size({"width": 1500, "height": 900})
  _open_and_run_all(page, lab, name)
  page.wait_for_selector(".adknb-tree[data-status='done']", timeout=60_000)
  _wait_for_cells_to_finish(page)
  tree = page.locator(".adknb-tree").first
  model_call = tree.locator("details[data-kind='model_call']").first
  model_call.locator(":scope > summary .adknb-info").click()
  side = tree.locator(".adknb-side")
  side.locator(".adknb-section-title:has-text('request')").first.wait_for(timeout=30_000)
  side.locator("pre:has-text('Rule 79')").first.wait_for(timeout=30_000)
  # Beside the tree, not inside it: the panel starts right of the steps, and the step is marked in the tree.
  body_box, side_box = tree.locator(".adknb-body").bounding_box(), side.bounding_box()
  assert side_box["x"] >= body_box["x"] + body_box["width"] and abs(side_box["y"] - body_box["y"]) < 5
  assert model_call.get_attribute("data-selected") == "yes" and model_call.locator(".adknb-section").count() == 0
  assert side.locator(".adknb-side-kind").inner_text().lower() == "model"
  # Neither the tree's frame nor the request's text is a scroll box: the whole request is in the page.
  scrolls = page.evaluate("""() => [document.querySelector('.adknb-tree'), document.querySelector('.adknb-side'),
                                    ...document.querySelectorAll('.adknb-tree .adknb-side pre')]
      .filter(e => e.scrollHeight > e.clientHeight + 1).map(e => e.className)""")
  assert scrolls == []
  # Previous and next step, as adk web's event panel: before the model call comes its agent.
  side.locator(".adknb-prev").click()
  page.wait_for_function("() => document.querySelector('.adknb-side-kind').textContent.toLowerCase() === 'agent'")
  before = tree.locator("details.adknb-node[data-selected='yes']")
  assert before.count() == 1 and before.get_attribute("data-kind") == "agent"
  side.locator(".adknb-section").first.wait_for(timeout=30_000)
  side.locator(".adknb-next").click()
  page.wait_for_function("() => document.querySelector('.adknb-side-kind').textContent.toLowerCase() === 'model'")
  assert model_call.get_attribute("data-selected") == "yes"
  side.locator(".adknb-close").click()
  side.wait_for(state="hidden")


TRACE_NOTEBOOK = [
    '''%load_ext adk_nb
from adk_nb import Agent
from adk_nb.models import ScriptedModel, call
from adk_nb.tools import FunctionTool
def set_unit(unit: str) -> dict:
    """Sets the temperature unit."""
    return {"unit": unit}
def book(hotel: str) -> dict:
    """Books a hotel."""
    return {"booked": hotel}
planner = Agent(name="planner", model=ScriptedModel([call("set_unit", unit="Fahrenheit"), call("book", hotel="Ritz"),
                                                     "Booked."]),
                tools=[set_unit, FunctionTool(book, require_confirmation=True)])''',
    '''%%agent planner --store memory://
Book the Ritz, in Fahrenheit''',
]


def test_the_timeline_is_a_trace_one_row_per_span_with_durations_and_a_broken_wait(page, lab, write_notebook):
  name = write_notebook("trace.ipynb", TRACE_NOTEBOOK)
  _open_and_run_all(page, lab, name)
  approve = page.get_by_role("button", name="Approve", exact=True)
  approve.wait_for(timeout=60_000)
  approve.click()
  page.wait_for_selector(".adknb-tree[data-status='done']", timeout=60_000)
  _wait_for_cells_to_finish(page)
  tree = page.locator(".adknb-tree").first
  tree.locator(".adknb-timeline-toggle").click()
  tree.locator(".adknb-timeline .adknb-span").first.wait_for(timeout=30_000)
  # The trace arrives from the kernel and is laid out by the browser: wait until both tool calls are drawn
  # with a laid-out track (the assertions below then read one settled drawing).
  page.wait_for_function("""el => {
      const rows = [...el.querySelectorAll('.adknb-timeline .adknb-span')];
      return rows.filter(r => r.dataset.kind === 'tool_call').length === 2
        && rows.every(r => r.querySelector('.adknb-track').clientWidth > 0);
  }""", arg=tree.element_handle(), timeout=30_000)
  rows = tree.locator(".adknb-timeline .adknb-span").evaluate_all("""rows => rows.map(r => {
      const bar = r.querySelector('.adknb-bar'), track = r.querySelector('.adknb-track');
      return {kind: r.dataset.kind, name: r.querySelector('.adknb-span-name').textContent,
              dur: r.querySelector('.adknb-dur').textContent, broken: bar.dataset.broken === 'yes',
              width: bar.getBoundingClientRect().width, share: bar.getBoundingClientRect().width / track.clientWidth,
              indent: parseFloat(getComputedStyle(r.querySelector('.adknb-span-name')).paddingLeft)};
  })""")
  kinds = [r["kind"] for r in rows]
  assert kinds[:3] == ["invocation", "agent", "model_call"] and kinds.count("tool_call") == 2
  names = [r["name"] for r in rows]
  assert 'tool set_unit(unit="Fahrenheit")' in names  # the whole label, never cut
  assert all(r["width"] >= 3 for r in rows)  # a 0 ms tool call still shows
  assert all(r["dur"].removesuffix(" so far").endswith((" ms", " s")) for r in rows)  # its duration written beside it
  (wait,) = [r for r in rows if r["kind"] == "approval"]
  assert wait["name"].startswith("human wait: approval book(") and wait["broken"] and wait["dur"].startswith("≈ ")
  assert wait["share"] < 0.2  # the person's wait does not squash the rest
  (invocation, agent) = rows[:2]
  assert invocation["indent"] < agent["indent"] < rows[2]["indent"]  # invocation > agent > model call


EDIT_NOTEBOOK = [
    '''%load_ext adk_nb
from adk_nb import Agent
from adk_nb.models import ScriptedModel, call
looked_up = []
def lookup(city: str) -> dict:
    """Weather for a city."""
    looked_up.append(city)
    return {"city": city, "temp": 21, "note": "<img src=x onerror=window.__pwned=1>"}
def script(request):
    last = request.contents[-1].parts[-1]
    if last.function_response:
        r = last.function_response.response
        return f"{r['city']}: {r['temp']} degrees {r['note']}"
    return call("lookup", city="Paris")
forecaster = Agent(name="forecaster", model=ScriptedModel(script), tools=[lookup])''',
    '''%%agent forecaster --store memory://
weather?''',
]


def test_edit_and_continue_from_a_tool_result_opens_the_continued_run_below(page, lab, write_notebook, tmp_path):
  name = write_notebook("edit.ipynb", EDIT_NOTEBOOK)
  page.set_viewport_size({"width": 1500, "height": 900})
  _open_and_run_all(page, lab, name)
  page.wait_for_selector(".adknb-tree[data-status='done']", timeout=60_000)
  _wait_for_cells_to_finish(page)
  tree = page.locator(".adknb-tree").first
  tree.locator("details[data-kind='tool_call'] > summary .adknb-info").first.click()
  side = tree.locator(".adknb-side")
  side.locator(".adknb-edit").click()
  box = side.locator(".adknb-edit-box")
  box.wait_for(timeout=30_000)
  assert '"temp": 21' in box.input_value() and "<img src=x onerror=window.__pwned=1>" in box.input_value()
  # Not JSON: said at once, and nothing is sent (no second view appears).
  box.fill('{"city": "Paris", temp: 35}')
  side.locator(".adknb-edit-send").click()
  assert "not valid JSON" in side.locator(".adknb-edit-note").inner_text()
  assert page.locator(".adknb-runview .adknb-tree").count() == 1
  box.fill('{"city": "Paris", "temp": 35, "note": "<img src=x onerror=window.__pwned=1>"}')
  side.locator(".adknb-edit-send").click()
  # The continued run opens in a new view below the first, and its answer reflects the edit.
  edited = page.locator(".adknb-runview .adknb-tree").nth(1)
  edited.wait_for(timeout=60_000)
  edited.locator("xpath=self::*[@data-status='done']").wait_for(timeout=60_000)
  assert "Paris: 35 degrees <img src=x onerror=window.__pwned=1>" in edited.inner_text()  # shown as text
  assert "continued below, in session" in side.locator(".adknb-edit-note").inner_text()
  assert page.evaluate("() => window.__pwned") is None
  assert page.locator(".adknb-tree img").count() == 0
  # The README's screenshot (the panel beside the tree, the editor, the continued run below): only when asked.
  no_news = page.get_by_role("button", name="No", exact=True)  # JupyterLab's news question, over the output
  if no_news.count():
    no_news.first.click()
  page.evaluate("() => document.querySelectorAll('.adknb-side .adknb-section').forEach(d => { d.open = false; })")
  page.set_viewport_size({"width": 1300, "height": 1800})  # the whole view, the continued run included
  page.locator(".adknb-runview").first.scroll_into_view_if_needed()
  target = (REPO / "docs" if os.environ.get("ADK_NB_UPDATE_SCREENSHOT") else tmp_path) / "edit_continue.png"
  page.locator(".adknb-runview").first.screenshot(path=str(target))
  page.set_viewport_size({"width": 1500, "height": 900})
  assert target.stat().st_size > 10_000
  # "fork here" on the first model call: everything before it from the recording, the rest live, below.
  tree.locator("details[data-kind='model_call'] > summary .adknb-info").first.click()
  side.locator(".adknb-fork").click()
  forked = page.locator(".adknb-runview .adknb-tree").nth(2)
  forked.locator("xpath=self::*[@data-status='done']").wait_for(timeout=60_000)
  assert "Paris: 21 degrees" in forked.inner_text()


HANDOFF_NOTEBOOK = [
    '''%load_ext adk_nb
from adk_nb import Agent
from adk_nb.models import ScriptedModel, call
from adk_nb.tools import FunctionTool
booked = []
def book(room: str) -> dict:
    """Books a room."""
    booked.append(room)
    return {"booked": room}
booker = Agent(name="booker", model=ScriptedModel([call("book", room="R1"), "Booked R1."]),
               tools=[FunctionTool(book, require_confirmation=True)])
desk = Agent(name="desk", model=ScriptedModel([call("transfer_to_agent", agent_name="booker")]), sub_agents=[booker])''',
    '''%%agent desk --store memory:// --out run
Book room R1''',
]


def test_after_an_approval_nothing_stays_paused_and_the_call_says_who_approved_it(page, lab, write_notebook):
  """Issue 30 items 1 and 5: a coordinator hands over to a booker whose tool needs approval; after the click the
  tree and the graph show what is true now (no step 'paused', one run per agent) and the call says 'approved by'."""
  name = write_notebook("handoff.ipynb", HANDOFF_NOTEBOOK)
  _open_and_run_all(page, lab, name)
  page.wait_for_selector(".adknb-tree[data-status='paused']", timeout=60_000)
  page.get_by_role("button", name="Approve", exact=True).click()
  page.wait_for_selector(".adknb-tree[data-status='done']", timeout=60_000)
  _wait_for_cells_to_finish(page)
  tree = page.locator(".adknb-tree").first
  assert "Booked R1." in tree.inner_text()
  assert tree.locator("details[data-status='paused'], details[data-status='pending']").count() == 0
  call_line = tree.locator("details[data-kind='tool_call']:has-text('book(')")
  assert call_line.count() == 1 and "approved by button" in call_line.inner_text()
  graph = page.locator(".adknb-graph")
  if graph.count():  # drawn for agent trees with sub-agents
    assert graph.first.locator("[data-status='paused']").count() == 0
    assert "2 runs" not in graph.first.inner_text()
