"""How `run_skill_script` runs a skill's script through a code executor (google-adk's way).

The executor gets one self-contained Python program: it writes the skill's references, assets
and scripts into a fresh temporary folder, changes into it, and runs the script there (a `.py`
with `runpy` as `__main__`, a `.sh` / `.bash` under `bash` with a timeout, its output returned as
one JSON line). With `save_output_artifacts`, files the script created or changed are sent back
base64-encoded after a per-run marker and saved as artifacts. The folder is deleted afterwards.
"""

from __future__ import annotations

import asyncio
import base64
import json
import logging
import os
import secrets
from pathlib import Path, PurePosixPath
from typing import Any, Optional, Union

from google.genai import types

from ..code_executors.code_execution_utils import CodeExecutionInput
from ..skills import models
from ..skills._utils import _validate_relative_resource_path

logger = logging.getLogger("adk_nb.tools.skill_toolset")

MAX_SKILL_PAYLOAD_BYTES = 16 * 1024 * 1024
MAX_ARTIFACT_BYTES = 5 * 1024 * 1024
MAX_ARTIFACTS_TOTAL_BYTES = 16 * 1024 * 1024
MAX_ARTIFACTS_COUNT = 50
GENERATED_FILES_MARKER = "__ADK_SKILL_GENERATED_FILES__:"

# The program the executor runs. `{files!r}` is the skill's files by relative path; the script
# part and the ending are appended below. Every path is checked to stay inside the folder.
_PROLOGUE = """
import os
import sys
import json as _json
import subprocess
import runpy
import tempfile
from pathlib import PurePosixPath, PureWindowsPath
_files = {files!r}
def _materialize_and_run():
  _orig_cwd = os.getcwd()
  with tempfile.TemporaryDirectory() as td:
    _base = os.path.realpath(td)
    _seen = set()
    for _rel, _content in _files.items():
      _posix = _rel.replace('\\\\', '/')
      _tail = _posix.partition('/')[2] or _posix
      _p = PurePosixPath(_tail)
      if (not _p.as_posix() or _p.as_posix() == '.' or _p.is_absolute() or '..' in _p.parts
          or PureWindowsPath(_tail).is_absolute() or PureWindowsPath(_tail).drive):
        raise PermissionError(f'Path traversal detected: {{_rel!r}}')
      _dest = os.path.realpath(os.path.join(td, _posix))
      if _dest == _base or os.path.commonpath([_base, _dest]) != _base:
        raise PermissionError(f'Path traversal detected: {{_rel!r}}')
      if _dest in _seen:
        raise ValueError(f'Duplicate normalized path detected: {{_rel!r}}')
      _seen.add(_dest)
      os.makedirs(os.path.dirname(_dest), exist_ok=True)
      if isinstance(_content, bytes):
        with open(_dest, 'wb') as _f:
          _f.write(_content)
      else:
        with open(_dest, 'w', encoding='utf-8') as _f:
          _f.write(_content)
    _before = {{}}
    for _root, _dirs, _names in os.walk(td):
      for _name in _names:
        _full = os.path.join(_root, _name)
        _st = os.stat(_full)
        _before[os.path.relpath(_full, td).replace('\\\\', '/')] = (_st.st_size, _st.st_mtime_ns)
    os.chdir(td)
    try:
"""

_PYTHON = """
      sys.argv = {argv!r}
      sys.path.insert(0, os.path.dirname(os.path.abspath({path!r})))
      try:
        runpy.run_path({path!r}, run_name='__main__')
      except SystemExit as _e:
        if _e.code is not None and _e.code != 0:
          raise
"""

_SHELL = """
      try:
        _r = subprocess.run({argv!r}, capture_output=True, text=True, encoding='utf-8', errors='replace',
                            timeout={timeout!r}, cwd=td)
        print('\\n' + _json.dumps({{'__shell_result__': True, 'stdout': _r.stdout, 'stderr': _r.stderr,
                                    'returncode': _r.returncode}}))
      except subprocess.TimeoutExpired as _e:
        _out = _e.stdout or ''
        if isinstance(_out, bytes):
          _out = _out.decode('utf-8', 'replace')
        print('\\n' + _json.dumps({{'__shell_result__': True, 'stdout': _out,
                                    'stderr': 'Timed out after {timeout}s', 'returncode': -1, 'timeout': True}}))
"""

