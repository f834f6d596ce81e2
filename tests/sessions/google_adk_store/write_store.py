"""Writes a session store with google-adk itself, for the tests that open it with adk_nb.

Run with a Python that has google-adk (and SQLAlchemy plus asyncpg for --layout database):

  python write_store.py --layout sqlite   --url sqlite:///path/session.db    # `adk run`'s SqliteSessionService
  python write_store.py --layout database --url sqlite:///path/sessions.db   # DatabaseSessionService (schema v1)
  python write_store.py --layout database --url postgresql+asyncpg://...      # the same on PostgreSQL

It prints, as JSON, what google-adk itself reads back: every session's state (all scopes merged, as
get_session returns it), its events (model_dump, JSON mode) and its last update time. The SQLite
fixtures beside this file were made with it (google-adk 2.13.0, SQLAlchemy 2.1).
"""

from __future__ import annotations

import argparse
import asyncio
import json

from google.adk.events.event import Event
from google.adk.events.event_actions import EventActions
from google.genai import types

APP, OTHER_APP = "shop", "other"


def _event(invocation: str, author: str, *parts: types.Part, ts: float, **actions) -> Event:
  role = "user" if author == "user" else "model"
  return Event(invocation_id=invocation, author=author, timestamp=ts,
               content=types.Content(role=role, parts=list(parts)),
               actions=EventActions(**actions))


async def write(service) -> list[tuple[str, str, str]]:
  s1 = await service.create_session(
      app_name=APP, user_id="ana", session_id="s1",
      state={"app:currency": "EUR", "user:name": "Ana", "cart": ["tea"], "temp:scratch": 1})
  call = types.Part(function_call=types.FunctionCall(id="call-1", name="set_total", args={"total": 4.5}))
  answer = types.Part(function_response=types.FunctionResponse(
      id="call-1", name="set_total", response={"result": "ok"}))
  ask = types.Part(function_call=types.FunctionCall(
      id="call-2", name="adk_request_confirmation",
      args={"originalFunctionCall": {"id": "call-3", "name": "refund", "args": {"amount": 9}},
            "toolConfirmation": {"hint": "Refund 9?", "confirmed": False}}))
  for event in [
      _event("inv-1", "user", types.Part(text="Buy tea"), ts=1_700_000_000.0),
      _event("inv-1", "shop_agent", call, ts=1_700_000_001.0),
      _event("inv-1", "shop_agent", answer, ts=1_700_000_002.0,
             state_delta={"total": 4.5, "user:orders": 1, "app:sold": 1},
             artifact_delta={"receipt.txt": 0}),
      _event("inv-1", "shop_agent", types.Part(text="Tea is 4.50 EUR."), ts=1_700_000_003.0),
      _event("inv-2", "user", types.Part(text="Refund it"), ts=1_700_000_010.0),
  ]:
    await service.append_event(s1, event)
  paused = _event("inv-2", "shop_agent", ask, ts=1_700_000_011.0)
  paused.long_running_tool_ids = {"call-2"}
  await service.append_event(s1, paused)

  s2 = await service.create_session(app_name=APP, user_id="ben", session_id="s2",
                                    state={"user:name": "Ben", "note": "ünïcode ✓"})
  await service.append_event(s2, _event("inv-9", "user", types.Part(text="Hi"), ts=1_700_000_020.0))
  await service.create_session(app_name=OTHER_APP, user_id="ana", session_id="s3")
  return [(APP, "ana", "s1"), (APP, "ben", "s2"), (OTHER_APP, "ana", "s3")]


async def main() -> None:
  parser = argparse.ArgumentParser()
  parser.add_argument("--layout", choices=["sqlite", "database"], required=True)
  parser.add_argument("--url", required=True)
  args = parser.parse_args()
  if args.layout == "sqlite":
    from google.adk.sessions.sqlite_session_service import SqliteSessionService
    service = SqliteSessionService(db_path=args.url.removeprefix("sqlite:///"))
  else:
    from google.adk.sessions.database_session_service import DatabaseSessionService
    service = DatabaseSessionService(db_url=args.url)
  keys = await write(service)
  seen = []
  for app, user, sid in keys:
    session = await service.get_session(app_name=app, user_id=user, session_id=sid)
    seen.append({"app_name": app, "user_id": user, "id": sid, "state": session.state,
                 "last_update_time": session.last_update_time,
                 "events": [e.model_dump(mode="json", exclude_none=True) for e in session.events]})
  if hasattr(service, "close"):
    await service.close()
  print(json.dumps(seen, sort_keys=True))


if __name__ == "__main__":
  asyncio.run(main())
