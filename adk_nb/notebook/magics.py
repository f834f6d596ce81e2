"""`%%agent` and `%agent`: run agents from cells, awaiting (top-level await, no loop patching)."""

from __future__ import annotations

import asyncio
import contextlib
import difflib
import json
import re
import shlex
import signal
import sys
import threading
from typing import Any, Iterator, Optional

from IPython.core.error import UsageError
from IPython.core.magic import Magics, line_cell_magic, magics_class
from IPython.core.magic_arguments import argument, magic_arguments

from ..agents.base_agent import BaseAgent
from . import _parent_guard
from ._loop import run_sync, running_loop
from ._sessions import SessionBusyError, registry
from .api import start
from .live_run import LiveRun
from . import waiting

_CELL = re.compile(r"^%%agent(\s|$)")
_LINE = re.compile(r"^%agent(\s|$)")
# `{{...}}` first, so a doubled brace stays as written; then `{name}` or `{obj.attr}`.
_NAME = re.compile(r"\{\{[^{}]*\}\}|\{([A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*)\}")
_SUBCOMMANDS = ("sessions", "state", "pending", "resume", "reset", "tools", "export", "import", "delete", "rename")
USAGE = ("usage: %%agent AGENT [--session NAME] [--new] [--user ID] [--state k=v ...] [--store URI] "
         "[--approve ask|auto|deny] [--wait SECONDS | --no-wait] [--background] [--out NAME] [--quiet] [-i]")


def transform_agent_cells(lines: list[str]) -> list[str]:
  """Input transformer: a `%%agent` cell, or a `%agent` line, becomes an awaited call.

  The cell then awaits its run inside the kernel's loop (IPython's top-level await), so
  Run All sees cells finish in order and clicks reach the kernel while a run awaits.
  """
  if not lines:
    return lines
  if _CELL.match(lines[0]):
    line = lines[0].rstrip("\n")[len("%%agent"):].strip()
    body = "".join(lines[1:])
    return [f"await __import__('adk_nb.notebook.magics', fromlist=['_']).agent_cell({line!r}, {body!r})\n"]
  if not any(_LINE.match(line) for line in lines):
    return lines
  starts = _statement_rows(lines)
  out = []
  for row, line in enumerate(lines, start=1):
    if row in starts and _LINE.match(line):
      arg = line.rstrip("\n")[len("%agent"):].strip()
      line = f"await __import__('adk_nb.notebook.magics', fromlist=['_']).agent_line({arg!r})\n"
    out.append(line)
  return out


def expand(line: str) -> str:
  """`$name` and `{expr}` in a `%%agent` / `%agent` line, as IPython expands any magic's line (`$$` for a `$`).

  IPython does this itself before it calls a magic; the transformer turns these lines into plain calls,
  so `agent_cell` and `agent_line` do it here, with the notebook's variables.
  """
  from IPython.utils.text import DollarFormatter

  try:
    return DollarFormatter().vformat(line, args=[], kwargs=_shell().user_ns)
  except Exception:  # as IPython: a line that does not expand is used as written
    return line


def _statement_rows(lines: list[str]) -> set[int]:
  """The 1-based rows where a statement starts (not inside a string literal, brackets or a continuation)."""
  from tokenize import DEDENT, INDENT

  from IPython.core.inputtransformer2 import make_tokens_by_line

  rows = set()
  for logical in make_tokens_by_line([line if line.endswith("\n") else line + "\n" for line in lines]):
    first = next((t for t in logical if t.type not in (INDENT, DEDENT)), None)
    if first is not None:
      rows.add(first.start[0])
  return rows


def _shell():
  from IPython import get_ipython

  shell = get_ipython()
  if shell is None:
    raise UsageError("%%agent needs IPython; outside a notebook use adk_nb.notebook.run(agent, 'message').")
  return shell


def _lookup(shell: Any, name: str) -> Any:
  head, *rest = name.split(".")
  if head not in shell.user_ns:
    raise UsageError(f"No variable named {head!r} in the notebook; define it first "
                     f"(e.g. {head} = Agent(name=..., model=...)).")
  value = shell.user_ns[head]
  for attr in rest:
    value = getattr(value, attr)
  return value


def interpolate(text: str, namespace: dict[str, Any]) -> str:
  """Replaces `{name}` (and `{obj.attr}`) with values from `namespace`; other braces (JSON, `{{x}}`) stay."""
  def replace(match: "re.Match[str]") -> str:
    if match.group(1) is None:
      return match.group(0)
    head, *rest = match.group(1).split(".")
    if head not in namespace:
      return match.group(0)
    value = namespace[head]
    try:
      for attr in rest:
        value = getattr(value, attr)
    except AttributeError:
      return match.group(0)
    return str(value)

  return _NAME.sub(replace, text)


