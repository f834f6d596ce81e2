"""The Runner: drives an agent for one user turn and commits each event before the agent resumes."""

from __future__ import annotations

import asyncio
import logging
import queue
import threading
from dataclasses import dataclass, field
from typing import Any, AsyncGenerator, Generator, Optional, Union

from google.genai import types

from .agents.base_agent import BaseAgent
from .agents import _callbacks
from .agents.invocation_context import InvocationContext, new_invocation_context_id
from .agents.llm_agent import LlmAgent
from .agents.run_config import RunConfig
from .apps.app import App
from .errors import SessionNotFoundError, StaleSessionError, event_error_code, traceback_text
from .events.event import Event
from .events.event_actions import EventActions
from .events.protocol import NESTED_ANSWER_KEY, TRACEBACK_KEY
from .plugins.base_plugin import BasePlugin
from .plugins.plugin_manager import PluginManager
from .sessions.base_session_service import BaseSessionService
from .sessions.in_memory_session_service import InMemorySessionService
from .sessions.json_form import convert_state_delta
from .pending import interrupted_answer, unanswered_calls
from .resume import Resume, match_answers
from .flows import active_task, has_rewind, waiting_call_ids, without_rewound
from .sessions.session import Session
from ._turn_stream import TurnHold, TurnStream
from .telemetry import tracing

logger = logging.getLogger("adk_nb.runners")


__all__ = ["InMemoryRunner", "Runner", "SessionNotFoundError"]


