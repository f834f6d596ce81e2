"""Running graphs through the Runner: chains, routes, fan-out and joins, loops, errors, retries."""

import asyncio

import pytest

from adk_nb import Context, Event, InMemoryRunner, Workflow
from adk_nb.testing import run_turn
from adk_nb.workflow import DEFAULT_ROUTE, JoinNode, NodeTimeoutError, RetryConfig, node


def outputs(events):
  return [(e.node_info.path, e.output) for e in events if e.output is not None]


async def session_events(runner, session_id="session"):
  session = await runner.session_service.get_session(app_name=runner.app_name, user_id="user",
                                                     session_id=session_id)
  return session.events


async def test_a_chain_passes_each_output_to_the_next_node_and_commits_every_event():
  def shout(node_input: str):
    return node_input.upper()

  def punctuate(node_input: str):
    return node_input + "!"

  def count(node_input: str, ctx: Context):
    ctx.state["length"] = len(node_input)
    return len(node_input)

  runner = InMemoryRunner(Workflow(name="pipeline", edges=[("START", shout, punctuate, count)]), app_name="app")
  events = await run_turn(runner, "hello")
  assert outputs(events) == [("pipeline@1/shout@1", "HELLO"), ("pipeline@1/punctuate@1", "HELLO!"),
                             ("pipeline@1/count@1", 6)]
  produced = events[1:]
  assert {e.author for e in produced} == {"pipeline"}
  assert len({e.invocation_id for e in events}) == 1
  assert produced[-1].node_info.output_for == ["pipeline@1/count@1", "pipeline@1"]
  stored = await session_events(runner)
  assert [e.id for e in stored] == [e.id for e in events]
  session = await runner.session_service.get_session(app_name="app", user_id="user", session_id="session")
  assert session.state["length"] == 6


async def test_start_gives_the_user_content_when_the_parameter_is_not_annotated():
  seen = []

  def first(node_input):
    seen.append(node_input)

  await run_turn(InMemoryRunner(Workflow(name="w", edges=[("START", first)]), app_name="app"), "hi")
  assert seen[0].parts[0].text == "hi"


async def test_other_parameters_are_read_from_state_and_coerced():
  def greet(name: str, times: int = 1):
    return f"hi {name} " * times

  runner = InMemoryRunner(Workflow(name="w", edges=[("START", greet)]), app_name="app")
  events = await run_turn(runner, "x", state_delta={"name": "Ada", "times": "2"})
  assert outputs(events) == [("w@1/greet@1", "hi Ada hi Ada ")]


async def test_routes_choose_the_edges_and_default_route_catches_the_rest():
  def classify(ctx, node_input: str):
    ctx.route = "long" if len(node_input) > 5 else "other"
    return node_input

  def long(node_input):
    return "long path"

  def fallback(node_input):
    return "default path"

  wf = Workflow(name="w", edges=[("START", classify, {"long": long, DEFAULT_ROUTE: fallback})])
  runner = InMemoryRunner(wf, app_name="app")
  assert outputs(await run_turn(runner, "a long message"))[-1] == ("w@1/long@1", "long path")
  assert outputs(await run_turn(runner, "hi"))[-1] == ("w@1/fallback@1", "default path")


async def test_an_unmatched_route_warns_and_strict_routes_raise():
  def pick(ctx, node_input):
    ctx.route = "nowhere"
    return 1

  def after(node_input):
    return 2

  runner = InMemoryRunner(Workflow(name="w", edges=[("START", pick, {"x": after})]), app_name="app")
  with pytest.warns(UserWarning, match="matches none of its routed edges"):
    events = await run_turn(runner, "go")
  assert outputs(events) == [("w@1/pick@1", 1)]
  strict = Workflow(name="w", edges=[("START", pick, {"x": after})], strict_routes=True)
  with pytest.raises(ValueError, match="route 'nowhere'"):
    async for _ in strict.run_async(await _ic(strict)):
      pass