def _state_delta(items: Optional[list[str]]) -> Optional[dict[str, Any]]:
  if not items:
    return None
  delta: dict[str, Any] = {}
  for item in items:
    # IPython's argument parser keeps shell quotes: accept `--state "k=a b"` and `k="a b"`.
    if len(item) >= 2 and item[0] == item[-1] and item[0] in "'\"":
      item = item[1:-1]
    key, sep, raw = item.partition("=")
    if len(raw) >= 2 and raw[0] == raw[-1] and raw[0] in "'\"":
      raw = raw[1:-1]
    if not sep or not key:
      raise UsageError(f"--state expects key=value (got {item!r}), e.g. --state user:tier=gold limit=100")
    try:
      delta[key] = json.loads(raw)
    except ValueError:
      delta[key] = raw
  return delta


@magics_class
class AgentMagics(Magics):
  """The `%%agent` cell magic and the `%agent` line magic."""

  @magic_arguments()
  @argument("target", metavar="AGENT", nargs="?", default=None,
            help="Notebook variable holding an agent, an App or a Runner. In line mode: "
                 "sessions | state | pending | reset [AGENT].")
  @argument("--session", default=None, help="Session to run in (default: this agent's current notebook "
                                            "session, created on first use).")
  @argument("--new", action="store_true", help="Start a new session.")
  @argument("--user", default=None, help="User id (default: 'user').")
  @argument("--state", nargs="+", default=None, metavar="KEY=VALUE",
            help="State delta for this turn; values are JSON or plain text.")
  @argument("--store", default=None, help="Where sessions live: 'memory://' or a database URL "
                                          "(default: SQLite under .adk_nb/ in the working folder).")
  @argument("--approve", choices=("ask", "auto", "deny"), default=None,
            help="Who answers tool confirmations: ask (pause for a click or run.approve()), auto, deny. "
                 "Default: $ADK_NB_APPROVE, else ask.")
  @argument("--background", action="store_true", help="Return at once; `await run` in a later cell.")
  @argument("--wait", type=float, default=None, metavar="SECONDS",
            help="How long a paused cell waits for a person to answer with the buttons (default 900; "
                 "Run All goes on after the answer). 0 ends the cell at the pause.")
  @argument("--no-wait", action="store_true", help="End the cell at a pause (answer in a later cell); same as --wait 0.")
  @argument("--out", default=None, metavar="NAME", help="Also store the LiveRun in this variable.")
  @argument("--quiet", action="store_true", help="Show only the final text, no live view.")
  @argument("-i", "--interpolate", action="store_true",
            help="Replace {name} in the message with notebook variables (other braces stay).")
  @line_cell_magic
  def agent(self, line: str, cell: Optional[str] = None):
    """Runs an agent on the cell's text, showing its live event tree, state and approvals.

    Cell: `%%agent AGENT [options]` then the user's message. The cell awaits the run; at a
    pause it awaits a person's answer (the buttons stay live; `--wait SECONDS`, `--no-wait`),
    then the resumed run. It ends when the run is done; its value is the LiveRun.
    Line: `%agent sessions|state|pending|resume|reset [AGENT] [--session NAME]`, `%agent tools AGENT`,
    `%agent export|import|delete|rename AGENT ...` (see `adk_nb.notebook._session_admin`).
    """
    if cell is None:  # IPython has expanded `$name` already
      return _sync(_agent_line(line))
    live, _args = _start_cell(line, cell)
    return live


def _parse(line: str):
  # Shell-style splitting, so `--state motto="a b"` keeps its space (IPython's own splitter
  # breaks that word in two).
  try:
    argv = shlex.split(line)
  except ValueError as exc:
    raise UsageError(f"%%agent: {exc} (check the quotes)") from None
  parser = AgentMagics.agent.parser
  known = [option for action in parser._actions for option in action.option_strings]
  for word in argv:
    name = word.split("=", 1)[0]
    if name.startswith("-") and name not in known and not _is_number(name):
      close = difflib.get_close_matches(name, known, n=1, cutoff=0.5)
      hint = f" Did you mean {close[0]}?" if close else ""
      raise UsageError(f"%%agent: unknown option {name}.{hint}\n{USAGE}")
  return parser.parse_args(argv)


def _is_number(word: str) -> bool:
  try:
    float(word)
  except ValueError:
    return False
  return True


