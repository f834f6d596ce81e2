"""SkillToolset: offers a model skills it can list, load, read and run (google-adk 2.13's toolset).

The model sees google-adk's tools with google-adk's names, descriptions and parameter schemas
(`list_skills`, `load_skill`, `load_skill_resource`, `run_skill_script`; `search_skills` with a
registry; `unload_skill` when SKILL_LIFECYCLE is switched on) and google-adk's system instruction,
so a model prompted on google-adk is prompted the same here. Loading a skill records it in session
state (`_adk_activated_skill_<agent>`, google-adk's key) and offers the tools its front matter
lists in `metadata.adk_additional_tools`. Scripts run through the toolset's code executor, else
the agent's, in a fresh temporary folder holding the skill's files (see `_skill_script`); the tools
themselves are in `_skill_tools`.

Left out: google-adk's skill telemetry spans (`_instrumentation.track_skill_*`).
"""

from __future__ import annotations

import asyncio
import collections
import dataclasses
import hashlib
import json
import logging
import warnings
from enum import Enum
from pathlib import Path, PurePosixPath, PureWindowsPath
from typing import TYPE_CHECKING, Any, Optional, Sequence, Union

from ..agents.readonly_context import ReadonlyContext
from ..code_executors.base_code_executor import BaseCodeExecutor
from ..skills import models, prompt
from ..skills.skill_registry import SkillRegistry
from ..utils import instructions_utils  # noqa: F401 - Google's tests patch it through this module
from . import _skill_script
# The tools live in _skill_tools; their names (and _SkillScriptCodeExecutor, which Google's tests use) are
# google-adk's names in this module.
from ._skill_tools import (_DEFAULT_SCRIPT_TIMEOUT, _LIST_SKILLS_TOOL_NAME, _LOAD_SKILL_TOOL_NAME,
                           _SEARCH_SKILLS_TOOL_NAME, ListSkillsTool, LoadSkillResourceTool, LoadSkillTool,
                           RunSkillScriptTool, SearchSkillsTool, UnloadSkillTool, _build_skill_system_instruction,
                           _prune_unloaded, _SkillScriptCodeExecutor)
from .base_tool import BaseTool
from .base_toolset import BaseToolset, ToolPredicate
from .function_tool import FunctionTool

if TYPE_CHECKING:
  from ..models.llm_request import LlmRequest
  from .tool_context import ToolContext

logger = logging.getLogger("adk_nb.tools.skill_toolset")

__all__ = ["DEFAULT_SKILL_SYSTEM_INSTRUCTION", "ListSkillsTool", "LoadSkillResourceTool", "LoadSkillTool",
           "RunSkillScriptTool", "SearchSkillsTool", "SkillDiscoveryMode", "SkillLifecycleConfig",
           "SkillLifecycleMode", "SkillToolset", "UnloadSkillTool"]

_DEFAULT_MAX_ACTIVE_SKILLS = 5


def _activated_key(agent_name: str) -> str:
  return f"_adk_activated_skill_{agent_name}"


def _lifecycle_key(agent_name: str) -> str:
  return f"_adk_skill_meta_{agent_name}"

class SkillLifecycleMode(Enum):
  """How long a skill stays active once loaded."""

  PERSISTENT = "persistent"
  """For the rest of the session unless unloaded; never counts against `max_active_skills`."""
  BOUNDED = "bounded"
  """As PERSISTENT, but at most `max_active_skills` at once: the least recently loaded one is released."""
  EPHEMERAL = "ephemeral"
  """Until the end of the turn (invocation) that loaded it."""


@dataclasses.dataclass(frozen=True)
class SkillLifecycleConfig:
  """How long a toolset's skills stay active once loaded (google-adk's fields and defaults)."""

  enabled: bool = True
  """False keeps every skill active for the whole session."""
  default_mode: SkillLifecycleMode = SkillLifecycleMode.PERSISTENT
  """The mode of any skill not in `skill_overrides`."""
  max_active_skills: int = _DEFAULT_MAX_ACTIVE_SKILLS
  """How many BOUNDED skills may be active at once, per agent."""
  skill_overrides: dict[str, SkillLifecycleMode] = dataclasses.field(default_factory=dict)
  """Per-skill modes."""
  revalidate_skills: bool = False
  """Recheck each request that active skills still say what they said when loaded; re-state changed ones."""

  def __post_init__(self) -> None:
    if self.max_active_skills < 1:
      raise ValueError(f"`max_active_skills` must be at least 1, got {self.max_active_skills}.")


