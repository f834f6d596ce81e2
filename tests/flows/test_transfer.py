"""Agent transfer: routing, stickiness, allowed targets, bad names, ping-pong cap."""

import pytest

from adk_nb import Agent, InMemoryRunner
from adk_nb.agents import RunConfig
from adk_nb.agents.invocation_context import LlmCallsLimitExceededError
from adk_nb.testing import ScriptedModel, call, run_turn, summarize


def _tree(root_script, billing_script, shipping_script=(), **flags):
  billing = Agent(name="billing", description="Handles invoices and refunds.",
                  model=ScriptedModel(list(billing_script)), **flags)
  shipping = Agent(name="shipping", description="Tracks parcels.", model=ScriptedModel(list(shipping_script)))
  root = Agent(name="root", description="Front desk.", model=ScriptedModel(list(root_script)),
               sub_agents=[billing, shipping])
  return root, billing, shipping


def _offered(model, i=0):
  decl = model.requests[i].tools_dict.get("transfer_to_agent")
  return set(decl._get_declaration().parameters_json_schema["properties"]["agent_name"]["enum"]) if decl else set()


async def test_root_routes_to_child_which_replies_in_the_same_invocation():
  root, billing, _ = _tree([call("transfer_to_agent", agent_name="billing")], ["Your invoice is paid."])
  runner = InMemoryRunner(root, app_name="app")
  events = await run_turn(runner, "Was my invoice paid?")
  assert summarize(events) == [("user", "text", "Was my invoice paid?"), ("root", "call", "transfer_to_agent"),
                               ("root", "result", "transfer_to_agent"), ("root", "transfer", "billing"),
                               ("billing", "text", "Your invoice is paid.")]
  assert len({e.invocation_id for e in events}) == 1
  assert events[-1].text == "Your invoice is paid."
  si = root.model.requests[0].system_instruction_text
  assert "Agent name: billing" in si and "Handles invoices and refunds." in si
  assert _offered(root.model) == {"billing", "shipping"}
  # The child sees the user's question and the root's handover as context.
  assert billing.model.requests[0].contents[0].parts[0].text == "Was my invoice paid?"


async def test_transfer_is_sticky_for_the_next_turns():
  root, billing, _ = _tree([call("transfer_to_agent", agent_name="billing")],
                           ["Paid.", "Refund started.", "Anything else?"])
  runner = InMemoryRunner(root, app_name="app")
  await run_turn(runner, "invoice?")
  second = await run_turn(runner, "refund it")
  third = await run_turn(runner, "thanks")
  assert [e.author for e in second[1:]] == ["billing"] and [e.author for e in third[1:]] == ["billing"]
  assert len(root.model.requests) == 1
  assert _offered(billing.model) == {"root", "shipping"}


async def test_disallow_flags_change_offered_targets_and_stickiness():
  root, billing, _ = _tree([call("transfer_to_agent", agent_name="billing"), "root again"], ["Paid."],
                           disallow_transfer_to_parent=True, disallow_transfer_to_peers=True)
  runner = InMemoryRunner(root, app_name="app")
  await run_turn(runner, "invoice?")
  assert "transfer_to_agent" not in billing.model.requests[0].tools_dict
  # billing may not hand back to its parent, so the next turn starts at the root again.
  events = await run_turn(runner, "next")
  assert [e.author for e in events[1:]] == ["root"]


async def test_transfer_to_unknown_or_disallowed_name_is_recoverable():
  root, _, _ = _tree([call("transfer_to_agent", agent_name="legal"), "I'll answer myself."], [])
  events = await run_turn(InMemoryRunner(root, app_name="app"), "sue them")
  error = events[2].get_function_responses()[0].response["error"]
  assert "'legal'" in error and "billing" in error and "shipping" in error
  assert events[2].actions.transfer_to_agent is None
  assert events[-1].author == "root" and events[-1].text == "I'll answer myself."


async def test_ping_pong_transfers_are_capped():
  a = Agent(name="a", model=ScriptedModel(lambda r: call("transfer_to_agent", agent_name="b")))
  b = Agent(name="b", model=ScriptedModel(lambda r: call("transfer_to_agent", agent_name="a")))
  root = Agent(name="root", model=ScriptedModel([call("transfer_to_agent", agent_name="a"), "stop"]),
               sub_agents=[a, b])
  runner = InMemoryRunner(root, app_name="app")
  with pytest.raises(LlmCallsLimitExceededError):  # the refused agents keep trying until max_llm_calls
    await run_turn(runner, "go", run_config=RunConfig(max_transfers=4, max_llm_calls=20))
  events = (await runner.session_service.get_session(app_name="app", user_id="user", session_id="session")).events
  transfers = [e for e in events if e.actions.transfer_to_agent]
  assert len(transfers) == 4
  errors = [r.response.get("error", "") for e in events for r in e.get_function_responses()]
  assert any("Transfer limit reached" in err for err in errors)


