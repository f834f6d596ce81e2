"""`adk-nb run AGENT_DIR`: chat with an agent folder in the terminal, as `adk run` does.

Text streams as the model produces it, tool calls are shown, and a tool that needs approval asks
`[y/N]` at the terminal. Without a terminal (a pipe, CI) `ask` rejects the call: fail closed. The
policy is the notebook's (`--approve ask|auto|deny`, default $ADK_NB_APPROVE, else ask).

Sessions are kept in SQLite under AGENT_DIR/.adk/ by default, so `--session ID` continues one later;
a continued session that is paused (a confirmation, a long-running call) has its pending calls offered
first, with the same policy, before any new message is read;
`--session_service_uri postgresql://...` shares them with `adk-nb api_server` replicas.
`--replay FILE` runs the queries of a JSON file (`{"state": {...}, "queries": ["...", ...]}`) instead
of reading the terminal; `--save_session` writes the session to AGENT_DIR/SESSION_ID.session.json at the end.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
import uuid
from pathlib import Path
from typing import Any, Callable, Optional, TextIO

from google.genai import types

from ..approval import POLICIES, resolve_policy
from ..events.protocol import REQUEST_CONFIRMATION
from .agent_loader import AgentLoadError, load_agent_folder

USER_ID = "user"


def add_arguments(p: argparse.ArgumentParser) -> None:
  """Declares the run subcommand's arguments (ADK's `adk run` spellings)."""
  p.add_argument("agent_dir", metavar="AGENT_DIR", help="agent folder (agent.py defining root_agent) or module")
  p.add_argument("--session_service_uri", default=None,
                 help="sqlite:///file.db, postgresql://..., or memory:// (default: sqlite in AGENT_DIR/.adk/)")
  p.add_argument("--artifact_service_uri", default="memory://", help="memory:// (default) or file:///folder")
  p.add_argument("--session", "--session_id", dest="session", default=None,
                 help="session id to continue (created when missing); default: a new session")
  p.add_argument("--user_id", default=USER_ID, help=f"user id (default {USER_ID!r})")
  p.add_argument("--replay", default=None, metavar="FILE",
                 help='JSON {"state": {...}, "queries": [...]}: run these queries, not the terminal')
  p.add_argument("--save_session", action="store_true", help="write the session to AGENT_DIR/ID.session.json at exit")
  p.add_argument("--approve", choices=POLICIES, default=None,
                 help="who answers tool confirmations: ask ([y/N]; rejected without a terminal), auto, deny")
  p.add_argument("--no-stream", dest="stream", action="store_false", help="print whole answers, not streamed text")


def default_session_uri(folder: Optional[Path]) -> str:
  """The session store `run` and `api_server` use without --session_service_uri: SQLite under the folder."""
  base = (folder if folder is not None and folder.is_dir() else Path.cwd()) / ".adk"
  return f"sqlite:///{base / 'session.db'}"


def _args_text(args: Any) -> str:
  return ", ".join(f"{k}={v!r}" for k, v in (args or {}).items())


class TerminalChat:
  """Runs turns of one session and prints them: streamed text, tool calls and results, approvals."""

  def __init__(self, runner: Any, user_id: str, session_id: str, policy: str, stream: bool,
               out: TextIO = sys.stdout, ask: Optional[Callable[[str], str]] = None):
    self.runner, self.user_id, self.session_id = runner, user_id, session_id
    self.policy, self.stream, self.out = policy, stream, out
    self.ask = ask if ask is not None else (input if sys.stdin.isatty() else None)
    self._was_paused = False

  def _print(self, text: str = "", end: str = "\n") -> None:
    self.out.write(text + end)
    self.out.flush()

  async def turn(self, message: types.Content, state_delta: Optional[dict] = None) -> None:
    """Runs one message, then answers the confirmations it paused on (by the policy) until it stops."""
    from ..agents.run_config import RunConfig, StreamingMode

    config = RunConfig(streaming_mode=StreamingMode.SSE if self.stream else StreamingMode.NONE)
    while message is not None:
      await self._show(self.runner.run_async(user_id=self.user_id, session_id=self.session_id,
                                             new_message=message, state_delta=state_delta, run_config=config))
      state_delta = None
      message = await self._answers_to_pending()

  async def resume_pending(self) -> bool:
    """Offers what a continued session is paused on (approvals first) before any new message.

    Returns True when the session was paused. Confirmations are asked (or decided by the policy,
    rejected without a terminal) and the paused invocation resumes with the answers; long-running
    calls are listed, since only the tool's owner can report their result.
    """
    message = await self._answers_to_pending(announce=True)
    if message is not None:
      await self.turn(message)
    return self._was_paused

  async def _show(self, events: Any) -> None:
    """Prints one run's events: streamed text as it comes, tool calls and results, errors."""
    streamed = False
    async for event in events:
      if event.author == "user":
        continue
      if event.partial:
        text = "".join(p.text or "" for p in (event.content.parts if event.content else []) if not p.thought)
        if text:
          if not streamed:
            self._print(f"[{event.author}]: ", end="")
          self._print(text, end="")
          streamed = True
        continue
      if event.error_code:
        self._print(f"[{event.author}] ! {event.error_code}: {event.error_message}")
      for call in event.get_function_calls():
        if call.name != REQUEST_CONFIRMATION:
          self._print(f"[{event.author}] -> {call.name}({_args_text(call.args)})")
      for response in event.get_function_responses():
        if response.name != REQUEST_CONFIRMATION:
          self._print(f"[{event.author}] <- {response.name}: {json.dumps(response.response, default=str)}")
      text = "".join(p.text or "" for p in (event.content.parts if event.content else []) if not p.thought)
      if text:
        self._print("" if streamed else f"[{event.author}]: {text}")
        streamed = False

  async def _answers_to_pending(self, announce: bool = False) -> Optional[types.Content]:
    """The message answering the session's pending confirmations (None when none wait)."""
    from ..pending import answer_message, confirmation_response, pending_items

    session = await self.runner.session_service.get_session(
        app_name=self.runner.app_name, user_id=self.user_id, session_id=self.session_id)
    pending = pending_items(session.events if session else [])
    self._was_paused = bool(pending)
    if pending and announce:
      self._print(f"Session {self.session_id} is paused; {len(pending)} call(s) wait for an answer.")
    answers = [confirmation_response(item, self._decide(item)) for item in pending if item.kind == "confirmation"]
    for item in pending:
      if item.kind == "long_running":
        self._print(f"[{item.agent}] waits for {item.tool} (call {item.call_id}) to report back; the run is paused.")
    return answer_message(answers) if answers else None

  def _decide(self, item: Any) -> bool:
    call = f"{item.tool}({_args_text(item.args)})"
    hint = f" ({item.hint})" if item.hint else ""
    if item.may_have_run:
      hint += " [it may already have run: it was interrupted]"
    if self.policy != "ask":
      approved = self.policy == "auto"
      self._print(f"[approval] {call}{hint}: {'approved' if approved else 'rejected'} by --approve {self.policy}")
      return approved
    if self.ask is None:
      self._print(f"[approval] {call}{hint}: rejected (no terminal to ask; use --approve auto to approve)")
      return False
    try:
      answer = self.ask(f"[approval] {call}{hint}. Approve? [y/N] ")
    except EOFError:
      answer = ""
    return answer.strip().lower() in ("y", "yes")


