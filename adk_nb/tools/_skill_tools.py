"""The tools a SkillToolset offers the model, and the skill guidance it adds to the system instruction.

google-adk 2.13's tool names, parameter schemas, answer fields and error codes; the descriptions,
instruction text and messages are adk_nb's own words (see `skill_toolset`, which re-exports the public
classes at google-adk's path).
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
_BINARY_FILE_DETECTED_MSG = ("This file is binary; its bytes follow in the conversation as an inline part for "
                             "you to examine.")
_UNLOADED_SKILL_NOTICE = ("Released: the instructions this skill gave no longer hold and its extra tools are "
                          "gone. Load the skill anew to use it again.")


def _error(message: str, code: str) -> dict[str, str]:
  return {"error": message, "error_code": code}


def _build_skill_system_instruction(*, prefix: Optional[str] = None, allowed_tools: Optional[set[str]] = None,
                                    skills_folder: Optional[Path] = None, script_execution_enabled: bool = True,
                                    unload_enabled: bool = False) -> str:
  """The skill guidance added to the system instruction (adk_nb's wording; the tool names are google-adk's)."""
  p = f"{prefix}_" if prefix else ""
  load, resource = f"`{p}{_LOAD_SKILL_TOOL_NAME}`", f"`{p}{_LOAD_SKILL_RESOURCE_TOOL_NAME}`"
  run, unload = f"`{p}{_RUN_SKILL_SCRIPT_TOOL_NAME}`", f"`{p}{_UNLOAD_SKILL_TOOL_NAME}`"
  if script_execution_enabled:
    scripts_line = "- `scripts/` (may be absent): programs you can run.\n\n"
  else:
    scripts_line = (f"- `scripts/` (may be absent): programs bundled with the skill. Running them is not "
                    f"possible here; read one with {resource} and carry out its steps yourself.\n\n")
  rules = [
      f'Before acting on a request that a skill covers, call {load} with `skill_name="<SKILL_NAME>"` and read '
      "what it returns. This is required.",
      "Carry out the loaded instructions as written, every step and in the given order, before you answer "
      "the user.",
      f"Read a file that ships with a skill (under `references/`, `assets/` or `scripts/`) with {resource}, and "
      "with no other tool. Files the user gives you during the conversation are not skill files: never open them "
      f"with {resource}.",
  ]
  if script_execution_enabled:
    rules.append(f"To run a program from a skill's `scripts/` folder, call {run}; you may read it first with "
                 f"{resource}.")
  rules.append(f"When {resource} answers with an error, stop: tell the user what failed and try no other path.")
  if script_execution_enabled:
    rules.append(f"When {run} answers with an error (such as `SCRIPT_NOT_FOUND`), stop: tell the user what "
                 "failed; neither call the same script again nor guess another path.")
  rules.append(f"A {load} answer only hands you instructions; your turn is not over. In the same turn, make "
               "the tool calls the skill's steps ask for (searching, fetching data, rendering) and then write "
               "your answer. Do not finish a turn with an empty reply just after loading a skill.")
  if unload_enabled:
    rules.append(f'When you are done with a skill and need neither its instructions nor its tools, you may '
                 f'call {unload} with `skill_name="<SKILL_NAME>"` to let it go. Its tools then disappear until '
                 f"you call {load} for it again, so only release a skill whose work is finished; releasing is "
                 "never required.")
  if script_execution_enabled and skills_folder is not None:
    folder = skills_folder.as_posix()
    rules.append(f"About the execution environment: when you call {run} with a `command`, each skill's files "
                 f"(scripts, assets and the rest) are present under `{folder}/<skill_name>/`. Write every file "
                 f"or script path from there, for example `{folder}/<skill_name>/scripts/<script_name>`.")
  text = ("Skills are available to you for specialised work, and you reach them only through the skill "
          "tools.\n\nA skill is a folder holding instructions and material for one kind of task:\n"
          "- `SKILL.md` (always there): the skill's metadata and its step-by-step instructions in markdown.\n"
          "- `references/` (may be absent): extra documentation and worked examples.\n"
          "- `assets/` (may be absent): templates and other files the skill uses.\n" + scripts_line
          + "Rules:\n\n" + "".join(f"{i}. {rule}\n" for i, rule in enumerate(rules, start=1)))
  if allowed_tools is not None:
    bannable = [_RUN_SKILL_SCRIPT_TOOL_NAME, _LOAD_SKILL_RESOURCE_TOOL_NAME, _LOAD_SKILL_TOOL_NAME,
                _LIST_SKILLS_TOOL_NAME] + ([_UNLOAD_SKILL_TOOL_NAME] if unload_enabled else [])
    banned = [f"`{p}{name}`" for name in bannable if name not in allowed_tools]
    if banned:
      text += (f"\n\nUnavailable here, so never call them: {', '.join(banned)}. Once a skill is loaded (where "
               "loading is possible), use its instructions directly and give your answer as ordinary text, "
               "not as the arguments of a tool call.\n")
  return text


def _object_schema(properties: dict[str, Any], required: Optional[list[str]] = None) -> dict[str, Any]:
  schema: dict[str, Any] = {"type": "object", "properties": properties}
  if required:
    schema["required"] = required
  return schema


def _string(description: str) -> dict[str, str]:
  return {"type": "string", "description": description}


class _SkillTool(BaseTool):
  """A tool of a SkillToolset; its name and JSON schema are google-adk's, its descriptions adk_nb's own."""

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
      return _error(f"The skill registry could not provide '{name}': {error}", "REGISTRY_ERROR")
    return skill if skill is not None else _error(f"There is no skill named '{name}'.", "SKILL_NOT_FOUND")


class ListSkillsTool(_SkillTool):
  """`list_skills`: the catalog as `<available_skills>` XML."""

  TOOL_NAME = _LIST_SKILLS_TOOL_NAME
  DESCRIPTION = "Returns the catalog of skills you can load: each one's name and what it is for."

  async def run_async(self, *, args: dict[str, Any], tool_context: "ToolContext") -> Any:
    return prompt.format_skills_as_xml(self._toolset._list_skills())


class SearchSkillsTool(_SkillTool):
  """`search_skills`: asks the registry; local names win over the registry's."""

  TOOL_NAME = _SEARCH_SKILLS_TOOL_NAME
  DESCRIPTION = "Looks in the skill registry for skills that match a query (keywords or a description of the need)."

  def __init__(self, toolset: "SkillToolset") -> None:
    if not toolset._registry:
      raise ValueError("SearchSkillsTool requires a configured skill registry.")
    super().__init__(toolset, toolset._registry.search_tool_description())

  def _schema(self) -> dict[str, Any]:
    return _object_schema({"query": _string("What to look for: keywords or a plain description.")}, ["query"])

  async def run_async(self, *, args: dict[str, Any], tool_context: "ToolContext") -> Any:
    query = args.get("query")
    if not query:
      return _error("Pass a non-empty 'query'.", "INVALID_ARGUMENTS")
    try:
      found = await self._toolset._registry.search_skills(query=query)
    except Exception as error:  # noqa: BLE001
      return _error(f"The skill registry search failed: {error}", "REGISTRY_ERROR")
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
  DESCRIPTION = "Returns the instructions in a skill's SKILL.md, by skill name."

  def _schema(self) -> dict[str, Any]:
    return _object_schema({"skill_name": _string("Name of the skill whose instructions you want.")}, ["skill_name"])

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
      result["lifecycle_notice"] = ("This skill stays loaded only until this turn ends. Finish its work now and "
                                    "load it once more if a later turn needs it.")
    return result


