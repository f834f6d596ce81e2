"""Session and memory services built from URIs (what the notebook layer and Runner use)."""

from __future__ import annotations

import pytest

from adk_nb.memory import InMemoryMemoryService
from adk_nb.services import (
    get_service_registry,
    memory_service_from_uri,
    session_service_from_uri,
)
from adk_nb.sessions import DatabaseSessionService, InMemorySessionService


@pytest.mark.parametrize("uri", ["memory://", "memory", "MEMORY://"])
def test_memory_uri_gives_an_in_memory_store(uri):
  assert isinstance(session_service_from_uri(uri), InMemorySessionService)


async def test_sqlite_uri_gives_a_database_store_and_creates_its_folder(tmp_path):
  path = tmp_path / "new" / "folder" / "sessions.db"
  for n, uri in enumerate((f"sqlite:///{path}", f"sqlite+aiosqlite:///{path}")):
    service = session_service_from_uri(uri)
    assert isinstance(service, DatabaseSessionService)
    await service.create_session(app_name="a", user_id="u", session_id=f"s{n}")
    listed = (await service.list_sessions(app_name="a")).sessions
    assert sorted(s.id for s in listed) == [f"s{i}" for i in range(n + 1)]
    await service.close()
  assert path.exists()


@pytest.mark.parametrize("uri", ["postgresql://u@localhost/db", "postgres://u@localhost/db",
                                 "postgresql+asyncpg://u@localhost/db"])
def test_postgresql_uris_give_a_database_store(uri):
  service = session_service_from_uri(uri)
  assert isinstance(service, DatabaseSessionService)
  assert service.db_url.startswith("postgresql+asyncpg://")


async def test_postgresql_uri_works_against_a_real_server(pg_url):
  service = session_service_from_uri(pg_url)
  try:
    session = await service.create_session(app_name="a", user_id="u")
    assert (await service.get_session(app_name="a", user_id="u", session_id=session.id)).id == session.id
  finally:
    await service.close()


@pytest.mark.parametrize("uri", ["redis://localhost", "agentengine://123", "sessions.db", ""])
def test_unknown_schemes_list_the_supported_ones(uri):
  with pytest.raises(ValueError, match="memory://"):
    session_service_from_uri(uri)


def test_engine_options_are_passed_through(tmp_path):
  service = session_service_from_uri(f"sqlite:///{tmp_path / 's.db'}", busy_timeout=1.5)
  assert service._busy_timeout == 1.5


def test_memory_service_uri():
  assert isinstance(memory_service_from_uri("memory://"), InMemoryMemoryService)
  with pytest.raises(ValueError, match="Unknown memory service URI scheme 'rag'"):
    memory_service_from_uri("rag://corpus")


def test_custom_schemes_can_be_registered():
  made = []
  registry = get_service_registry()
  registry.register_session_service("custom", lambda uri, **kw: made.append(uri) or InMemorySessionService())
  assert isinstance(session_service_from_uri("custom://x"), InMemorySessionService)
  assert made == ["custom://x"]
