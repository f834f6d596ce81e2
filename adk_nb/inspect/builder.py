"""One model of a run: events (and progress points) folded once into typed, time-ordered steps.

Every view of a run reads the steps built here: the notebook's live tree and its static
HTML, `LiveRun.trajectory()`, the chat, the timeline. The label of each kind lives in
`step.LABELS`, so no two views can name a step differently.

    builder = StepBuilder()
    for event in session.events:
      builder.add_event(event)
    builder.steps          # {id: Step}, in the order they began

The tree is: invocation > agent (inside workflow containers: sequential, parallel with one
lane per branch, loop > iteration n, workflow node) > model call > tool call > approval.
Live runs also feed `progress` points (agent start and end, model call start and end, from
`adk_nb.telemetry.progress`), which give containers, loop iterations and the model's own
latency; without them (a stored session) the same tree is built from events alone, with
latencies measured between events.
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from collections import deque
from dataclasses import dataclass
from typing import Any, Optional, Sequence

from google.genai import types

from ..events.event import Event
from ..events.protocol import (PROTOCOL_CALLS, REQUEST_CONFIRMATION, REQUEST_INPUT, confirmation_request,
                               error_traceback, is_start_marker)
from .changelog import StepLog
from .step import CONTAINER_KINDS, Step
from .text import jsonable, readable_hint, short_args, to_json_text

KEEP_REQUESTS = 500
"""Model requests kept (by reference) for the detail panel: those of the latest model calls."""



@dataclass(slots=True)
class _LoopIteration:
  """A loop step's current iteration: its step, the index of the sub-agent that ran last in it, its number."""
  step_id: str
  last_child: int
  n: int