def _start_cell(line: str, cell: str) -> tuple[LiveRun, Any]:
  """Starts the cell's run and shows its view; returns the LiveRun and the parsed options."""
  shell = _shell()
  args = _parse(line)
  if args.target is None:
    raise UsageError(USAGE)
  target = _lookup(shell, args.target)
  message = cell.strip("\n")
  if args.interpolate:
    message = interpolate(message, shell.user_ns)
  if not message.strip():
    raise UsageError("The cell is empty: write the user's message under the %%agent line.")
  try:
    live = start(target, message, session=args.session, new=args.new, user=args.user,
                 state=_state_delta(args.state), store=args.store, approve=args.approve, view=not args.quiet)
  except (ValueError, TypeError, SessionBusyError) as exc:
    raise UsageError(str(exc)) from None
  if args.out:
    shell.user_ns[args.out] = live
  if not args.quiet:
    from IPython.display import display

    live.view.display_handle = display(live.view, display_id=True)
    live._shown_in = shell.execution_count
  return live, args


async def agent_cell(line: str, cell: str) -> LiveRun:
  """What a transformed `%%agent` cell awaits: starts the run and waits for its end, and at a pause for a person.

  A paused run (`--approve ask`) is awaited until someone answers it (see `adk_nb.notebook.waiting`):
  Run All stops at the question and goes on after the click. Where no widget front end can answer
  (nbclient, nbmake, `--quiet`, plain IPython), the cell fails with NoAnswer saying how to answer.
  """
  live, args = _start_cell(expand(line), cell)
  if args.background:
    return live
  patience = 0.0 if args.no_wait else (waiting.ANSWER_TIMEOUT if args.wait is None else max(0.0, args.wait))
  with _interrupt_cancels(live):
    await live
    if live.status == "paused" and patience > 0:
      grace = waiting.FRONT_END_GRACE if _can_draw_widgets() and not args.quiet else 0.0
      await waiting.until_answered(live, patience, grace, args.out or "run")
  if args.quiet:
    _print_quiet(live)
    live._shown_in = _shell().execution_count
  live.raise_for_error()  # after the view shows the error: the cell fails, Run All stops here
  return live


@contextlib.contextmanager
def _interrupt_cancels(live: LiveRun) -> Iterator[None]:
  """While the cell awaits its run, a kernel interrupt (SIGINT) cancels the run at once (or, while
  the cell waits for a person's answer, ends that wait: the run stays paused).

  ipykernel turns an interrupt into a cancel of an awaiting cell only once the awaited
  coroutine has finished (ipython/ipykernel#881), so without this a run waiting on a slow
  tool ignored the interrupt until the tool returned.
  """
  if threading.current_thread() is not threading.main_thread():
    yield  # signals reach the main thread only (a subshell runs elsewhere)
    return
  loop = asyncio.get_running_loop()
  previous = signal.signal(signal.SIGINT, lambda signum, frame: loop.call_soon_threadsafe(_interrupt, live))
  try:
    yield
  finally:
    signal.signal(signal.SIGINT, previous)


def _interrupt(live: LiveRun) -> None:
  """A kernel interrupt: cancels a running step, or ends the wait for an answer (the run stays paused)."""
  if live.running:
    live.cancel()
  else:
    live.stop_waiting()


def _can_draw_widgets() -> bool:
  """True in a Jupyter kernel (a front end may draw the view); False in plain IPython, where nobody can click."""
  shell = _shell()
  return getattr(shell, "kernel", None) is not None


def _print_quiet(live: LiveRun) -> None:
  if live.status == "error":
    print(f"error: {live.error}", file=sys.stderr)
  elif live.status == "paused":
    print(repr(live))
  else:
    print(live.final_text)


async def agent_line(line: str) -> Any:
  """`%agent sessions|state|pending|resume|reset [AGENT]` (pending and resume take `--session NAME`);
  `%agent tools AGENT`; `%agent export|import|delete|rename AGENT ...`.

  `sessions` is the sessions view in a Jupyter kernel (`adk_nb.notebook.sessions_view`), else (and
  with `--table`) a DataFrame.
  """
  return await _agent_line(expand(line))


