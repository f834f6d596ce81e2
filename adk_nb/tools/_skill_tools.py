"""The tools a SkillToolset offers the model, and the skill guidance it adds to the system instruction.

google-adk 2.13's names, descriptions, parameter schemas and answers (see `skill_toolset`, which
re-exports the public ones at google-adk's path).
"""

from __future__ import annotations

import asyncio
import logging
import mimetypes
from pathlib import Path, PurePosixPath
from typing import TYPE_CHECKING, Any, Optional, Union

from google.genai import types

from ..skills import models, prompt
from ..utils import instructions_utils
from . import _skill_script
from .base_tool import BaseTool

if TYPE_CHECKING:
  from ..models.llm_request import LlmRequest
  from .skill_toolset import SkillToolset
  from .tool_context import ToolContext

logger = logging.getLogger("adk_nb.tools.skill_toolset")

_DEFAULT_SCRIPT_TIMEOUT = 300
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


def _error(message: str, code: str) -> dict[str, str]:
  return {"error": message, "error_code": code}


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
    if self._toolset._released_at_turn_end(name):
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
  for sub, mapping in _skill_script.resource_files(skill):
    seen: set[str] = set()
    for name, content in mapping.items():
      normalized = _skill_script.validate_skill_subpath(name, base_dir=skill_dir, sub_dir=sub)
      if normalized in seen:
        raise ValueError(f"Duplicate normalized path detected: {normalized!r}")
      seen.add(normalized)
      if content is not None:
        writes.append((PurePosixPath((skill_dir / sub / normalized).as_posix()), content))
  await asyncio.gather(*(env.write_file(path, content) for path, content in writes))


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