async def test_fan_out_runs_branches_concurrently_and_the_join_collects_their_outputs():
  started = []
  both_started = asyncio.Event()

  def make(name):
    async def branch(node_input):
      started.append(name)
      if len(started) == 3:
        both_started.set()
      await asyncio.wait_for(both_started.wait(), 5)  # only passes if all three run at once
      return name.upper()

    branch.__name__ = name
    return branch

  a, b, c = make("a"), make("b"), make("c")

  def merge(node_input):
    return node_input

  wf = Workflow(name="w", edges=[("START", (a, b, c), JoinNode(name="join"), merge)])
  events = await run_turn(InMemoryRunner(wf, app_name="app"), "go")
  assert outputs(events)[-1] == ("w@1/merge@1", {"a": "A", "b": "B", "c": "C"})
  branches = {e.node_info.path: e.branch for e in events if e.output is not None}
  assert branches["w@1/a@1"] == "a@1" and branches["w@1/join@1"] is None


async def test_a_fan_out_of_functions_emits_its_outputs_before_its_successors_run_as_in_google_adk():
  # google-adk 2.x's sample contributing/samples/workflows/multi_triggers: the same six events, same order.
  def make_uppercase(node_input: str):
    return node_input.upper()

  def count_characters(node_input: str):
    return len(node_input)

  def reverse_string(node_input: str):
    return node_input[::-1]

  async def send_message(node_input):
    yield Event(message=f"Triggered for input: {node_input}")

  wf = Workflow(name="root_agent", edges=[("START", (make_uppercase, count_characters, reverse_string), send_message)])
  events = await run_turn(InMemoryRunner(wf, app_name="app"), "hello")
  assert [(e.node_info.path.split("/")[-1], e.output, e.content.parts[0].text if e.content else None)
          for e in events if e.node_info.path not in ("", "root_agent@1")] == [
      ("make_uppercase@1", "HELLO", None),
      ("count_characters@1", 5, None),
      ("reverse_string@1", "olleh", None),
      ("send_message@1", None, "Triggered for input: HELLO"),
      ("send_message@2", None, "Triggered for input: 5"),
      ("send_message@3", None, "Triggered for input: olleh"),
  ]


async def test_a_join_nodes_input_schema_checks_each_predecessors_output_as_in_google_adk():
  from pydantic import BaseModel, ValidationError

  class Item(BaseModel):
    key: str
    value: int

  def a(node_input):
    return {"key": "a", "value": "1"}

  def b(node_input):
    return None

  def merge(node_input):
    return node_input

  wf = Workflow(name="w", edges=[("START", (a, b), JoinNode(name="join", input_schema=Item), merge)])
  events = await run_turn(InMemoryRunner(wf, app_name="app"), "go")
  assert outputs(events)[-1] == ("w@1/merge@1", {"a": {"key": "a", "value": 1}, "b": None})

  def bad(node_input):
    return {"wrong": "shape"}

  wf = Workflow(name="w", edges=[("START", (a, bad), JoinNode(name="join", input_schema=Item), merge)])
  with pytest.raises(ValidationError, match="key"):
    await run_turn(InMemoryRunner(wf, app_name="app"), "go")


async def test_a_nested_workflows_node_annotated_content_gets_the_users_content_whole():
  from google.genai import types

  seen = []

  async def nested_func(node_input: types.Content):
    seen.append(node_input)
    return "I am nested"

  def after(node_input: str):
    return "I am outer"

  nested = Workflow(name="nested", edges=[("START", nested_func)])
  outer = Workflow(name="outer", edges=[("START", nested, after)])
  events = await run_turn(InMemoryRunner(outer, app_name="app"), "hello")
  assert outputs(events)[-1] == ("outer@1/after@1", "I am outer")
  assert isinstance(seen[0], types.Content) and seen[0].parts[0].text == "hello"


