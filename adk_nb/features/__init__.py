"""google-adk's `features` module, for programs and tests that import it: names only, no switches.

google-adk gates experimental code paths behind feature flags (`ADK_ENABLE_*` variables and
`override_feature_enabled`). adk_nb has almost none: what it implements is always on, and what it does not
implement is absent whatever a flag says. So `FeatureName` lists google-adk 2.13's feature names,
`is_feature_enabled` answers True unless the program overrode the name, `override_feature_enabled`
records the override (and warns when it asks to turn something off, since adk_nb does not consult
it), and `experimental` / `stable` / `working_in_progress` return what they decorate unchanged.
The exception: the two skill features google-adk ships switched off, SNAKE_CASE_SKILL_NAME (snake_case
skill names) and SKILL_LIFECYCLE (the `unload_skill` tool), are off here too until
`override_feature_enabled(name, True)` or `ADK_ENABLE_<NAME>=1`; `adk_nb.skills` reads them.
`features._feature_registry.temporary_feature_override(name, enabled)` (google-adk's private path) overrides for
the length of a `with` block.
Left out: the registry of stages and defaults, the environment variables (but the two above), and the warnings
google-adk prints when an experimental class is used.
"""

from __future__ import annotations

import logging
import os
from enum import Enum
from typing import Any

logger = logging.getLogger("adk_nb.features")

__all__ = ["FeatureName", "experimental", "is_feature_enabled", "override_feature_enabled", "stable",
           "working_in_progress"]


class FeatureName(str, Enum):
  """google-adk 2.13's feature names (adk_nb gates nothing on them)."""

  AGENT_CONFIG = "AGENT_CONFIG"
  AGENT_ENGINE_SANDBOX_ENVIRONMENT = "AGENT_ENGINE_SANDBOX_ENVIRONMENT"
  AGENT_STATE = "AGENT_STATE"
  AUTHENTICATED_FUNCTION_TOOL = "AUTHENTICATED_FUNCTION_TOOL"
  BASE_AUTHENTICATED_TOOL = "BASE_AUTHENTICATED_TOOL"
  BIG_QUERY_TOOLSET = "BIG_QUERY_TOOLSET"
  BIG_QUERY_TOOL_CONFIG = "BIG_QUERY_TOOL_CONFIG"
  BIGTABLE_TOOL_SETTINGS = "BIGTABLE_TOOL_SETTINGS"
  BIGTABLE_TOOLSET = "BIGTABLE_TOOLSET"
  CASCADE_LIVE = "CASCADE_LIVE"
  CLASSIFIER = "CLASSIFIER"
  COMPUTER_USE = "COMPUTER_USE"
  DATA_AGENT_TOOL_CONFIG = "DATA_AGENT_TOOL_CONFIG"
  DATA_AGENT_TOOLSET = "DATA_AGENT_TOOLSET"
  DYNAMIC_INSTRUCTION_ROUTING = "DYNAMIC_INSTRUCTION_ROUTING"
  DAYTONA_ENVIRONMENT = "DAYTONA_ENVIRONMENT"
  E2B_ENVIRONMENT = "E2B_ENVIRONMENT"
  ELEVEN_LABS = "ELEVEN_LABS"
  OPENSANDBOX_ENVIRONMENT = "OPENSANDBOX_ENVIRONMENT"
  ENVIRONMENT_SIMULATION = "ENVIRONMENT_SIMULATION"
  EVENTARC_TOOL_CONFIG = "EVENTARC_TOOL_CONFIG"
  EVENTARC_TOOLSET = "EVENTARC_TOOLSET"
  FALLBACK_MODEL = "FALLBACK_MODEL"
  FUNCTION_TOOL_ARG_VALIDATION = "FUNCTION_TOOL_ARG_VALIDATION"
  GCS_ADMIN_TOOLSET = "GCS_ADMIN_TOOLSET"
  GCS_TOOL_SETTINGS = "GCS_TOOL_SETTINGS"
  GCS_TOOLSET = "GCS_TOOLSET"
  GOOGLE_CREDENTIALS_CONFIG = "GOOGLE_CREDENTIALS_CONFIG"
  GOOGLE_TOOL = "GOOGLE_TOOL"
  JSON_SCHEMA_FOR_FUNC_DECL = "JSON_SCHEMA_FOR_FUNC_DECL"
  LIVEKIT = "LIVEKIT"
  MCP_AGENT_SERVER = "MCP_AGENT_SERVER"
  MONGODB_MEMORY_SERVICE = "MONGODB_MEMORY_SERVICE"
  MONGODB_SESSION_SERVICE = "MONGODB_SESSION_SERVICE"
  MONGODB_TOOLSET = "MONGODB_TOOLSET"
  MONGODB_TOOL_SETTINGS = "MONGODB_TOOL_SETTINGS"
  PROGRESSIVE_SSE_STREAMING = "PROGRESSIVE_SSE_STREAMING"
  PUBSUB_TOOL_CONFIG = "PUBSUB_TOOL_CONFIG"
  PUBSUB_TOOLSET = "PUBSUB_TOOLSET"
  SKILL_LIFECYCLE = "SKILL_LIFECYCLE"
  SKILL_TOOLSET = "SKILL_TOOLSET"
  SPANNER_TOOLSET = "SPANNER_TOOLSET"
  SPANNER_ADMIN_TOOLSET = "SPANNER_ADMIN_TOOLSET"
  SPANNER_TOOL_SETTINGS = "SPANNER_TOOL_SETTINGS"
  SPANNER_VECTOR_STORE = "SPANNER_VECTOR_STORE"
  TOOL_CONFIG = "TOOL_CONFIG"
  TOOL_CONFIRMATION = "TOOL_CONFIRMATION"
  PLUGGABLE_AUTH = "PLUGGABLE_AUTH"
  SNAKE_CASE_SKILL_NAME = "SNAKE_CASE_SKILL_NAME"
  IN_MEMORY_SESSION_SERVICE_LIGHT_COPY = "IN_MEMORY_SESSION_SERVICE_LIGHT_COPY"


