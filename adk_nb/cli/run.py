"""`adk-nb run AGENT_DIR`: chat with an agent folder in the terminal, as `adk run` does.

Text streams as the model produces it, tool calls are shown, and a tool that needs approval asks
`[y/N]` at the terminal. Without a terminal (a pipe, CI) `ask` rejects the call: fail closed. The
policy is the notebook's (`--approve ask|auto|deny`, default $ADK_NB_APPROVE, else ask).

Sessions are kept in SQLite at AGENT_DIR/.adk_nb/sessions.db by default, the store `adk-nb web` and
`adk-nb api_server` use for the folder too (not google-adk's AGENT_DIR/.adk/session.db, whose schema
differs), so `--session ID` continues one later, in the terminal or in the notebook; a continued session
that is paused (a confirmation, a long-running call) has its pending calls offered first, with the same
policy, before any new message is read; `--session_service_uri postgresql://...` shares them with
`adk-nb api_server` replicas. Ctrl-C ends at once with one line saying what was kept; a turn that fails
(a model error, say) is reported and the chat goes on.
`--replay FILE` runs the queries of a JSON file (`{"state": {...}, "queries": ["...", ...]}`) instead
of reading the terminal; `--save_session` writes the session to AGENT_DIR/SESSION_ID.session.json at the end.
"""

from __future__ import annotations

import argparse
import asyncio
import inspect
import json
import signal
import sys
import threading
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
                 help="sqlite:///file.db, postgresql://..., or memory:// (default: AGENT_DIR/.adk_nb/sessions.db)")
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


STORE_DIR, STORE_FILE = ".adk_nb", "sessions.db"
"""Where an agent folder's sessions live (`run`, `web` and `api_server` alike): AGENT_DIR/.adk_nb/sessions.db.

Not google-adk's AGENT_DIR/.adk/session.db: the two schemas differ, and sharing one file broke both."""


def default_session_uri(folder: Optional[Path]) -> str:
  """The session store of an agent folder (the working folder for a module): SQLite in its .adk_nb/."""
  base = (folder if folder is not None and folder.is_dir() else Path.cwd()) / STORE_DIR
  return f"sqlite:///{base / STORE_FILE}"


def folder_runner(loaded: Any, session_uri: Optional[str] = None, artifact_uri: str = "memory://") -> Any:
  """A Runner for a loaded agent folder on its store, with the app name `adk-nb run` uses (the folder's).

  The web notebook builds its runner with this, so a conversation started with `adk-nb run` continues there.
  """
  from ..runners import Runner
  from ..services import artifact_service_from_uri, session_service_from_uri

  sessions = session_service_from_uri(session_uri or default_session_uri(loaded.path))
  artifacts = artifact_service_from_uri(artifact_uri)
  if loaded.app is not None:
    return Runner(app=loaded.app, app_name=loaded.name, session_service=sessions, artifact_service=artifacts)
  return Runner(agent=loaded.agent, app_name=loaded.name, session_service=sessions, artifact_service=artifacts)


async def latest_session_id(runner: Any, user_id: str = USER_ID) -> Optional[str]:
  """The id of the user's most recently updated session of the runner's app, or None when there is none."""
  listed = await runner.session_service.list_sessions(app_name=runner.app_name, user_id=user_id)
  sessions = sorted(listed.sessions, key=lambda s: s.last_update_time)
  return sessions[-1].id if sessions else None


def _shown(uri: str) -> str:
  """A store URI as the user may see it: the file for SQLite, the URL without its password otherwise."""
  import re

  if uri.startswith("sqlite:///"):
    return uri[len("sqlite:///"):]
  return re.sub(r"(://[^:/@]+):[^@]*@", r"\1:***@", uri)


def _args_text(args: Any) -> str:
  return ", ".join(f"{k}={v!r}" for k, v in (args or {}).items())


async def read_line(prompt: str) -> str:
  """input(prompt) on a daemon thread, so the loop keeps running (and Ctrl-C is handled at once) while it waits.

  A blocking input() on the loop's thread would hold Ctrl-C until Enter: the signal may land on another
  thread, and asyncio only wakes its loop for it. The thread is a daemon, so exiting does not wait for it.
  """
  loop = asyncio.get_running_loop()
  answer = loop.create_future()

  def settle(method: str, value: Any) -> None:
    if not answer.done():
      getattr(answer, method)(value)

  def read() -> None:
    try:
      value = input(prompt)
    except BaseException as exc:  # noqa: BLE001 - EOFError (end of input) goes to the awaiting chat
      loop.call_soon_threadsafe(settle, "set_exception", exc)
    else:
      loop.call_soon_threadsafe(settle, "set_result", value)

  threading.Thread(target=read, name="adk-nb-run-input", daemon=True).start()
  return await answer