class StepBuilder(StepLog):
  """Folds a run's events and progress points into Steps, and logs each change for live views (see StepLog)."""

  def __init__(self) -> None:
    super().__init__()
    self._invocations: dict[str, str] = {}     # invocation id -> step id
    self._unbound: Optional[str] = None        # an invocation step shown before its id was known
    self._active: dict[tuple[str, str], str] = {}   # (invocation, agent name) -> its current step
    self._last_author: dict[tuple[str, str], str] = {}  # (invocation, branch) -> author of the last event
    self._last_time: dict[tuple[str, str], float] = {}  # (invocation, branch) -> time of the last event
    self._loops: dict[str, _LoopIteration] = {}  # loop step id -> its current iteration
    self._approval_of: dict[str, str] = {}      # tool call id -> its approval step
    self._original_of: dict[str, str] = {}      # approval step -> the tool call id it is about
    self._live_models: set[str] = set()         # event ids of model calls announced by progress
    self._with_request: deque[Step] = deque()
    self._seen: list[Event] = []               # the events seen, but compaction markers (in time order)
    self._open_code: dict[tuple[str, str], str] = {}  # (invocation, author) -> code step awaiting its output
    self._streaming: tuple[str, Optional[Step]] = ("", None)  # the event id chunks are streaming for, its step

  # ---- structure -----------------------------------------------------------------------------

  def _invocation(self, invocation_id: str, when: Optional[float]) -> Step:
    inv = invocation_id or "-"
    step_id = self._invocations.get(inv)
    if step_id is not None:
      return self.steps[step_id]
    if self._unbound is not None:
      step = self.steps[self._unbound]
      self._unbound = None
      self._invocations[inv] = step.id
      self._set(step, title=f"invocation {inv[:12]}", invocation_id=inv)
      return step
    step = self._add(Step(id=self._key_id("inv", inv), kind="invocation", parent=None, title=f"invocation {inv[:12]}",
                          t0=when, invocation_id=inv, status="running"))
    self._invocations[inv] = step.id
    return step

  def begin(self, message: Optional[types.Content], state_delta: Optional[dict[str, Any]], when: float,
            invocation_id: Optional[str] = None) -> None:
    """Shows at once what a run (or resume) was started with: the user's message, answers, state.

    The Runner stores this message without yielding it, so a live view would otherwise show
    nothing until the first model call ends.
    """
    if invocation_id:
      inv = self._invocation(invocation_id, when)
    else:
      inv = self._add(Step(id=self._new_id("inv"), kind="invocation", parent=None, title="invocation",
                           t0=when, status="running"))
      self._unbound = inv.id
    if inv.status != "running":
      self._set(inv, status="running", t1=None)
    self._user(inv, message, state_delta, when, "")

  def _user(self, inv: Step, content: Optional[types.Content], state_delta: Optional[dict[str, Any]],
            when: float, event_id: str) -> None:
    answered = False
    event_id = event_id or self._new_id("message")  # ties the message to its state delta
    self._last_time[(inv.invocation_id, "*")] = when
    for part in (content.parts or []) if content is not None else []:
      if part.function_response is not None:
        answered = True
        response = part.function_response
        self._answer(response.id, response.name, response.response, when)
    text = "".join(p.text or "" for p in content.parts or [] if not p.thought) if content is not None else ""
    if text or (content is not None and not answered):
      self._add(Step(id=self._new_id("user"), kind="user", parent=inv.id, title="user", text=text, t0=when,
                     invocation_id=inv.invocation_id, author="user", event_id=event_id))
    if state_delta:
      self._state(inv.id, state_delta, when, inv.invocation_id, "user", event_id)

  def _state(self, parent: str, delta: dict[str, Any], when: float, invocation_id: str, author: str,
             event_id: str) -> None:
    self._add(Step(id=self._new_id("state"), kind="state", parent=parent, title="state " + ", ".join(sorted(delta)),
                   text=to_json_text(delta, indent=2), t0=when, invocation_id=invocation_id, author=author,
                   event_id=event_id, state_delta=dict(delta)))

  def agent_started(self, invocation_id: str, agent: Any, branch: Optional[str], when: float) -> None:
    """An agent began (a progress point): a new step for this activation, inside its container."""
    inv = self._invocation(invocation_id, when)
    resumed = self.steps.get(self._active.get((inv.invocation_id, agent.name), ""))
    if resumed is not None and resumed.status == "paused":
      # A resume goes on in the same activation (a workflow under the same node paths): one step, one
      # run in the graph, and no step left saying "paused" once the run has moved on.
      self._set(resumed, status="running", t1=None)
      loop = self._loops.get(resumed.id)
      if loop is not None and self.steps[loop.step_id].status == "paused":
        self._set(self.steps[loop.step_id], status="running", t1=None)
      return
    parent_agent = getattr(agent, "parent_agent", None)
    parent_id = self._active.get((inv.invocation_id, parent_agent.name)) if parent_agent is not None else None
    parent = self.steps[parent_id] if parent_id is not None else inv
    if parent.kind == "loop":
      parent = self._iteration(parent, parent_agent, agent, when)
    kind = getattr(agent, "step_kind", "agent")  # the class says (BaseAgent.step_kind), so subclasses keep it
    step = self._add(Step(id=self._new_id("agent"), kind=kind, parent=parent.id, title=agent.name, t0=when,
                          status="running", invocation_id=inv.invocation_id, author=agent.name,
                          branch=branch or ""))
    self._active[(inv.invocation_id, agent.name)] = step.id
    self._last_author[(inv.invocation_id, branch or "")] = agent.name

  def _iteration(self, loop: Step, loop_agent: Any, child: Any, when: float) -> Step:
    index = next((i for i, a in enumerate(loop_agent.sub_agents) if a is child), 0)
    current = self._loops.get(loop.id)
    if current is None or index <= current.last_child:
      # The loop came back to its first sub-agent (or one before the last that ran): a new iteration.
      n = 1 if current is None else current.n + 1
      if current is not None:
        self._set(self.steps[current.step_id], t1=when, status="done")
      step = self._add(Step(id=self._new_id("iter"), kind="iteration", parent=loop.id, title=f"iteration {n}",
                            t0=when, status="running", invocation_id=loop.invocation_id, branch=loop.branch))
      current = self._loops[loop.id] = _LoopIteration(step.id, index, n)
    current.last_child = index
    return self.steps[current.step_id]

  def agent_ended(self, invocation_id: str, agent: Any, when: float, paused: bool, error: Optional[str]) -> None:
    """An agent finished (a progress point): its step gets an end time and a status."""
    step_id = self._active.get((invocation_id or "-", agent.name))
    if step_id is None:
      return
    step = self.steps[step_id]
    status = "error" if error else "paused" if paused else "done"
    self._set(step, t1=when, status=status)
    loop = self._loops.get(step.id)
    if loop is not None:
      self._set(self.steps[loop.step_id], t1=when, status=status)

  def _agent(self, invocation_id: str, author: str, branch: Optional[str], when: float) -> Step:
    """The step of the agent activation that spoke (made here when no progress point announced it)."""
    inv = self._invocation(invocation_id, when)
    key = (inv.invocation_id, author)
    lane = (inv.invocation_id, branch or "")
    step_id = self._active.get(key)
    last = self._last_author.get(lane)
    self._last_author[lane] = author
    if step_id is not None and (last is None or last == author or self.steps[step_id].status == "running"):
      return self.steps[step_id]
    # No progress point: a new activation whenever another agent spoke in between on this branch.
    step = self._add(Step(id=self._new_id("agent"), kind="agent", parent=inv.id, title=author, t0=when,
                          invocation_id=inv.invocation_id, author=author, branch=branch or ""))
    self._active[key] = step.id
    return step

  # ---- workflows ------------------------------------------------------------------------------

  def _workflow_node(self, event: Event) -> Step:
    """The step of the workflow node run that produced `event`, found by its node path (`wf@1/child@2`).

    Each path segment is one step: the root (`wf@1`) is the workflow, nested segments are
    nodes inside it. An agent run as a node, announced by a progress point before its first
    event, becomes that node's step, so its model calls stay inside it.
    """
    inv = self._invocation(event.invocation_id, event.timestamp)
    info = event.node_info
    step = self._node_at(inv, info.path, event)
    if event.partial:
      return step
    output = getattr(event, "output", None)
    if output is not None:
      self._set(step, status="ok", t1=event.timestamp, result=jsonable(output), text=to_json_text(output, indent=2))
    elif info.message_as_output and event.text and event.author != "user":
      self._set(step, status="ok", t1=event.timestamp)
    elif event.error_code:
      self._set(step, status="error", t1=event.timestamp)
    for path in info.output_for or ():
      done = self._find("node", (inv.invocation_id, path))
      if done is not None and done is not step and done.kind in ("node", "workflow") and done.status != "paused":
        self._set(done, status="ok", t1=event.timestamp)
    return step

  def _node_at(self, inv: Step, path: str, event: Event) -> Step:
    node = (inv.invocation_id, path)
    step = self._find("node", node)
    if step is not None:
      return step
    parent_path, _, segment = path.rpartition("/")
    name = segment.rsplit("@", 1)[0]
    parent = self._node_at(inv, parent_path, event) if parent_path else None
    active = self.steps.get(self._active.get((inv.invocation_id, name), ""))
    if active is not None and not active.path and (parent is None or active.parent == parent.id):
      self._bind("node", node, active.id)
      if parent is None:
        self._set(active, path=path, kind="workflow")
      else:
        self._set(active, path=path, title=segment, kind="node" if active.kind == "agent" else active.kind)
      return active
    root = parent is None
    step = self._add(Step(id=self._key_id("node", node), kind="workflow" if root else "node", parent=(parent or inv).id,
                          title=name if root else segment, t0=event.timestamp, status="" if root else "running",
                          invocation_id=inv.invocation_id, author=name if root else event.author,
                          branch="" if root else event.branch or "", path=path))
    if root:
      self._active[(inv.invocation_id, name)] = step.id
    return step

  # ---- model calls ---------------------------------------------------------------------------

  def model_started(self, invocation_id: str, agent: str, branch: Optional[str], event_id: str, model: str,
                    request: Any, when: float) -> None:
    """A model call began (a progress point): shown at once, running."""
    parent = self._agent(invocation_id, agent, branch, when)
    self._live_models.add(event_id)
    step = self._find("model", event_id)
    if step is None:
      step = self._add(Step(id=self._key_id("model", event_id), kind="model_call", parent=parent.id,
                            title=model or "model", t0=when,
                            status="running", invocation_id=parent.invocation_id, author=agent, branch=branch or "",
                            model=model, event_id=event_id, request=request))
      # Requests are kept by reference for the detail panel; the oldest let go so memory stays bounded.
      self._with_request.append(step)
      if len(self._with_request) > KEEP_REQUESTS:
        self._with_request.popleft().request = None

  def model_ended(self, event_id: str, when: float) -> None:
    """A model call's response arrived (a progress point): the call's own latency ends here."""
    step = self._find("model", event_id)
    if step is not None and step.t1 is None:
      self._set(step, t1=when)

  # ---- events --------------------------------------------------------------------------------

  def add_event(self, event: Event) -> None:
    """Folds one event (partial chunks grow their model call's text in place)."""
    if event.partial and event.id == self._streaming[0]:
      # The next chunk of the answer streaming now: only its text is new.
      text = event.text
      if text:
        self._append_text(self._streaming[1], text)
      return
    if is_start_marker(event):
      return  # the at-most-once marker is bookkeeping, not a step
    if event.actions.compaction is not None:
      self._compaction(event)
      return
    if not event.partial:
      self._seen.append(event)
    in_workflow = event.node_info is not None and bool(event.node_info.path)
    if event.author == "user":
      # Inside a workflow a user-authored event is a node's input: shown inside that node.
      where = self._workflow_node(event) if in_workflow else self._invocation(event.invocation_id, event.timestamp)
      self._user(where, event.content, event.actions.state_delta, event.timestamp, event.id)
      return
    if in_workflow:
      agent = self._workflow_node(event)  # inside a Workflow, steps live under their node path
    else:
      agent = self._agent(event.invocation_id, event.author, event.branch, event.timestamp)
    lane = (agent.invocation_id, event.branch or "")
    previous = self._last_time.get(lane) or self._last_time.get((agent.invocation_id, "*")) or agent.t0
    if not event.partial:
      self._last_time[lane] = self._last_time[(agent.invocation_id, "*")] = event.timestamp
    model = self._model_call(event, agent, previous)
    parent = model or agent
    if event.partial:
      return
    self._parts(event, parent)
    self._calls(event, parent)
    text = event.text
    if text and model is None:
      self._add(Step(id=self._key_id("text", event.id), kind="text", parent=agent.id, title=event.author, text=text,
                     t0=event.timestamp, invocation_id=agent.invocation_id, author=event.author,
                     branch=event.branch or "", event_id=event.id))
    self._actions(event, agent, error_shown=model is not None)

  def _calls(self, event: Event, parent: Step) -> None:
    """The tool calls `event` makes (steps under `parent`) and the answers it carries (to their calls)."""
    for call in event.get_function_calls():
      self._call(event, call, parent)
    waiting = event.actions.requested_tool_confirmations or {}
    for response in event.get_function_responses():
      if response.id in waiting:
        step = self._find("call", response.id)
        if step is not None:
          self._set(step, status="needs approval", t1=event.timestamp)
        continue
      self._answer(response.id, response.name, response.response, event.timestamp)

  def _actions(self, event: Event, agent: Step, error_shown: bool) -> None:
    """What `event` does beside its content, as steps under its agent: a transfer, an escalation, a
    state change, and its error (unless `error_shown`: the model call's step already shows it)."""
    actions = event.actions
    common = {"t0": event.timestamp, "invocation_id": agent.invocation_id, "author": event.author,
              "branch": event.branch or "", "event_id": event.id}
    if actions.transfer_to_agent:
      self._add(Step(id=self._key_id("transfer", event.id), kind="transfer", parent=agent.id,
                     title=f"transfer to {actions.transfer_to_agent}", text=actions.transfer_reason or "", **common))
    if actions.escalate:
      self._add(Step(id=self._key_id("escalate", event.id), kind="escalate", parent=agent.id, title="escalate",
                     **common))
    if actions.state_delta:
      self._state(agent.id, actions.state_delta, event.timestamp, agent.invocation_id, event.author, event.id)
    if (event.error_code or event.error_message) and not error_shown:
      self._add(Step(id=self._key_id("error", event.id), kind="error", parent=agent.id,
                     title=f"error {event.error_code or ''}".strip(), text=event.error_message or "",
                     status="error", traceback=error_traceback(event), **common))

  def _model_call(self, event: Event, agent: Step, previous: Optional[float]) -> Optional[Step]:
    """The model call `event` is the response of (None for other events: tool results, custom agents)."""
    step = self._find("model", event.id)
    if step is None:
      if event.id not in self._live_models and not _looks_like_model_output(event):
        return None
      step = self._add(Step(id=self._key_id("model", event.id), kind="model_call", parent=agent.id,
                            title=event.model_version or "model", t0=previous, invocation_id=agent.invocation_id,
                            author=event.author, branch=event.branch or "", model=event.model_version or "",
                            event_id=event.id, status="streaming" if event.partial else ""))
    text = event.text
    if event.partial:
      if text:
        if step.status != "streaming":
          self._set(step, status="streaming")
        self._append_text(step, text)
        self._streaming = (event.id, step)
      return step
    fields: dict[str, Any] = {"status": "error" if event.error_code else "ok"}
    if step.t1 is None:
      fields["t1"] = event.timestamp
    if event.error_code or event.error_message:
      text = f"{event.error_code or 'error'}: {event.error_message or ''}".strip()
    if text != step.text:
      fields["text"] = text or ""
    usage = event.usage_metadata
    if usage is not None:
      fields["tokens"] = (usage.prompt_token_count, usage.candidates_token_count)
    if event.finish_reason is not None:
      fields["finish"] = str(getattr(event.finish_reason, "value", event.finish_reason))
    if event.model_version and not step.model:
      fields["model"] = event.model_version
      fields["title"] = event.model_version
    grounding = event.grounding_metadata
    if grounding is not None:
      sources = [(chunk.web.title or chunk.web.uri or "", chunk.web.uri or "")
                 for chunk in grounding.grounding_chunks or [] if chunk.web is not None]
      fields["sources"] = sources or None
      fields["queries"] = list(grounding.web_search_queries or []) or None
    if event.cache_metadata is not None:
      fields["cache"] = _cache_line(event.cache_metadata)
    self._set(step, **fields)
    return step

  def _parts(self, event: Event, parent: Step) -> None:
    """Thoughts (folded), code the model wrote and its output: steps under the model call that made them."""
    parts = event.content.parts or [] if event.content is not None else []
    common = {"t0": event.timestamp, "invocation_id": parent.invocation_id, "author": event.author,
              "branch": event.branch or "", "event_id": event.id}
    thoughts = "\n\n".join(p.text for p in parts if p.thought and p.text)
    if thoughts:
      self._add(Step(id=self._key_id("thought", event.id), kind="thought", parent=parent.id, title="thoughts",
                     text=thoughts, **common))
    lane = (parent.invocation_id, event.author)
    for index, part in enumerate(parts):
      if part.executable_code is not None:
        code = part.executable_code
        language = str(getattr(code.language, "value", code.language) or "code").lower()
        step = self._add(Step(id=self._key_id("code", (event.id, index)), kind="code", parent=parent.id,
                              title=language, text=code.code or "", status="running", **common))
        self._open_code[lane] = step.id
      elif part.code_execution_result is not None:
        outcome = part.code_execution_result
        ok = str(getattr(outcome.outcome, "value", outcome.outcome)) == "OUTCOME_OK"
        status = "ok" if ok else "error"
        step = self.steps.get(self._open_code.pop(lane, ""))
        if step is None:  # output whose code was never shown (e.g. a session cut before it)
          self._add(Step(id=self._key_id("code", (event.id, index)), kind="code", parent=parent.id, title="output",
                         status=status, result=outcome.output or "", t1=event.timestamp, **common))
        else:
          self._set(step, status=status, result=outcome.output or "", t1=event.timestamp)

  def _compaction(self, event: Event) -> None:
    self.add_compaction(event, replaced_count(self._seen, event.actions.compaction))

  def add_compaction(self, event: Event, replaced: int) -> None:
    """A compaction (its own invocation, between turns): a top-level marker saying what its summary replaced.

    `add_event` counts the replaced events among those it saw; a live run, which saw only its own
    turn, passes the count it read from the whole session.
    """
    compaction = event.actions.compaction
    summary = "".join(p.text or "" for p in compaction.compacted_content.parts or [])
    self._add(Step(id=self._key_id("compaction", event.id), kind="compaction", parent=None,
                   title=f"summarised {replaced} events", text=summary, t0=event.timestamp,
                   invocation_id=event.invocation_id, author=event.author, event_id=event.id))

  def _call(self, event: Event, call: types.FunctionCall, parent: Step) -> None:
    args = dict(call.args or {})
    common = {"t0": event.timestamp, "invocation_id": parent.invocation_id, "author": event.author,
              "branch": event.branch or "", "event_id": event.id}
    request = confirmation_request(call)
    if request is not None:
      original = request.original
      tool, tool_args = original.name or "?", dict(original.args or {})
      tool_step = self._find("call", original.id)
      step = self._add(Step(id=self._key_id("approval", call.id), kind="approval",
                            parent=tool_step.id if tool_step is not None else parent.id,
                            title=f"{tool}({short_args(tool_args)})", text=readable_hint(request.hint),
                            status="pending", tool=tool, args=tool_args, **common))
      if original.id:
        self._approval_of[original.id] = step.id
        self._original_of[step.id] = original.id
      return
    if call.name == REQUEST_INPUT:
      if parent.kind == "node":
        self._set(parent, status="pending")  # the node waits for a person's answer
      self._add(Step(id=self._key_id("call", call.id), kind="input_request", parent=parent.id,
                     title=to_json_text(args.get('message') or args), status="pending",
                     tool=call.name, args=args, **common))
      return
    long_running = call.id in (event.long_running_tool_ids or set())
    self._add(Step(id=self._key_id("call", call.id), kind="tool_call", parent=parent.id,
                   title=f"{call.name}({short_args(args)})",
                   status="pending" if long_running else "running", tool=call.name, args=args, **common))

  def _answer(self, call_id: Optional[str], name: Optional[str], response: Any, when: float) -> None:
    """A function response: closes its tool call, approval or input request."""
    if name == REQUEST_CONFIRMATION:
      approval = self._find("approval", call_id)
      if approval is None:
        return
      confirmed = isinstance(response, dict) and response.get("confirmed") is True
      payload = response.get("payload") if isinstance(response, dict) else None
      reason = payload.get("reason", "") if isinstance(payload, dict) else ""
      self._set(approval, status="approved" if confirmed else "rejected", t1=when, result=jsonable(response),
                text=reason or approval.text)
      tool = self._find("call", self._original_of.get(approval.id))
      if tool is not None:
        decided = tool.decided or ("approved" if confirmed else "rejected")  # who, when a decision told us
        if confirmed:  # the tool runs now: its time starts after the person's wait
          self._set(tool, status="running", t0=when, t1=None, decided=decided)
        else:  # it never ran: no duration
          self._set(tool, status="rejected", text=reason or tool.text, decided=decided)
      return
    step = self._find("call", call_id)
    if step is None:
      return
    approval = self.steps.get(self._approval_of.get(call_id or "", ""))
    if approval is not None and approval.status == "rejected":
      self._set(step, result=response, status="rejected")
      return
    failed = isinstance(response, dict) and "error" in response
    self._set(step, status="error" if failed else "responded" if step.status == "pending" else "ok",
              result=response, t1=when)

  # ---- decisions -----------------------------------------------------------------------------

  def add_decision(self, call_id: str, invocation_id: str, title: str, text: str, when: float,
                   status: str = "", decided: str = "") -> None:
    """Marks who answered a paused call (code, a button, an approval policy) under that call.

    `status` is the decision step's ('approved', 'rejected', 'responded'); `decided` is what
    the tool call itself then says in its small print ("approved by button"), so the answer
    shows on the call's line while the call is folded.
    """
    approval = self._find("approval", call_id)
    parent = approval or self._find("call", call_id)
    if parent is None:
      parent = self._invocation(invocation_id, when)
    tool = self._find("call", self._original_of.get(approval.id)) if approval is not None else None
    if tool is not None and decided:
      self._set(tool, decided=decided)
    self._add(Step(id=self._new_id("decision"), kind="decision", parent=parent.id, title=title, text=text,
                   t0=when, status=status, invocation_id=invocation_id))

  def finish(self, when: float, status: str) -> None:
    """A run step ended (done, paused or error): open invocations get their end and status.

    When an invocation ends done or in error, its steps still marked paused (an agent that
    paused and was not started again by the resume) are not waiting any more: they take the
    invocation's status, so no status stays "paused" after the run moved on.
    """
    ended = set()
    for step_id in self._invocations.values():
      step = self.steps[step_id]
      if step.status == "running":
        self._set(step, status=status, t1=when)
        ended.add(step.invocation_id)
    if ended and status != "paused":
      for step in self.steps.values():
        if step.status == "paused" and step.invocation_id in ended and step.kind in CONTAINER_KINDS:
          self._set(step, status=status)
    if self._unbound is not None:  # the run ended before it began (e.g. the store could not open)
      self._set(self.steps[self._unbound], status=status, t1=when)


