"""The LLM agent's loop (`llm_flow`), split by step into private modules.

Other packages use these names, never the private modules themselves:
- `active_task(events)`: the delegated task waiting for the user, if the latest turn ended in one;
- `apply_compactions(events)`: the events as the model sees them, summaries in place of what they cover.
"""

from ._compaction import apply_compactions
from ._delegation import active_task

__all__ = ["active_task", "apply_compactions"]