_END = """
    finally:
      os.chdir(_orig_cwd)
_materialize_and_run()
"""

_END_WITH_ARTIFACTS = """
    finally:
      try:
        import base64 as _b64, mimetypes as _mt, stat as _stat
        _out, _skipped, _total = [], [], 0
        for _root, _dirs, _names in os.walk(td):
          _dirs[:] = [d for d in _dirs if d != '__pycache__']
          for _name in _names:
            if _name.endswith('.pyc'):
              continue
            _full = os.path.join(_root, _name)
            _rel = os.path.normpath(os.path.relpath(_full, td)).replace('\\\\', '/')
            if _rel.startswith('..') or _rel.startswith('user:'):
              continue
            _st = os.stat(_full)
            if not _stat.S_ISREG(_st.st_mode) or _before.get(_rel) == (_st.st_size, _st.st_mtime_ns):
              continue
            if (_st.st_size > {max_file!r} or _total + _st.st_size > {max_total!r}
                or len(_out) >= {max_count!r}):
              if len(_skipped) < {max_count!r}:
                _skipped.append(_rel)
              continue
            with open(_full, 'rb') as _gf:
              _data = _gf.read()
            _total += len(_data)
            _out.append({{'path': _rel, 'content_b64': _b64.b64encode(_data).decode('ascii'),
                          'mime_type': _mt.guess_type(_rel)[0] or 'application/octet-stream'}})
        if _out or _skipped:
          print({marker!r} + _json.dumps({{'files': _out, 'skipped_paths': _skipped}}))
      except Exception:
        pass
      os.chdir(_orig_cwd)
_materialize_and_run()
"""


def validate_skill_subpath(path: str, *, base_dir: Optional[Path] = None, sub_dir: Optional[str] = None,
                           strip_sub_dir: bool = False) -> str:
  """`path` relative to the skill's `sub_dir`; PermissionError when it would leave the skill."""
  if strip_sub_dir and sub_dir is not None:
    path = path.replace("\\", "/")
    while path.startswith("./"):
      path = path[2:]
    path = path.removeprefix(f"{sub_dir}/")
  try:
    normalized = _validate_relative_resource_path(path)
  except ValueError as error:
    raise PermissionError(f"Path traversal detected: {path!r}") from error
  if base_dir is not None:
    base = base_dir / sub_dir if sub_dir is not None else base_dir
    real_base = os.path.realpath(base.as_posix())
    target = os.path.realpath((base / normalized).as_posix())
    if target == real_base or os.path.commonpath([real_base, target]) != real_base:
      raise PermissionError(f"Path traversal detected: {path!r}")
  return normalized


def resource_files(skill: models.Skill) -> list[tuple[str, dict[str, Union[str, bytes]]]]:
  """(folder, {path: content}) for references, assets and scripts, through the skill's accessors (as google-adk)."""
  res = skill.resources
  scripts = {}
  for name in res.list_scripts():
    script = res.get_script(name)
    if script is not None and script.src is not None:
      scripts[name] = script.src
  out = [("references", {}), ("assets", {}), ("scripts", scripts)]
  for (_, mapping), names, get in zip(out, (res.list_references(), res.list_assets()),
                                      (res.get_reference, res.get_asset)):
    for name in names:
      content = get(name)
      if content is not None:
        mapping[name] = content
  return out


def _command_line(first: list[str], script_args: Any, short_options: Optional[dict],
                  positional_args: Optional[list]) -> list[str]:
  argv = list(first)
  if isinstance(script_args, list):
    return argv + [str(v) for v in script_args]
  for key, value in (script_args or {}).items():
    argv += [f"--{key}", str(value)]
  for key, value in (short_options or {}).items():
    argv += [f"-{key}", str(value)]
  if positional_args:
    argv += ["--"] + [str(v) for v in positional_args]
  return argv


