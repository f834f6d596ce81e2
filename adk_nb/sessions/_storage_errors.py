"""What DatabaseSessionService tells a user when the database fails: one table of causes and fixes.

Drivers report failures as text (sqlite3, aiosqlite, asyncpg and SQLAlchemy each their own way),
so a cause is recognised by words in that text. `RULES` pairs each recognisable cause with the
message that names its fix; the first rule that matches wins, and the last one matches anything.
Adding a cause is adding a row.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from typing import Callable, NamedTuple, Optional

from sqlalchemy import exc as sa_exc

from ..errors import codes
from ..errors.adk_nb_error import AdkNbError


class SessionStorageError(AdkNbError, RuntimeError):
  """The database could not be read or written; the message names the cause and the fix.

  Raised for an unreachable server, a read-only or full disk, a missing table or a
  corrupt row. A write that raises this has written nothing.
  (Importable from `adk_nb.sessions.database_session_service`, where it is documented.)
  """

  error_code = codes.SESSION_STORAGE_ERROR


class WriteRefused(AdkNbError):
  """A write the store will not attempt; the text says why (turned into a SessionStorageError)."""


@dataclass(frozen=True)
class Failure:
  """One failure as the rules see it."""

  exc: BaseException
  text: str
  """The driver's message (or the exception's class name when it has none)."""
  low: str
  """`text` in lower case, which the rules match."""
  sqlite: bool
  read_only: bool

  def has(self, *words: str) -> bool:
    return any(word in self.low for word in words)


@dataclass(frozen=True)
class Rule:
  """A cause: when it applies, the message (a template), and what the store notes about itself."""

  when: Callable[[Failure], bool]
  message: str
  """Formatted with action, where, text, text200, exc, busy_timeout and (read-only files) reason."""
  marks: Optional[str] = None
  """'corrupt': the SQLite file is damaged, write nothing more to it; 'unprepared': check the
  tables again on next use."""


RULES: tuple[Rule, ...] = (
    Rule(lambda f: isinstance(f.exc, WriteRefused), "Cannot {action}: {exc}"),
    Rule(lambda f: f.has("readonly", "read-only", "read only"),
         "Cannot {action}: the {where} is read-only (nothing was written). Make the file "
         "and its directory writable, or open a writable copy."),
    Rule(lambda f: f.has("disk is full", "no space", "disk full"),
         "Cannot {action}: the disk holding the {where} is full (nothing was written); "
         "free some space and retry."),
    Rule(lambda f: f.has("no such table") or (f.has("relation") and f.has("does not exist")),
         "Cannot {action}: a table is missing from the {where} ({text}); it was dropped "
         "outside adk_nb. Restore the database from a backup, or call "
         "`await service.prepare_tables()` to recreate missing tables empty.",
         marks="unprepared"),
    Rule(lambda f: f.has("no such column") or (f.has("column") and f.has("does not exist")),
         "Cannot {action}: the {where} has tables adk_nb did not create ({text}); use a "
         "new database (google-adk's tables have another layout)."),
    Rule(lambda f: f.has("locked"),
         "Cannot {action}: the {where} stayed locked by another writer for more than "
         "{busy_timeout:g} s (nothing was written); retry, or pass a larger "
         "busy_timeout= to DatabaseSessionService."),
    # Damaged bytes inside a row: the file is as damaged as when SQLite says "malformed".
    Rule(lambda f: f.has("could not decode to utf-8") and f.sqlite,
         "Cannot {action}: the {where} is damaged: it holds text that is not UTF-8 "
         "({text200}); nothing more is written to it, so the damage does not spread. "
         "Restore it from a backup or point db_url at a new file.",
         marks="corrupt"),
    Rule(lambda f: f.has("not a database", "malformed"),
         "Cannot {action}: the {where} is not a valid SQLite database ({text}); restore "
         "it from a backup or point db_url at a new file.",
         marks="corrupt"),
    Rule(lambda f: f.has("unable to open") and f.read_only,
         "Cannot {action}: cannot open the {where} read-only ({reason}). "
         "If a '-wal' file lies beside it without its '-shm' file, copy the files to a "
         "writable folder and open the copy."),
    Rule(lambda f: f.has("unable to open"),
         "Cannot {action}: cannot open the {where}; check that its directory exists and "
         "is writable."),
    Rule(lambda f: f.has("deadlock", "could not serialize"),
         "Cannot {action}: the database aborted a conflicting transaction ({text}); retry."),
    Rule(lambda f: isinstance(f.exc, (OSError, asyncio.TimeoutError, sa_exc.OperationalError,
                                      sa_exc.InterfaceError)) or f.has("connect"),
         "Cannot {action}: the {where} is unreachable ({text}). Check that the server is "
         "running and that host, port, user and password in the URL are right."),
    Rule(lambda f: True, "Cannot {action} in the {where}: {text}"),
)
"""The causes, most specific first; the first that matches a failure explains it."""


class Translated(NamedTuple):
  error: SessionStorageError
  mark: Optional[str]
  """The matching rule's `marks` ('corrupt' only on SQLite), or None."""
  text: str
  """The driver's message."""


def translate(exc: BaseException, action: str, *, where: str, sqlite: bool, read_only: bool,
              busy_timeout: float, reason: Callable[[], str]) -> Translated:
  """The SessionStorageError explaining `exc` (raised while trying to `action`), and the rule's mark.

  `where` names the database in the message; `reason()` says why a file is open read-only.
  """
  text = str(getattr(exc, "orig", None) or exc) or type(exc).__name__
  failure = Failure(exc, text, text.lower(), sqlite, read_only)
  rule = next(r for r in RULES if r.when(failure))
  message = rule.message.format(
      action=action, where=where, text=text, text200=text[:200], exc=exc, busy_timeout=busy_timeout,
      reason=reason() if "{reason}" in rule.message else "")
  mark = rule.marks if rule.marks != "corrupt" or sqlite else None
  return Translated(SessionStorageError(message), mark, text)