async def _agent_line(line: str) -> Any:
  words = shlex.split(line)
  if not words or words[0] not in _SUBCOMMANDS:
    raise UsageError("usage: %agent sessions|state|pending|resume|reset|tools [AGENT] [--session NAME] [--user ID]; "
                     "%agent export|import|delete|rename AGENT ...")
  command, names = words[0], words[1:]
  if command in ("export", "import", "delete", "rename"):  # the agent's sessions, managed (see _session_admin)
    from . import _session_admin

    if not names or names[0].startswith("-"):
      raise UsageError(f"usage: %agent {command} AGENT ...; name the agent first.")
    target = _lookup(_shell(), names[0])
    try:
      return await _session_admin.admin_command(registry.used(target) or registry.get(target), command, names[1:],
                                                names[0])
    except (ValueError, SessionBusyError) as exc:
      raise UsageError(str(exc)) from None
  session_id = None
  if command in ("pending", "resume") and "--session" in names:  # %agent pending|resume AGENT --session S
    at = names.index("--session")
    if at + 1 >= len(names):
      raise UsageError(f"usage: %agent {command} [AGENT] [--session NAME]")
    session_id = names[at + 1]
    del names[at:at + 2]
  session_user = None
  if command in ("pending", "resume") and "--user" in names:  # whose session --session names
    at = names.index("--user")
    if at + 1 >= len(names):
      raise UsageError(f"usage: %agent {command} [AGENT] [--session NAME] [--user ID]")
    session_user = names[at + 1]
    del names[at:at + 2]
  as_table = command == "sessions" and "--table" in names
  names = [n for n in names if not (as_table and n == "--table")]
  only_user = None
  if command == "sessions" and "--user" in names:  # one user's sessions
    at = names.index("--user")
    if at + 1 >= len(names):
      raise UsageError("usage: %agent sessions [AGENT] [--user ID] [--table]")
    only_user = names[at + 1]
    del names[at:at + 2]
  if len(names) > 1:
    raise UsageError(f"usage: %agent {command} [AGENT]")
  if command == "tools":  # the agent's structure only: it need not have run
    from .tools_view import tools_view

    if not names:
      raise UsageError("usage: %agent tools AGENT")
    target = _lookup(_shell(), names[0])
    agent = getattr(target, "root_agent", None) or getattr(target, "agent", None) or target  # an App or a Runner
    return await tools_view(agent)
  if names:
    target = _lookup(_shell(), names[0])
    # The store this agent last ran with (e.g. --store memory://), not the default one.
    entry = registry.used(target) or registry.get(target)
  elif registry.last is not None:
    entry = registry.last
  else:
    raise UsageError(f"No agent has run in this notebook yet; name one: %agent {command} AGENT")
  runner = entry.runner
  if command in ("pending", "resume"):  # searches the store: works after a kernel restart
    from . import _reopen

    try:
      if command == "resume":
        return await _reopen.reopen(entry, session_id, session_user)
      return await _reopen.pending_list(entry, session_id, session_user)
    except ValueError as exc:
      raise UsageError(str(exc)) from None
  if command == "reset":
    entry.session_id = None
    print(f"The next %%agent {entry.name} cell starts a new session.")
    return None
  if command == "sessions":  # with each session's status: paused, done, error or new
    if _can_draw_widgets() and not as_table:  # the view, where a front end can draw it; else the table
      from .sessions_view import sessions_view

      return await sessions_view(entry, names[0] if names else "", only_user)
    from ._session_admin import sessions_table

    return await sessions_table(entry, only_user)
  if entry.session_id is None:
    return {} if command == "state" else []
  session = await runner.session_service.get_session(app_name=runner.app_name, user_id=entry.user_id,
                                                     session_id=entry.session_id)
  if session is None:
    return {} if command == "state" else []
  return dict(session.state)


def _sync(coro: Any) -> Any:
  """Runs a line-magic coroutine from sync code (IPython's run_line_magic)."""
  if running_loop() is None:
    return run_sync(coro)
  try:
    coro.send(None)
  except StopIteration as done:
    return done.value
  coro.close()
  raise UsageError("Put %agent at the start of a line so the cell can await it (its store is asynchronous).")


def _display_graph(agent: Any) -> None:
  from IPython.display import display

  from .graph import graph_view

  display(graph_view(agent))


def load_ipython_extension(shell: Any) -> None:
  """`%load_ext adk_nb`: registers %%agent / %agent and the transformer that makes %%agent cells await."""
  from IPython.core.inputtransformer2 import leading_empty_lines

  shell.register_magics(AgentMagics)
  _parent_guard.install(shell)
  # A cell ending in an agent or workflow shows its graph.
  shell.display_formatter.ipython_display_formatter.for_type(BaseAgent, _display_graph)
  cleanup = shell.input_transformers_cleanup
  if transform_agent_cells not in cleanup:
    # Before IPython's prompt strippers, which would eat `>>> ` and `... ` in the user's message,
    # but after blank lines at the top are dropped, so `%%agent` may follow them.
    where = cleanup.index(leading_empty_lines) + 1 if leading_empty_lines in cleanup else 0
    cleanup.insert(where, transform_agent_cells)


def unload_ipython_extension(shell: Any) -> None:
  """`%unload_ext adk_nb`: removes the magics and the transformer."""
  cleanup = shell.input_transformers_cleanup
  while transform_agent_cells in cleanup:
    cleanup.remove(transform_agent_cells)
  shell.display_formatter.ipython_display_formatter.type_printers.pop(BaseAgent, None)
  magics = shell.magics_manager.magics
  for kind in ("line", "cell"):
    magics[kind].pop("agent", None)
  shell.magics_manager.registry.pop("AgentMagics", None)
