"""Limits and the instruction text of the environment toolset (google-adk's values: a model was prompted with them)."""

from __future__ import annotations

DEFAULT_TIMEOUT = 30
"""Seconds an `Execute` call may run before it is killed."""

MAX_OUTPUT_CHARS = 30_000
"""Characters of output or file content returned to the model per call, before the truncation notice."""

# Added to the system instruction on every model call; google-adk's text, word for word.
ENVIRONMENT_INSTRUCTION = """\
Your environment is at {working_dir}/

# Environment Rules

DO:
- Chain sequential, dependent commands with `&&` in a single `Execute` call
- To read existing files, always use the `ReadFile` tool. Use `EditFile` to modify existing files.

DON'T:
- Use `Execute` to run cat, head, or tail when `ReadFile` tools can do the job
- Combine `EditFile` or `ReadFile` with `Execute` in the same response (Instead, call the file tool first, then `Execute` in the next turn)
- Use multiple `Execute` calls for dependent commands (they run in parallel)
"""