class TerminalChat:
  """Runs turns of one session and prints them: streamed text, tool calls and results, approvals."""

  def __init__(self, runner: Any, user_id: str, session_id: str, policy: str, stream: bool,
               out: TextIO = sys.stdout, ask: Optional[Callable[[str], str]] = None):
    self.runner, self.user_id, self.session_id = runner, user_id, session_id
    self.policy, self.stream, self.out = policy, stream, out
    self.ask = ask if ask is not None else (read_line if sys.stdin.isatty() else None)
    """Asks the [y/N] question: a function of the prompt, returning the answer or an awaitable of it."""
    self._was_paused = False
    self._shown_error: Optional[str] = None  # the last error event printed, so its exception is not shown twice

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

  async def turn_or_report(self, message: types.Content) -> None:
    """`turn`, but an error (a model that failed, say) is shown in one line and the chat goes on.

    What the turn committed before the error stays in the session. A store that fails is not
    caught: nothing more could be kept.
    """
    from ..errors import SessionNotFoundError
    from ..sessions.database_session_service import SessionStorageError

    self._shown_error = None
    try:
      await self.turn(message)
    except (SessionStorageError, SessionNotFoundError):
      raise
    except Exception as exc:  # noqa: BLE001 - reported, and the chat goes on
      if str(exc) != self._shown_error:  # the runner's error event already said it
        self._print(f"[error] {type(exc).__name__}: {exc}")

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
        self._shown_error = event.error_message
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
    answers = [confirmation_response(item, await self._decide(item)) for item in pending
               if item.kind == "confirmation"]
    for item in pending:
      if item.kind == "long_running":
        self._print(f"[{item.agent}] waits for {item.tool} (call {item.call_id}) to report back; the run is paused.")
    return answer_message(answers) if answers else None

  async def _decide(self, item: Any) -> bool:
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
      if inspect.isawaitable(answer):
        answer = await answer
    except EOFError:
      answer = ""
    return answer.strip().lower() in ("y", "yes")


async def chat(args: argparse.Namespace, loaded: Any) -> int:
  """Runs the chat (or the replay) against the loaded agent; returns the exit code."""
  policy = resolve_policy(args.approve)
  replay = json.loads(Path(args.replay).read_text(encoding="utf-8")) if args.replay else None
  if replay is not None and not isinstance(replay.get("queries"), list):
    raise ValueError(f"{args.replay!r} has no 'queries' list; write {{\"state\": {{}}, \"queries\": [\"hello\"]}}.")
  uri = args.session_service_uri or default_session_uri(loaded.path)
  runner = folder_runner(loaded, uri, args.artifact_service_uri)
  service = runner.session_service
  session_id = args.session = args.session or uuid.uuid4().hex
  session = await service.get_session(app_name=loaded.name, user_id=args.user_id, session_id=session_id)
  if session is None:
    session = await service.create_session(app_name=loaded.name, user_id=args.user_id, session_id=session_id,
                                           state=(replay or {}).get("state") or None)
  print(f"Running agent {loaded.agent.name} (app {loaded.name}, session {session_id}, store {_shown(uri)}); "
        "type exit to quit.")
  legacy = (loaded.path / ".adk" / "session.db") if loaded.path is not None and loaded.path.is_dir() else None
  if args.session_service_uri is None and legacy is not None and legacy.exists():
    print(f"Note: {legacy} (google-adk's store, or adk-nb run's before it moved to .adk_nb/) is not used; pass "
          f"--session_service_uri sqlite:///{legacy} to open it.")
  chat_ = TerminalChat(runner, args.user_id, session_id, policy, args.stream)
  try:
    await chat_.resume_pending()  # a continued session that is paused gets its answers before anything new
    if replay is not None:
      for query in replay["queries"]:
        print(f"[user]: {query}")
        await chat_.turn_or_report(types.Content(role="user", parts=[types.Part(text=str(query))]))
    else:
      while True:
        try:
          text = (await read_line("[user]: ")).strip()
        except EOFError:
          break
        if text in ("exit", "quit"):
          break
        if text:
          await chat_.turn_or_report(types.Content(role="user", parts=[types.Part(text=text)]))
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


def _interrupted_line(args: argparse.Namespace, loaded: Any, started: bool) -> str:
  """The one line Ctrl-C prints: what was kept, and how to continue."""
  if not started:
    return "adk-nb run: interrupted before the chat started; nothing was written."
  uri = args.session_service_uri or default_session_uri(loaded.path)
  if uri.startswith("memory"):
    return f"adk-nb run: interrupted; session {args.session} was in memory:// only, so nothing was kept."
  return (f"adk-nb run: interrupted; session {args.session} is kept in {_shown(uri)} with everything committed "
          f"before Ctrl-C (a tool cut off mid-run is answered as interrupted next time). Continue it with: "
          f"adk-nb run {args.agent_dir} --session {args.session}")


def run(args: argparse.Namespace) -> int:
  """Runs the run subcommand; returns the exit code (130 after Ctrl-C).

  Ctrl-C cancels the chat task from the loop (the terminal is read on a daemon thread, see read_line):
  the turn stops, the stores are closed, and one line says what was kept. A second Ctrl-C during that
  stops at once.
  """
  from ..errors import AdkNbError

  started = False
  try:
    loaded = load_agent_folder(args.agent_dir)
    args.session = args.session or uuid.uuid4().hex
    loop = asyncio.new_event_loop()
    task = loop.create_task(chat(args, loaded))
    started = True
    interrupted = []

    def on_ctrl_c() -> None:
      if interrupted or task.done():
        raise KeyboardInterrupt
      interrupted.append(True)
      task.cancel()

    try:
      loop.add_signal_handler(signal.SIGINT, on_ctrl_c)
    except (NotImplementedError, RuntimeError):  # no loop signal handlers here (Windows): KeyboardInterrupt
      pass
    try:
      return loop.run_until_complete(task)
    except asyncio.CancelledError:
      if not interrupted:
        raise
      raise KeyboardInterrupt from None
    finally:
      try:
        loop.remove_signal_handler(signal.SIGINT)
      except (NotImplementedError, RuntimeError):
        pass
      loop.run_until_complete(loop.shutdown_asyncgens())
      loop.close()
  except KeyboardInterrupt:
    print(_interrupted_line(args, loaded if started else None, started), file=sys.stderr)
    return 130
  except AgentLoadError as exc:
    print(f"adk-nb run: {exc}", file=sys.stderr)
    return 2
  except (AdkNbError, ValueError, FileNotFoundError, json.JSONDecodeError) as exc:
    print(f"adk-nb run: {exc}", file=sys.stderr)
    return 2