class SkillDiscoveryMode(Enum):
  """How the model learns which skills there are."""

  LAZY = "lazy"
  """It calls `list_skills` (the default)."""
  EAGER = "eager"
  """The catalog is written into the system instruction; `list_skills` is not offered."""


def _skill_content_hash(skill: models.Skill) -> str:
  """A digest of everything a skill tells the model (instructions, front matter, every resource)."""
  hasher = hashlib.sha256()

  def feed(*values: Union[str, bytes]) -> None:
    for value in values:
      data = value.encode("utf-8") if isinstance(value, str) else value
      hasher.update(len(data).to_bytes(8, "big"))
      hasher.update(data)

  feed(skill.name, skill.instructions,
       json.dumps(skill.frontmatter.model_dump(mode="json"), sort_keys=True, default=str))
  for kind, mapping in _resource_files(skill):
    for name in sorted(mapping):
      if mapping[name] is not None:
        feed(kind, name, mapping[name])
  return hasher.hexdigest()


def _resource_files(skill: models.Skill) -> list[tuple[str, dict[str, Union[str, bytes]]]]:
  return _skill_script.resource_files(skill)

class SkillToolset(BaseToolset):
  """Skills offered to a model: google-adk 2.13's `SkillToolset`, same arguments and behaviour.

  Args:
    skills: the skills (names must be unique).
    registry: a `SkillRegistry` for skills not given here (adds `search_skills`).
    code_executor: runs scripts; None uses the agent's `code_executor`. Not with `environment`.
    environment: a google-adk `BaseEnvironment`-like object (working_dir, read_file, write_file,
      execute) the scripts run in instead; `run_skill_script` then takes a `command`.
    skills_folder: absolute path of the skills inside the environment (default: its working_dir/skills).
    script_timeout: seconds a shell script may run (default 300).
    save_output_artifacts: save files a script creates as artifacts (code executor only).
    additional_tools: functions, tools, toolsets or nodes offered once a loaded skill names them in
      `metadata.adk_additional_tools`.
    tool_name_prefix / tool_filter: as every toolset.
    discovery_mode: LAZY (`list_skills`) or EAGER (catalog in the system instruction).
    lifecycle_config: how long loaded skills stay active.
  """

  def __init__(self, skills: Optional[list[models.Skill]] = None, *, registry: Optional[SkillRegistry] = None,
               code_executor: Optional["BaseCodeExecutor"] = None, environment: Any = None,
               skills_folder: Union[Path, str, None] = None, script_timeout: int = _DEFAULT_SCRIPT_TIMEOUT,
               save_output_artifacts: bool = False, additional_tools: Optional[Sequence[Any]] = None,
               tool_name_prefix: Optional[str] = None, tool_filter: Union[ToolPredicate, list[str], None] = None,
               discovery_mode: SkillDiscoveryMode = SkillDiscoveryMode.LAZY,
               lifecycle_config: Optional[SkillLifecycleConfig] = None) -> None:
    super().__init__(tool_filter=tool_filter, tool_name_prefix=tool_name_prefix)
    config = lifecycle_config or SkillLifecycleConfig()
    self._lifecycle_config = dataclasses.replace(config, skill_overrides=dict(config.skill_overrides))
    self._tracks_ephemeral_skills = config.enabled and SkillLifecycleMode.EPHEMERAL in (
        {config.default_mode} | set(config.skill_overrides.values()))
    self._revalidate_skills = config.enabled and config.revalidate_skills
    self._materialized_skill_hashes: dict[str, str] = {}
    skills = list(skills or [])
    seen: set[str] = set()
    for skill in skills:
      if skill.name in seen:
        raise ValueError(f"Duplicate skill name '{skill.name}'. Give each skill a unique name.")
      seen.add(skill.name)
    self._skills = {skill.name: skill for skill in skills}
    self._registry = registry
    self._code_executor = code_executor
    self._env = environment
    if code_executor and environment:
      raise ValueError("Cannot have both code_executor and environment: pass one of them.")
    if environment and save_output_artifacts:
      raise ValueError("`save_output_artifacts` is only supported with code_executor, not environment.")
    self._skills_folder: Optional[Path] = None
    if skills_folder is not None:
      if environment is None:
        raise ValueError("Cannot specify skills_folder without an environment")
      if not (PurePosixPath(skills_folder).is_absolute() or PureWindowsPath(skills_folder).is_absolute()):
        raise ValueError(f"`skills_folder` must be an absolute path: '{skills_folder}'")
      self._skills_folder = Path(skills_folder)
    self._script_timeout = script_timeout
    self._save_output_artifacts = save_output_artifacts
    self._use_invocation_cache = False  # the tools change once a skill is loaded: never cache the list per turn
    self._fetched_skill_cache: collections.OrderedDict[str, dict[str, Any]] = collections.OrderedDict()
    self._max_cache_turns = 16
    self._provided_tools_by_name: dict[str, BaseTool] = {}
    self._provided_toolsets: list[BaseToolset] = []
    for tool in additional_tools or []:
      if isinstance(tool, BaseToolset):
        self._provided_toolsets.append(tool)
      elif isinstance(tool, BaseTool):
        self._provided_tools_by_name[tool.name] = tool
      elif _is_node(tool):
        from ._node_tool import wrap_node_as_tool
        wrapped = wrap_node_as_tool(tool)
        self._provided_tools_by_name[wrapped.name] = wrapped
      elif callable(tool):
        wrapped = FunctionTool(tool)
        self._provided_tools_by_name[wrapped.name] = wrapped
    self._discovery_mode = discovery_mode
    self._warned_on_filtered_list_skills = False
    self._lifecycle_enabled = models._opted_in("SKILL_LIFECYCLE")
    self._tools: list[BaseTool] = [ListSkillsTool(self)] if discovery_mode is SkillDiscoveryMode.LAZY else []
    self._tools += [LoadSkillTool(self), LoadSkillResourceTool(self), RunSkillScriptTool(self)]
    if registry:
      self._tools.append(SearchSkillsTool(self))
    if self._lifecycle_enabled:
      self._tools.append(UnloadSkillTool(self))

  @property
  def skills_folder(self) -> Optional[Path]:
    """Where the skills are written inside the environment (None without one)."""
    if self._skills_folder is not None:
      return self._skills_folder
    if self._env is not None:
      return Path(self._env.working_dir) / "skills"
    return None

  @property
  def skills(self) -> list[models.Skill]:
    """The skills given to the toolset."""
    return self._list_skills()

  def _list_skills(self) -> list[models.Skill]:
    return list(self._skills.values())

  def _has_script_execution(self, context: Any) -> bool:
    if self._env is not None or self._code_executor is not None:
      return True
    agent = getattr(getattr(context, "_invocation_context", None), "agent", None)
    return agent is None or getattr(agent, "code_executor", None) is not None

  def _offers_script_tool(self, context: Any) -> bool:
    """Whether `run_skill_script` can succeed (anything unknown counts as yes), as google-adk decides."""
    if not self._has_script_execution(context):
      return False
    if getattr(context, "_invocation_context", None) is None or self._registry is not None:
      return True
    return any(skill.resources.list_scripts() for skill in self._skills.values())

  async def get_tools(self, readonly_context: Optional["ReadonlyContext"] = None) -> list[BaseTool]:
    """The skill tools, plus the additional tools the active skills name."""
    tools = self._tools + await self._resolve_additional_tools_from_state(readonly_context)
    if not self._offers_script_tool(readonly_context):
      tools = [t for t in tools if not isinstance(t, RunSkillScriptTool)]
    return [t for t in tools if self._is_tool_selected(t, readonly_context)]

  async def _resolve_additional_tools_from_state(self, context: Optional["ReadonlyContext"]) -> list[BaseTool]:
    """The tools the active skills list in `metadata.adk_additional_tools`, in activation order."""
    if not context:
      return []
    wanted: dict[str, None] = {}  # in activation order, so earlier declarations keep their place
    for name in self._active_skills(context.state, context.agent_name, context.invocation_id):
      skill = await self._get_or_fetch_skill(name, context.invocation_id)
      if skill:
        wanted.update(dict.fromkeys(skill.frontmatter.metadata.get("adk_additional_tools") or []))
    if not wanted:
      return []
    candidates = dict(self._provided_tools_by_name)
    if self._provided_toolsets:
      results = await asyncio.gather(*(ts.get_tools_with_prefix(context) for ts in self._provided_toolsets),
                                     return_exceptions=True)
      for toolset, tools in zip(self._provided_toolsets, results):
        if isinstance(tools, Exception):
          logger.warning("Skipping toolset %s while resolving skill additional tools: %s", type(toolset).__name__,
                         tools, exc_info=tools)
          continue
        if isinstance(tools, BaseException):
          raise tools
        candidates.update({t.name: t for t in tools})
    out: list[BaseTool] = []
    taken = {t.name for t in self._tools}
    for name in wanted:
      tool = candidates.get(name)
      if tool is None:
        continue
      if tool.name in taken:
        logger.error("Tool name collision: tool '%s' already exists.", tool.name)
        continue
      out.append(tool)
      taken.add(tool.name)
    return out

  def _get_skill(self, skill_name: str) -> Optional[models.Skill]:
    """A skill given to the toolset, by name."""
    return self._skills.get(skill_name)

  async def _get_or_fetch_skill(self, skill_name: str, invocation_id: Optional[str] = None
                                ) -> Optional[models.Skill]:
    """A local skill, else the registry's (fetched once per invocation)."""
    skill = self._skills.get(skill_name)
    if skill is not None or not self._registry:
      return skill
    if not invocation_id:
      return await self._registry.get_skill(name=skill_name)
    if invocation_id not in self._fetched_skill_cache:
      if len(self._fetched_skill_cache) >= self._max_cache_turns:
        self._fetched_skill_cache.popitem(last=False)
      self._fetched_skill_cache[invocation_id] = {}
    cache = self._fetched_skill_cache[invocation_id]
    if skill_name in cache:
      cached = cache[skill_name]
      return await cached if isinstance(cached, asyncio.Future) else cached
    future = asyncio.get_running_loop().create_future()
    cache[skill_name] = future
    try:
      skill = await self._registry.get_skill(name=skill_name)
    except Exception as error:
      future.set_exception(error)
      future.exception()  # retrieved, so asyncio does not log it as never retrieved
      cache.pop(skill_name, None)
      raise
    future.set_result(skill)
    cache[skill_name] = skill
    return skill

  # Lifecycle: which skills are active for an agent, kept in session state under google-adk's keys.

  def _lifecycle_for(self, skill_name: str) -> SkillLifecycleMode:
    config = self._lifecycle_config
    if not config.enabled:
      return SkillLifecycleMode.PERSISTENT
    return config.skill_overrides.get(skill_name, config.default_mode)

  def _released_at_turn_end(self, skill_name: str) -> bool:
    """Whether `skill_name` is EPHEMERAL (released when the turn that loaded it ends)."""
    return self._lifecycle_for(skill_name) is SkillLifecycleMode.EPHEMERAL

  def _records(self, state: Any, agent_name: str) -> dict[str, dict[str, Any]]:
    records = state.get(_lifecycle_key(agent_name))
    if not isinstance(records, dict):
      return {}
    return {name: dict(record) for name, record in records.items() if isinstance(record, dict)}

  def _active_skills(self, state: Any, agent_name: str, invocation_id: Optional[str]) -> list[str]:
    stored = list(state.get(_activated_key(agent_name)) or [])
    if not stored or not self._tracks_ephemeral_skills:
      return stored
    records = self._records(state, agent_name)

    def expired(record: dict) -> bool:
      started = record.get("activated_in")
      return (record.get("lifecycle") == SkillLifecycleMode.EPHEMERAL.value and bool(started)
              and started != invocation_id)

    return [name for name in stored if not expired(records.get(name, {}))]

  def list_active_skills(self, ctx: Any) -> list[str]:
    """The skills active for `ctx`'s agent, least recently loaded first."""
    return self._active_skills(ctx.state, ctx.agent_name, ctx.invocation_id)

  async def load_skill(self, ctx: "ToolContext", skill_name: str) -> bool:
    """Activates a skill without the model (its additional tools, not its instructions); False if it already was."""
    if skill_name in self._active_skills(ctx.state, ctx.agent_name, ctx.invocation_id):
      self._record_activation(ctx.state, ctx.agent_name, skill_name, ctx.invocation_id)
      return False
    skill = await self._get_or_fetch_skill(skill_name, ctx.invocation_id)
    if skill is None:
      raise ValueError(f"Skill '{skill_name}' not found. Known skills: {sorted(self._skills)}.")
    was_active = skill_name in self._active_skills(ctx.state, ctx.agent_name, ctx.invocation_id)
    self._record_activation(ctx.state, ctx.agent_name, skill_name, ctx.invocation_id, skill)
    return not was_active

  def unload_skill(self, ctx: "ToolContext", skill_name: str) -> bool:
    """Deactivates a skill for `ctx`'s agent; False if it was not active."""
    stored = list(ctx.state.get(_activated_key(ctx.agent_name)) or [])
    if skill_name not in stored:
      return False
    was_active = skill_name in self._active_skills(ctx.state, ctx.agent_name, ctx.invocation_id)
    stored.remove(skill_name)
    ctx.state[_activated_key(ctx.agent_name)] = stored
    self._forget_records(ctx.state, ctx.agent_name, stored)
    return was_active

  def _record_for(self, mode: SkillLifecycleMode, skill: Optional[models.Skill]) -> dict[str, Any]:
    record: dict[str, Any] = {}
    if mode is SkillLifecycleMode.EPHEMERAL:
      record["lifecycle"] = mode.value
    if self._revalidate_skills and skill is not None:
      record["version_hash"] = _skill_content_hash(skill)
    return record

  def _record_activation(self, state: Any, agent_name: str, skill_name: str, invocation_id: Optional[str],
                         skill: Optional[models.Skill] = None) -> list[str]:
    """Marks `skill_name` active; returns what that released (expired ephemeral skills, then evicted ones)."""
    stored = list(state.get(_activated_key(agent_name)) or [])
    active = self._active_skills(state, agent_name, invocation_id)
    expired = [name for name in stored if name not in active and name != skill_name]
    mode = self._lifecycle_for(skill_name)
    if skill_name not in active:
      active.append(skill_name)
    elif mode is SkillLifecycleMode.PERSISTENT:
      if not expired and not self._record_for(mode, skill):
        return []
    else:  # reloading is a use: to the end, so the cap spares it
      active.remove(skill_name)
      active.append(skill_name)
    bounded = [n for n in active if self._lifecycle_for(n) is SkillLifecycleMode.BOUNDED]
    evicted = bounded[:max(0, len(bounded) - self._lifecycle_config.max_active_skills)]
    active = [n for n in active if n not in evicted]
    state[_activated_key(agent_name)] = active  # assigned, not mutated, so the delta is recorded
    record = self._record_for(mode, skill)
    if record:
      if "lifecycle" in record:
        record["activated_in"] = invocation_id
      records = self._records(state, agent_name)
      if "version_hash" not in record and records.get(skill_name, {}).get("version_hash"):
        record["version_hash"] = records[skill_name]["version_hash"]
      records[skill_name] = record
      state[_lifecycle_key(agent_name)] = records
    self._forget_records(state, agent_name, active)
    return expired + evicted

  def _forget_records(self, state: Any, agent_name: str, active: list[str]) -> None:
    records = self._records(state, agent_name)
    kept = {name: record for name, record in records.items() if name in active}
    if len(kept) != len(records):
      state[_lifecycle_key(agent_name)] = kept

  def clone_with_updated_skills(self, skills: list[models.Skill]) -> "SkillToolset":
    """A toolset configured as this one with other skills."""
    return SkillToolset(skills=skills, registry=self._registry, code_executor=self._code_executor,
                        environment=self._env, skills_folder=self._skills_folder, script_timeout=self._script_timeout,
                        save_output_artifacts=self._save_output_artifacts,
                        additional_tools=[*self._provided_tools_by_name.values(), *self._provided_toolsets],
                        tool_name_prefix=self.tool_name_prefix, tool_filter=self.tool_filter,
                        discovery_mode=self._discovery_mode, lifecycle_config=self._lifecycle_config)

  def _inject_catalog(self, selected: set[str]) -> bool:
    if self._discovery_mode is SkillDiscoveryMode.EAGER:
      return True
    if _LIST_SKILLS_TOOL_NAME in selected:
      return False
    if not self._warned_on_filtered_list_skills:
      self._warned_on_filtered_list_skills = True
      warnings.warn("Filtering out `list_skills` to inject the skill catalog into the system instruction is "
                    "deprecated. Pass `discovery_mode=SkillDiscoveryMode.EAGER` instead; a future release will let "
                    "tool_filter remove the tool without changing the prompt.", FutureWarning, stacklevel=2)
    return True

  async def process_llm_request(self, *, tool_context: "ToolContext", llm_request: "LlmRequest") -> None:
    """Adds the skill guidance (and the catalog in EAGER mode) to the system instruction."""
    if self._env is not None and not getattr(self._env, "is_initialized", True):
      await self._env.initialize()
    selected = {t.name for t in self._tools if self._is_tool_selected(t, tool_context)}
    instructions = [_build_skill_system_instruction(
        prefix=self.tool_name_prefix, allowed_tools=selected, skills_folder=self.skills_folder,
        script_execution_enabled=self._offers_script_tool(tool_context), unload_enabled=self._lifecycle_enabled)]
    if self._inject_catalog(selected):
      instructions.append(prompt.format_skills_as_xml(self._list_skills()))
    p = f"{self.tool_name_prefix}_" if self.tool_name_prefix else ""
    if self._registry and _SEARCH_SKILLS_TOOL_NAME in selected:
      instructions.append(f"\nWhen none of the skills listed here fits the task, `{p}{_SEARCH_SKILLS_TOOL_NAME}` "
                          "finds more of them in the skill registry.")
    if self._revalidate_skills:
      instructions += await self._restate_changed_skills(tool_context, p)
    llm_request.append_instructions(instructions)
    if self._lifecycle_enabled:
      _prune_unloaded(llm_request.contents, f"{p}{_LOAD_SKILL_TOOL_NAME}", set(self.list_active_skills(tool_context)))

  async def _restate_changed_skills(self, tool_context: "ToolContext", p: str) -> list[str]:
    records = self._records(tool_context.state, tool_context.agent_name)
    to_check = [(name, records[name]["version_hash"])
                for name in self._active_skills(tool_context.state, tool_context.agent_name,
                                                tool_context.invocation_id)
                if records.get(name, {}).get("version_hash")]
    if not to_check:
      return []
    fetched = await asyncio.gather(*(self._get_or_fetch_skill(n, tool_context.invocation_id) for n, _ in to_check),
                                   return_exceptions=True)
    out = []
    for (name, loaded_hash), skill in zip(to_check, fetched):
      if isinstance(skill, Exception):
        logger.warning("Could not revalidate skill '%s': %s", name, skill, exc_info=skill)
        continue
      if isinstance(skill, BaseException):
        raise skill
      if skill is None or _skill_content_hash(skill) == loaded_hash:
        continue
      out.append(f"\nSkill `{name}` was edited after you loaded it. Follow the text below instead of what the "
                 f"earlier `{p}{_LOAD_SKILL_TOOL_NAME}` answer said:\n\n{skill.instructions}")
    return out

  async def close(self) -> None:
    """Closes the environment (if any) and forgets fetched registry skills."""
    if self._env is not None and getattr(self._env, "is_initialized", False):
      await self._env.close()
    for cache in self._fetched_skill_cache.values():
      for cached in cache.values():
        if isinstance(cached, asyncio.Future) and not cached.done():
          cached.cancel()
    self._fetched_skill_cache.clear()


def _is_node(tool: Any) -> bool:
  if getattr(type(tool), "_is_workflow_node", False):
    return True
  from ..agents.base_agent import BaseAgent
  from ..workflow._base_node import BaseNode
  return isinstance(tool, BaseNode) and not isinstance(tool, BaseAgent)

DEFAULT_SKILL_SYSTEM_INSTRUCTION = _build_skill_system_instruction()
