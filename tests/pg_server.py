"""A throwaway PostgreSQL server for tests and benchmarks (no pytest here, so bench/ can use it too).

`throwaway_postgres()` yields the URL of an empty server: $ADK_NB_TEST_PG_URL when set, else a
cluster made with Debian's binaries (`apt-get install postgresql`) on 127.0.0.1 and a free port,
with durability off (fsync, synchronous_commit), removed on exit. Without either it raises
`PostgresUnavailable`, whose message says how to get one.
"""

from __future__ import annotations

import contextlib
import glob
import os
import pwd
import shutil
import subprocess
import tempfile
from typing import Iterator

from tests.support import free_port


async def admin_sql(dsn: str, sql: str) -> None:
  """Runs one statement (CREATE / DROP DATABASE, ...) on its own connection."""
  import asyncpg

  conn = await asyncpg.connect(dsn)
  try:
    await conn.execute(sql)
  finally:
    await conn.close()


class PostgresUnavailable(RuntimeError):
  """No PostgreSQL server could be found or started; the message says why and what to install."""


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


@contextlib.contextmanager
def throwaway_postgres(max_connections: int = 100) -> Iterator[str]:
  """The URL (`postgresql://postgres@127.0.0.1:PORT/postgres`) of a server that lives for the block."""
  url = os.environ.get("ADK_NB_TEST_PG_URL")
  if url:
    yield url
    return
  initdbs = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"),
                   key=lambda p: int(p.split("/")[4]) if p.split("/")[4].isdigit() else 0)
  if not initdbs:
    raise PostgresUnavailable("no PostgreSQL server: set ADK_NB_TEST_PG_URL=postgresql://... or "
                              "install Debian's 'postgresql' package so one can be started")
  bindir = os.path.dirname(initdbs[-1])
  _ensure_server_user()
  workdir = tempfile.mkdtemp(prefix="adk_nb_pg_")
  datadir = os.path.join(workdir, "data")
  if os.geteuid() == 0:
    shutil.chown(workdir, "postgres", "postgres")
  log = os.path.join(workdir, "server.log")
  try:
    subprocess.run(
        _as_server_user([os.path.join(bindir, "initdb"), "-D", datadir, "-U", "postgres",
                         "--auth=trust", "-E", "UTF8", "--no-sync"]),
        check=True, capture_output=True, cwd=workdir,
    )
    # free_port() was free a moment ago; another process can take it before the server binds it, so a
    # start that fails because the address is in use is tried again on a new port.
    for attempt in range(3):
      port = free_port()
      seen = os.path.getsize(log) if os.path.exists(log) else 0
      options = (f"-h 127.0.0.1 -p {port} -k {workdir} -c fsync=off -c max_connections={max_connections} "
                 "-c synchronous_commit=off -c full_page_writes=off")
      started = subprocess.run(
          _as_server_user([os.path.join(bindir, "pg_ctl"), "-D", datadir, "-o", options,
                           "-l", log, "-w", "-t", "120", "start"]),
          capture_output=True, cwd=workdir,
      )
      if started.returncode == 0:
        break
      with open(log, errors="replace") as server_log:
        server_log.seek(seen)
        port_taken = "already in use" in server_log.read()
      if attempt == 2 or not port_taken:
        raise subprocess.CalledProcessError(started.returncode, started.args, started.stdout, started.stderr)
  except (subprocess.CalledProcessError, OSError) as exc:
    detail = getattr(exc, "stderr", b"") or b""
    shutil.rmtree(workdir, ignore_errors=True)
    raise PostgresUnavailable(
        f"could not start a throwaway PostgreSQL server: {exc} {detail.decode()[-500:]}") from exc
  try:
    yield f"postgresql://postgres@127.0.0.1:{port}/postgres"
  finally:
    subprocess.run(
        _as_server_user([os.path.join(bindir, "pg_ctl"), "-D", datadir, "-m", "immediate", "stop"]),
        capture_output=True, cwd=workdir,
    )
    shutil.rmtree(workdir, ignore_errors=True)
