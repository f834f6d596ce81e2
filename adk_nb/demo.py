"""A support-desk agent in the terminal: `python -m adk_nb.demo` (or `./dev demo`).

Offline by default: answers come from a ScriptedModel that follows a fixed script, and
the demo says so. With GOOGLE_API_KEY (or GEMINI_API_KEY) set, a real Gemini model answers.
Sessions live in a SQLite file, so a second run continues the same conversation.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
from pathlib import Path

from google.genai import types

from .approval import POLICIES, resolve_policy

ORDERS = {"A100": {"item": "kettle", "price": 45.0}, "B200": {"item": "espresso machine", "price": 349.0}}


def lookup_order(order_id: str) -> dict:
  """Looks up an order by id (e.g. 'A100')."""
  order = ORDERS.get(order_id.upper())
  if order is None:
    return {"error": f"No order {order_id!r}. Known orders: {', '.join(ORDERS)}."}
  return {"order_id": order_id.upper(), **order}


def refund(order_id: str, amount: float) -> dict:
  """Refunds an amount for an order. Refunds above 100 need a person's approval."""
  return {"refunded": amount, "order_id": order_id.upper(), "status": "refund issued"}


def build_agent(model):
  from .agents import LlmAgent
  from .tools import FunctionTool

  return LlmAgent(
      name="support",
      description="Answers order questions and issues refunds.",
      model=model,
      instruction="You help customers with their orders. Look orders up before refunding.",
      tools=[lookup_order, FunctionTool(refund, require_confirmation=lambda amount, **_: amount > 100)],
  )


def scripted_model():
  """An offline stand-in that reacts to the conversation with fixed rules (no real model)."""
  from .models import ScriptedModel, call

  def answer(request):
    part = request.contents[-1].parts[-1]
    if part.function_response is not None:
      response = part.function_response.response or {}
      if part.function_response.name == "lookup_order":
        if "error" in response:
          return response["error"]
        item = response["item"]
        article = "an" if item[:1].lower() in "aeiou" else "a"
        return f"Order {response['order_id']} is {article} {item} for {response['price']:.2f}. Shall I refund it?"
      if "error" in response:
        return "The refund was not approved, so nothing was refunded."
      return f"Done: {response['refunded']:.2f} was refunded for order {response['order_id']}."
    text = (part.text or "").lower()
    if "refund" in text:
      return call("refund", order_id="B200", amount=349.0)
    if "order" in text:
      return call("lookup_order", order_id="B200")
    return "(This scripted demo knows about orders and refunds only. Set GOOGLE_API_KEY for a real model.)"

  return ScriptedModel(answer)


SCRIPT = ["What's the status of order B200?", "Yes, please refund the full amount."]


async def main(argv: list[str] | None = None) -> int:
  parser = argparse.ArgumentParser(prog="adk_nb.demo", description=__doc__.splitlines()[0])
  parser.add_argument("--store", default="sqlite:///.adk_nb/demo.db", help="session store URL (or memory://)")
  parser.add_argument("--session", default="demo", help="session id (reuse it to continue a conversation)")
  parser.add_argument("--approve", choices=POLICIES, default=None,
                      help="who answers tool confirmations: ask (you, at a [y/N] prompt; without a terminal the "
                           "call is rejected), auto or deny. Default: $ADK_NB_APPROVE, else ask.")
  args = parser.parse_args(argv)
  args.approve = resolve_policy(args.approve)

  from .pending import answer_message, confirmation_response, pending_items
  from .runners import Runner

  key = os.environ.get("GOOGLE_API_KEY") or os.environ.get("GEMINI_API_KEY")
  if key:
    model = "gemini-2.5-flash"
    print("Model: gemini-2.5-flash (real model; GOOGLE_API_KEY is set).")
  else:
    model = scripted_model()
    print("Model: ScriptedModel — offline, answers follow a fixed script (not a real model).")
  agent = build_agent(model)

  if args.store.startswith("memory://"):
    from .sessions import InMemorySessionService

    service = InMemorySessionService()
  else:
    from .sessions.database_session_service import DatabaseSessionService

    path = args.store.split("///", 1)[-1]
    Path(path).parent.mkdir(parents=True, exist_ok=True)
    service = DatabaseSessionService(args.store)
  print(f"Sessions: {args.store} (session '{args.session}')\n")
  runner = Runner(app_name="demo", agent=agent, session_service=service)
  session = await service.get_session(app_name="demo", user_id="you", session_id=args.session)
  if session is None:
    session = await service.create_session(app_name="demo", user_id="you", session_id=args.session)
  elif not key:
    # A scripted model cannot continue an old conversation: start the script on a fresh session.
    await service.delete_session(app_name="demo", user_id="you", session_id=args.session)
    session = await service.create_session(app_name="demo", user_id="you", session_id=args.session)

  interactive = sys.stdin.isatty() and bool(key)
  messages = iter(SCRIPT)

  async def turn(message: types.Content) -> None:
    async for event in runner.run_async(user_id="you", session_id=session.id, new_message=message):
      if event.author == "user" or event.partial:
        continue
      if event.error_code:
        print(f"  ! {event.error_code}: {event.error_message}")
      for call in event.get_function_calls():
        if call.name != "adk_request_confirmation":
          print(f"  [tool] {call.name}({', '.join(f'{k}={v!r}' for k, v in (call.args or {}).items())})")
      if event.text and event.is_final_response():
        print(f"{event.author}> {event.text}")

  while True:
    if interactive:
      try:
        text = input("you> ").strip()
      except EOFError:
        break
      if not text:
        break
    else:
      text = next(messages, None)
      if text is None:
        break
      print(f"you> {text}")
    await turn(types.Content(role="user", parts=[types.Part(text=text)]))
    current = await service.get_session(app_name="demo", user_id="you", session_id=session.id)
    for item in pending_items(current.events):
      if item.kind != "confirmation":
        continue
      question = f"  Approve {item.tool}({item.args})? [y/N] "
      if args.approve == "ask" and sys.stdin.isatty():
        ok = input(question).strip().lower().startswith("y")
      else:
        ok = args.approve == "auto"  # 'ask' with no terminal fails closed
        why = "no terminal to ask" if args.approve == "ask" else "approval policy"
        print(f"{question}{'y' if ok else 'n'} (--approve {args.approve}: {why})")
      await turn(answer_message([confirmation_response(item, ok)]))
  await runner.close()
  return 0


if __name__ == "__main__":
  raise SystemExit(asyncio.run(main()))
