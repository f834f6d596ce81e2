"""Environments: a working directory where an agent runs shell commands and reads and writes files.

google-adk 2.x's `google.adk.environment` (experimental there). `LocalEnvironment` runs commands as
subprocesses of this machine; `adk_nb.integrations.daytona` and `adk_nb.integrations.e2b` offer
remote sandboxes with the same interface. Give one to `adk_nb.tools.environment.EnvironmentToolset`
to let a model use it.
"""

from __future__ import annotations

from ._base_environment import BaseEnvironment, ExecutionResult
from ._local_environment import LocalEnvironment

__all__ = ["BaseEnvironment", "ExecutionResult", "LocalEnvironment"]
