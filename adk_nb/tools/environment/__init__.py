"""EnvironmentToolset: lets a model run shell commands and read, edit and write files in an environment.

google-adk 2.x's `google.adk.tools.environment` (experimental there): four tools, `Execute`,
`ReadFile`, `EditFile` and `WriteFile`, with google-adk's names, descriptions and parameter
schemas, and the same environment instruction added to every model request.
"""

from __future__ import annotations

from ._environment_toolset import EnvironmentToolset

__all__ = ["EnvironmentToolset"]
