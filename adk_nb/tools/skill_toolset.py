"""SkillToolset: offers a model skills it can list, load, read and run (google-adk 2.13's toolset).

The model sees google-adk's tools with google-adk's names, descriptions and parameter schemas
(`list_skills`, `load_skill`, `load_skill_resource`, `run_skill_script`; `search_skills` with a
registry; `unload_skill` when SKILL_LIFECYCLE is switched on) and google-adk's system instruction,
so a model prompted on google-adk is prompted the same here. Loading a skill records it in session
state (`_adk_activated_skill_<agent>`, google-adk's key) and offers the tools its front matter
lists in `metadata.adk_additional_tools`. Scripts run through the toolset's code executor, else
the agent's, in a fresh temporary folder holding the skill's files (see `_skill_script`).

Left out: google-adk's skill telemetry spans (`_instrumentation.track_skill_*`).
"""

from __future__ import annotations

import asyncio
import collections
import dataclasses
import hashlib
import json
import logging
import mimetypes
import warnings
from enum import Enum
from pathlib import Path, PurePosixPath, PureWindowsPath
from typing import TYPE_CHECKING, Any, Optional, Sequence, Union

from google.genai import types

from ..agents.readonly_context import ReadonlyContext
from ..code_executors.base_code_executor import BaseCodeExecutor
from ..skills import models, prompt
from ..skills.skill_registry import SkillRegistry
from ..utils import instructions_utils
from . import _skill_script
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

_DEFAULT_SCRIPT_TIMEOUT = 300
_DEFAULT_MAX_ACTIVE_SKILLS = 5
_LIST_SKILLS_TOOL_NAME = "list_skills"
_SEARCH_SKILLS_TOOL_NAME = "search_skills"
_LOAD_SKILL_TOOL_NAME = "load_skill"
_UNLOAD_SKILL_TOOL_NAME = "unload_skill"
_LOAD_SKILL_RESOURCE_TOOL_NAME = "load_skill_resource"
_RUN_SKILL_SCRIPT_TOOL_NAME = "run_skill_script"
_BINARY_FILE_DETECTED_MSG = ("Binary file detected. The content has been injected into the conversation history "
                             "for you to analyze.")
_UNLOADED_SKILL_NOTICE = ("This skill has been unloaded. Its instructions no longer apply and the tools it "
                          "contributed are no longer available. Load it again if you need them.")


def _activated_key(agent_name: str) -> str:
  return f"_adk_activated_skill_{agent_name}"


def _lifecycle_key(agent_name: str) -> str:
  return f"_adk_skill_meta_{agent_name}"


def _error(message: str, code: str) -> dict[str, str]:
  return {"error": message, "error_code": code}


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
  """(folder, {path: content}) for references, assets and scripts, read through the skill's accessors."""
  return _skill_script.resource_files(skill)


