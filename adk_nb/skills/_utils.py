"""Reading skills from folders, zip archives and Google Cloud Storage.

google-adk 2.13's `google.adk.skills._utils`: the same functions under the same names, the same
rules (a folder's name must equal the skill's name; `SKILL.md` or `skill.md`; text files as str,
binary files as bytes; `__pycache__` skipped). Where google-adk's messages stop at what is wrong,
these also say which file and, for YAML, which line, and how to fix it.
"""

from __future__ import annotations

import asyncio
import io
import logging
import pathlib
import zipfile
from typing import Any, Callable, Optional, Union

from pydantic import ValidationError

from . import models

logger = logging.getLogger("adk_nb.skills")

_MAX_ZIP_ENTRIES = 2000
_MAX_ZIP_UNCOMPRESSED_BYTES = 32 * 1024 * 1024
_ZIP_READ_CHUNK_BYTES = 64 * 1024
_SKILL_MD_NAMES = ("SKILL.md", "skill.md")
_ALLOWED_FRONTMATTER_KEYS = frozenset(
    {"name", "description", "license", "allowed-tools", "allowed_tools", "metadata", "compatibility"})

PathLike = Union[str, pathlib.Path]


def _validate_relative_resource_path(path: str) -> str:
  """`path` as a POSIX path inside the skill; ValueError for absolute paths, drives and `..`."""
  posix = pathlib.PurePosixPath(path.replace("\\", "/"))
  normalized = posix.as_posix()
  windows = (pathlib.PureWindowsPath(path), pathlib.PureWindowsPath(normalized))
  if (not normalized or normalized == "." or posix.is_absolute() or ".." in posix.parts
      or any(p.is_absolute() or p.drive for p in windows)):
    raise ValueError(f"Unsafe path in skill resource: {path!r}")
  return normalized


def _load_dir(directory: pathlib.Path) -> dict[str, Union[str, bytes]]:
  """Every file under `directory` by POSIX relative path: UTF-8 text as str, anything else as bytes."""
  files: dict[str, Union[str, bytes]] = {}
  if not directory.is_dir():
    return files
  for path in sorted(directory.rglob("*")):
    if "__pycache__" in path.parts or not path.is_file():
      continue
    key = path.relative_to(directory).as_posix()
    try:
      files[key] = path.read_text(encoding="utf-8")  # text mode: line endings read as '\n', as google-adk
    except UnicodeDecodeError:
      files[key] = path.read_bytes()
  return files


def _build_scripts(raw: dict[str, Union[str, bytes]]) -> dict[str, models.Script]:
  """Scripts from raw file contents; a script that is not UTF-8 text is skipped with a warning."""
  scripts = {}
  for name, src in raw.items():
    if isinstance(src, bytes):
      try:
        src = src.decode("utf-8")
      except UnicodeDecodeError:
        logger.warning("Skipping non-UTF-8 skill script '%s'.", name)
        continue
    scripts[name] = models.Script(src=src)
  return scripts


def _parse_skill_md_content(content: str, source: str = "SKILL.md") -> tuple[dict, str]:
  """(front matter dict, body) of a SKILL.md text; ValueError naming `source`, the line and the fix."""
  if not content.startswith("---"):
    raise ValueError(f"SKILL.md must start with YAML frontmatter (---): {source} begins with "
                     f"{content[:20]!r}. Put the name and description between two '---' lines at the top.")
  parts = content.split("---", 2)
  if len(parts) < 3:
    raise ValueError(f"SKILL.md frontmatter not properly closed with ---: {source} has no second '---' line "
                     "after the front matter.")
  import yaml  # PyYAML, only when a skill is read

  try:
    parsed = yaml.safe_load(parts[1])
  except yaml.YAMLError as error:
    mark = getattr(error, "problem_mark", None)
    # The front matter starts on the file's line 1 (the '---'), so its YAML line n is file line n + 1.
    where = f" at line {mark.line + 1}" if mark is not None else ""
    problem = getattr(error, "problem", None) or str(error)
    raise ValueError(f"Invalid YAML in frontmatter: {source}{where}: {problem}. Fix the YAML between the "
                     "two '---' lines (quote values that contain ': ' or start with a special character).") from error
  if not isinstance(parsed, dict):
    raise ValueError(f"SKILL.md frontmatter must be a YAML mapping: {source} has {type(parsed).__name__}. "
                     "Write 'name: ...' and 'description: ...' lines between the '---' lines.")
  return parsed, parts[2].strip()