async def test_a_synchronous_node_does_not_stall_its_siblings():
  import threading

  release = threading.Event()

  def blocking(node_input):
    assert release.wait(5), "the async sibling never ran while the sync node blocked"
    return "sync done"

  async def sibling(node_input):
    release.set()
    return "async done"

  wf = Workflow(name="w", edges=[("START", (blocking, sibling), JoinNode(name="join"))])
  events = await run_turn(InMemoryRunner(wf, app_name="app"), "go")
  assert outputs(events)[-1][1] == {"blocking": "sync done", "sibling": "async done"}


async def test_a_loop_through_a_routed_edge_gives_each_iteration_its_own_run_id():
  def step(ctx, node_input):
    n = (node_input if isinstance(node_input, int) else 0) + 1
    ctx.route = "again" if n < 3 else "done"
    return n

  def finish(node_input):
    return f"counted to {node_input}"

  wf = Workflow(name="w", edges=[("START", step), (step, {"again": step, "done": finish})])
  events = await run_turn(InMemoryRunner(wf, app_name="app"), "go")
  assert outputs(events) == [("w@1/step@1", 1), ("w@1/step@2", 2), ("w@1/step@3", 3),
                             ("w@1/finish@1", "counted to 3")]
  assert [e.actions.route for e in events if e.output is not None][:3] == ["again", "again", "done"]


async def test_a_loop_past_max_iterations_fails_with_a_clear_error():
  def spin(ctx, node_input):
    ctx.route = "again"
    return 1

  wf = Workflow(name="w", edges=[("START", spin), (spin, {"again": spin})], max_iterations=5)
  with pytest.raises(RuntimeError, match=r"node 'spin' would run a 6th time.*max_iterations=5"):
    async for _ in wf.run_async(await _ic(wf)):
      pass


async def test_a_failing_node_reports_an_error_event_and_raises_the_original_exception():
  class Boom(Exception):
    pass

  ran = []

  def fail(node_input):
    raise Boom("the disk is full")

  def after(node_input):
    ran.append(1)

  wf = Workflow(name="w", edges=[("START", fail, after)])
  ic = await _ic(wf)
  seen = []
  with pytest.raises(Boom, match="the disk is full"):
    async for event in wf.run_async(ic):
      seen.append(event)
  assert [(e.error_code, e.error_message, e.node_info.path) for e in seen] == [("Boom", "the disk is full", "w@1/fail@1")]
  assert ran == []


async def test_a_failing_nodes_error_event_has_the_error_code_and_the_traceback_the_inspector_shows():
  from google.genai import types

  class Boom(Exception):
    pass

  class QuotaExceeded(Exception):
    status = "RESOURCE_EXHAUSTED"  # a provider's status string is the code, as in google-adk

  def fail(node_input):
    raise Boom("the disk is full")

  def over_quota(node_input):
    raise QuotaExceeded("try later")

  for node, error, code, message in ((fail, Boom, "Boom", "the disk is full"),
                                     (over_quota, QuotaExceeded, "RESOURCE_EXHAUSTED", "try later")):
    runner = InMemoryRunner(Workflow(name="w", edges=[("START", node)]), app_name="app")
    session = await runner.session_service.create_session(app_name="app", user_id="user")
    seen = []
    with pytest.raises(error):  # the original exception still leaves run_async
      async for event in runner.run_async(user_id="user", session_id=session.id,
                                          new_message=types.Content(role="user", parts=[types.Part(text="go")])):
        seen.append(event)
    path = f"w@1/{node.__name__}@1"
    stored = next(e for e in await session_events(runner, session.id) if e.node_info and e.node_info.path == path)
    for event in (next(e for e in seen if e.node_info and e.node_info.path == path), stored):
      assert event.error_code == code
      trace = event.custom_metadata["adk_nb_traceback"]
      assert f'raise {error.__name__}("{message}")' in trace  # the line that raised
      assert trace.rstrip().endswith(f"{error.__name__}: {message}")