def _build_skill_system_instruction(*, prefix: Optional[str] = None, allowed_tools: Optional[set[str]] = None,
                                    skills_folder: Optional[Path] = None, script_execution_enabled: bool = True,
                                    unload_enabled: bool = False) -> str:
  """The skill guidance added to the system instruction, word for word as google-adk's."""
  p = f"{prefix}_" if prefix else ""
  load, resource = f"`{p}{_LOAD_SKILL_TOOL_NAME}`", f"`{p}{_LOAD_SKILL_RESOURCE_TOOL_NAME}`"
  run, unload = f"`{p}{_RUN_SKILL_SCRIPT_TOOL_NAME}`", f"`{p}{_UNLOAD_SKILL_TOOL_NAME}`"
  if script_execution_enabled:
    scripts_bullet = "- **scripts/** (Optional): Executable scripts that can be run via bash.\n\n"
  else:
    scripts_bullet = (f"- **scripts/** (Optional): Scripts bundled with the skill. You cannot run them; use "
                      f"{resource} to read one and follow it yourself.\n\n")
  steps = [
      f'If a skill seems relevant to the current user query, you MUST use the {load} tool with '
      '`skill_name="<SKILL_NAME>"` to read its full instructions before proceeding.',
      "Once you have read the instructions, follow them exactly as documented before replying to the user. For "
      "example, If the instruction lists multiple steps, please make sure you complete all of them in order.",
      f"The {resource} tool is for viewing files within a skill's directory (e.g., `references/*`, `assets/*`, "
      "`scripts/*`). It is ONLY for skill-bundled files — do NOT use it to access documents or files provided by "
      "the user at runtime. Do NOT use other tools to access skill files.",
  ]
  if script_execution_enabled:
    steps.append(f"Use {run} to run scripts from a skill's `scripts/` directory. Use {resource} to view script "
                 "content first if needed.")
  steps.append(f"If {resource} returns any error, do not retry any path. Report the error to the user and stop.")
  if script_execution_enabled:
    steps.append(f"If {run} returns an error (for example `SCRIPT_NOT_FOUND`), do not retry the same script or "
                 "guess a different script path. Report the error to the user and stop.")
  steps.append(f"Loading a skill only retrieves its instructions; it does NOT complete your turn. After a {load} "
               "call returns, continue in the SAME turn: call whatever tools the skill's steps require (search, "
               "data retrieval, render), then write your reply. Never end your turn with an empty response right "
               "after loading a skill.")
  if unload_enabled:
    steps.append(f"Once a skill's task is finished and you no longer need its instructions or its tools, call "
                 f'{unload} with `skill_name="<SKILL_NAME>"` to release it. Only unload a skill you are done with: '
                 f"its tools stop being available, and you would have to {load} it again to use them. Unloading is "
                 "optional; never unload a skill just because you loaded it.")
  if script_execution_enabled and skills_folder is not None:
    folder = skills_folder.as_posix()
    steps.append(f"NOTE ON ENVIRONMENT EXECUTION: When using {run} with the `command` parameter, all skill "
                 "resources (including scripts and assets) are materialized in the execution environment under "
                 f"`{folder}/<skill_name>/`. Always specify file and script paths relative to or starting with "
                 f"`{folder}/<skill_name>/` (e.g., `{folder}/<skill_name>/scripts/<script_name>`).")
  text = ("You can use specialized 'skills' to help you with complex tasks. You MUST use the skill tools to "
          "interact with these skills.\n\nSkills are folders of instructions and resources that extend your "
          "capabilities for specialized tasks. Each skill folder contains:\n- **SKILL.md** (required): The main "
          "instruction file with skill metadata and detailed markdown instructions.\n- **references/** "
          "(Optional): Additional documentation or examples for skill usage.\n- **assets/** (Optional): "
          "Templates, scripts or other resources used by the skill.\n" + scripts_bullet
          + "This is very important:\n\n" + "".join(f"{i}. {step}\n" for i, step in enumerate(steps, start=1)))
  if allowed_tools is not None:
    bannable = [_RUN_SKILL_SCRIPT_TOOL_NAME, _LOAD_SKILL_RESOURCE_TOOL_NAME, _LOAD_SKILL_TOOL_NAME,
                _LIST_SKILLS_TOOL_NAME] + ([_UNLOAD_SKILL_TOOL_NAME] if unload_enabled else [])
    banned = [f"`{p}{name}`" for name in bannable if name not in allowed_tools]
    if banned:
      text += (f"\n\nNote: The following tools are NOT available: {', '.join(banned)}. Do NOT call them. After "
               "loading a skill (if available), apply its instructions in context and write your final reply as "
               "normal model text. Never wrap the user-facing answer inside a tool call.\n")
  return text


def _object_schema(properties: dict[str, Any], required: Optional[list[str]] = None) -> dict[str, Any]:
  schema: dict[str, Any] = {"type": "object", "properties": properties}
  if required:
    schema["required"] = required
  return schema


def _string(description: str) -> dict[str, str]:
  return {"type": "string", "description": description}


class _SkillTool(BaseTool):
  """A tool of a SkillToolset; its declaration is google-adk's JSON schema."""

  TOOL_NAME = ""
  DESCRIPTION = ""

  def __init__(self, toolset: "SkillToolset", description: Optional[str] = None) -> None:
    super().__init__(name=self.TOOL_NAME, description=description or self.DESCRIPTION)
    self._toolset = toolset

  def _schema(self) -> dict[str, Any]:
    return _object_schema({})

  def _get_declaration(self) -> types.FunctionDeclaration:
    return types.FunctionDeclaration(name=self.name, description=self.description,
                                     parameters_json_schema=self._schema())

  async def _skill(self, name: str, tool_context: "ToolContext") -> Union[models.Skill, dict]:
    try:
      skill = await self._toolset._get_or_fetch_skill(name, tool_context.invocation_id)
    except Exception as error:  # noqa: BLE001 - the model is told the registry failed, as google-adk
      return _error(f"Failed to fetch skill '{name}' from registry: {error}", "REGISTRY_ERROR")
    return skill if skill is not None else _error(f"Skill '{name}' not found.", "SKILL_NOT_FOUND")


