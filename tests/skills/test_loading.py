"""Reading skills from folders: what is loaded, and what a broken SKILL.md is told."""

import pathlib

import pytest
from pydantic import ValidationError

from adk_nb import features
from adk_nb.skills import (Frontmatter, list_skills_in_dir, list_skills_in_gcs_dir, load_skill_from_dir,
                           load_skill_from_dir_async, load_skill_from_gcs_dir, load_skills_from_dir)
from adk_nb.skills.prompt import format_skills_as_xml

FIXTURES = pathlib.Path(__file__).parent / "fixtures" / "skills"


def _skill(tmp_path: pathlib.Path, folder: str, skill_md: str) -> pathlib.Path:
  path = tmp_path / folder
  path.mkdir()
  (path / "SKILL.md").write_text(skill_md, encoding="utf-8")
  return path


def test_a_skill_folder_loads_with_its_front_matter_instructions_and_resources():
  skill = load_skill_from_dir(FIXTURES / "tide-skill")
  assert skill.name == "tide-skill"
  assert skill.description == "Tide times for a harbour, from a table and a script."
  assert skill.frontmatter.license == "Apache-2.0"
  assert skill.frontmatter.metadata == {"adk_additional_tools": ["get_water_temperature"]}
  assert skill.instructions.startswith("Step 1: Read 'references/tides.md'")
  assert skill.resources.list_references() == ["tides.md"]
  assert skill.resources.list_assets() == ["harbours.csv"]
  assert "argparse" in skill.resources.get_script("next_tide.py").src
  assert skill._uri == (FIXTURES / "tide-skill").resolve().as_uri()


async def test_the_async_loader_and_the_folder_loader_agree():
  assert (await load_skill_from_dir_async(FIXTURES / "moon-skill")) == load_skill_from_dir(FIXTURES / "moon-skill")
  assert [s.name for s in load_skills_from_dir(FIXTURES)] == ["moon-skill", "tide-skill"]


def test_binary_resources_are_bytes(tmp_path):
  path = _skill(tmp_path, "pic-skill", "---\nname: pic-skill\ndescription: d\n---\nbody")
  (path / "assets").mkdir()
  (path / "assets" / "logo.png").write_bytes(b"\x89PNG\r\n\x1a\n\xff\xfe")
  assert load_skill_from_dir(path).resources.get_asset("logo.png") == b"\x89PNG\r\n\x1a\n\xff\xfe"


def test_malformed_yaml_names_the_file_and_the_line(tmp_path):
  path = _skill(tmp_path, "bad-yaml", "---\nname: bad-yaml\ndescription: tides: at: noon\n---\nbody")
  with pytest.raises(ValueError) as caught:
    load_skill_from_dir(path)
  message = str(caught.value)
  assert str(path / "SKILL.md") in message
  assert "at line 3" in message
  assert "Fix the YAML between the two '---' lines" in message


def test_a_bad_name_is_a_validation_error_naming_the_file_and_the_rule(tmp_path):
  path = _skill(tmp_path, "Tide_Skill", "---\nname: Tide_Skill\ndescription: d\n---\nbody")
  with pytest.raises(ValidationError) as caught:
    load_skill_from_dir(path)
  assert str(path / "SKILL.md") in str(caught.value)
  assert "lowercase kebab-case" in str(caught.value)


def test_a_missing_description_is_refused(tmp_path):
  path = _skill(tmp_path, "no-desc", "---\nname: no-desc\n---\nbody")
  with pytest.raises(ValidationError, match="description"):
    load_skill_from_dir(path)
  with pytest.raises(ValidationError, match="description must not be empty"):
    Frontmatter(name="no-desc", description="")


def test_no_front_matter_and_a_folder_whose_name_differs_say_what_to_do(tmp_path):
  path = _skill(tmp_path, "plain", "just text")
  with pytest.raises(ValueError, match="must start with YAML frontmatter"):
    load_skill_from_dir(path)
  path = _skill(tmp_path, "tides", "---\nname: tide-skill\ndescription: d\n---\nbody")
  with pytest.raises(ValueError, match="does not match directory name 'tides'. Rename the folder"):
    load_skill_from_dir(path)
  with pytest.raises(FileNotFoundError, match="SKILL.md not found"):
    load_skill_from_dir(FIXTURES / "tide-skill" / "references")


