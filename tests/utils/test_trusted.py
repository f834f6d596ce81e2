"""trusted(): the unvalidated constructor of the hot paths builds what the validating one builds."""

import time

import pytest
from google.genai import types
from pydantic import BaseModel, Field, PrivateAttr, field_validator, model_validator

from adk_nb.events.event import Event
from adk_nb.events.event_actions import EventActions
from adk_nb.models.llm_response import LlmResponse
from adk_nb.utils.trusted import replaced, trusted


@pytest.mark.parametrize("cls, values", [
    (types.Part, {"text": "hi"}),
    (types.Part, {"function_response": types.FunctionResponse(id="c1", name="f", response={"ok": 1})}),
    (types.Content, {"role": "model", "parts": [types.Part(text="a")]}),
    (types.FunctionResponse, {"id": "c1", "name": "f", "response": {"result": [1, 2]}}),
    (LlmResponse, {"content": types.Content(role="model", parts=[types.Part(text="x")]), "partial": True}),
    (EventActions, {}),
    (EventActions, {"state_delta": {"k": 1}, "escalate": True}),
    (Event, {"id": "e1", "invocation_id": "i", "author": "a", "branch": "p.c", "timestamp": 12.5,
             "actions": EventActions(), "content": types.Content(role="user", parts=[types.Part(text="q")])}),
])
def test_builds_what_the_validating_constructor_builds(cls, values):
  built, validated = trusted(cls, **values), cls(**values)
  assert type(built) is cls
  assert built == validated
  assert built.model_dump(mode="json") == validated.model_dump(mode="json")
  assert built.model_fields_set == validated.model_fields_set
  assert built.model_dump_json() == validated.model_dump_json()


def test_default_factories_give_each_object_its_own_value():
  first, second = trusted(EventActions), trusted(EventActions)
  first.state_delta["k"] = 1
  assert second.state_delta == {}
  before = time.time()
  event = trusted(Event, id="e")
  assert event.timestamp >= before and isinstance(event.actions, EventActions)


def test_mutable_plain_defaults_are_copied_as_pydantic_copies_them():
  class Box(BaseModel):
    items: list = []
  a, b = trusted(Box), trusted(Box)
  a.items.append(1)
  assert b.items == [] and Box().items == []


def test_post_init_runs_as_in_the_validating_constructor():
  assert trusted(Event).id  # Event gives itself an id after construction
  assert trusted(Event).id != trusted(Event).id


def test_models_it_cannot_build_faithfully_are_refused():
  class WithPrivate(BaseModel):
    x: int = 0
    _cache: dict = PrivateAttr(default_factory=dict)

  class FromData(BaseModel):
    a: int = 1
    b: int = Field(default_factory=lambda data: data["a"] + 1)

  with pytest.raises(TypeError, match="private attributes"):
    trusted(WithPrivate)
  with pytest.raises(TypeError, match="reads other fields"):
    trusted(FromData)


def test_replaced_is_model_copy_with_update():
  call = types.FunctionCall(id="adk-1", name="f", args={"a": 1})
  part = types.Part(function_call=call)
  ours, theirs = replaced(part, function_call=replaced(call, id=None)), part.model_copy(
      update={"function_call": call.model_copy(update={"id": None})})
  assert ours == theirs and ours.model_fields_set == theirs.model_fields_set
  assert ours.model_dump_json() == theirs.model_dump_json()
  assert part.function_call.id == "adk-1"  # the original is unchanged


def test_names_that_are_not_fields_are_refused():
  # Event(message="hello") turns the shorthand into content; trusted() used to keep a stray attribute.
  with pytest.raises(TypeError, match=r"Event has no field\(s\) message: trusted\(\) takes field names only"):
    trusted(Event, id="e1", message="hello")
  with pytest.raises(TypeError, match=r"Part has no field\(s\) functionCall"):  # an alias is not a field name
    trusted(types.Part, functionCall=types.FunctionCall(name="f"))
  with pytest.raises(TypeError, match=r"Part has no field\(s\) bogus"):
    replaced(types.Part(text="a"), bogus=1)


def test_classes_whose_validators_would_not_run_are_refused_unless_listed():
  class Normalised(BaseModel):
    name: str = ""

    @model_validator(mode="before")
    @classmethod
    def _lower(cls, data):
      return {**data, "name": data.get("name", "").lower()} if isinstance(data, dict) else data

  class Checked(BaseModel):
    count: int = 0

    @field_validator("count")
    @classmethod
    def _positive(cls, value):
      assert value >= 0
      return value

  with pytest.raises(TypeError, match=r"Normalised: its validator _lower .* would not run. Build it with "
                                      r"Normalised\(\.\.\.\).*SKIPPED_VALIDATORS"):
    trusted(Normalised, name="ABC")
  with pytest.raises(TypeError, match="Checked: its validator _positive"):
    replaced(Checked(count=1), count=-1)
  # google-genai's type check and Event's shorthands are listed, with the reason skipping them is sound.
  assert trusted(types.Part, text="x") == types.Part(text="x")
  assert trusted(Event, id="e1").id == "e1"