class ListSkillsTool(_SkillTool):
  """`list_skills`: the catalog as `<available_skills>` XML."""

  TOOL_NAME = _LIST_SKILLS_TOOL_NAME
  DESCRIPTION = "Lists all available skills with their names and descriptions."

  async def run_async(self, *, args: dict[str, Any], tool_context: "ToolContext") -> Any:
    return prompt.format_skills_as_xml(self._toolset._list_skills())


class SearchSkillsTool(_SkillTool):
  """`search_skills`: asks the registry; local names win over the registry's."""

  TOOL_NAME = _SEARCH_SKILLS_TOOL_NAME
  DESCRIPTION = "Searches for relevant skills in the registry based on a semantic or keyword query."

  def __init__(self, toolset: "SkillToolset") -> None:
    if not toolset._registry:
      raise ValueError("SearchSkillsTool requires a configured skill registry.")
    super().__init__(toolset, toolset._registry.search_tool_description())

  def _schema(self) -> dict[str, Any]:
    return _object_schema({"query": _string("Semantic or keyword search query.")}, ["query"])

  async def run_async(self, *, args: dict[str, Any], tool_context: "ToolContext") -> Any:
    query = args.get("query")
    if not query:
      return _error("Argument 'query' is required.", "INVALID_ARGUMENTS")
    try:
      found = await self._toolset._registry.search_skills(query=query)
    except Exception as error:  # noqa: BLE001
      return _error(f"Failed to search skills from registry: {error}", "REGISTRY_ERROR")
    out = []
    for frontmatter in found:
      if frontmatter.name in self._toolset._skills:
        logger.warning("Skill naming conflict: skill '%s' already exists locally. Registry skill is filtered.",
                       frontmatter.name)
        continue
      out.append(frontmatter.model_dump())
    return out


class LoadSkillTool(_SkillTool):
  """`load_skill`: the skill's instructions and front matter; activates its additional tools."""

  TOOL_NAME = _LOAD_SKILL_TOOL_NAME
  DESCRIPTION = "Loads the SKILL.md instructions for a given skill."

  def _schema(self) -> dict[str, Any]:
    return _object_schema({"skill_name": _string("The name of the skill to load.")}, ["skill_name"])

  async def run_async(self, *, args: dict[str, Any], tool_context: "ToolContext") -> Any:
    name = args.get("skill_name")
    if not name:
      return _error("Argument 'skill_name' is required.", "INVALID_ARGUMENTS")
    skill = await self._skill(name, tool_context)
    if isinstance(skill, dict):
      return skill
    evicted = self._toolset._record_activation(tool_context.state, tool_context.agent_name, name,
                                               tool_context.invocation_id, skill)
    instructions = skill.instructions
    if skill.frontmatter.metadata.get("adk_inject_state"):
      instructions = await instructions_utils.inject_session_state(instructions, tool_context)
    result: dict[str, Any] = {"skill_name": name, "instructions": instructions,
                              "frontmatter": skill.frontmatter.model_dump()}
    if evicted:
      result["unloaded_skills"] = evicted
    if self._toolset._lifecycle_for(name) is SkillLifecycleMode.EPHEMERAL:
      result["lifecycle_notice"] = ("This skill is released at the end of the current turn. Do what it is needed "
                                    "for now; in a later turn, load it again.")
    return result


class UnloadSkillTool(_SkillTool):
  """`unload_skill` (SKILL_LIFECYCLE on): releases a skill and the tools it added."""

  TOOL_NAME = _UNLOAD_SKILL_TOOL_NAME
  DESCRIPTION = ("Unloads an active skill once its task is complete, releasing its dynamic tools from the "
                 "context.")

  def _schema(self) -> dict[str, Any]:
    return _object_schema({"skill_name": _string("The name of the skill to unload.")}, ["skill_name"])

  async def run_async(self, *, args: dict[str, Any], tool_context: "ToolContext") -> Any:
    name = args.get("skill_name")
    if not name:
      return _error("Argument 'skill_name' is required.", "INVALID_ARGUMENTS")
    if not self._toolset.unload_skill(tool_context, name):
      return _error(f"Skill '{name}' is not active.", "SKILL_NOT_ACTIVE")
    return {"skill_name": name, "unloaded": True, "active_skills": self._toolset.list_active_skills(tool_context)}


