"""GCPSkillRegistry: skills kept in Google Cloud's Agent Registry, for `SkillToolset(registry=...)`.

Talks to the Agent Registry REST API (`v1alpha`) as google-adk 2.13 does: `get_skill(name=...)` reads the skill's
entry (`projects/P/locations/L/skills/NAME`), then downloads its default revision (`?alt=media`, a zip whose
root holds SKILL.md) and loads it in memory with the same checks as a zip from anywhere else (no path may leave
the skill, size and entry caps); `search_skills(query=...)` posts `{"search_string": query}` to `skills:search`
(and asks again with GET where the service answers 404 or 405, as older deployments do).

Credentials are Application Default Credentials unless `credentials=` is given, looked up on the first request
(constructing the registry needs no Google Cloud access) and refreshed off the event loop. Requests carry
`x-goog-user-project` (the credentials' quota project, else the registry's project). A download that is
redirected to another host (a signed Cloud Storage URL) goes without the `x-goog-*` headers, which such a URL
must not carry. With a client certificate configured (`GOOGLE_API_USE_CLIENT_CERTIFICATE`, see
`adk_nb.utils._mtls_utils`) it calls the mTLS endpoint and presents the certificate; `AGENT_REGISTRY_ENDPOINT`
overrides the endpoint.
"""

from __future__ import annotations

import asyncio
import logging
import os
import re
import ssl
import tempfile
from typing import Any, Optional
from urllib.parse import quote

import httpx
from pydantic import ValidationError, field_validator

from ...skills import _utils, models
from ...skills.skill_registry import SkillRegistry
from ...utils import _mtls_utils

logger = logging.getLogger(__name__)

__all__ = ["GCPSkillRegistry"]

_ENDPOINT = "https://agentregistry.googleapis.com/v1alpha"
_MTLS_ENDPOINT = "https://agentregistry.mtls.googleapis.com/v1alpha"

# A registry id is one URL path segment; it may hold dots (Google's own skills are named like
# "cloud.google.com-..."), so SKILL.md's stricter kebab-case rule is not applied to it.
_REGISTRY_ID = re.compile(r"^[a-z0-9]+(?:[._-][a-z0-9]+)*$")
_MAX_REGISTRY_ID = 256


def _is_registry_id(name: Any) -> bool:
  return isinstance(name, str) and len(name) <= _MAX_REGISTRY_ID and bool(_REGISTRY_ID.fullmatch(name))


class _RegistryEntry(models.Frontmatter):
  """A search result's front matter: the name is a registry id, not a SKILL.md name."""

  @field_validator("name")
  @classmethod
  def _check_name(cls, value: str) -> str:  # replaces Frontmatter's check of the same name
    if not _is_registry_id(value):
      raise ValueError(f"{value!r} is not a usable registry id")
    return value


def _client_cert_context() -> Optional[ssl.SSLContext]:
  """An SSL context presenting the default client certificate, or None when none is configured or it fails."""
  if not _mtls_utils.use_client_cert_effective():
    return None
  from google.auth.transport import mtls
  if not mtls.has_default_client_cert_source():
    return None
  paths = []
  try:
    cert, key = mtls.default_client_cert_source()()
    for data in (cert, key):
      fd, path = tempfile.mkstemp()
      paths.append(path)
      with os.fdopen(fd, "wb") as handle:
        handle.write(data)
    context = ssl.create_default_context()
    context.load_cert_chain(certfile=paths[0], keyfile=paths[1])
    return context
  except Exception as error:  # noqa: BLE001 - a broken certificate source falls back to plain TLS
    logger.warning("The client certificate could not be loaded (%s); GCPSkillRegistry uses plain TLS.", error)
    return None
  finally:
    for path in paths:  # the key never stays on disk
      try:
        os.remove(path)
      except OSError:
        pass


