"""FunctionTool declarations are the ones google-adk 2.13 sends the model: pydantic's titles on every
property and `<name>Params` on the object, no description without a docstring, no schema without
parameters, `x: int = None` shown as an integer defaulting to null, and Annotated fields' descriptions
and constraints kept.

fixtures/google_adk_declarations.json was written by google-adk 2.13 itself, by
fixtures/make_google_adk_declarations.py (run with bench/.venv-adk/bin/python), for the functions in
fixtures/declaration_signatures.py.
"""

import json
import sys
from pathlib import Path

import pytest
from google.genai import types
from pydantic import Field
from typing import Annotated

from adk_nb import Agent, InMemoryRunner
from adk_nb.models import ScriptedModel
from adk_nb.tools import FunctionTool
from adk_nb.testing import run_turn

FIXTURES = Path(__file__).parent / "fixtures"
sys.path.insert(0, str(FIXTURES))
import declaration_signatures  # noqa: E402

GOOGLE_ADK = json.loads((FIXTURES / "google_adk_declarations.json").read_text())


@pytest.mark.parametrize("func", declaration_signatures.SIGS, ids=lambda f: f.__name__)
def test_the_declaration_is_the_one_google_adk_builds(func):
  got = FunctionTool(func)._get_declaration().model_dump(mode="json", exclude_none=True)
  assert got == GOOGLE_ADK[func.__name__]


async def test_an_annotated_constraint_is_enforced_and_the_tool_does_not_run():
  ran = []

  def annotated(q: Annotated[str, Field(description="The query.")], n: Annotated[int, Field(ge=1)] = 5) -> str:
    """Searches."""
    ran.append(n)
    return q

  model = ScriptedModel([types.Part(function_call=types.FunctionCall(name="annotated", args={"q": "x", "n": 0})),
                         "ok"])
  runner = InMemoryRunner(agent=Agent(name="a", model=model, tools=[annotated]), app_name="decl")
  await run_turn(runner, "Search.")
  [answer] = model.requests[-1].contents[-1].parts
  assert ran == [] and "greater than or equal to 1" in json.dumps(answer.function_response.response)