class Runner:
  """Runs an agent (or App) against a session store.

  Each non-partial event the agent yields is appended to the session (state delta applied)
  before the agent continues; partial (streamed) events are forwarded and never stored.
  """

  def __init__(
      self,
      *,
      app: Optional[App] = None,
      app_name: Optional[str] = None,
      agent: Optional[BaseAgent] = None,
      node: Any = None,
      plugins: Optional[list[BasePlugin]] = None,
      session_service: Optional[BaseSessionService] = None,
      artifact_service: Optional[Any] = None,
      memory_service: Optional[Any] = None,
      credential_service: Optional[Any] = None,
      auto_create_session: bool = False,
      plugin_close_timeout: float = 5.0,
  ):
    """Pass exactly one of `app`, `agent` (with `app_name`) or `node` (ADK 2.x: a Workflow, an agent
    or any BaseNode; `app_name` defaults to the node's name). `plugin_close_timeout` bounds each
    plugin's `close()` (seconds) when the runner closes."""
    given = [f"{label}={type(value).__name__}" for label, value in (("app", app), ("agent", agent), ("node", node))
             if value is not None]
    if len(given) > 1:
      raise ValueError(f"Only one of app, agent, or node may be provided, but got: {', '.join(given)}. "
                       "Pass exactly one to Runner().")
    if node is not None:
      from ._node_root import root_for_node

      app_name = app_name or getattr(node, "name", None)
      agent = root_for_node(node)
    if app is not None:
      if agent is not None:
        raise ValueError("Pass either app=... or agent=..., not both (the App already holds root_agent).")
      if plugins:
        raise ValueError("Register plugins on the App (App(plugins=[...])), not on the Runner, when passing app=.")
      self.app = app
      self.app_name = app_name or app.name
      self.agent = app.root_agent
      plugins = list(app.plugins)
    else:
      if agent is None:
        raise ValueError("Runner needs agent=... (with app_name=...), node=... or app=App(...). "
                         "Pass exactly one to Runner().")
      self.app = None
      self.agent = agent
      self.app_name = app_name or getattr(agent, "name", "app")
    if session_service is None:
      raise ValueError(
          "Runner needs session_service=...: InMemorySessionService() for a scratch run, or "
          "DatabaseSessionService('sqlite:///sessions.db') to keep sessions. InMemoryRunner sets one up."
      )
    self.session_service = session_service
    self.artifact_service = artifact_service
    self.memory_service = memory_service
    self.credential_service = credential_service
    self.plugin_manager = PluginManager(plugins, close_timeout=plugin_close_timeout)
    self.auto_create_session = auto_create_session
    self.context_cache_config = self.app.context_cache_config if self.app is not None else None
    """The App's context cache settings (None without an App or when it sets none)."""

  # ---- the async API ------------------------------------------------------------------------

  def run_async(
      self,
      *,
      user_id: str,
      session_id: str,
      invocation_id: Optional[str] = None,
      new_message: Optional[types.Content] = None,
      state_delta: Optional[dict[str, Any]] = None,
      run_config: Optional[RunConfig] = None,
      yield_user_message: bool = False,
      abort_signal: Optional[asyncio.Event] = None,
  ) -> AsyncGenerator[Event, None]:
    """Runs one turn and yields its events as they happen.

    `yield_user_message=True` also yields the committed user message first (ADK 2.x).
    `run_config.custom_metadata` is stamped on the user message's event.
    `abort_signal` (ADK 2.x): once the caller sets it, the run stops (the agent is cancelled where it
    waits) and the invocation is sealed: each of its tool calls left without an answer gets an
    error answer, or, when there is none, one event with `error_code='INVOCATION_ABORTED'` records
    the abort. Unlike google-adk 2.13, calls still waiting for a person (confirmations,
    long-running tools, input requests) stay pending: an abort never loses an approval.

    A message holding FunctionResponse parts that answer pending long-running calls (or
    `adk_request_confirmation` requests) resumes the paused invocation instead of
    starting a new one. Answering an unknown or already-answered call raises ValueError
    and commits nothing.

    A failure the model cannot fix (a tool or model exception no error callback answers, a
    missing `{state_var}`, an answer that fails output_schema, an agent's exception) yields a
    committed error event, `error_code` = the exception's class name, and then raises the
    exception itself, as google-adk does. A failing workflow node's own error event is that
    event: the Runner does not add a second one.

    The turn holds the session from before it writes or runs anything until it ends: a turn
    started on a session another turn is running on is refused with `SessionBusyError` (a
    `StaleSessionError`) and nothing is written. A run you stop reading (`break`) lets go of
    the session when the returned generator is dropped.
    """
    hold = TurnHold()
    return TurnStream(self._run_turn(hold, user_id=user_id, session_id=session_id, invocation_id=invocation_id,
                                     new_message=new_message, state_delta=state_delta, run_config=run_config,
                                     yield_user_message=yield_user_message, abort_signal=abort_signal),
                      hold)

  async def _run_turn(self, hold: TurnHold, *, user_id: str, session_id: str, invocation_id: Optional[str],
                      new_message: Optional[types.Content], state_delta: Optional[dict[str, Any]],
                      run_config: Optional[RunConfig], yield_user_message: bool = False,
                      abort_signal: Optional[asyncio.Event] = None) -> AsyncGenerator[Event, None]:
    """run_async's turn; its claim goes in `hold`, so that dropping the stream lets go of it."""
    session = await self._get_session(user_id, session_id)
    run_config = run_config or RunConfig()
    new_message, state_delta = _checked_input(session, new_message, state_delta)
    plan = self._plan_turn(session, new_message, invocation_id)
    ctx = self._new_context(plan, session, new_message, run_config)
    invocation_id, agent = plan.invocation_id, plan.agent
    pm = self.plugin_manager
    # Before anything is written or run: of two turns racing on this session, the loser is
    # refused here (SessionBusyError / StaleSessionError, nothing written). Released below.
    claim = hold.claim = await self.session_service.claim_turn(session, invocation_id)
    committed_before = len(session.events)
    span = tracing.invocation_span(ctx)
    failure: Optional[BaseException] = None
    try:
      async for event in self._commit_input(ctx, plan, new_message, state_delta, yield_user_message):
        yield event

      if pm.has("before_run_callback"):
        early = await pm.run("before_run_callback", invocation_context=ctx)
        if early is not None:
          event = Event(invocation_id=invocation_id, author=agent.name, content=early)
          await self.session_service.append_event(session, event)
          yield event
          return

      events = agent.run_async(ctx)
      if abort_signal is not None:
        from ._abort import until_aborted

        events = until_aborted(events, abort_signal)
      async for event in events:
        if pm.has("on_event_callback"):
          replaced = await pm.run("on_event_callback", invocation_context=ctx, event=event)
          if replaced is not None:
            event = replaced
        if not event.partial:
          await self.session_service.append_event(session, event)
        yield event
      async for event in self._end_invocation(ctx, aborted=abort_signal is not None and abort_signal.is_set()):
        yield event
    except Exception as exc:
      # As in ADK: the failure is recorded as an error event (committed, so the session shows
      # why the turn ended) and then raised to the caller. The session keeps everything
      # committed before it; calls the failure left unanswered are answered "Interrupted" when
      # the next run starts (_interrupted_answers), so the conversation continues with any provider.
      failure = exc
      if isinstance(exc, StaleSessionError):
        _tell_what_was_committed(exc, session.events[committed_before:], invocation_id)
      logger.debug("Run failed in invocation %s", invocation_id, exc_info=True)
      event = await self._record_failure(ctx, session, exc)
      if event is not None:
        yield event
      await _notify_run_error(pm, ctx, exc)
      raise
    finally:
      await claim.release()
      tracing.end_span(span, failure)
      # As in ADK: after_run_callback for a run that ended without error; a failed run's plugins
      # heard of it through on_run_error_callback.
      if failure is None and pm.has("after_run_callback"):
        try:
          await pm.run("after_run_callback", invocation_context=ctx)
        except Exception as exc:
          await _notify_run_error(pm, ctx, exc)
          raise

  async def _commit_input(self, ctx: InvocationContext, plan: _TurnPlan, new_message: Optional[types.Content],
                          state_delta: Optional[dict[str, Any]], yield_user_message: bool) -> AsyncGenerator[Event, None]:
    """Commits what the turn starts from, before the agent runs: answers for calls an earlier run
    left unanswered (yielded), then the user message (an `on_user_message_callback` may replace
    it; yielded only with `yield_user_message`, as in ADK the stream holds what agents produce) or,
    without one, the caller's state delta alone."""
    session, pm = ctx.session, self.plugin_manager
    continuing = waiting_call_ids(session, plan.invocation_id) if new_message is None else ()
    for event in self._interrupted_answers(session, plan.resume, plan.task_scope, continuing):
      await self.session_service.append_event(session, event)
      yield event
    if new_message is not None:
      if pm.has("on_user_message_callback"):
        replaced = await pm.run("on_user_message_callback", invocation_context=ctx, user_message=new_message)
        if replaced is not None:
          new_message = replaced
          ctx.user_content = replaced
      user_event = _user_event(plan, new_message, state_delta, ctx.run_config)
      await self.session_service.append_event(session, user_event)
      if yield_user_message:
        yield user_event
    elif state_delta:
      event = Event(invocation_id=plan.invocation_id, author="user",
                    actions=EventActions(state_delta=dict(state_delta)))
      await self.session_service.append_event(session, event)

  async def _end_invocation(self, ctx: InvocationContext, *, aborted: bool) -> AsyncGenerator[Event, None]:
    """After the agent's last event: an aborted invocation is sealed (its sealing events committed
    and yielded); otherwise the App's compaction runs (after the invocation, never during it, as
    google-adk; its event is appended, not yielded)."""
    session = ctx.session
    if aborted:
      from ._abort import seal_aborted

      for event in seal_aborted(session, ctx.invocation_id, self.agent.name, ctx.branch):
        await self.session_service.append_event(session, event)
        yield event
    elif self.app is not None and self.app.events_compaction_config is not None:
      from .apps.compaction import compact_after_invocation

      await compact_after_invocation(self.app, session, self.session_service)

  def _plan_turn(self, session: Session, new_message: Optional[types.Content],
                 invocation_id: Optional[str]) -> _TurnPlan:
    """Where this turn enters: a message answering paused calls resumes their invocation; a reply
    to a task-mode sub-agent that asked the user something continues the task's invocation,
    entering at its coordinator (google-adk 2.x); anything else starts a new invocation."""
    resume = self._match_answers(session, new_message) if new_message is not None else None
    if resume is not None:
      return _TurnPlan(resume.invocation_id, resume.agent, resume.branch, dict(resume.answers),
                       resume.nested_answer_ids, resume=resume)
    task = active_task(session.events) if new_message is not None else None
    if task is not None:
      return _TurnPlan(task.invocation_id, self.agent.find_agent(task.coordinator) or self.agent, task.branch,
                       task_scope=task.scope)
    return _TurnPlan(invocation_id or new_invocation_context_id(), self._find_agent_to_run(session))

  def _new_context(self, plan: _TurnPlan, session: Session, new_message: Optional[types.Content],
                   run_config: RunConfig) -> InvocationContext:
    """The invocation's context: this runner's services and the App's settings (none without an App)."""
    return InvocationContext(
        session_service=self.session_service,
        artifact_service=self.artifact_service,
        memory_service=self.memory_service,
        credential_service=self.credential_service,
        invocation_id=plan.invocation_id,
        branch=plan.branch,
        agent=plan.agent,
        user_content=new_message,
        session=session,
        run_config=run_config,
        plugin_manager=self.plugin_manager,
        resume_answers=plan.answers,
        resumed=plan.resume is not None,
        task_scope=plan.task_scope,
        **_app_settings(self.app),
    )

  async def _record_failure(self, ctx: InvocationContext, session: Session,
                            exc: BaseException) -> Optional[Event]:
    """Commits (when the store allows) and returns the error event of a failed run; None when
    the run already yielded one (a workflow node's, as in google-adk: one error event per failure)."""
    reported = _callbacks.reported_in(exc) == ctx.invocation_id
    origin = _callbacks.take_origin(exc)
    if reported:
      return None
    author, branch = origin if origin else ((ctx.agent or self.agent).name, ctx.branch)
    event = Event(invocation_id=ctx.invocation_id, author=author, branch=branch,
                  error_code=event_error_code(exc), error_message=str(exc),
                  custom_metadata={TRACEBACK_KEY: traceback_text(exc)})
    try:
      await self.session_service.append_event(session, event)
    except Exception:  # e.g. a stale session: the caller still gets the event and the exception
      logger.warning("Could not record the failure of invocation %s", ctx.invocation_id, exc_info=True)
    return event

  async def _get_session(self, user_id: str, session_id: str) -> Session:
    session = await self.session_service.get_session(app_name=self.app_name, user_id=user_id,
                                                     session_id=session_id)
    if session is None:
      if not self.auto_create_session:
        raise SessionNotFoundError(
            f"Session not found: {session_id!r} (app {self.app_name!r}, user {user_id!r}). Create it "
            "first with `await runner.session_service.create_session(app_name=..., user_id=..., "
            "session_id=...)`, or pass auto_create_session=True to the Runner."
        )
      session = await self.session_service.create_session(app_name=self.app_name, user_id=user_id,
                                                          session_id=session_id)
    return session

  # ---- which agent runs -----------------------------------------------------------------------

  def _find_agent_to_run(self, session: Session) -> BaseAgent:
    """The agent that answered last, if transfer back up the tree is allowed; else the root."""
    root = self.agent
    if not any(_transferable_across_tree(a) for a in _descendants(root)):
      return root  # e.g. a workflow root: nobody else can keep the conversation, no need to scan
    events = session.events
    if has_rewind(events):
      events = without_rewound(events)  # a rewound turn's agent no longer holds the conversation
    for event in reversed(events):
      if event.author == "user" or not event.author:
        continue
      if (event.actions.agent_state is not None or event.actions.end_of_agent
          or (event.error_code and not event.content)):
        continue  # checkpoints, end markers and error reports say nothing about who is talking
      if event.author == root.name:
        return root
      agent = root.find_sub_agent(event.author)
      if agent is None:
        continue
      if _transferable_across_tree(agent):
        return agent
      # As in google-adk: keep looking back for an agent that may keep the conversation.
    return root

  @staticmethod
  def _interrupted_answers(session: Session, resume: Optional[Resume], waiting_task: Optional[str] = None,
                           continuing: Any = ()) -> list[Event]:
    """Answers for calls an earlier run left unanswered (it was killed or cancelled mid-call).

    Recorded before the new turn so no model ever receives a call without its answer, and the
    model is told the outcome is unknown rather than left to guess. The coordinator's call of a
    task waiting for the user (`waiting_task`, its id) is not one: the new message continues it; nor
    are the calls of an edited step this run continues from (`continuing`: their ids; flows/_edit.py).
    """
    out = []
    for event, calls in unanswered_calls(session.events, resume.paused if resume else ()):
      calls = [c for c in calls if c.id != waiting_task and c.id not in continuing]
      if calls:
        out.append(interrupted_answer(event, calls))
    return out

  @staticmethod
  def _should_append_event(event: Event, is_live_call: bool) -> bool:
    """Whether the session keeps `event` (google-adk's rule): everything but the audio, video or
    image bytes a model streams in a live run. adk_nb has no live runs, so it keeps every event."""
    if not is_live_call or event.author == "user" or not event.content:
      return True
    return not any(p.inline_data is not None and (p.inline_data.mime_type or "").startswith(("audio/", "video/", "image/"))
                   for p in event.content.parts or [])

  def _match_answers(self, session: Session, message: types.Content) -> Optional[Resume]:
    """The paused invocation `message` resumes, or None (see `adk_nb.resume.match_answers`)."""
    return match_answers(self.agent, session, message)

  # ---- sync and convenience APIs -------------------------------------------------------------

  def run(
      self,
      *,
      user_id: str,
      session_id: str,
      new_message: Optional[types.Content] = None,
      state_delta: Optional[dict[str, Any]] = None,
      run_config: Optional[RunConfig] = None,
  ) -> Generator[Event, None, None]:
    """The sync form of run_async, safe inside a running event loop (a notebook cell).

    The run goes to a separate thread that runs a new event loop, as in ADK, so the
    caller's loop is never patched or re-entered.
    """
    out: "queue.Queue[Any]" = queue.Queue()
    done = object()

    async def consume() -> None:
      async for event in self.run_async(user_id=user_id, session_id=session_id, new_message=new_message,
                                         state_delta=state_delta, run_config=run_config):
        out.put(event)

    def worker() -> None:
      try:
        asyncio.run(consume())
      except BaseException as exc:  # surfaced in the caller's thread
        out.put(exc)
      finally:
        out.put(done)

    thread = threading.Thread(target=worker, name="adk_nb-runner", daemon=True)
    thread.start()
    while True:
      item = out.get()
      if item is done:
        break
      if isinstance(item, BaseException):
        raise item
      yield item
    thread.join()

  async def run_debug(
      self,
      user_messages: Union[str, list[str]],
      *,
      user_id: str = "debug_user_id",
      session_id: str = "debug_session_id",
      run_config: Optional[RunConfig] = None,
      quiet: bool = False,
      verbose: bool = False,
  ) -> list[Event]:
    """Quick trial: sends each message in one session (created if needed), prints replies, returns events."""
    if isinstance(user_messages, str):
      user_messages = [user_messages]
    session = await self.session_service.get_session(app_name=self.app_name, user_id=user_id,
                                                     session_id=session_id)
    if session is None:
      await self.session_service.create_session(app_name=self.app_name, user_id=user_id, session_id=session_id)
    events: list[Event] = []
    for message in user_messages:
      if not quiet:
        print(f"\nUser > {message}")
      content = types.Content(role="user", parts=[types.Part(text=message)])
      async for event in self.run_async(user_id=user_id, session_id=session_id, new_message=content,
                                         run_config=run_config):
        if event.author != "user":
          events.append(event)
        if quiet or event.partial or event.author == "user":
          continue
        if event.error_code:
          print(f"{event.author} ! {event.error_code}: {event.error_message}")
        if event.content and event.content.parts:
          for part in event.content.parts:
            if part.text and not part.thought:
              print(f"{event.author} > {part.text}")
            elif verbose and part.function_call:
              print(f"{event.author} > [call] {part.function_call.name}({part.function_call.args})")
            elif verbose and part.function_response:
              print(f"{event.author} > [result] {part.function_response.name} -> {part.function_response.response}")
    return events

  # ---- time travel (logic in sessions/_rewind_utils.py and sessions/fork.py) ----------------

  async def rewind_async(
      self,
      *,
      user_id: str,
      session_id: str,
      rewind_before_invocation_id: str,
      run_config: Optional[RunConfig] = None,
  ) -> None:
    """Rewinds the session to before invocation `rewind_before_invocation_id` (google-adk's API).

    Appends one event (author 'user', `actions.rewind_before_invocation_id` set) that puts the
    session's state and session artifacts back as they were before that invocation; `user:` and
    `app:` state and `user:` artifacts are shared and stay. Nothing is deleted: the rewound events
    stay in the history, and no later model request contains them. State given at
    `create_session` survives (beyond google-adk 2.13, which clears it). An unknown id raises
    `InvocationNotFoundError` (a ValueError) and writes nothing. `run_config` is accepted for
    google-adk's signature; its `get_session_config` is ignored (a rewind reads the whole history).
    """
    from .sessions import _rewind_utils

    if run_config is not None and getattr(run_config, "get_session_config", None):
      logger.warning("rewind_async ignores run_config.get_session_config: it reads the whole history")
    session = await self._get_session(user_id, session_id)
    await _rewind_utils.rewind_session(session_service=self.session_service, session=session,
                                       rewind_before_invocation_id=rewind_before_invocation_id,
                                       artifact_service=self.artifact_service, app_name=self.app_name)

  async def fork_async(
      self,
      *,
      user_id: str,
      session_id: str,
      before_invocation_id: Optional[str] = None,
      new_session_id: Optional[str] = None,
      at_event_id: Optional[str] = None,
      replace_with: Union[Event, types.Content, None] = None,
  ) -> Session:
    """A new session of this app and user that starts as `session_id` stood before invocation
    `before_invocation_id` (all of it when None); the original is never touched.

    Edit and continue: `at_event_id=E, replace_with=X` puts X (an Event, or a Content with the
    edited parts) in E's place; then `run_async(user_id=..., session_id=fork.id,
    invocation_id=E.invocation_id)` continues E's invocation from the edit. Where the fork came
    from: `adk_nb.sessions.fork.lineage(fork)`. See `adk_nb.sessions.fork.fork_session`.
    """
    from .sessions.fork import fork_session

    return await fork_session(self.session_service, app_name=self.app_name, user_id=user_id, session_id=session_id,
                              before_invocation_id=before_invocation_id, new_session_id=new_session_id,
                              at_event_id=at_event_id, replace_with=replace_with,
                              artifact_service=self.artifact_service)

  async def close(self) -> None:
    """Closes the agent tree's toolsets (MCP sessions, server processes), plugins and services."""
    await close_toolsets(self.agent)
    await self.plugin_manager.close()
    close = getattr(self.session_service, "close", None)
    if close is not None:
      await close()


