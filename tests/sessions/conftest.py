"""Session stores under test: in memory, an SQLite file, and a real PostgreSQL server.

PostgreSQL comes from $ADK_NB_TEST_PG_URL when set; otherwise, when Debian's server
binaries are installed (`apt-get install postgresql`), a throwaway cluster is started
on 127.0.0.1 for this test session and removed at the end.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import glob
import os
import pwd
import shutil
import socket
import subprocess
import tempfile
import uuid
from typing import Iterator, Optional

import pytest


_PG_SKIP_REASON = ""


def _free_port() -> int:
  with socket.socket() as s:
    s.bind(("127.0.0.1", 0))
    return s.getsockname()[1]


def _as_server_user(cmd: list[str]) -> list[str]:
  if os.geteuid() != 0:
    return cmd
  return ["runuser", "-u", "postgres", "--", *cmd]


def _ensure_server_user() -> None:
  """PostgreSQL refuses to run as root; use (or create) the OS user 'postgres'."""
  if os.geteuid() != 0:
    return
  try:
    pwd.getpwnam("postgres")
  except KeyError:
    subprocess.run(["useradd", "--system", "--no-create-home", "postgres"], check=True,
                   capture_output=True)


@pytest.fixture(scope="session")
def postgres_url() -> Iterator[Optional[str]]:
  """A URL of an empty PostgreSQL database, or None (with `pg_skip_reason` set)."""
  global _PG_SKIP_REASON
  url = os.environ.get("ADK_NB_TEST_PG_URL")
  if url:
    yield url
    return
  initdbs = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"),
                   key=lambda p: int(p.split("/")[4]) if p.split("/")[4].isdigit() else 0)
  if not initdbs:
    _PG_SKIP_REASON = ("no PostgreSQL server: set ADK_NB_TEST_PG_URL=postgresql://... or "
                       "install Debian's 'postgresql' package so the tests can start one")
    yield None
    return
  bindir = os.path.dirname(initdbs[-1])
  _ensure_server_user()
  workdir = tempfile.mkdtemp(prefix="adk_nb_pg_")
  datadir = os.path.join(workdir, "data")
  if os.geteuid() == 0:
    shutil.chown(workdir, "postgres", "postgres")
  port = _free_port()
  try:
    subprocess.run(
        _as_server_user([os.path.join(bindir, "initdb"), "-D", datadir, "-U", "postgres",
                         "--auth=trust", "-E", "UTF8", "--no-sync"]),
        check=True, capture_output=True, cwd=workdir,
    )
    options = (f"-h 127.0.0.1 -p {port} -k {workdir} -c fsync=off "
               "-c synchronous_commit=off -c full_page_writes=off")
    subprocess.run(
        _as_server_user([os.path.join(bindir, "pg_ctl"), "-D", datadir, "-o", options,
                         "-l", os.path.join(workdir, "server.log"), "-w", "-t", "60", "start"]),
        check=True, capture_output=True, cwd=workdir,
    )
  except (subprocess.CalledProcessError, OSError) as exc:
    detail = getattr(exc, "stderr", b"") or b""
    _PG_SKIP_REASON = f"could not start a throwaway PostgreSQL server: {exc} {detail.decode()[-500:]}"
    shutil.rmtree(workdir, ignore_errors=True)
    yield None
    return
  try:
    yield f"postgresql://postgres@127.0.0.1:{port}/postgres"
  finally:
    subprocess.run(
        _as_server_user([os.path.join(bindir, "pg_ctl"), "-D", datadir, "-m", "immediate", "stop"]),
        capture_output=True, cwd=workdir,
    )
    shutil.rmtree(workdir, ignore_errors=True)


def _run(coro):
  # The tests' event loop may be running; talk to the server from a loop of our own.
  with concurrent.futures.ThreadPoolExecutor(1) as pool:
    return pool.submit(asyncio.run, coro).result()


async def _admin(dsn: str, sql: str) -> None:
  import asyncpg

  conn = await asyncpg.connect(dsn)
  try:
    await conn.execute(sql)
  finally:
    await conn.close()


@pytest.fixture(scope="session")
def pg_database(postgres_url: Optional[str]) -> Iterator[Optional[str]]:
  """One database for this test session, on the server (dropped at the end)."""
  if postgres_url is None:
    yield None
    return
  admin_dsn = postgres_url.replace("postgresql+asyncpg://", "postgresql://")
  name = "adk_nb_test_" + uuid.uuid4().hex[:12]
  _run(_admin(admin_dsn, f'CREATE DATABASE "{name}"'))
  base, _ = admin_dsn.rsplit("/", 1)
  yield f"{base}/{name}"
  _run(_admin(admin_dsn, f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))


@pytest.fixture
def pg_url(pg_database: Optional[str]) -> str:
  """A URL of an empty PostgreSQL database for one test (its tables dropped first)."""
  if pg_database is None:
    pytest.skip(_PG_SKIP_REASON)
  _run(_admin(pg_database, "DROP SCHEMA IF EXISTS public CASCADE; CREATE SCHEMA public;"))
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