async def test_a_failure_is_reported_by_one_error_event_then_raised_from_the_runner_as_in_google_adk():
  """google-adk 2.13 yields one error event per failure, from the node that raised (authored by
  its nearest workflow, or by the agent for an agent node), and raises the original exception;
  neither an enclosing workflow, a dynamic node's parent nor the Runner adds another."""
  from google.genai import types

  from adk_nb import LlmAgent
  from adk_nb.testing import ScriptedModel, call

  def ok(node_input):
    return "fine"

  def boom(node_input):
    raise ValueError("kaboom")

  async def parent(ctx, node_input):
    return await ctx.run_node(boom, node_input="x")

  def bad_tool() -> str:
    raise ValueError("kaboom")

  helper = LlmAgent(name="helper", model=ScriptedModel([call("bad_tool")]), tools=[bad_tool])
  graphs = {
      "plain": (Workflow(name="w", edges=[("START", ok, boom)]), "w", "w@1/boom@1"),
      "nested": (Workflow(name="w", edges=[("START", Workflow(name="inner", edges=[("START", ok, boom)]))]),
                 "inner", "w@1/inner@1/boom@1"),
      "dynamic": (Workflow(name="w", edges=[("START", node(parent, rerun_on_resume=True))]),
                  "w", "w@1/parent@1/boom@1"),
      "agent": (Workflow(name="w", edges=[("START", ok, helper)]), "helper", "w@1/helper@1"),
  }
  for kind, (wf, author, path) in graphs.items():
    runner = InMemoryRunner(wf, app_name="app")
    await runner.session_service.create_session(app_name="app", user_id="user", session_id=kind)
    seen = []
    with pytest.raises(ValueError, match="kaboom"):
      async for event in runner.run_async(user_id="user", session_id=kind,
                                          new_message=types.Content(role="user", parts=[types.Part(text="go")])):
        seen.append(event)
    errors = [(e.author, e.error_code, e.error_message, e.node_info.path) for e in seen if e.error_code]
    assert errors == [(author, "ValueError", "kaboom", path)], kind
    stored = [e for e in await session_events(runner, kind) if e.error_code]
    assert len(stored) == 1, kind


async def test_a_failure_cancels_running_siblings():
  cancelled = []

  async def slow(node_input):
    try:
      await asyncio.sleep(30)
    except asyncio.CancelledError:
      cancelled.append("slow")
      raise

  async def fail(node_input):
    await asyncio.sleep(0)
    raise KeyError("missing")

  wf = Workflow(name="w", edges=[("START", (slow, fail))])
  with pytest.raises(KeyError):
    async for _ in wf.run_async(await _ic(wf)):
      pass
  assert cancelled == ["slow"]


async def test_retries_rerun_the_node_and_report_each_failed_attempt():
  attempts = []

  @node(retry_config=RetryConfig(max_attempts=3, initial_delay=0, jitter=0))
  def flaky(ctx, node_input):
    attempts.append(ctx.attempt_count)
    if ctx.attempt_count < 3:
      raise ConnectionError(f"try {ctx.attempt_count}")
    return "ok"

  events = await run_turn(InMemoryRunner(Workflow(name="w", edges=[("START", flaky)]), app_name="app"), "go")
  assert attempts == [1, 2, 3]
  assert [e.error_message for e in events if e.error_code] == ["try 1", "try 2"]
  assert outputs(events) == [("w@1/flaky@1", "ok")]


async def test_retry_config_exceptions_limit_what_is_retried():
  attempts = []

  @node(retry_config=RetryConfig(max_attempts=3, initial_delay=0, jitter=0, exceptions=[ConnectionError]))
  def flaky(node_input):
    attempts.append(1)
    raise ValueError("not retryable")

  wf = Workflow(name="w", edges=[("START", flaky)])
  with pytest.raises(ValueError, match="not retryable"):
    async for _ in wf.run_async(await _ic(wf)):
      pass
  assert attempts == [1]


async def test_a_node_past_its_timeout_raises_node_timeout_error():
  @node(timeout=0.05)
  async def hang(node_input):
    await asyncio.Event().wait()

  wf = Workflow(name="w", edges=[("START", hang)])
  seen = []
  with pytest.raises(NodeTimeoutError) as info:
    async for event in wf.run_async(await _ic(wf)):
      seen.append(event)
  assert (info.value.node_name, info.value.timeout) == ("hang", 0.05)
  assert seen[-1].error_code == "NodeTimeoutError"


