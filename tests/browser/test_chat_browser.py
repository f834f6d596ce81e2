"""The chat view in a real JupyterLab and Chromium: type, press Send, the reply appears while the kernel is idle."""

from __future__ import annotations

CHAT_NOTEBOOK = [
    '''import asyncio
from adk_nb import Agent
from adk_nb.models import BaseLlm
from adk_nb.models.scripted import to_llm_response
from adk_nb.notebook.chat import chat

gate = asyncio.Event()   # the model answers only once the second cell has run

class GatedModel(BaseLlm):
    model: str = "gated"
    async def generate_content_async(self, llm_request, stream=False):
        await gate.wait()
        asked = llm_request.contents[-1].parts[0].text
        yield to_llm_response(f"Reply to {asked!r} <img src=x onerror=\\"window.__pwned=1\\">")

helper = Agent(name="helper", model=GatedModel())
view = chat(helper, store="memory://", session="browser")
view''',
    '''print("kernel ran this cell while the turn was", view.turn.status)
gate.set()''',
]


def _run_cell(page, index: int) -> None:
  cell = page.locator(".jp-Notebook .jp-Cell").nth(index)
  cell.locator(".jp-InputArea-editor").click()
  page.keyboard.press("Shift+Enter")


def test_send_shows_the_reply_while_the_kernel_stays_idle(page, lab, write_notebook):
  base, token, root = lab
  name = write_notebook("chat.ipynb", CHAT_NOTEBOOK)
  page.goto(f"{base}/lab/tree/{name}?token={token}")
  page.wait_for_selector(".jp-Notebook .jp-Cell", timeout=60_000)
  page.wait_for_selector(".jp-StatusBar-Widget:has-text('| Idle')", timeout=60_000)
  _run_cell(page, 0)
  chat_view = page.locator(".adknb-chat").first
  chat_view.wait_for(timeout=60_000)
  page.wait_for_selector(".adknb-chat-log:has-text('No messages yet')", timeout=30_000)

  chat_view.locator("textarea").fill("Where is my parcel?")
  chat_view.get_by_role("button", name="Send").click()
  # The turn is running (its tree says so) and the kernel is idle at the same moment: Send did not block it.
  page.wait_for_selector(".adknb-chat .adknb-tree[data-status='running']", timeout=30_000)
  page.wait_for_function(
      """() => document.querySelector(".adknb-chat .adknb-tree")?.dataset.status === "running"
              && [...document.querySelectorAll(".jp-StatusBar-Widget")].some(w => w.textContent.includes("| Idle"))""",
      timeout=30_000)
  assert chat_view.get_by_role("button", name="Send").is_disabled()
  assert "Where is my parcel?" in page.locator(".adknb-chat-log").inner_text()

  # Another cell runs while the turn waits; it opens the model's gate.
  _run_cell(page, 1)
  page.wait_for_selector(".jp-OutputArea-output:has-text('kernel ran this cell while the turn was running')",
                         timeout=30_000)
  reply = "Reply to 'Where is my parcel?' <img src=x onerror=\"window.__pwned=1\">"
  page.wait_for_selector(".adknb-chat-log:has-text('Reply to')", timeout=30_000)
  page.wait_for_selector(".adknb-chat .adknb-tree[data-status='done']", timeout=30_000)
  assert reply in page.locator(".adknb-chat-log").inner_text()
  assert page.locator(".adknb-chat-log img, .adknb-chat img").count() == 0
  assert page.evaluate("window.__pwned") is None
  assert not chat_view.get_by_role("button", name="Send").is_disabled()
  assert chat_view.locator("textarea").input_value() == ""
  page.wait_for_selector(".jp-StatusBar-Widget:has-text('| Idle')", timeout=30_000)
