"""`adk-nb api_server AGENTS_DIR...`: serves agent folders over google-adk's HTTP API (needs adk_nb[server]).

Each AGENTS_DIR is an agent folder (served as one app) or a folder of agent folders (one app each).
Sessions are stored in SQLite at the folder's .adk_nb/sessions.db (the store `adk-nb run` and `adk-nb web`
use; for a folder of agent folders, in that folder) unless --session_service_uri says otherwise;
`postgresql://...` lets several replicas share them (an unreachable one is reported at start).

It binds 127.0.0.1 and answers only loopback Host names there; web pages from other origins are
refused (403) unless listed with --allow_origins (google-adk's flag). A busy port is one line, no traceback.
"""

from __future__ import annotations

import argparse
import sys


def add_arguments(p: argparse.ArgumentParser) -> None:
  """Declares the api_server subcommand's arguments (ADK's `adk api_server` spellings)."""
  p.add_argument("agents_dirs", metavar="AGENTS_DIR", nargs="+", help="agent folder(s), or folder(s) of agent folders")
  p.add_argument("--host", default="127.0.0.1", help="address to bind (default 127.0.0.1)")
  p.add_argument("--port", type=int, default=8000, help="port (default 8000; 0 picks a free one and prints it)")
  p.add_argument("--session_service_uri", default=None,
                 help="sqlite:///file.db, postgresql://..., or memory:// (default: AGENTS_DIR/.adk_nb/sessions.db)")
  p.add_argument("--artifact_service_uri", default="memory://", help="memory:// (default) or file:///folder")
  p.add_argument("--max_body_bytes", type=int, default=10 * 1024 * 1024,
                 help="largest request body accepted (default 10 MiB); larger ones get 413")
  p.add_argument("--allow_origins", action="append", default=[], metavar="ORIGIN",
                 help="a web origin whose pages may call the server (https://app.example, regex:PATTERN, or *); "
                      "repeat for more. Default: none (non-browser clients are not affected)")
  p.add_argument("--log_level", default="warning", help="uvicorn's log level (default warning)")


def run(args: argparse.Namespace) -> int:
  """Runs the api_server subcommand; returns the exit code."""
  try:
    from ..server.app import ServerConfig, serve
  except ImportError as exc:
    print(f"adk-nb api_server: {exc}. Install the server extra: pip install 'adk_nb[server]'", file=sys.stderr)
    return 2
  from ..errors import AdkNbError
  from ..server.app import AddressUnavailableError
  from .agent_loader import AgentLoadError

  config = ServerConfig(agents_dirs=list(args.agents_dirs), session_service_uri=args.session_service_uri,
                        artifact_service_uri=args.artifact_service_uri, max_body_bytes=args.max_body_bytes,
                        host=args.host, allow_origins=list(args.allow_origins))
  try:
    return serve(config, host=args.host, port=args.port, log_level=args.log_level)
  except KeyboardInterrupt:  # uvicorn stopped gracefully (runs finished, stores closed), then re-raised Ctrl-C
    print("adk-nb api_server: stopped (Ctrl-C); runs in progress were finished and stored first.", file=sys.stderr)
    return 130
  except (AdkNbError, AgentLoadError, AddressUnavailableError, ValueError) as exc:
    print(f"adk-nb api_server: {exc}", file=sys.stderr)
    return 2