async def close_toolsets(agent: BaseAgent) -> None:
  """Closes every toolset of `agent` and its sub-agents once; a failing close is logged, not raised."""
  seen: set[int] = set()
  stack = [agent]
  while stack:
    node = stack.pop()
    if id(node) in seen:
      continue
    seen.add(id(node))
    stack.extend(node.sub_agents)
    for tool in getattr(node, "tools", ()):
      inner = getattr(tool, "agent", None)  # AgentTool: its agent's toolsets are ours to close too
      if isinstance(inner, BaseAgent):
        stack.append(inner)
    for toolset in getattr(node, "toolsets", ()):
      if id(toolset) in seen:
        continue
      seen.add(id(toolset))
      try:
        await toolset.close()
      except Exception:  # noqa: BLE001 - one broken toolset must not keep the others open
        logger.warning("Closing toolset %r of agent %r failed", toolset, node.name, exc_info=True)


def _descendants(agent: BaseAgent):
  return agent._descendants()  # depth first; a loop in sub_agents is a ValueError naming it


def _transferable_across_tree(agent: BaseAgent) -> bool:
  """True when `agent` and every ancestor up to the root are LlmAgents that allow transfer to the parent."""
  node: Optional[BaseAgent] = agent
  while node is not None:
    if not isinstance(node, LlmAgent) or node.disallow_transfer_to_parent:
      return False
    node = node.parent_agent
  return True


