"""The headless approval policy (defined in the core, `adk_nb.approval`, so the demo and the CLI share it)."""

from ..approval import ENV_VAR, POLICIES, resolve_policy

__all__ = ["ENV_VAR", "POLICIES", "resolve_policy"]
