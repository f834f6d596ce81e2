"""GCPSkillRegistry: skills from Google Cloud's Agent Registry, over its REST API (an httpx mock transport here)."""

from __future__ import annotations

import io
import json
import zipfile

import httpx
import pytest

from adk_nb.integrations.skill_registry import GCPSkillRegistry

API = "https://agentregistry.googleapis.com/v1alpha"
ENTRY = f"{API}/projects/proj/locations/us-central1/skills/tide-skill"
REVISION = "projects/proj/locations/us-central1/skills/tide-skill/revisions/r1"


class _Credentials:
  def __init__(self, quota_project_id=None):
    self.valid, self.token, self.quota_project_id = True, "tok", quota_project_id


def _zip(files: dict[str, str]) -> bytes:
  buffer = io.BytesIO()
  with zipfile.ZipFile(buffer, "w") as archive:
    for name, text in files.items():
      archive.writestr(name, text)
  return buffer.getvalue()


SKILL_ZIP = _zip({"SKILL.md": "---\nname: tide-skill\ndescription: Tide times.\n---\nRead the table.\n",
                  "references/tides.md": "| port | high |\n"})


def _registry(handler, **kwargs) -> tuple[GCPSkillRegistry, list[httpx.Request]]:
  seen: list[httpx.Request] = []

  def record(request: httpx.Request) -> httpx.Response:
    seen.append(request)
    return handler(request)

  registry = GCPSkillRegistry(project_id="proj", location="us-central1", credentials=_Credentials(), **kwargs)
  registry._transport = httpx.MockTransport(record)
  return registry, seen


@pytest.fixture(autouse=True)
def _no_endpoint_override(monkeypatch):
  monkeypatch.delenv("AGENT_REGISTRY_ENDPOINT", raising=False)
  monkeypatch.delenv("GOOGLE_API_USE_CLIENT_CERTIFICATE", raising=False)
  monkeypatch.setenv("GOOGLE_API_USE_MTLS_ENDPOINT", "never")


async def test_get_skill_downloads_the_default_revision_and_leaves_the_storage_redirect_without_goog_headers():
  def handler(request: httpx.Request) -> httpx.Response:
    if str(request.url) == ENTRY:
      return httpx.Response(200, json={"name": ENTRY.removeprefix(API + "/"), "defaultRevision": REVISION})
    if request.url.params.get("alt") == "media":  # the service redirects the download to a signed URL
      return httpx.Response(302, headers={"location": "https://storage.googleapis.com/bucket/r1.zip?sig=x"})
    if request.url.host == "storage.googleapis.com":
      return httpx.Response(200, content=SKILL_ZIP)
    return httpx.Response(404)

  registry, seen = _registry(handler)
  skill = await registry.get_skill(name="tide-skill")
  assert (skill.name, skill.description, skill.instructions) == ("tide-skill", "Tide times.", "Read the table.")
  assert skill.resources.list_references() == ["tides.md"]
  assert [r.url.host for r in seen] == ["agentregistry.googleapis.com"] * 2 + ["storage.googleapis.com"]
  assert seen[0].headers["authorization"] == "Bearer tok"
  assert seen[0].headers["x-goog-user-project"] == "proj"  # no quota project on the credentials: the project
  assert not any(h.lower().startswith("x-goog-") for h in seen[2].headers)  # a signed URL refuses extra x-goog-*


async def test_search_falls_back_to_get_and_leaves_out_entries_whose_name_is_no_registry_id(caplog):
  def handler(request: httpx.Request) -> httpx.Response:
    if request.method == "POST":
      return httpx.Response(405)
    assert request.url.params["search_string"] == "tides"
    return httpx.Response(200, json={"skills": [
        {"name": "projects/proj/locations/us-central1/skills/tide-skill", "description": "Tide times."},
        {"name": "projects/proj/locations/us-central1/skills/cloud.google.com-flywheel", "description": "Dots."},
        {"name": "projects/proj/locations/us-central1/skills/Bad Name", "description": "x"},
        {"name": None, "description": "no name"}]})

  registry, seen = _registry(handler)
  found = await registry.search_skills(query="tides")
  assert [(f.name, f.description) for f in found] == [("tide-skill", "Tide times."),
                                                       ("cloud.google.com-flywheel", "Dots.")]
  assert [r.method for r in seen] == ["POST", "GET"]
  assert json.loads(seen[0].content) == {"search_string": "tides"}
  assert "left out" in caplog.text


async def test_bad_names_missing_revisions_and_http_errors_say_what_happened():
  registry, seen = _registry(lambda request: httpx.Response(500))
  with pytest.raises(ValueError, match="not a skill id of the registry"):
    await registry.get_skill(name="../etc/passwd")
  assert seen == []  # refused before any request: the name would have become part of the URL

  registry, _ = _registry(lambda request: httpx.Response(200, json={"name": "x"}))
  with pytest.raises(ValueError, match="does not contain default revision"):
    await registry.get_skill(name="tide-skill")

  registry, _ = _registry(lambda request: httpx.Response(403, text="permission denied"))
  with pytest.raises(RuntimeError, match="answered 403 .*permission denied"):
    await registry.search_skills(query="q")

  def slip(request: httpx.Request) -> httpx.Response:
    if request.url.params.get("alt") == "media":
      return httpx.Response(200, content=_zip({"../evil.txt": "x", "SKILL.md": "---\nname: a\ndescription: d\n---\n"}))
    return httpx.Response(200, json={"defaultRevision": REVISION})

  registry, _ = _registry(slip)
  with pytest.raises(ValueError, match="Dangerous zip entry"):
    await registry.get_skill(name="tide-skill")


def test_constructing_needs_project_and_location_but_no_credentials(monkeypatch):
  monkeypatch.delenv("GOOGLE_CLOUD_PROJECT", raising=False)
  monkeypatch.setenv("GOOGLE_CLOUD_LOCATION", "europe-west1")
  with pytest.raises(ValueError, match="needs project_id: pass it, or set GOOGLE_CLOUD_PROJECT"):
    GCPSkillRegistry()
  import google.auth

  def no_lookup(*args, **kwargs):
    raise AssertionError("credentials were looked up while constructing")

  monkeypatch.setattr(google.auth, "default", no_lookup)
  registry = GCPSkillRegistry(project_id="proj")
  assert (registry.location, registry.base_url, registry._credentials) == ("europe-west1", API, None)
  monkeypatch.setenv("AGENT_REGISTRY_ENDPOINT", "https://staging.example.com/v1")
  assert GCPSkillRegistry(project_id="proj").base_url == "https://staging.example.com/v1"


async def test_a_toolset_loads_a_registry_skill_the_model_asks_for():
  from unittest import mock

  from adk_nb.tools.skill_toolset import LoadSkillTool, SkillToolset

  def handler(request: httpx.Request) -> httpx.Response:
    if request.url.params.get("alt") == "media":
      return httpx.Response(200, content=SKILL_ZIP)
    return httpx.Response(200, json={"defaultRevision": REVISION})

  registry, _ = _registry(handler)
  toolset = SkillToolset([], registry=registry)
  context = mock.MagicMock()
  context.state = {}
  context.agent_name = "agent"
  context.invocation_id = "inv-1"
  answer = await LoadSkillTool(toolset).run_async(args={"skill_name": "tide-skill"}, tool_context=context)
  assert answer["skill_name"] == "tide-skill" and answer["instructions"] == "Read the table."