async def _notify_run_error(pm: PluginManager, ctx: InvocationContext, error: Exception) -> None:
  """Tells the plugins a run failed; a plugin that raises is logged, never hides `error`."""
  if not pm.has("on_run_error_callback"):
    return
  try:
    await pm.run("on_run_error_callback", invocation_context=ctx, error=error)
  except Exception:  # noqa: BLE001 - a notification must not replace the run's own error
    logger.exception("on_run_error_callback raised; the run's error is raised instead")


def _tell_what_was_committed(exc: StaleSessionError, committed: list[Event], invocation_id: str) -> None:
  """Makes a mid-turn refusal say what the turn had already committed (its "nothing was written"
  is about the refused event only). A turn holds its session, so this happens only when a writer
  outside the turns (a direct append_event, a state edit, or a shared `app:` / `user:` key) wrote."""
  if not committed:
    return
  calls = [c.name for e in committed for c in e.get_function_calls()]
  answered = [r.name for e in committed if e.author != "user" for r in e.get_function_responses()]
  ran = f"; the tools that answered ({', '.join(answered)}) ran and their results are stored" if answered else ""
  made = f"; calls made: {', '.join(calls)}" if calls else ""
  said = str(exc.args[0] if exc.args else exc).replace("(nothing was written)", "(that event was not written)")
  exc.args = (f"{said} This turn (invocation {invocation_id!r}) had already "
              f"committed {len(committed)} event(s) before it, which stay in the session{made}{ran}. "
              "Any call left without an answer is answered as interrupted (it may have run) when the "
              "session's next turn starts.",) + tuple(exc.args[1:])