async def test_multiple_terminal_outputs_are_an_error_naming_the_nodes():
  def a(node_input):
    return 1

  def b(node_input):
    return 2

  wf = Workflow(name="w", edges=[("START", (a, b))])
  with pytest.raises(ValueError, match=r"multiple terminal nodes produced output: \['a', 'b'\]"):
    async for _ in wf.run_async(await _ic(wf)):
      pass


async def test_a_join_whose_predecessor_never_runs_is_reported():
  def split(ctx, node_input):
    ctx.route = "a"
    return 1

  def a(node_input):
    return "a"

  def b(node_input):
    return "b"

  join = JoinNode(name="join")
  wf = Workflow(name="w", edges=[("START", split, {"a": a, "b": b}), (a, join), (b, join)])
  with pytest.raises(RuntimeError, match=r"JoinNode 'join' never fired: predecessor\(s\) \['b'\]"):
    async for _ in wf.run_async(await _ic(wf)):
      pass


async def test_max_concurrency_limits_nodes_running_at_once():
  running = []
  peak = []

  def make(name):
    async def branch(node_input):
      running.append(name)
      peak.append(len(running))
      await asyncio.sleep(0)
      running.remove(name)

    branch.__name__ = name
    return branch

  wf = Workflow(name="w", edges=[("START", tuple(make(f"n{i}") for i in range(6)))], max_concurrency=2)
  await run_turn(InMemoryRunner(wf, app_name="app"), "go")
  assert max(peak) == 2


async def test_output_set_twice_fails_with_the_fix_in_the_message():
  async def twice(node_input):
    yield 1
    yield 2

  wf = Workflow(name="w", edges=[("START", twice)])
  with pytest.raises(ValueError, match="Output already set for node w@1/twice@1"):
    async for _ in wf.run_async(await _ic(wf)):
      pass


async def test_a_missing_state_parameter_names_the_fix():
  def needs(city):
    return city

  wf = Workflow(name="w", edges=[("START", needs)])
  with pytest.raises(ValueError, match='Missing value for parameter "city"'):
    async for _ in wf.run_async(await _ic(wf)):
      pass


async def _ic(agent, text="go"):
  from google.genai import types

  from adk_nb.agents.invocation_context import InvocationContext, new_invocation_context_id
  from adk_nb.events.event import Event
  from adk_nb.sessions import InMemorySessionService

  service = InMemorySessionService()
  session = await service.create_session(app_name="app", user_id="user")
  content = types.Content(role="user", parts=[types.Part(text=text)])
  invocation_id = new_invocation_context_id()
  await service.append_event(session, Event(invocation_id=invocation_id, author="user", content=content))
  return InvocationContext(session_service=service, invocation_id=invocation_id, agent=agent,
                           user_content=content, session=session)


async def test_run_node_runs_a_child_node_under_the_callers_path():
  def double(node_input: int):
    return node_input * 2

  async def orchestrate(ctx, node_input):
    a = await ctx.run_node(double, node_input=3)
    b, c = await asyncio.gather(ctx.run_node(double, node_input=a), ctx.run_node(double, node_input=10))
    return [a, b, c]

  events = await run_turn(InMemoryRunner(Workflow(name="w", edges=[("START", orchestrate)]), app_name="app"), "go")
  assert outputs(events) == [("w@1/orchestrate@1/double@1", 6), ("w@1/orchestrate@1/double@2", 12),
                             ("w@1/orchestrate@1/double@3", 20), ("w@1/orchestrate@1", [6, 12, 20])]


