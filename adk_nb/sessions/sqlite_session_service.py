"""`SqliteSessionService`: sessions in one SQLite file, at google-adk's module path.

A thin layer over `DatabaseSessionService`: same behaviour (prefix-scoped state, optimistic
concurrency, WAL), same tables. It takes google-adk's argument, a file path (or a `sqlite:` URL).
The table layout is adk_nb's: a database file written by google-adk's `SqliteSessionService` is
not read by this one (point it at a new file).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Union

from .database_session_service import DatabaseSessionService


class SqliteSessionService(DatabaseSessionService):
  """Sessions kept in the SQLite file `db_path`; they survive a restart.

  Args:
    db_path: a file path (`sessions.db`, created on first use) or a URL
      (`sqlite:///sessions.db`, `sqlite+aiosqlite:///...`); `:memory:` keeps them in memory.
    **kwargs: passed to `DatabaseSessionService` (`busy_timeout`, ...).
  """

  def __init__(self, db_path: Union[str, Path], **kwargs: Any) -> None:
    path = str(db_path)
    if not path.strip():
      raise ValueError("SqliteSessionService needs a file path, e.g. SqliteSessionService('sessions.db').")
    if not path.startswith(("sqlite:", "sqlite+aiosqlite:")):
      path = "sqlite://" if path == ":memory:" else "sqlite:///" + path
    super().__init__(path, **kwargs)
    self.db_path = str(db_path)
    """The path (or URL) this service was given."""


__all__ = ["SqliteSessionService"]
