"""The pure part of answering a paused run (`adk_nb.notebook._answers`): no run, no loop, no store."""

from __future__ import annotations

import pytest

from adk_nb.notebook._answers import Decision, answer, check, select
from adk_nb.pending import PendingItem

REFUND = PendingItem(call_id="c1", kind="confirmation", agent="a", tool="refund", args={"amount": 250.0},
                     invocation_id="i1", original_call_id="t1")
DELETE = PendingItem(call_id="c2", kind="confirmation", agent="a", tool="delete", args={"id": 7}, invocation_id="i1")
STATUS = PendingItem(call_id="l1", kind="long_running", agent="a", tool="check_status", invocation_id="i1")


def test_each_action_gives_the_parts_to_send_and_one_decision_per_call():
  parts, decisions = answer([REFUND, DELETE], "reject", "too large", by="button", when=5.0)
  assert [(p.function_response.id, p.function_response.response) for p in parts] == [
      ("c1", {"confirmed": False, "payload": {"reason": "too large"}}),
      ("c2", {"confirmed": False, "payload": {"reason": "too large"}})]
  assert [(d.call_id, d.decision, d.status, d.by, d.reason, d.timestamp) for d in decisions] == [
      ("c1", "rejected", "rejected", "button", "too large", 5.0), ("c2", "rejected", "rejected", "button", "too large", 5.0)]
  (part,), (edited,) = answer([REFUND], "edit", {"amount": 90}, by="code", when=1.0)
  assert part.function_response.response == {"confirmed": True, "payload": {"arguments": {"amount": 90}}}
  assert (edited.decision, edited.status, edited.reason) == ("approved with edits", "approved", '{"amount": 90}')
  (part,), (responded,) = answer([STATUS], "respond", "shipped", by="code", when=1.0)
  assert part.function_response.response == {"result": "shipped"} and responded.answer == "shipped"
  assert responded.title == "responded by code: check_status()"


def test_answers_that_do_not_fit_are_refused_naming_the_fix():
  pending = [REFUND, DELETE, STATUS]
  with pytest.raises(ValueError, match="use respond"):
    check(pending, [STATUS], "approve")
  with pytest.raises(ValueError, match="Edit one call at a time"):
    check(pending, [REFUND, DELETE], "edit")
  with pytest.raises(ValueError, match="not pending any more"):
    check([DELETE], [REFUND], "approve")
  with pytest.raises(ValueError, match="Unknown action 'maybe'; use one of: approve, reject, edit, respond"):
    check(pending, [REFUND], "maybe")
  assert select(pending, "t1", "confirmation", many=False, status="paused") == [REFUND]  # the tool call's id
  assert select(pending, -1, "confirmation", many=False, status="paused") == [DELETE]
  with pytest.raises(ValueError, match=r"2 confirmations are pending \(refund, delete\); pass which="):
    select(pending, None, "confirmation", many=False, status="paused")


def test_a_decision_saved_as_a_dict_reads_back_with_its_status():
  saved = {"call_id": "c1", "tool": "refund", "decision": "approved with edits", "by": "code", "extra": 1}
  decision = Decision.of(saved)
  assert (decision.status, decision["by"], decision.get("nothing", "-")) == ("approved", "code", "-")
  assert Decision.of(decision) is decision and decision.as_dict()["decision"] == "approved with edits"
