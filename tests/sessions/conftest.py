"""Session stores under test: in memory, an SQLite file, and a real PostgreSQL server.

PostgreSQL comes from `tests/pg_server.throwaway_postgres` ($ADK_NB_TEST_PG_URL when set, else a
throwaway cluster of Debian's binaries on 127.0.0.1 for this test session, removed at the end).
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import uuid
from typing import Iterator, Optional

import pytest

from tests.pg_server import PostgresUnavailable, admin_sql, throwaway_postgres


_PG_SKIP_REASON = ""


@pytest.fixture(scope="session")
def postgres_url() -> Iterator[Optional[str]]:
  """A URL of an empty PostgreSQL database, or None (with `pg_skip_reason` set)."""
  global _PG_SKIP_REASON
  try:
    with throwaway_postgres() as url:
      yield url
  except PostgresUnavailable as exc:
    _PG_SKIP_REASON = str(exc)
    yield None


def _run(coro):
  # The tests' event loop may be running; talk to the server from a loop of our own.
  with concurrent.futures.ThreadPoolExecutor(1) as pool:
    return pool.submit(asyncio.run, coro).result()


@pytest.fixture(scope="session")
def pg_database(postgres_url: Optional[str]) -> Iterator[Optional[str]]:
  """One database for this test session, on the server (dropped at the end)."""
  if postgres_url is None:
    yield None
    return
  admin_dsn = postgres_url.replace("postgresql+asyncpg://", "postgresql://")
  name = "adk_nb_test_" + uuid.uuid4().hex[:12]
  _run(admin_sql(admin_dsn, f'CREATE DATABASE "{name}"'))
  base, _ = admin_dsn.rsplit("/", 1)
  yield f"{base}/{name}"
  _run(admin_sql(admin_dsn, f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))


@pytest.fixture
def pg_url(pg_database: Optional[str]) -> str:
  """A URL of an empty PostgreSQL database for one test (its tables dropped first)."""
  if pg_database is None:
    pytest.skip(_PG_SKIP_REASON)
  _run(admin_sql(pg_database, "DROP SCHEMA IF EXISTS public CASCADE; CREATE SCHEMA public;"))
  return pg_database


def make_service(kind: str, tmp_path, pg: Optional[str] = None):
  """A new session store of `kind` ('memory', 'sqlite', 'postgresql')."""
  from adk_nb.sessions import DatabaseSessionService, InMemorySessionService

  if kind == "memory":
    return InMemorySessionService()
  if kind == "sqlite":
    return DatabaseSessionService(f"sqlite:///{tmp_path / 'sessions.db'}")
  return DatabaseSessionService(pg)


@pytest.fixture(params=["memory", "sqlite", "postgresql"])
async def session_service(request, tmp_path):
  """Each session store in turn; tests using it form the shared contract suite."""
  pg = None
  if request.param == "postgresql":
    pg = request.getfixturevalue("pg_url")
  service = make_service(request.param, tmp_path, pg)
  yield service
  await service.close()


@pytest.fixture(params=["sqlite", "postgresql"])
async def db_url(request, tmp_path) -> str:
  """The URL of an empty database: an SQLite file, then a PostgreSQL database."""
  if request.param == "sqlite":
    return f"sqlite:///{tmp_path / 'sessions.db'}"
  return request.getfixturevalue("pg_url")


@pytest.fixture(params=["memory", "sqlite", "postgresql"])
async def two_services(request, tmp_path):
  """Two services on one store, as two kernels sharing a database would be (memory: one service twice)."""
  pg = request.getfixturevalue("pg_url") if request.param == "postgresql" else None
  first = make_service(request.param, tmp_path, pg)
  second = first if request.param == "memory" else make_service(request.param, tmp_path, pg)
  yield first, second
  await first.close()
  if second is not first:
    await second.close()
