"""ADK's `contents` request processor at its path: importable; running it raises (see `flows.llm_flows`)."""

from __future__ import annotations

from . import ImportOnlyProcessor, not_in_adk_nb

request_processor = ImportOnlyProcessor("contents.request_processor")


async def _add_instructions_to_user_content(invocation_context, llm_request, dynamic_instructions) -> None:
  """ADK's helper that moves dynamic instructions into the user content (with static instructions);
  adk_nb sends both as system instruction, so this import-only name raises."""
  not_in_adk_nb("flows.llm_flows.contents._add_instructions_to_user_content")