def _resource(skill: models.Skill, file_path: str) -> tuple[bool, Any]:
  """(the path names a resource folder, the content or None), through the skill's accessors."""
  res = skill.resources
  if file_path.startswith("references/"):
    return True, res.get_reference(file_path[len("references/"):])
  if file_path.startswith("assets/"):
    return True, res.get_asset(file_path[len("assets/"):])
  if file_path.startswith("scripts/"):
    script = res.get_script(file_path[len("scripts/"):])
    return True, None if script is None else script.src
  return False, None


def _missing_arguments(skill_name: Any, file_path: Any) -> Optional[dict]:
  errors = [f"Argument '{n}' is required." for n, v in (("skill_name", skill_name), ("file_path", file_path))
            if not v]
  return _error("\n".join(errors), "INVALID_ARGUMENTS") if errors else None


def _lookup_failure(tool_context: "ToolContext", counter: str, what: str, path: str, skill: str,
                    code: str) -> dict:
  # Counted per invocation in `temp:` state (never stored): the second miss tells the model to stop.
  key = f"temp:_adk_skill_{counter}_not_found_count_{tool_context.invocation_id}"
  count = int(tool_context.state.get(key) or 0) + 1
  tool_context.state[key] = count
  if count > 1:
    extra = "any path" if counter == "resource" else "any script path"
    return _error(f"{what} '{path}' not found in skill '{skill}'. This is {counter} lookup failure #{count} this "
                  f"invocation. Do not retry {extra} — report the error to the user and stop.", f"{code}_FATAL")
  return _error(f"{what} '{path}' not found in skill '{skill}'.", code)


class LoadSkillResourceTool(_SkillTool):
  """`load_skill_resource`: a file of references/, assets/ or scripts/ (binary files go to the model as parts)."""

  TOOL_NAME = _LOAD_SKILL_RESOURCE_TOOL_NAME
  DESCRIPTION = "Loads a resource file (from references/, assets/, or scripts/) from within a skill."

  def _schema(self) -> dict[str, Any]:
    return _object_schema({
        "skill_name": _string("The name of the skill."),
        "file_path": _string("The relative path to the resource (e.g., 'references/my_doc.md', "
                             "'assets/template.txt', or 'scripts/setup.sh')."),
    }, ["skill_name", "file_path"])

  async def run_async(self, *, args: dict[str, Any], tool_context: "ToolContext") -> Any:
    name, path = args.get("skill_name"), args.get("file_path")
    missing = _missing_arguments(name, path)
    if missing:
      return missing
    skill = await self._skill(name, tool_context)
    if isinstance(skill, dict):
      return skill
    known_folder, content = _resource(skill, path)
    if not known_folder:
      return _error("Path must start with 'references/', 'assets/', or 'scripts/'.", "INVALID_RESOURCE_PATH")
    if content is None:
      return _lookup_failure(tool_context, "resource", "Resource", path, name, "RESOURCE_NOT_FOUND")
    if isinstance(content, bytes):
      return {"skill_name": name, "file_path": path, "status": _BINARY_FILE_DETECTED_MSG}
    return {"skill_name": name, "file_path": path, "content": content}

  async def process_llm_request(self, *, tool_context: "ToolContext", llm_request: "LlmRequest") -> None:
    """Declares the tool, then shows the model a binary file it just asked for as an inline part."""
    await super().process_llm_request(tool_context=tool_context, llm_request=llm_request)
    if not llm_request.contents:
      return
    for part in llm_request.contents[-1].parts or []:
      answer = part.function_response
      if answer is None or answer.name != self.name:
        continue
      response = answer.response or {}
      if response.get("status") != _BINARY_FILE_DETECTED_MSG:
        continue
      name, path = response.get("skill_name"), response.get("file_path")
      if not name or not path or path.startswith("scripts/"):
        continue
      try:
        skill = await self._toolset._get_or_fetch_skill(name, tool_context.invocation_id)
      except Exception as error:  # noqa: BLE001
        logger.warning("Failed to fetch skill '%s' from registry during LLM request processing: %s", name, error)
        continue
      content = _resource(skill, path)[1] if skill is not None else None
      if not isinstance(content, bytes):
        continue
      mime = mimetypes.guess_type(path)[0] or "application/octet-stream"
      llm_request.contents.append(types.Content(role="user", parts=[
          types.Part.from_text(text=f"The content of binary file '{path}' is:"),
          types.Part(inline_data=types.Blob(data=content, mime_type=mime))]))