async def test_a_node_yielding_events_with_state_and_route_shorthands():
  from adk_nb.events import Event

  async def decide(node_input):
    yield Event(output="x", route="b", state={"picked": "b"})

  def a(node_input):
    return "a"

  def b(ctx, node_input):
    return f"b saw {ctx.state['picked']}"

  wf = Workflow(name="w", edges=[("START", decide, {"a": a, "b": b})])
  events = await run_turn(InMemoryRunner(wf, app_name="app"), "go")
  assert outputs(events) == [("w@1/decide@1", "x"), ("w@1/b@1", "b saw b")]


async def test_the_session_keeps_what_was_committed_before_a_failure():
  def first(node_input):
    return "kept"

  def second(ctx, node_input):
    ctx.state["never"] = True
    raise RuntimeError("broken")

  runner = InMemoryRunner(Workflow(name="w", edges=[("START", first, second)]), app_name="app")
  try:
    await run_turn(runner, "go")
  except RuntimeError:
    pass  # raised once the Runner follows google-adk's error contract
  stored = await session_events(runner)
  assert [(e.node_info.path, e.output) for e in stored if e.output is not None] == [("w@1/first@1", "kept")]
  failure = next(e for e in stored if e.error_code == "RuntimeError")
  assert failure.node_info.path == "w@1/second@1" and failure.error_message == "broken"


async def test_custom_node_classes_and_schemas():
  from pydantic import BaseModel

  from adk_nb.workflow import BaseNode, Node

  class Shout(BaseNode):
    async def _run_impl(self, *, ctx, node_input):
      yield node_input.parts[0].text.upper()

  class Point(BaseModel):
    x: int
    y: int

  class Parse(Node):
    async def run_node_impl(self, *, ctx, node_input):
      x, y = node_input.split(",")
      return {"x": x, "y": y}  # coerced by output_schema

  def total(node_input: Point) -> int:
    return node_input.x + node_input.y

  wf = Workflow(name="w", edges=[("START", Shout(name="shout"), Parse(name="parse", output_schema=Point), total)])
  events = await run_turn(InMemoryRunner(wf, app_name="app"), "3,4")
  assert outputs(events) == [("w@1/shout@1", "3,4"), ("w@1/parse@1", {"x": 3, "y": 4}), ("w@1/total@1", 7)]


async def test_wait_for_output_keeps_the_successors_waiting_until_a_run_produces_output():
  seen = []

  @node()
  def collect(ctx, node_input):
    ctx.state["count"] = ctx.state.get("count", 0) + 1
    if ctx.state["count"] >= 2:
      return "enough"

  collect.wait_for_output = True

  def source_a(node_input):
    return 1

  def source_b(node_input):
    return 2

  def after(node_input):
    seen.append(node_input)
    return node_input

  wf = Workflow(name="w", edges=[("START", (source_a, source_b), collect, after)])
  await run_turn(InMemoryRunner(wf, app_name="app"), "go")
  assert seen == ["enough"]


async def test_a_list_route_fires_every_matching_edge_and_bool_keys_work():
  def pick(ctx, node_input):
    ctx.route = ["a", "b"]
    return 0

  def check(ctx, node_input):
    ctx.route = node_input > 0
    return node_input

  a = node(lambda node_input: 1, name="a")
  b = node(lambda node_input: -1, name="b")
  yes = node(lambda node_input: "positive", name="yes")
  no = node(lambda node_input: "not positive", name="no")
  wf = Workflow(name="w", edges=[("START", pick, {"a": a, "b": b, "c": yes}), ((a, b), check, {True: yes, False: no}),
                                  ((yes, no), JoinNode(name="end"))])
  events = await run_turn(InMemoryRunner(wf, app_name="app"), "go")
  fired = [p for p, _ in outputs(events)]
  assert "w@1/a@1" in fired and "w@1/b@1" in fired
  assert outputs(events)[-1] == ("w@1/end@1", {"yes": "positive", "no": "not positive"})
  assert not any(e.error_code for e in events)


