"""The step log's readers: each has its own cursor, so any number of views replay every change."""

from __future__ import annotations

import pytest
from google.genai import types

from adk_nb.events.event import Event
from adk_nb.inspect import StepBuilder


def _answer(builder: StepBuilder, event_id: str, text: str, partial: bool = False) -> None:
  builder.add_event(Event(id=event_id, invocation_id="i", author="a", partial=partial,
                          content=types.Content(role="model", parts=[types.Part(text=text)])))


def _drawn(nodes: list, batches: list) -> dict:
  drawn = {n["id"]: dict(n) for n in nodes}
  for ops in batches:
    for op in ops:
      if op[0] == "add":
        drawn[op[1]["id"]] = dict(op[1])
      elif op[0] == "set":
        drawn[op[1]].update(op[2])
      else:
        drawn[op[1]]["text"] += op[2]
  return {k: {f: v for f, v in n.items() if v not in ("", None)} for k, n in drawn.items()}


def test_readers_opened_at_different_times_each_replay_to_the_same_steps():
  builder = StepBuilder()
  early = builder.follow()
  early_nodes = builder.nodes()
  _answer(builder, "m1", "Hel", partial=True)
  late = builder.follow()  # a second view, opened mid-stream: the steps so far are its snapshot
  late_nodes = builder.nodes()
  _answer(builder, "m1", "lo", partial=True)  # the step grows after the second reader's snapshot
  first_batch, early = builder.take_ops(early)
  _answer(builder, "m1", " there", partial=True)  # ... and after the first reader took the last change
  _answer(builder, "m2", "Bye")
  early_batch, early = builder.take_ops(early)
  late_batch, late = builder.take_ops(late)
  final = _drawn(builder.nodes(), [])
  assert _drawn(early_nodes, [first_batch, early_batch]) == final
  assert _drawn(late_nodes, [late_batch]) == final
  assert {n.get("text") for n in final.values()} >= {"Hello there", "Bye"}
  assert builder.take_ops(early) == ([], early)  # nothing new


def test_ops_every_reader_took_are_dropped_and_none_are_kept_without_readers():
  builder = StepBuilder()
  _answer(builder, "m0", "before anyone reads")
  assert builder.seq == 0  # nothing recorded with no reader
  a, b = builder.follow(), builder.follow()
  for i in range(50):
    _answer(builder, f"m{i + 1}", f"answer {i}")
  _, a = builder.take_ops(a)
  assert len(builder._ops) > 0  # b has not taken them yet
  _, b = builder.take_ops(b)
  assert builder._ops == [] and a == b == builder.seq
  builder.unfollow(a)
  builder.unfollow(b)
  _answer(builder, "m99", "after the last reader left")
  assert builder.readers == 0 and builder._ops == []


def test_a_cursor_that_is_not_a_readers_says_what_to_pass():
  builder = StepBuilder()
  with pytest.raises(ValueError, match=r"pass what follow\(\) or the reader's last take_ops\(\) returned"):
    builder.take_ops(3)


def test_a_change_after_a_reader_took_the_last_one_reaches_that_reader():
  builder = StepBuilder()
  _answer(builder, "m1", "Hi")
  (step,) = [s for s in builder.steps.values() if s.kind == "model_call"]
  early = builder.follow()
  builder._set(step, status="error")
  late = builder.follow()
  builder._set(step, status="ok")  # the step changes again after both readers' starting points
  early_batch, _ = builder.take_ops(early)
  late_batch, _ = builder.take_ops(late)
  assert late_batch == [["set", step.id, {"status": "ok", "meta": step.as_node().get("meta")}]]
  assert early_batch[-1] == late_batch[-1]  # early also had the change to "error" before it