def replaced_count(events: Sequence[Event], compaction: Any) -> int:
  """How many events (not compaction markers) a compaction's summary replaced: those in its time range.

  `events` in time order, as sessions append them (a session's, or the ones a builder saw).
  """
  lo = bisect_left(events, compaction.start_timestamp, key=_timestamp)
  hi = bisect_right(events, compaction.end_timestamp, key=_timestamp)
  return sum(1 for i in range(lo, hi) if events[i].actions.compaction is None)


def _timestamp(event: Event) -> float:
  return event.timestamp


def _looks_like_model_output(event: Event) -> bool:
  """For events with no progress point: a model's answer (text or calls), not a tool result or a marker."""
  content = event.content
  if content is None or content.role not in (None, "model"):
    return bool(event.error_code) and event.usage_metadata is not None
  parts = content.parts or []
  if any(p.function_response is not None for p in parts):
    return False
  if event.usage_metadata is not None or event.finish_reason is not None or event.model_version:
    return True
  # Protocol calls (confirmations, input requests) come from the framework, not from a model.
  return any(p.text or p.executable_code is not None or (p.function_call is not None and p.function_call.name not in PROTOCOL_CALLS)
             for p in parts)

def _cache_line(cache: Any) -> str:
  """One line for a model call's context cache: the cache used, or the prefix a later call may cache."""
  if cache.cache_name:
    return f"cache {cache.cache_name} ({cache.contents_count} contents, used {cache.invocations_used}x)"
  return f"cache fingerprint {cache.fingerprint[:8]} ({cache.contents_count} contents)"


def steps_of(events: list[Event]) -> StepBuilder:
  """The steps of stored events (no progress points: latencies are measured between events)."""
  builder = StepBuilder()
  for event in events:
    builder.add_event(event)
  return builder