@dataclass
class _TurnPlan:
  """Where a turn enters (Runner._plan_turn): the invocation, the agent that runs first and its
  branch, the answers a resume delivers, and the task scope a task's reply continues in."""
  invocation_id: str
  agent: BaseAgent
  branch: Optional[str] = None
  answers: dict[str, Any] = field(default_factory=dict)
  nested_answers: list[str] = field(default_factory=list)
  resume: Optional[Resume] = None
  task_scope: Optional[str] = None


def _app_settings(app: Optional[App]) -> dict[str, Any]:
  """The InvocationContext fields an App sets (none without one: the context's defaults hold)."""
  if app is None:
    return {}
  resumability = app.resumability_config
  return {"resumability_config": resumability, "context_cache_config": app.context_cache_config,
          "events_compaction_config": app.events_compaction_config,
          "is_resumable": bool(resumability is not None and resumability.is_resumable)}


def _checked_input(session: Session, message: Optional[types.Content],
                   state_delta: Optional[dict[str, Any]]) -> tuple[Optional[types.Content], Optional[dict[str, Any]]]:
  """The turn's message (answer ids filled in) and state delta (JSON form), checked before the
  turn starts, so "nothing was written" holds: a bad one raises without an error event."""
  if message is not None and not isinstance(message, types.Content):
    raise TypeError(
        "new_message must be a google.genai.types.Content, e.g. "
        "types.Content(role='user', parts=[types.Part(text='hi')])."
    )
  if state_delta:
    state_delta = convert_state_delta(state_delta)
  if message is not None:
    message = _fill_answer_ids(session, message)
  return message, state_delta


