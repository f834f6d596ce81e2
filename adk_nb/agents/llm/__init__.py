"""google-adk 2.x's `agents.llm` package path; the LLM agent itself is `adk_nb.agents.llm_agent`."""
