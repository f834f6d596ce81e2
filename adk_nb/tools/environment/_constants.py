"""Limits (google-adk's values) and the instruction text (adk_nb's wording) of the environment toolset."""

from __future__ import annotations

DEFAULT_TIMEOUT = 30
"""Seconds an `Execute` call may run before it is killed."""

MAX_OUTPUT_CHARS = 30_000
"""Characters of output or file content returned to the model per call, before the truncation notice."""

# Added to the system instruction on every model call. The tool names are google-adk's; the wording is adk_nb's.
ENVIRONMENT_INSTRUCTION = """\
Working directory: {working_dir}/ (relative paths start there).

How to use the environment tools:
- Look inside files with `ReadFile` and change existing ones with `EditFile`; `cat`, `head` and `tail` through
  `Execute` do this job worse.
- Calls made in one response run at the same time. Commands that depend on each other therefore go into one
  `Execute` call joined with `&&`, never into several `Execute` calls.
- Do not put `ReadFile` or `EditFile` in the same response as `Execute`: call the file tool, wait for its answer,
  then run `Execute` in your next response.
"""