async def _build_runner(loaded: Any, session_uri: str, artifact_uri: str):
  from ..runners import Runner
  from ..services import artifact_service_from_uri, session_service_from_uri

  sessions = session_service_from_uri(session_uri)
  artifacts = artifact_service_from_uri(artifact_uri)
  if loaded.app is not None:
    return Runner(app=loaded.app, app_name=loaded.name, session_service=sessions, artifact_service=artifacts)
  return Runner(agent=loaded.agent, app_name=loaded.name, session_service=sessions, artifact_service=artifacts)


async def chat(args: argparse.Namespace, loaded: Any) -> int:
  """Runs the chat (or the replay) against the loaded agent; returns the exit code."""
  policy = resolve_policy(args.approve)
  replay = json.loads(Path(args.replay).read_text(encoding="utf-8")) if args.replay else None
  if replay is not None and not isinstance(replay.get("queries"), list):
    raise ValueError(f"{args.replay!r} has no 'queries' list; write {{\"state\": {{}}, \"queries\": [\"hello\"]}}.")
  uri = args.session_service_uri or default_session_uri(loaded.path)
  runner = await _build_runner(loaded, uri, args.artifact_service_uri)
  service = runner.session_service
  session_id = args.session or uuid.uuid4().hex
  session = await service.get_session(app_name=loaded.name, user_id=args.user_id, session_id=session_id)
  if session is None:
    session = await service.create_session(app_name=loaded.name, user_id=args.user_id, session_id=session_id,
                                           state=(replay or {}).get("state") or None)
  print(f"Running agent {loaded.agent.name} (app {loaded.name}, session {session_id}); type exit to quit.")
  chat_ = TerminalChat(runner, args.user_id, session_id, policy, args.stream)
  try:
    await chat_.resume_pending()  # a continued session that is paused gets its answers before anything new
    if replay is not None:
      for query in replay["queries"]:
        print(f"[user]: {query}")
        await chat_.turn(types.Content(role="user", parts=[types.Part(text=str(query))]))
    else:
      while True:
        try:
          text = input("[user]: ").strip()
        except EOFError:
          break
        if text in ("exit", "quit"):
          break
        if text:
          await chat_.turn(types.Content(role="user", parts=[types.Part(text=text)]))
    if args.save_session:
      final = await service.get_session(app_name=loaded.name, user_id=args.user_id, session_id=session_id)
      base = loaded.path if loaded.path is not None and loaded.path.is_dir() else Path.cwd()
      target = base / f"{session_id}.session.json"
      target.write_text(final.model_dump_json(by_alias=True, exclude_none=True, indent=2), encoding="utf-8")
      print(f"Session saved to {target}")
  finally:
    await runner.close()
    close = getattr(service, "close", None)
    if close is not None:
      await close()
  return 0


def run(args: argparse.Namespace) -> int:
  """Runs the run subcommand; returns the exit code."""
  try:
    loaded = load_agent_folder(args.agent_dir)
  except AgentLoadError as exc:
    print(f"adk-nb run: {exc}", file=sys.stderr)
    return 2
  try:
    return asyncio.run(chat(args, loaded))
  except (ValueError, FileNotFoundError, json.JSONDecodeError) as exc:
    print(f"adk-nb run: {exc}", file=sys.stderr)
    return 2
  except KeyboardInterrupt:
    return 130