class _SkillScriptCodeExecutor:
  """Runs a skill's script through a code executor (google-adk's helper, by its name: Google's tests use it)."""

  def __init__(self, base_executor: Any, script_timeout: int = _DEFAULT_SCRIPT_TIMEOUT,
               save_output_artifacts: bool = False) -> None:
    self._base_executor = base_executor
    self._script_timeout = script_timeout
    self._save_output_artifacts = save_output_artifacts

  def _build_wrapper_code(self, skill: models.Skill, file_path: str, script_args: Any,
                          short_options: Optional[dict] = None, positional_args: Optional[list] = None,
                          nonce: Optional[str] = None) -> Optional[str]:
    """The program the executor runs for `file_path` (None for a script type that cannot be run)."""
    marker = None
    if self._save_output_artifacts:
      marker = f"{_skill_script.GENERATED_FILES_MARKER}{nonce}:" if nonce else _skill_script.new_marker()
    return _skill_script.build_program(skill, file_path, script_args, short_options, positional_args,
                                       self._script_timeout, marker)

  async def execute_script_async(self, invocation_context: Any, skill: models.Skill, file_path: str,
                                 script_args: Any, short_options: Optional[dict] = None,
                                 positional_args: Optional[list] = None, skill_telemetry: Any = None,
                                 tool_context: Optional["ToolContext"] = None) -> dict[str, Any]:
    """Runs the script; google-adk's answer (stdout, stderr, status; or error and error_code)."""
    return await _skill_script.run_script(
        self._base_executor, invocation_context, tool_context, skill, file_path, script_args, short_options,
        positional_args, timeout=self._script_timeout, save_output_artifacts=self._save_output_artifacts)


class RunSkillScriptTool(_SkillTool):
  """`run_skill_script`: runs a script of the skill through the code executor (or the environment)."""

  TOOL_NAME = _RUN_SKILL_SCRIPT_TOOL_NAME
  DESCRIPTION = "Executes a script from a skill's scripts/ directory."

  def _schema(self) -> dict[str, Any]:
    base = {"skill_name": _string("The name of the skill."),
            "file_path": _string("The relative path to the script (e.g., 'scripts/setup.py').")}
    if self._toolset._env is not None:
      return _object_schema({**base, "command": _string("The command to execute in the environment.")},
                            ["skill_name", "file_path", "command"])
    return _object_schema({
        **base,
        "args": {"anyOf": [{"type": "object"}, {"type": "array", "items": {"type": "string"}}],
                 "description": ("Optional arguments to pass to the script as key-value pairs (long options) or "
                                 "as a list of strings. If specified as a list, it is treated as the complete list "
                                 "of arguments, and 'short_options' and 'positional_args' must not be provided.")},
        "short_options": {"type": "object", "description": (
            "Optional short options (single hyphen) to pass to the script as key-value pairs. Must not be "
            "provided if 'args' is a list.")},
        "positional_args": {"type": "array", "items": {"type": "string"}, "description": (
            "Optional positional arguments to pass to the script. Must not be provided if 'args' is a list.")},
    }, ["skill_name", "file_path"])

  async def run_async(self, *, args: dict[str, Any], tool_context: "ToolContext") -> Any:
    name, path = args.get("skill_name"), args.get("file_path")
    missing = _missing_arguments(name, path)
    if missing:
      return missing
    command = args.get("command")
    script_args, short, positional = args.get("args"), args.get("short_options"), args.get("positional_args")
    env = self._toolset._env
    if env is not None:
      if not isinstance(command, str) or not command:
        return _error("Argument 'command' is required and must be a string.", "INVALID_ARGUMENTS")
    else:
      problems = []
      if script_args is not None and not isinstance(script_args, (dict, list)):
        problems.append(f"'args' must be a JSON object (dict) or a list of strings, got {type(script_args).__name__}.")
      if short is not None and not isinstance(short, dict):
        problems.append(f"'short_options' must be a JSON object (dict), got {type(short).__name__}.")
      if positional is not None and not isinstance(positional, list):
        problems.append(f"'positional_args' must be a list of strings, got {type(positional).__name__}.")
      if isinstance(script_args, list) and (short or positional):
        problems.append("Cannot specify 'short_options' or 'positional_args' when 'args' is a list.")
      if problems:
        return _error("\n".join(problems), "INVALID_ARGUMENTS")
    skill = await self._skill(name, tool_context)
    if isinstance(skill, dict):
      return skill
    script = skill.resources.get_script(path[len("scripts/"):] if path.startswith("scripts/") else path)
    if script is None:
      return _lookup_failure(tool_context, "script", "Script", path, name, "SCRIPT_NOT_FOUND")
    if env is not None:
      return await self._run_in_environment(env, skill, path, command)
    executor = self._toolset._code_executor
    if executor is None:
      executor = getattr(tool_context._invocation_context.agent, "code_executor", None)
    if executor is None:
      return _error("Neither Environment nor CodeExecutor is configured. An environment or code executor is "
                    "required to run scripts.", "NO_CODE_EXECUTOR")
    runner = _SkillScriptCodeExecutor(executor, self._toolset._script_timeout,
                                      save_output_artifacts=self._toolset._save_output_artifacts)
    return await runner.execute_script_async(tool_context._invocation_context, skill, path, script_args, short,
                                             positional, tool_context=tool_context)

  async def _run_in_environment(self, env: Any, skill: models.Skill, path: str, command: str) -> dict:
    try:
      folder = self._toolset.skills_folder
      if folder is None:
        raise RuntimeError("skills_folder is not set and no environment working_dir available.")
      skill_dir = folder / skill.name
      script = _skill_script.validate_skill_subpath(path, base_dir=skill_dir, sub_dir="scripts",
                                                    strip_sub_dir=True)
      try:
        await env.read_file(PurePosixPath((skill_dir / "scripts" / script).as_posix()))
      except FileNotFoundError:
        await _write_skill_to_environment(skill, skill_dir, env)
      result = await env.execute(command=command, timeout=self._toolset._script_timeout)
      return {"stdout": result.stdout, "stderr": result.stderr, "exit_code": result.exit_code,
              "timed_out": result.timed_out}
    except Exception as error:  # noqa: BLE001 - the model is told what failed, as google-adk
      logger.exception("Error executing script '%s' from skill '%s' in environment", path, skill.name)
      message = str(error)
      message = message if len(message) <= 200 else message[:200] + "..."
      return _error(f"Failed to execute script '{path}' in environment:\n{type(error).__name__}: {message}",
                    "EXECUTION_ERROR")