def _user_event(plan: _TurnPlan, message: types.Content, state_delta: Optional[dict[str, Any]],
                run_config: RunConfig) -> Event:
  """The turn's user event: the message, the caller's state delta, the ids of nested answers it
  carries and `run_config.custom_metadata`."""
  metadata = {NESTED_ANSWER_KEY: plan.nested_answers} if plan.nested_answers else None
  if run_config.custom_metadata:
    metadata = {**run_config.custom_metadata, **(metadata or {})}
  return Event(invocation_id=plan.invocation_id, author="user", content=message, isolation_scope=plan.task_scope,
               actions=EventActions(state_delta=dict(state_delta or {})), custom_metadata=metadata)


def _fill_answer_ids(session: Session, message: types.Content) -> types.Content:
  """The message with an id on each FunctionResponse that has none but names exactly one pending
  long-running call (as google-adk matches them); other parts are left as they are."""
  parts = message.parts or []
  if not any(p.function_response is not None and not p.function_response.id for p in parts):
    return message
  from .pending import interim_answered_calls, pending_items

  waiting = [i for i in pending_items(session.events) if i.kind != "confirmation"]
  waiting += list(interim_answered_calls(session.events).values())
  by_name: dict[str, set[str]] = {}
  for item in waiting:
    by_name.setdefault(item.tool, set()).add(item.call_id)
  filled = []
  for part in parts:
    fr = part.function_response
    if fr is not None and not fr.id:
      ids = by_name.get(fr.name or "", set())
      if len(ids) == 1:  # otherwise left as is: matching it raises AnswerWithoutIdError, naming the fix
        part = part.model_copy(update={"function_response": fr.model_copy(update={"id": next(iter(ids))})})
    filled.append(part)
  return message.model_copy(update={"parts": filled})


class InMemoryRunner(Runner):
  """A Runner with in-memory session, artifact and memory services, for quick trials and tests."""

  def __init__(
      self,
      agent: Optional[BaseAgent] = None,
      *,
      app_name: Optional[str] = None,
      plugins: Optional[list[BasePlugin]] = None,
      app: Optional[App] = None,
      node: Any = None,
      auto_create_session: bool = False,
      plugin_close_timeout: float = 5.0,
  ):
    """Exactly one of `agent`, `app` or `node` (ADK 2.x); `app_name` defaults to 'InMemoryRunner'."""
    artifact_service = memory_service = None
    try:
      from .artifacts import InMemoryArtifactService

      artifact_service = InMemoryArtifactService()
    except ImportError:
      pass
    try:
      from .memory import InMemoryMemoryService

      memory_service = InMemoryMemoryService()
    except ImportError:
      pass
    super().__init__(
        app=app,
        app_name=app_name or (None if app else "InMemoryRunner"),
        agent=agent,
        node=node,
        plugins=plugins,
        session_service=InMemorySessionService(),
        artifact_service=artifact_service,
        memory_service=memory_service,
        auto_create_session=auto_create_session,
        plugin_close_timeout=plugin_close_timeout,
    )