_overrides: dict[str, bool] = {}

# google-adk's features that are off unless switched on, and that adk_nb consults (adk_nb.skills).
_OFF_BY_DEFAULT = frozenset({"SNAKE_CASE_SKILL_NAME", "SKILL_LIFECYCLE"})


def _key(feature_name: Any) -> str:
  try:
    return FeatureName(feature_name).value
  except ValueError:
    raise ValueError(f"Feature {feature_name!r} is not registered; use a FeatureName member.") from None


def override_feature_enabled(feature_name: Any, enabled: bool) -> None:
  """Records an override for `feature_name` (what `is_feature_enabled` then answers); adk_nb's own code ignores it."""
  key = _key(feature_name)
  if not enabled and key not in _OFF_BY_DEFAULT:
    logger.warning("override_feature_enabled(%s, False): adk_nb has no feature switches, so this changes no "
                   "behaviour; only is_feature_enabled() reports it.", key)
  _overrides[key] = bool(enabled)


def is_feature_enabled(feature_name: Any) -> bool:
  """True unless the program overrode `feature_name` to False (for the skill features off by default: False
  unless overridden to True or `ADK_ENABLE_<NAME>` is set)."""
  key = _key(feature_name)
  if key in _overrides:
    return _overrides[key]
  if key in _OFF_BY_DEFAULT:
    return os.environ.get(f"ADK_ENABLE_{key}", "").strip().lower() in ("1", "true", "yes", "on")
  return True


def _passthrough(*args: Any, **kwargs: Any) -> Any:
  if len(args) == 1 and not kwargs and (callable(args[0]) or isinstance(args[0], type)):
    return args[0]
  return lambda obj: obj


experimental = stable = working_in_progress = _passthrough
"""Decorators that return the class or function unchanged (also when called with a feature name or message)."""
