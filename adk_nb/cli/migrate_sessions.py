"""Move sessions that google-adk wrote (SQLite or PostgreSQL) into adk_nb's table layout.

    adk-nb migrate-sessions sqlite:///agent/.adk/session.db --dry-run   what would move; changes nothing
    adk-nb migrate-sessions sqlite:///agent/.adk/session.db             in place, google-adk's tables kept
    adk-nb migrate-sessions URL --to sqlite:///other.db                 copy into another store
    adk-nb migrate-sessions URL --revert                                put google-adk's tables back

Events, session state and app/user state move whole; see adk_nb.sessions.google_adk_store.
"""

from __future__ import annotations

import argparse
import asyncio
import sys


def add_arguments(parser: argparse.ArgumentParser) -> None:
  parser.add_argument("url", metavar="URL",
                      help="the database google-adk wrote: sqlite:///path/session.db or postgresql://...")
  parser.add_argument("--dry-run", action="store_true", help="say what would move; change nothing")
  parser.add_argument("--to", metavar="URL2",
                      help="copy into this adk_nb store instead of moving in place (URL is not touched)")
  parser.add_argument("--revert", action="store_true",
                      help="undo an in-place move: drop adk_nb's tables, put google-adk's back")


def run(args: argparse.Namespace) -> int:
  from ..sessions.database_session_service import SessionStorageError
  from ..sessions.google_adk_store import MigrationError, migrate_sessions

  if args.revert and args.to:
    print("adk-nb migrate-sessions: --revert undoes an in-place move; it takes no --to.",
          file=sys.stderr)
    return 2
  try:
    report = asyncio.run(migrate_sessions(args.url, to=args.to, dry_run=args.dry_run,
                                          revert=args.revert))
  except (MigrationError, SessionStorageError, ValueError) as exc:
    print(f"adk-nb migrate-sessions: {exc}", file=sys.stderr)
    return 2
  except Exception as exc:  # a driver's error (unreachable server, locked file): one line, no traceback
    print(f"adk-nb migrate-sessions: {type(exc).__name__}: {str(exc).splitlines()[0] if str(exc) else ''} "
          "(nothing was changed)", file=sys.stderr)
    return 1
  print("\n".join(report.lines()))
  return 0