def test_snake_case_names_need_google_adks_opt_in(monkeypatch):
  with pytest.raises(ValidationError, match="lowercase kebab-case"):
    Frontmatter(name="tide_skill", description="d")
  assert not features.is_feature_enabled(features.FeatureName.SNAKE_CASE_SKILL_NAME)  # off, as in google-adk
  monkeypatch.setitem(features._overrides, "SNAKE_CASE_SKILL_NAME", True)  # what override_feature_enabled writes
  assert features.is_feature_enabled(features.FeatureName.SNAKE_CASE_SKILL_NAME)
  assert Frontmatter(name="tide_skill", description="d").name == "tide_skill"
  with pytest.raises(ValidationError, match="Mixing hyphens and underscores"):
    Frontmatter(name="tide_skill-x", description="d")


def test_a_temporary_override_holds_inside_its_block_and_is_undone_after(monkeypatch):
  from adk_nb.features._feature_registry import temporary_feature_override  # google-adk's tests use this path
  name = features.FeatureName.SNAKE_CASE_SKILL_NAME
  assert "SNAKE_CASE_SKILL_NAME" not in features._overrides
  with temporary_feature_override(name, True):
    assert Frontmatter(name="tide_skill", description="d").name == "tide_skill"
  assert "SNAKE_CASE_SKILL_NAME" not in features._overrides  # no override was there before: none is left
  with pytest.raises(ValidationError, match="lowercase kebab-case"):
    Frontmatter(name="tide_skill", description="d")
  monkeypatch.setitem(features._overrides, "SNAKE_CASE_SKILL_NAME", True)
  with pytest.raises(RuntimeError):
    with temporary_feature_override(name, False):
      assert not features.is_feature_enabled(name)
      raise RuntimeError("the block fails")
  assert features._overrides["SNAKE_CASE_SKILL_NAME"] is True  # the earlier override is back
  with pytest.raises(ValueError, match="not registered"):
    with temporary_feature_override("NO_SUCH_FEATURE", True):
      pass


def test_listing_skips_an_invalid_skill_or_hands_it_to_on_error(tmp_path):
  _skill(tmp_path, "good-one", "---\nname: good-one\ndescription: fine\n---\nbody")
  _skill(tmp_path, "broken", "---\nname: [\n---\nbody")
  assert list(list_skills_in_dir(tmp_path)) == ["good-one"]
  seen = []
  list_skills_in_dir(tmp_path, on_error=lambda skill_id, error: seen.append((skill_id, type(error).__name__)))
  assert seen == [("broken", "ValueError")]


def test_gcs_loaders_say_google_cloud_storage_is_missing():
  try:
    import google.cloud.storage  # noqa: F401
    pytest.skip("google-cloud-storage is installed here")
  except ImportError:
    pass
  with pytest.raises(ImportError, match="google-cloud-storage is required to load skills from GCS"):
    load_skill_from_gcs_dir("bucket", "tide-skill")
  with pytest.raises(ImportError, match="google-cloud-storage is required to list skills in GCS"):
    list_skills_in_gcs_dir("bucket")


def test_the_catalog_xml_escapes_names_and_descriptions():
  assert format_skills_as_xml([Frontmatter(name="a-b", description="x < y & z")]) == (
      "<available_skills>\n<skill>\n<name>\na-b\n</name>\n<description>\nx &lt; y &amp; z\n</description>\n"
      "</skill>\n</available_skills>")
  assert format_skills_as_xml([]) == "<available_skills>\n</available_skills>"


def test_text_resources_are_read_with_newline_line_endings_as_google_adk_reads_them(tmp_path):
  path = _skill(tmp_path, "crlf-skill", "---\nname: crlf-skill\ndescription: d\n---\nbody")
  (path / "references").mkdir()
  (path / "references" / "notes.md").write_bytes(b"one\r\ntwo\r\n")
  assert load_skill_from_dir(path).resources.get_reference("notes.md") == "one\ntwo\n"