def _find_skill_md(skill_dir: pathlib.Path) -> Optional[pathlib.Path]:
  for name in _SKILL_MD_NAMES:
    if (skill_dir / name).exists():
      return skill_dir / name
  return None


def _parse_skill_md(skill_dir: pathlib.Path) -> tuple[dict, str, pathlib.Path]:
  """(front matter, body, path of SKILL.md) of a skill folder."""
  if not skill_dir.is_dir():
    raise FileNotFoundError(f"Skill directory '{skill_dir}' not found.")
  skill_md = _find_skill_md(skill_dir)
  if skill_md is None:
    raise FileNotFoundError(f"SKILL.md not found in '{skill_dir}'. A skill folder holds a SKILL.md with YAML "
                            "front matter (name, description) and markdown instructions.")
  parsed, body = _parse_skill_md_content(skill_md.read_text(encoding="utf-8"), str(skill_md))
  return parsed, body, skill_md


def _frontmatter(parsed: dict, source: str) -> models.Frontmatter:
  """The validated front matter; a pydantic ValidationError (as google-adk) with `source` in its title."""
  try:
    return models.Frontmatter.model_validate(parsed)
  except ValidationError as error:
    # The same exception type google-adk raises, re-titled so the message names the file.
    raise ValidationError.from_exception_data(f"Frontmatter of {source}", error.errors(include_url=False),
                                              hide_input=False) from None


def _check_name_matches(skill_dir_name: str, frontmatter: models.Frontmatter) -> None:
  if skill_dir_name != frontmatter.name:
    raise ValueError(f"Skill name '{frontmatter.name}' does not match directory name '{skill_dir_name}'. "
                     "Rename the folder or the 'name' in SKILL.md so they agree.")


def _load_skill_from_dir(skill_dir: PathLike) -> models.Skill:
  """Reads a whole skill folder (SKILL.md, references/, assets/, scripts/)."""
  skill_dir = pathlib.Path(skill_dir).resolve()
  parsed, body, skill_md = _parse_skill_md(skill_dir)
  frontmatter = _frontmatter(parsed, str(skill_md))
  _check_name_matches(skill_dir.name, frontmatter)
  resources = models.Resources(references=_load_dir(skill_dir / "references"),
                               assets=_load_dir(skill_dir / "assets"),
                               scripts=_build_scripts(_load_dir(skill_dir / "scripts")))
  skill = models.Skill(frontmatter=frontmatter, instructions=body, resources=resources)
  skill._uri = skill_dir.as_uri()
  return skill


def _load_skills_from_dir(skills_dir: PathLike) -> list[models.Skill]:
  """Every skill in the sub-folders of `skills_dir` that hold a SKILL.md, by folder name; one bad skill fails all."""
  skills_dir = pathlib.Path(skills_dir).resolve()
  if not skills_dir.exists():
    raise FileNotFoundError(f"Skills directory '{skills_dir}' does not exist.")
  if not skills_dir.is_dir():
    raise ValueError(f"'{skills_dir}' is not a directory.")
  return [_load_skill_from_dir(sub) for sub in sorted(skills_dir.iterdir())
          if sub.is_dir() and _find_skill_md(sub) is not None]