async def test_a_parallel_worker_runs_once_per_item_concurrently_and_keeps_the_order():
  started = []
  all_started = asyncio.Event()

  @node(parallel_worker=True, max_parallel_workers=3)
  async def square(node_input: int):
    started.append(node_input)
    if len(started) == 3:
      all_started.set()
    await asyncio.wait_for(all_started.wait(), 5)
    return node_input * node_input

  def numbers(node_input):
    return [1, 2, 3]

  events = await run_turn(InMemoryRunner(Workflow(name="w", edges=[("START", numbers, square)]), app_name="app"), "go")
  assert outputs(events)[-1] == ("w@1/square@1", [1, 4, 9])
  assert sorted(p for p, _ in outputs(events) if p.count("/") == 2) == [
      "w@1/square@1/square@1", "w@1/square@1/square@2", "w@1/square@1/square@3"]


async def test_run_node_use_as_output_makes_the_childs_output_the_callers():
  def triple(node_input: int):
    return node_input * 3

  async def delegate(ctx, node_input):
    await ctx.run_node(triple, node_input=5, use_as_output=True)

  def after(node_input):
    return node_input + 1

  events = await run_turn(InMemoryRunner(Workflow(name="w", edges=[("START", delegate, after)]), app_name="app"), "go")
  assert outputs(events)[-1] == ("w@1/after@1", 16)


async def test_returning_the_delegated_output_gives_one_output_event_that_stands_for_both():
  def triple(node_input: int):
    return node_input * 3

  async def delegate(ctx, node_input):
    return await ctx.run_node(triple, node_input=5, use_as_output=True)

  events = await run_turn(InMemoryRunner(Workflow(name="w", edges=[("START", delegate)]), app_name="app"), "go")
  [event] = [e for e in events if e.output is not None]
  assert (event.node_info.path, event.output) == ("w@1/delegate@1/triple@1", 15)
  assert event.node_info.output_for == ["w@1/delegate@1/triple@1", "w@1/delegate@1", "w@1"]


async def test_use_as_output_twice_in_one_run_is_refused():
  def one():
    return 1

  async def delegate(ctx, node_input):
    await ctx.run_node(one, use_as_output=True)
    await ctx.run_node(one, use_as_output=True)

  with pytest.raises(ValueError, match="Node w@1/delegate@1 already has a use_as_output delegate"):
    await run_turn(InMemoryRunner(Workflow(name="w", edges=[("START", delegate)]), app_name="app"), "go")


async def test_after_delegating_its_output_a_nodes_own_outputs_are_dropped_as_in_google_adk():
  def one():
    return 1

  async def delegate(ctx, node_input):
    result = await ctx.run_node(one, use_as_output=True)
    ctx.output = result + 1  # ignored: the delegate's output stands
    yield "mine"  # dropped
    from adk_nb import Event

    yield Event(output="also mine", state={"seen": True})  # its state delta is kept, its output dropped

  events = await run_turn(InMemoryRunner(Workflow(name="w", edges=[("START", delegate)]), app_name="app"), "go")
  assert [(e.node_info.path, e.output) for e in events if e.output is not None] == [("w@1/delegate@1/one@1", 1)]
  assert [e.actions.state_delta for e in events if e.actions.state_delta] == [{"seen": True}]


async def test_a_workflows_output_schema_rejects_invalid_output_and_coerces_valid_output():
  from pydantic import BaseModel

  class Result(BaseModel):
    name: str
    extra: str = "default"

  def good(node_input):
    return {"name": "x"}

  def bad(node_input):
    return {"wrong": 1}

  def consume(node_input: dict):
    return node_input

  def outer(terminal):
    inner = Workflow(name="inner", edges=[("START", terminal)], output_schema=Result)
    return InMemoryRunner(Workflow(name="outer", edges=[("START", inner, consume)]), app_name="app")

  events = await run_turn(outer(good), "go")
  assert outputs(events)[-1] == ("outer@1/consume@1", {"name": "x", "extra": "default"})
  with pytest.raises(ValueError, match="name"):
    await run_turn(outer(bad), "go")
  root = Workflow(name="root", edges=[("START", bad)], output_schema=Result)
  with pytest.raises(ValueError, match="name"):
    await run_turn(InMemoryRunner(root, app_name="app"), "go")
