"""Fixtures for the notebook layer: a refund agent that pauses, an IPython shell with the extension."""

from __future__ import annotations

import pytest


@pytest.fixture(autouse=True)
def _isolated(tmp_path, monkeypatch):
  """Each test in its own working folder, no approval policy from the environment, a fresh registry."""
  from adk_nb.notebook._sessions import registry

  monkeypatch.chdir(tmp_path)
  monkeypatch.delenv("ADK_NB_APPROVE", raising=False)
  registry.clear()
  yield
  registry.clear()


@pytest.fixture
def make_refund_agent():
  """Builds (agent, refunds): `refund` needs approval above 100; `check_status` is long-running."""
  from adk_nb import Agent
  from adk_nb.models import ScriptedModel
  from adk_nb.tools import FunctionTool, LongRunningFunctionTool

  def make(script, name="support"):
    refunds: list = []

    def refund(order_id: str, amount: float) -> dict:
      """Refunds an order."""
      refunds.append((order_id, amount))
      return {"status": "refunded", "order_id": order_id, "amount": amount}

    def check_status(ticket: str):
      """Asks the warehouse; the answer arrives later."""
      return None

    agent = Agent(name=name, model=ScriptedModel(script), instruction="Help with refunds.",
                  tools=[FunctionTool(refund, require_confirmation=lambda amount: amount > 100),
                         LongRunningFunctionTool(check_status)])
    return agent, refunds

  return make


@pytest.fixture
def shell():
  """An IPython shell with `%load_ext adk_nb` done."""
  from IPython.core.interactiveshell import InteractiveShell

  sh = InteractiveShell.instance()
  sh.run_cell("%load_ext adk_nb", store_history=False)
  yield sh
  sh.run_cell("%unload_ext adk_nb", store_history=False)
  sh.reset()