def _read_zip_member(archive: zipfile.ZipFile, member: Any, budget: int) -> tuple[bytes, int]:
  """A member's bytes read in chunks against the archive's decompression budget."""
  chunks = []
  try:
    with archive.open(member) as f:
      while chunk := f.read(_ZIP_READ_CHUNK_BYTES):
        budget -= len(chunk)
        if budget < 0:
          raise ValueError("Skill archive is too large decompressed: it expands past the limit of "
                           f"{_MAX_ZIP_UNCOMPRESSED_BYTES} bytes.")
        chunks.append(chunk)
  except zipfile.BadZipFile as error:
    raise ValueError(f"Skill archive is malformed: {error}") from error
  return b"".join(chunks), budget


def _load_skill_from_zip_bytes(zip_bytes: bytes) -> models.Skill:
  """A skill from an in-memory zip whose root holds SKILL.md; refuses unsafe paths and zip bombs."""
  try:
    archive = zipfile.ZipFile(io.BytesIO(zip_bytes))
  except zipfile.BadZipFile as error:
    raise ValueError(f"Skill archive is malformed: {error}") from error
  with archive as z:
    infos = z.infolist()
    if len(infos) > _MAX_ZIP_ENTRIES:
      raise ValueError(f"Skill archive has too many entries: {len(infos)} exceeds the limit of {_MAX_ZIP_ENTRIES}.")
    declared = sum(info.file_size for info in infos)
    if declared > _MAX_ZIP_UNCOMPRESSED_BYTES:
      raise ValueError(f"Skill archive is too large decompressed: {declared} bytes exceeds the limit of "
                       f"{_MAX_ZIP_UNCOMPRESSED_BYTES} bytes.")
    budget = _MAX_ZIP_UNCOMPRESSED_BYTES
    for info in infos:
      if info.is_dir() and pathlib.PurePosixPath(info.filename.replace("\\", "/")).as_posix() == ".":
        continue
      try:
        _validate_relative_resource_path(info.filename)
      except ValueError as error:
        raise ValueError(f"Dangerous zip entry ignored: {info.filename}") from error
    content = None
    for name in _SKILL_MD_NAMES:
      try:
        data, budget = _read_zip_member(z, name, budget)
      except KeyError:
        continue
      content = data.decode("utf-8")
      break
    if content is None:
      raise FileNotFoundError("SKILL.md not found in zipped filesystem.")
    parsed, body = _parse_skill_md_content(content, "SKILL.md in the archive")
    name = parsed.get("name")
    if not name:
      raise ValueError("SKILL.md frontmatter must contain 'name'")
    if not isinstance(name, str) or pathlib.Path(name).name != name:
      raise ValueError(f"Invalid skill name in SKILL.md: {name}")
    frontmatter = _frontmatter(parsed, "SKILL.md in the archive")

    def load_prefix(prefix: str) -> dict[str, Union[str, bytes]]:
      nonlocal budget
      out: dict[str, Union[str, bytes]] = {}
      for info in z.infolist():
        if info.is_dir() or not info.filename.startswith(prefix + "/") or "__pycache__" in info.filename:
          continue
        relative = info.filename[len(prefix) + 1:]
        if not relative:
          continue
        normalized = _validate_relative_resource_path(relative)
        if normalized in out:
          raise ValueError(f"Duplicate normalized path detected: {normalized!r}")
        data, budget = _read_zip_member(z, info, budget)
        try:
          out[normalized] = data.decode("utf-8")
        except UnicodeDecodeError:
          out[normalized] = data
      return out

    resources = models.Resources(references=load_prefix("references"), assets=load_prefix("assets"),
                                 scripts=_build_scripts(load_prefix("scripts")))
    return models.Skill(frontmatter=frontmatter, instructions=body, resources=resources)


