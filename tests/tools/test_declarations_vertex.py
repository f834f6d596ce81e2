"""Declarations for Vertex AI, and google-adk's `build_function_declaration` called directly, equal the
ones google-adk 2.13 builds (fixtures written by google-adk itself: fixtures/make_google_adk_declarations.py).

With Vertex AI selected (GOOGLE_GENAI_USE_VERTEXAI=1) an `Optional[X]` parameter is X marked `nullable`
instead of `anyOf` with null, and the return type travels as `response_json_schema`. Selecting it needs
no credentials: building a declaration reaches no network.
"""

import json
import sys
from pathlib import Path

import pytest

from adk_nb.tools import FunctionTool
from adk_nb.tools._automatic_function_calling_util import build_function_declaration
from adk_nb.utils.variant_utils import GoogleLLMVariant

FIXTURES = Path(__file__).parent / "fixtures"
sys.path.insert(0, str(FIXTURES))
import declaration_signatures  # noqa: E402

VERTEX = json.loads((FIXTURES / "google_adk_declarations_vertex.json").read_text())
DIRECT = json.loads((FIXTURES / "google_adk_build_function_declaration.json").read_text())
BY_NAME = {f.__name__: f for f in declaration_signatures.SIGS + declaration_signatures.MODELS}


@pytest.fixture
def backend(monkeypatch):
  monkeypatch.delenv("GOOGLE_GENAI_USE_ENTERPRISE", raising=False)
  monkeypatch.delenv("GOOGLE_GENAI_USE_VERTEXAI", raising=False)
  monkeypatch.delenv("GOOGLE_API_KEY", raising=False)
  monkeypatch.delenv("GOOGLE_CLOUD_PROJECT", raising=False)

  def select(name):
    if name == "vertex":
      monkeypatch.setenv("GOOGLE_GENAI_USE_VERTEXAI", "1")
    else:
      monkeypatch.delenv("GOOGLE_GENAI_USE_VERTEXAI", raising=False)
  return select


def dump(declaration):
  return declaration.model_dump(mode="json", exclude_none=True)


@pytest.mark.parametrize("func", declaration_signatures.SIGS, ids=lambda f: f.__name__)
def test_a_function_tool_declares_itself_for_vertex_as_google_adk_does(backend, func):
  backend("vertex")
  assert dump(FunctionTool(func)._get_declaration()) == VERTEX[func.__name__]


def test_one_tool_follows_the_backend_selected_when_the_request_is_built(backend):
  tool = FunctionTool(declaration_signatures.optional_union)
  backend("gemini")
  assert "response_json_schema" not in dump(tool._get_declaration())
  backend("vertex")
  assert dump(tool._get_declaration()) == VERTEX["optional_union"]
  backend("gemini")
  assert "anyOf" in json.dumps(dump(tool._get_declaration()))


@pytest.mark.parametrize("case", sorted(set(DIRECT) - {"annotated"}))
@pytest.mark.parametrize("name", ["gemini", "vertex"])
def test_build_function_declaration_returns_what_google_adk_returns(backend, case, name):
  # (not `annotated` without ignore_params: google-adk would declare its `tool_context`; adk_nb never does)
  backend(name)
  variant = GoogleLLMVariant.VERTEX_AI if name == "vertex" else GoogleLLMVariant.GEMINI_API
  func_name, _, ignoring = case.partition(" ignoring ")
  ignore = ignoring.split(", ") if ignoring else None
  assert dump(build_function_declaration(BY_NAME[func_name], ignore, variant)) == DIRECT[case][name]


AGENTS = json.loads((FIXTURES / "google_adk_agent_tool_declarations.json").read_text())


def agent_tools():
  from adk_nb.agents import LlmAgent
  from adk_nb.tools.agent_tool import AgentTool

  address = declaration_signatures.Address
  return {"plain_agent": AgentTool(LlmAgent(name="helper", description="Helps.")),
          "schema_agent": AgentTool(LlmAgent(name="mailer", description="Mails.", input_schema=address,
                                             output_schema=address))}


@pytest.mark.parametrize("case", sorted(AGENTS))
@pytest.mark.parametrize("name", ["gemini", "vertex"])
def test_an_agent_tool_declares_itself_as_google_adk_does(backend, case, name):
  backend(name)
  assert dump(agent_tools()[case]._get_declaration()) == AGENTS[case][name]