class UnloadSkillTool(_SkillTool):
  """`unload_skill` (SKILL_LIFECYCLE on): releases a skill and the tools it added."""

  TOOL_NAME = _UNLOAD_SKILL_TOOL_NAME
  DESCRIPTION = ("Releases a loaded skill whose work is finished, removing the tools it added from your "
                 "context.")

  def _schema(self) -> dict[str, Any]:
    return _object_schema({"skill_name": _string("Name of the loaded skill to release.")}, ["skill_name"])

  async def run_async(self, *, args: dict[str, Any], tool_context: "ToolContext") -> Any:
    name = args.get("skill_name")
    if not name:
      return _error("Argument 'skill_name' is required.", "INVALID_ARGUMENTS")
    if not self._toolset.unload_skill(tool_context, name):
      return _error(f"'{name}' is not a loaded skill, so there is nothing to release.", "SKILL_NOT_ACTIVE")
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
  errors = [f"Pass a non-empty '{n}'." for n, v in (("skill_name", skill_name), ("file_path", file_path))
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
    return _error(f"Skill '{skill}' has no {what.lower()} '{path}' ({counter} miss number {count} in this "
                  f"invocation). Stop trying {extra}: tell the user about the error and end here.", f"{code}_FATAL")
  return _error(f"Skill '{skill}' has no {what.lower()} '{path}'.", code)


class LoadSkillResourceTool(_SkillTool):
  """`load_skill_resource`: a file of references/, assets/ or scripts/ (binary files go to the model as parts)."""

  TOOL_NAME = _LOAD_SKILL_RESOURCE_TOOL_NAME
  DESCRIPTION = "Returns one file bundled with a skill, found under its references/, assets/ or scripts/ folder."

  def _schema(self) -> dict[str, Any]:
    return _object_schema({
        "skill_name": _string("Name of the skill that holds the file."),
        "file_path": _string("Path of the file inside the skill, such as 'references/guide.md', "
                             "'assets/form.txt' or 'scripts/prepare.sh'."),
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
      return _error("Give a path beginning with 'references/', 'assets/' or 'scripts/'.", "INVALID_RESOURCE_PATH")
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
          types.Part.from_text(text=f"Bytes of the binary file '{path}':"),
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
  DESCRIPTION = "Runs one program from the scripts/ folder of a skill and returns what it printed."

  def _schema(self) -> dict[str, Any]:
    base = {"skill_name": _string("Name of the skill that holds the script."),
            "file_path": _string("Path of the script inside the skill, such as 'scripts/prepare.py'.")}
    if self._toolset._env is not None:
      return _object_schema({**base, "command": _string("Shell command to run in the environment.")},
                            ["skill_name", "file_path", "command"])
    return _object_schema({
        **base,
        "args": {"anyOf": [{"type": "object"}, {"type": "array", "items": {"type": "string"}}],
                 "description": ("Optional. Either an object of long options (name to value) or a list of "
                                 "strings; a list is the script's whole argument list, and then leave out "
                                 "'short_options' and 'positional_args'.")},
        "short_options": {"type": "object", "description": (
            "Optional. Single-hyphen options as an object of name to value; leave out when 'args' is a "
            "list.")},
        "positional_args": {"type": "array", "items": {"type": "string"}, "description": (
            "Optional. Arguments passed by position, in order; leave out when 'args' is a list.")},
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
        return _error("Pass 'command' as a non-empty string.", "INVALID_ARGUMENTS")
    else:
      problems = []
      if script_args is not None and not isinstance(script_args, (dict, list)):
        problems.append(f"Give 'args' as an object or a list of strings, not {type(script_args).__name__}.")
      if short is not None and not isinstance(short, dict):
        problems.append(f"Give 'short_options' as an object, not {type(short).__name__}.")
      if positional is not None and not isinstance(positional, list):
        problems.append(f"Give 'positional_args' as a list of strings, not {type(positional).__name__}.")
      if isinstance(script_args, list) and (short or positional):
        problems.append("When 'args' is a list, leave out 'short_options' and 'positional_args'.")
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
      return _error("Scripts cannot run here: give the toolset or the agent a code executor, or the toolset an "
                    "environment.", "NO_CODE_EXECUTOR")
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
      return _error(f"Running '{path}' in the environment failed:\n{type(error).__name__}: {message}",
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