def _validate_skill_dir(skill_dir: PathLike) -> list[str]:
  """What is wrong with a skill folder, as sentences; an empty list when it is valid."""
  skill_dir = pathlib.Path(skill_dir).resolve()
  if not skill_dir.exists():
    return [f"Directory '{skill_dir}' does not exist."]
  if not skill_dir.is_dir():
    return [f"'{skill_dir}' is not a directory."]
  if _find_skill_md(skill_dir) is None:
    return [f"SKILL.md not found in '{skill_dir}'."]
  try:
    parsed, _, skill_md = _parse_skill_md(skill_dir)
  except (FileNotFoundError, ValueError) as error:
    return [str(error)]
  problems = []
  unknown = set(parsed) - _ALLOWED_FRONTMATTER_KEYS
  if unknown:
    problems.append(f"Unknown frontmatter fields: {sorted(unknown)}")
  try:
    frontmatter = models.Frontmatter.model_validate(parsed)
  except ValidationError as error:
    problems.append(f"Frontmatter validation error: {error}")
    return problems
  if skill_dir.name != frontmatter.name:
    problems.append(f"Skill name '{frontmatter.name}' does not match directory name '{skill_dir.name}'.")
  return problems


def _read_skill_properties(skill_dir: PathLike) -> models.Frontmatter:
  """Only the front matter of a skill folder (no instructions, no resources)."""
  parsed, _, skill_md = _parse_skill_md(pathlib.Path(skill_dir).resolve())
  return _frontmatter(parsed, str(skill_md))


def _list_skills_in_dir(skills_base_path: PathLike,
                        on_error: Optional[Callable[[str, Exception], None]] = None) -> dict[str, models.Frontmatter]:
  """Front matter of each valid skill folder under `skills_base_path`, by folder name.

  An invalid skill is logged and left out, or handed to `on_error(skill_id, error)` (which may
  raise to stop the listing).
  """
  base = pathlib.Path(skills_base_path).resolve()
  skills: dict[str, models.Frontmatter] = {}
  if not base.is_dir():
    logger.warning("Skills base path '%s' is not a directory.", base)
    return skills
  for skill_dir in sorted(base.iterdir()):
    if not skill_dir.is_dir():
      continue
    try:
      frontmatter = _read_skill_properties(skill_dir)
      _check_name_matches(skill_dir.name, frontmatter)
      skills[skill_dir.name] = frontmatter
    except (FileNotFoundError, ValueError) as error:
      if on_error is not None:
        on_error(skill_dir.name, error)
        continue
      logger.warning("Skipping invalid skill '%s' in directory '%s': %s", skill_dir.name, base, error)
  return skills


def _storage_client(project_id: Optional[str], credentials: Any, what: str) -> Any:
  try:
    from google.cloud import storage
  except ImportError as error:
    raise ImportError(f"google-cloud-storage is required to {what}. Install it with `pip install "
                      "google-cloud-storage`; nothing was read.") from error
  return storage.Client(project=project_id, credentials=credentials)


def _list_skills_in_gcs_dir(bucket_name: str, skills_base_path: str = "", project_id: Optional[str] = None,
                            credentials: Any = None, on_error: Optional[Callable[[str, Exception], None]] = None
                            ) -> dict[str, models.Frontmatter]:
  """Front matter of each skill folder under `gs://bucket_name/skills_base_path` (needs google-cloud-storage)."""
  bucket = _storage_client(project_id, credentials, "list skills in GCS").bucket(bucket_name)
  prefix = skills_base_path.strip("/")
  prefix = prefix + "/" if prefix else ""
  listing = bucket.list_blobs(prefix=prefix, delimiter="/")
  for _ in listing:  # the sub-folder prefixes are known once the listing was read
    pass
  skills: dict[str, models.Frontmatter] = {}
  for skill_prefix in sorted(listing.prefixes):
    blob = bucket.blob(f"{skill_prefix}SKILL.md")
    if not blob.exists():
      continue
    skill_id = skill_prefix.rstrip("/").split("/")[-1]
    source = f"gs://{bucket_name}/{skill_prefix}SKILL.md"
    try:
      parsed, _ = _parse_skill_md_content(blob.download_as_text(), source)
      skills[skill_id] = _frontmatter(parsed, source)
    except ValueError as error:
      if on_error is not None:
        on_error(skill_id, error)
        continue
      logger.warning("Skipping invalid skill '%s' in bucket '%s': %s", skill_id, bucket_name, error)
  return skills


