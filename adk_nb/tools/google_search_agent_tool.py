"""`GoogleSearchAgentTool`: Google Search behind an agent, so it can sit beside function tools.

Gemini models before 3 refuse a request that holds both a built-in search tool and function
declarations. As in google-adk, `GoogleSearchTool(bypass_multi_tools_limit=True)` listed with
other tools is replaced by an `AgentTool` whose agent has only `google_search`: the main model
calls it like a function, and the search runs in that agent's own request.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Union

from .agent_tool import AgentTool
from .google_search_tool import google_search

if TYPE_CHECKING:
  from ..agents.llm_agent import LlmAgent
  from ..models.base_llm import BaseLlm

SEARCH_AGENT_NAME = "google_search_agent"


def create_google_search_agent(model: Union[str, "BaseLlm"]) -> "LlmAgent":
  """An agent that answers a query with Gemini's Google Search grounding and nothing else."""
  from ..agents.llm_agent import LlmAgent

  return LlmAgent(
      name=SEARCH_AGENT_NAME, model=model,
      description="Searches Google (Gemini's built-in search grounding) and answers the query.",
      instruction=("Answer the query you are given from Google Search results, using your built-in search "
                   "grounding. Do not call client-side functions."),
      tools=[google_search])


class GoogleSearchAgentTool(AgentTool):
  """An AgentTool around `create_google_search_agent(...)`."""

  def __init__(self, agent: "LlmAgent"):
    super().__init__(agent=agent)


__all__ = ["GoogleSearchAgentTool", "create_google_search_agent"]
