"""Session stores for the race tests: `service` on memory, an SQLite file and PostgreSQL.

The throwaway PostgreSQL server and the store factory are those of the session tests
(tests/sessions/conftest.py), loaded once for this folder.
"""

from __future__ import annotations

import importlib.util
import pathlib

import pytest

_spec = importlib.util.spec_from_file_location(
    "_session_stores", pathlib.Path(__file__).parents[1] / "sessions" / "conftest.py")
_stores = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_stores)
postgres_url, pg_database, pg_url = _stores.postgres_url, _stores.pg_database, _stores.pg_url


@pytest.fixture(params=["memory", "sqlite", "postgresql"])
async def service(request, tmp_path):
  """A new session store of each kind (PostgreSQL skips, saying why, when no server can be had)."""
  pg = request.getfixturevalue("pg_url") if request.param == "postgresql" else None
  service = _stores.make_service(request.param, tmp_path, pg)
  yield service
  await service.close()