def _load_skill_from_gcs_dir(bucket_name: str, skill_id: str, skills_base_path: str = "",
                             project_id: Optional[str] = None, credentials: Any = None) -> models.Skill:
  """A whole skill from `gs://bucket_name/skills_base_path/skill_id/` (needs google-cloud-storage)."""
  bucket = _storage_client(project_id, credentials, "load skills from GCS").bucket(bucket_name)
  prefix = skills_base_path.strip("/")
  prefix = prefix + "/" if prefix else ""
  skill_prefix = f"{prefix}{skill_id}/"
  manifest = bucket.blob(f"{skill_prefix}SKILL.md")
  source = f"gs://{bucket_name}/{skill_prefix}SKILL.md"
  if not manifest.exists():
    raise FileNotFoundError(f"SKILL.md not found at {source}")
  parsed, body = _parse_skill_md_content(manifest.download_as_text(), source)
  frontmatter = _frontmatter(parsed, source)
  _check_name_matches(skill_id.strip("/").split("/")[-1], frontmatter)

  def load_prefix(sub: str) -> dict[str, Union[str, bytes]]:
    folder = f"{skill_prefix}{sub}/"
    out: dict[str, Union[str, bytes]] = {}
    for blob in bucket.list_blobs(prefix=folder):
      relative = blob.name[len(folder):]
      if blob.name.endswith("/") or not relative:
        continue
      normalized = _validate_relative_resource_path(relative)
      if normalized in out:
        raise ValueError(f"Duplicate normalized path detected: {normalized!r}")
      try:
        out[normalized] = blob.download_as_text()
      except UnicodeDecodeError:
        out[normalized] = blob.download_as_bytes()
    return out

  resources = models.Resources(references=load_prefix("references"), assets=load_prefix("assets"),
                               scripts=_build_scripts(load_prefix("scripts")))
  skill = models.Skill(frontmatter=frontmatter, instructions=body, resources=resources)
  skill._uri = f"gs://{bucket_name}/{skill_prefix}"
  return skill


async def _load_skill_from_dir_async(skill_dir: PathLike) -> models.Skill:
  """`load_skill_from_dir` in a worker thread."""
  return await asyncio.to_thread(_load_skill_from_dir, skill_dir)


async def _load_skills_from_dir_async(skills_dir: PathLike) -> list[models.Skill]:
  """`load_skills_from_dir` in a worker thread."""
  return await asyncio.to_thread(_load_skills_from_dir, skills_dir)


async def _list_skills_in_dir_async(skills_base_path: PathLike,
                                    on_error: Optional[Callable[[str, Exception], None]] = None
                                    ) -> dict[str, models.Frontmatter]:
  """`list_skills_in_dir` in a worker thread (`on_error` runs there)."""
  return await asyncio.to_thread(_list_skills_in_dir, skills_base_path, on_error)


async def _load_skill_from_gcs_dir_async(bucket_name: str, skill_id: str, skills_base_path: str = "",
                                         project_id: Optional[str] = None, credentials: Any = None) -> models.Skill:
  """`load_skill_from_gcs_dir` in a worker thread."""
  return await asyncio.to_thread(_load_skill_from_gcs_dir, bucket_name, skill_id, skills_base_path, project_id,
                                 credentials)


async def _list_skills_in_gcs_dir_async(bucket_name: str, skills_base_path: str = "", project_id: Optional[str] = None,
                                        credentials: Any = None,
                                        on_error: Optional[Callable[[str, Exception], None]] = None
                                        ) -> dict[str, models.Frontmatter]:
  """`list_skills_in_gcs_dir` in a worker thread."""
  return await asyncio.to_thread(_list_skills_in_gcs_dir, bucket_name, skills_base_path, project_id, credentials,
                                 on_error)