async def test_transfer_is_answered_with_a_none_result_as_in_adk():
  child = Agent(name="child", model=ScriptedModel(["child here"]))
  root = Agent(name="root", model=ScriptedModel([call("transfer_to_agent", agent_name="child")]), sub_agents=[child])
  events = await run_turn(InMemoryRunner(root, app_name="app"), "hi")
  [answer] = events[2].get_function_responses()
  assert answer.name == "transfer_to_agent" and answer.response == {"result": None}
  assert events[2].actions.transfer_to_agent == "child" and events[-1].text == "child here"
async def test_sticky_transfer_skips_a_non_transferable_last_speaker_like_adk():
  """google-adk _agent_router.find_agent_to_run keeps scanning past an agent that cannot transfer back."""
  a_model = ScriptedModel(["a answers 1", call("transfer_to_agent", agent_name="b"), "a answers 3"])
  a = Agent(name="a", description="A", model=a_model)
  b = Agent(name="b", description="B", model=ScriptedModel(["b answers 2"]), disallow_transfer_to_parent=True)
  root_model = ScriptedModel([call("transfer_to_agent", agent_name="a"), "root answers 3"])
  root = Agent(name="root", model=root_model, sub_agents=[a, b])
  runner = InMemoryRunner(root, app_name="app")
  await run_turn(runner, "t1")
  await run_turn(runner, "t2")
  r3 = await run_turn(runner, "t3")
  assert r3[-1].author == "a", r3[-1].author


async def test_a_transfer_reaches_the_agents_own_sub_agent_before_a_namesake_elsewhere():
  import warnings

  first_helper = Agent(name="helper", model=ScriptedModel([]))
  own_helper = Agent(name="helper", model=ScriptedModel(["Helped."]))
  a = Agent(name="a", model=ScriptedModel([]), sub_agents=[first_helper])
  b = Agent(name="b", model=ScriptedModel([call("transfer_to_agent", agent_name="helper")]), sub_agents=[own_helper])
  with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    root = Agent(name="root", model=ScriptedModel([call("transfer_to_agent", agent_name="b")]), sub_agents=[a, b])
  events = await run_turn(InMemoryRunner(root, app_name="app"), "help")
  assert summarize(events)[-1] == ("helper", "text", "Helped.")
  assert len(own_helper.model.requests) == 1 and not first_helper.model.requests


async def test_in_a_resumable_app_the_transferring_agent_ends_before_its_target_runs():
  from adk_nb.apps import App, ResumabilityConfig

  root, billing, _ = _tree([call("transfer_to_agent", agent_name="billing")], ["Paid.", "Still paid."])
  app = App(name="app", root_agent=root, resumability_config=ResumabilityConfig(is_resumable=True))
  runner = InMemoryRunner(app=app)

  def stream(events):
    return [(e.author, "end" if e.actions.end_of_agent else summarize([e])[0][1]) for e in events[1:]]

  assert stream(await run_turn(runner, "invoice?")) == [  # google-adk 2.13's order
      ("root", "call"), ("root", "result"), ("root", "end"), ("billing", "text"), ("billing", "end")]
  assert stream(await run_turn(runner, "again?")) == [("billing", "text"), ("billing", "end")]


async def test_in_a_resumable_app_a_transfer_inside_a_sequence_ends_the_agent_after_its_target():
  from adk_nb.agents import SequentialAgent
  from adk_nb.apps import App, ResumabilityConfig

  leaf = Agent(name="leaf", model=ScriptedModel(["Done."]))
  hub = Agent(name="hub", model=ScriptedModel([call("transfer_to_agent", agent_name="leaf")]), sub_agents=[leaf])
  seq = SequentialAgent(name="seq", sub_agents=[hub])
  runner = InMemoryRunner(app=App(name="app", root_agent=seq, resumability_config=ResumabilityConfig(is_resumable=True)))
  events = await run_turn(runner, "go")
  ends = [e.author for e in events if e.actions.end_of_agent]
  assert ends == ["leaf", "hub", "seq"]  # google-adk 2.13's order inside a workflow agent
