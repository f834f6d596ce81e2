"""Turns a conversation (a Session, or its events) into an eval case, optionally appended to an eval set file."""

from __future__ import annotations

import re
import time
from pathlib import Path
from typing import Any, Iterable, Optional, Union

from .eval_case import EvalCase, Invocation, SessionInput
from .eval_set import EvalSet
from .formats import load_eval_set, save_eval_set


def invocations_from_events(events: Iterable[Any]) -> list[Invocation]:
  """One Invocation per user turn in `events`: the user's message, final answer and tool trajectory."""
  from ._run import _to_invocation

  turns: list[tuple[Any, list]] = []
  for event in events:
    if getattr(event, "partial", False):
      continue
    if event.author == "user":
      if event.content is not None and not event.get_function_responses():
        turns.append((event, []))
      continue
    if turns:
      turns[-1][1].append(event)
  return [_to_invocation(user.invocation_id, user.content, agent_events, user.timestamp, 0.0).model_copy(
      update={"duration": None}) for user, agent_events in turns]


def _initial_state(session: Any) -> dict[str, Any]:
  touched = set()
  for event in getattr(session, "events", []):
    touched.update((event.actions.state_delta or {}).keys())
  return {k: v for k, v in dict(getattr(session, "state", {}) or {}).items()
          if k not in touched and not k.startswith("temp:")}


def eval_case_from_session(
    session: Any,
    *,
    eval_id: Optional[str] = None,
    eval_set: Union[str, Path, EvalSet, None] = None,
    state: Optional[dict[str, Any]] = None,
    overwrite: bool = False,
) -> EvalCase:
  """Makes an eval case from a conversation: its answers and tool calls become the expected ones.

  Args:
    session: a Session (or a list of its events) from a conversation you are happy with.
    eval_id: the case id (default: 'case_' plus the session id).
    eval_set: an `*.evalset.json` path (created if missing) or an EvalSet to append the case to.
    state: the state the case starts with; by default the session's state without the keys
      the conversation itself wrote (and without `temp:` keys).
    overwrite: replace a case with the same id instead of raising.
  """
  events = list(getattr(session, "events", session))
  conversation = invocations_from_events(events)
  if not conversation:
    raise ValueError("The conversation has no user turns to turn into an eval case; run the agent first.")
  session_id = getattr(session, "id", None) or "conversation"
  eval_id = eval_id or "case_" + re.sub(r"[^A-Za-z0-9_-]", "_", session_id)
  case = EvalCase(
      eval_id=eval_id,
      conversation=conversation,
      session_input=SessionInput(app_name=getattr(session, "app_name", "") or "",
                                 user_id=getattr(session, "user_id", "") or "",
                                 state=state if state is not None else _initial_state(session)),
      creation_timestamp=time.time(),
  )
  if eval_set is None:
    return case
  target = eval_set
  if not isinstance(eval_set, EvalSet):
    path = Path(eval_set)
    target = load_eval_set(path) if path.exists() else EvalSet(eval_set_id=path.name.split(".")[0], eval_cases=[],
                                                               creation_timestamp=time.time())
  existing = [i for i, c in enumerate(target.eval_cases) if c.eval_id == eval_id]
  if existing and not overwrite:
    raise ValueError(f"Eval set {target.eval_set_id!r} already has a case {eval_id!r}; pass another eval_id= "
                     "or overwrite=True.")
  if existing:
    target.eval_cases[existing[0]] = case
  else:
    target.eval_cases.append(case)
  if not isinstance(eval_set, EvalSet):
    save_eval_set(target, eval_set)
  return case