def build_program(skill: models.Skill, file_path: str, script_args: Any, short_options: Optional[dict],
                  positional_args: Optional[list], timeout: int, marker: Optional[str]) -> Optional[str]:
  """The program that runs `file_path` of `skill`; None for a script type that cannot be run."""
  name = validate_skill_subpath(file_path, sub_dir="scripts", strip_sub_dir=True)
  ext = name.rsplit(".", 1)[-1].lower() if "." in name else ""
  path = f"scripts/{name}"
  files = {f"{folder}/{name}": content for folder, mapping in resource_files(skill)
           for name, content in mapping.items()}
  total = sum(len(v) for v in files.values())
  if total > MAX_SKILL_PAYLOAD_BYTES:
    logger.warning("Skill '%s' resources total %d bytes, exceeding the recommended limit of %d bytes.",
                   skill.name, total, MAX_SKILL_PAYLOAD_BYTES)
  if ext == "py":
    body = _PYTHON.format(argv=_command_line([path], script_args, short_options, positional_args), path=path)
  elif ext in ("sh", "bash"):
    body = _SHELL.format(argv=_command_line(["bash", path], script_args, short_options, positional_args),
                         timeout=timeout)
  else:
    return None
  end = _END if marker is None else _END_WITH_ARTIFACTS.format(
      max_file=MAX_ARTIFACT_BYTES, max_total=MAX_ARTIFACTS_TOTAL_BYTES, max_count=MAX_ARTIFACTS_COUNT, marker=marker)
  return _PROLOGUE.format(files=files) + body + end


def split_generated_files(stdout: str, marker: str) -> tuple[str, list[dict], list[str]]:
  """(stdout without the marker lines, the files they carried, the paths skipped for size or count)."""
  if not stdout or marker not in stdout:
    return stdout or "", [], []
  kept: list[str] = []
  files: list[dict] = []
  skipped: list[str] = []
  for line in stdout.splitlines(keepends=True):
    at = line.find(marker)
    if at == -1:
      kept.append(line)
      continue
    if line[:at]:
      kept.append(line[:at] if line[:at].endswith("\n") else line[:at] + "\n")
    try:
      payload = json.loads(line[at + len(marker):].strip() or "null")
    except json.JSONDecodeError:
      logger.warning("Failed to parse skill generated-files marker payload")
      continue
    if isinstance(payload, dict):
      files += [f for f in payload.get("files") or [] if isinstance(f, dict)]
      skipped += [p for p in payload.get("skipped_paths") or [] if isinstance(p, str)]
  return "".join(kept), files, skipped


async def save_generated_files(tool_context: Any, files: list[dict], skipped: list[str]) -> list[str]:
  """Saves the files a script produced as artifacts (within the size and count limits); their names."""
  if tool_context is None or tool_context._invocation_context.artifact_service is None:
    logger.warning("Skill script produced %d generated file(s) but the runner has no artifact service; "
                   "nothing was saved.", len(files))
    return []
  saved: list[str] = []
  total = 0
  for item in files:
    path, encoded = item.get("path"), item.get("content_b64")
    if not isinstance(path, str) or not path or not isinstance(encoded, str):
      continue
    norm = PurePosixPath(path.replace("\\", "/"))
    if norm.is_absolute() or ".." in norm.parts or path.startswith("user:"):
      logger.warning("Skipping generated skill file with unsafe path: %s", path)
      continue
    try:
      data = base64.b64decode(encoded)
    except Exception:  # noqa: BLE001 - a payload that does not decode is skipped, as google-adk
      logger.warning("Failed to decode generated skill file: %s", path)
      continue
    name = str(norm)
    if (len(data) > MAX_ARTIFACT_BYTES or total + len(data) > MAX_ARTIFACTS_TOTAL_BYTES
        or len(saved) >= MAX_ARTIFACTS_COUNT):
      if len(skipped) < MAX_ARTIFACTS_COUNT and name not in skipped:
        skipped.append(name)
      continue
    mime = item.get("mime_type") if isinstance(item.get("mime_type"), str) else "application/octet-stream"
    await tool_context.save_artifact(filename=name, artifact=types.Part.from_bytes(data=data, mime_type=mime))
    saved.append(name)
    total += len(data)
  return saved