async def _write_skill_to_environment(skill: models.Skill, skill_dir: Path, env: Any) -> None:
  """Writes every resource of `skill` under `skill_dir` in the environment (paths checked first)."""
  writes = []
  for sub, mapping in _resource_files(skill):
    seen: set[str] = set()
    for name, content in mapping.items():
      normalized = _skill_script.validate_skill_subpath(name, base_dir=skill_dir, sub_dir=sub)
      if normalized in seen:
        raise ValueError(f"Duplicate normalized path detected: {normalized!r}")
      seen.add(normalized)
      if content is not None:
        writes.append((PurePosixPath((skill_dir / sub / normalized).as_posix()), content))
  await asyncio.gather(*(env.write_file(path, content) for path, content in writes))


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
    """Adds google-adk's skill instruction (and the catalog in EAGER mode) to the system instruction."""
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
      instructions.append("\nIf the locally available skills are not sufficient to complete your task, you can "
                          f"use the `{p}{_SEARCH_SKILLS_TOOL_NAME}` tool to discover additional skills from the "
                          "registry.")
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
      out.append(f"\nThe skill `{name}` has changed since it was loaded. These instructions replace the ones the "
                 f"earlier `{p}{_LOAD_SKILL_TOOL_NAME}` response gave you:\n\n{skill.instructions}")
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


def _prune_unloaded(contents: Optional[list[types.Content]], load_tool_name: str, active: set[str]) -> None:
  """Replaces the instructions of released skills in the request's history by a short notice (never the session's)."""
  for index, content in enumerate(contents or []):
    parts = None
    for i, part in enumerate(content.parts or []):
      answer = part.function_response
      if answer is None or answer.name != load_tool_name:
        continue
      response = answer.response
      if not isinstance(response, dict) or "instructions" not in response:
        continue
      name = response.get("skill_name")
      if not isinstance(name, str) or name in active:
        continue
      parts = parts if parts is not None else list(content.parts or [])
      parts[i] = part.model_copy(update={"function_response": answer.model_copy(update={"response": {
          "skill_name": name, "status": "unloaded", "detail": _UNLOADED_SKILL_NOTICE}})})
    if parts is not None:
      contents[index] = content.model_copy(update={"parts": parts})


DEFAULT_SKILL_SYSTEM_INSTRUCTION = _build_skill_system_instruction()