class GCPSkillRegistry(SkillRegistry):
  """Skills from Google Cloud's Agent Registry (google-adk 2.13's arguments and requests).

  Args:
    project_id: the Google Cloud project; default `GOOGLE_CLOUD_PROJECT`.
    location: the registry's location; default `GOOGLE_CLOUD_LOCATION`.
    credentials: google-auth credentials; default Application Default Credentials, found on first use.
  """

  def __init__(self, *, project_id: Optional[str] = None, location: Optional[str] = None,
               credentials: Any = None) -> None:
    self.project_id = project_id or os.environ.get("GOOGLE_CLOUD_PROJECT")
    self.location = location or os.environ.get("GOOGLE_CLOUD_LOCATION")
    self._ssl_context = _client_cert_context()
    self.base_url = os.environ.get("AGENT_REGISTRY_ENDPOINT") or _mtls_utils.get_api_endpoint(
        location="", default_template=_ENDPOINT, mtls_template=_MTLS_ENDPOINT)
    if not self.project_id or not self.location:
      missing = " and ".join(n for n, v in (("project_id", self.project_id), ("location", self.location)) if not v)
      raise ValueError(f"GCPSkillRegistry needs {missing}: pass it, or set GOOGLE_CLOUD_PROJECT / "
                       "GOOGLE_CLOUD_LOCATION.")
    self._credentials = credentials
    # For tests: an httpx transport to use instead of the network.
    self._transport: Any = None

  async def _get_headers(self) -> dict[str, str]:
    if self._credentials is None:
      import google.auth
      import google.auth.exceptions
      try:
        self._credentials, _ = google.auth.default()
      except google.auth.exceptions.DefaultCredentialsError as error:
        raise RuntimeError(f"GCPSkillRegistry found no Google Cloud credentials ({error}); run `gcloud auth "
                           "application-default login` or pass credentials=.") from error
    if not self._credentials.valid:
      from google.auth.transport.requests import Request
      await asyncio.to_thread(self._credentials.refresh, Request())
    headers = {"Authorization": f"Bearer {self._credentials.token}", "Content-Type": "application/json"}
    quota_project = getattr(self._credentials, "quota_project_id", None) or self.project_id
    if quota_project:
      headers["x-goog-user-project"] = quota_project
    return headers

  def _create_httpx_client(self) -> httpx.AsyncClient:
    api_host = httpx.URL(self.base_url).host

    async def strip_goog_headers_off_host(request: httpx.Request) -> None:
      if request.url.host != api_host:
        for header in [h for h in request.headers if h.lower().startswith("x-goog-")]:
          del request.headers[header]

    options: dict[str, Any] = {"follow_redirects": True,
                               "event_hooks": {"request": [strip_goog_headers_off_host]}}
    if self._ssl_context is not None:
      options["verify"] = self._ssl_context
    if self._transport is not None:
      options["transport"] = self._transport
    return httpx.AsyncClient(**options)

  async def _request(self, client: httpx.AsyncClient, url: str, *, method: str = "GET",
                     params: Optional[dict] = None, json: Optional[dict] = None) -> httpx.Response:
    headers = await self._get_headers()
    try:
      if method == "GET":
        response = await client.get(url, headers=headers, params=params)
      else:
        response = await client.request(method, url, headers=headers, params=params, json=json)
      response.raise_for_status()
      return response
    except httpx.HTTPStatusError as error:
      raise RuntimeError(f"The Agent Registry answered {error.response.status_code} to {method} {url}: "
                         f"{error.response.text}") from error
    except httpx.RequestError as error:
      raise RuntimeError(f"The Agent Registry could not be reached ({method} {url}): {error}") from error

  async def get_skill(self, *, name: str) -> models.Skill:
    """The skill's default revision, loaded in memory. ValueError for a name that is not a registry id (it comes
    from the model, and becomes part of a URL), an entry without a default revision, or a bad archive."""
    if not _is_registry_id(name):
      raise ValueError(f"{name!r} is not a skill id of the registry: use lowercase letters and digits joined by "
                       f"single '.', '_' or '-', at most {_MAX_REGISTRY_ID} characters.")
    async with self._create_httpx_client() as client:
      entry_url = f"{self.base_url}/projects/{self.project_id}/locations/{self.location}/skills/{quote(name, safe='')}"
      entry = (await self._request(client, entry_url)).json()
      revision = entry.get("defaultRevision") or entry.get("default_revision")
      if not revision:
        raise ValueError(f"The registry's entry for skill '{name}' does not contain default revision, so there is "
                         "nothing to download; publish a revision of the skill first.")
      revision_url = f"{self.base_url}/{revision}"
      archive = (await self._request(client, revision_url, params={"alt": "media"})).content
    skill = await asyncio.to_thread(_utils._load_skill_from_zip_bytes, archive)
    skill._uri = revision_url
    return skill

  async def search_skills(self, *, query: str) -> list[models.Frontmatter]:
    """Front matter (name, description) of the registry's skills matching `query`. An entry whose name is not a
    usable id is left out with a warning: one bad catalog entry does not hide the others."""
    async with self._create_httpx_client() as client:
      url = f"{self.base_url}/projects/{self.project_id}/locations/{self.location}/skills:search"
      try:
        response = await self._request(client, url, method="POST", json={"search_string": query})
      except RuntimeError as error:
        cause = error.__cause__
        if not (isinstance(cause, httpx.HTTPStatusError) and cause.response.status_code in (404, 405)):
          raise
        logger.info("POST %s answered %d; searching with GET instead.", url, cause.response.status_code)
        response = await self._request(client, url, params={"search_string": query})
      found: list[models.Frontmatter] = []
      for entry in response.json().get("skills", []) or []:
        full_name = entry.get("name")
        skill_id = full_name.rsplit("/", 1)[-1] if isinstance(full_name, str) else ""
        try:
          found.append(_RegistryEntry(name=skill_id, description=entry.get("description") or ""))
        except ValidationError as error:
          logger.warning("Search result %r left out: its front matter is not valid: %s", skill_id, error)
      return found