def new_marker() -> str:
  """The marker the generated files follow in stdout: random per run, so a script cannot forge it."""
  return f"{GENERATED_FILES_MARKER}{secrets.token_hex(16)}:"


async def run_script(executor: Any, invocation_context: Any, tool_context: Any, skill: models.Skill, file_path: str,
                     script_args: Any, short_options: Optional[dict], positional_args: Optional[list], *,
                     timeout: int, save_output_artifacts: bool) -> dict[str, Any]:
  """Runs one script with `executor`; the function response (google-adk's fields and error codes)."""
  marker = new_marker() if save_output_artifacts else None
  try:
    program = build_program(skill, file_path, script_args, short_options, positional_args, timeout, marker)
    if program is None:
      ext = f"'.{file_path.rsplit('.', 1)[-1]}'" if "." in file_path else "(no extension)"
      return {"error": f"Scripts of type {ext} cannot be run; use a .py, .sh or .bash script",
              "error_code": "UNSUPPORTED_SCRIPT_TYPE"}
    result = await asyncio.to_thread(executor.execute_code, invocation_context, CodeExecutionInput(code=program))
    stdout, stderr = result.stdout, result.stderr
    files: list[dict] = []
    skipped: list[str] = []
    if marker is not None:
      stdout, files, skipped = split_generated_files(stdout, marker)
    rc: Optional[int]
    if "." in file_path and file_path.rsplit(".", 1)[-1].lower() in ("sh", "bash"):
      # The shell script ran as the program's child: its status arrives in the JSON line.
      rc = None
      envelope = _shell_envelope(stdout)
      if envelope is not None:
        stdout, stderr = envelope.get("stdout", ""), envelope.get("stderr", "")
        rc = envelope.get("returncode", 0)
        if rc != 0 and not envelope.get("timeout", False):
          stderr = f"{stderr.rstrip()}\nExit code {rc}" if stderr else f"Exit code {rc}"
      elif stdout:
        logger.warning("No shell execution envelope found in stdout for '%s' from skill '%s'.", file_path,
                       skill.name)
    else:
      rc = getattr(result, "exit_code", None)
    if rc is not None and rc != 0:
      status = "error"
    elif stderr and not stdout:
      status = "error"
    elif stderr:
      status = "warning"
    else:
      status = "success"
    saved = await save_generated_files(tool_context, files, skipped) if files else []
    response: dict[str, Any] = {"skill_name": skill.name, "file_path": file_path, "stdout": stdout,
                                "stderr": stderr, "status": status}
    if saved:
      response["saved_artifacts"] = saved
    if skipped:
      response["skipped_artifacts"] = skipped
    return response
  except SystemExit as exit_:
    # An executor that runs the program in-process (google-adk's own) lets the script's sys.exit through.
    if exit_.code in (None, 0):
      return {"skill_name": skill.name, "file_path": file_path, "stdout": "", "stderr": "", "status": "success"}
    return {"error": f"Script '{file_path}' stopped with exit code {exit_.code}",
            "error_code": "EXECUTION_ERROR"}
  except Exception as error:  # noqa: BLE001 - the model is told what failed, as google-adk
    logger.exception("Error executing script '%s' from skill '%s'", file_path, skill.name)
    message = str(error)
    message = message if len(message) <= 200 else message[:200] + "..."
    return {"error": f"Script '{file_path}' could not be run:\n{type(error).__name__}: {message}",
            "error_code": "EXECUTION_ERROR"}


def _shell_envelope(stdout: str) -> Optional[dict]:
  if not stdout:
    return None
  try:
    parsed = json.loads(stdout)
  except ValueError:
    parsed = None
    for line in reversed(stdout.splitlines()):
      line = line.strip()
      if line.startswith("{") and line.endswith("}"):
        try:
          candidate = json.loads(line)
        except ValueError:
          continue
        if isinstance(candidate, dict) and candidate.get("__shell_result__"):
          parsed = candidate
          break
  return parsed if isinstance(parsed, dict) and parsed.get("__shell_result__") else None
