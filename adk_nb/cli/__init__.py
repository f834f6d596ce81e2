"""The `adk-nb` command: a small dispatcher; each subcommand lives with the feature it drives.

    adk-nb create NAME [--model M]      scaffold an agent folder (offline-runnable)
    adk-nb run AGENT_DIR                chat with it in the terminal
    adk-nb web AGENT_DIR                JupyterLab on a generated dev notebook for it
    adk-nb api_server AGENTS_DIR...     serve ADK's HTTP API (needs adk_nb[server])
    adk-nb eval AGENT_DIR EVALSET...    run eval sets
    adk-nb migrate-sessions URL         move sessions google-adk wrote into adk_nb's layout
"""

from __future__ import annotations

import argparse
import sys
from typing import Callable, Optional

# name -> (module path, help). Each module provides add_arguments(parser) and run(args) -> exit code.
SUBCOMMANDS: dict[str, tuple[str, str]] = {
    "create": ("adk_nb.cli.create", "scaffold an agent folder that runs offline"),
    "run": ("adk_nb.cli.run", "chat with an agent folder in the terminal"),
    "web": ("adk_nb.cli.web", "open JupyterLab on a generated dev notebook for an agent folder"),
    "api_server": ("adk_nb.cli.api_server", "serve agent folders over ADK's HTTP API"),
    "eval": ("adk_nb.evaluation._cli", "run eval sets against an agent and print a summary"),
    "migrate-sessions": ("adk_nb.cli.migrate_sessions",
                         "move sessions that google-adk wrote into adk_nb's layout"),
}


def build_parser() -> argparse.ArgumentParser:
  """The argument parser with every subcommand registered."""
  import importlib

  parser = argparse.ArgumentParser(prog="adk-nb", description="adk_nb command line.")
  sub = parser.add_subparsers(dest="command", metavar="COMMAND")
  for name, (module_path, help_text) in SUBCOMMANDS.items():
    module = importlib.import_module(module_path)
    p = sub.add_parser(name, help=help_text, description=(module.__doc__ or help_text).strip().splitlines()[0])
    module.add_arguments(p)
    p.set_defaults(_run=module.run)
  return parser


def main(argv: Optional[list[str]] = None) -> int:
  """Entry point of `adk-nb`; returns the process exit code."""
  parser = build_parser()
  args = parser.parse_args(argv)
  run: Optional[Callable[[argparse.Namespace], int]] = getattr(args, "_run", None)
  if run is None:
    parser.print_help()
    return 2
  return run(args)


if __name__ == "__main__":
  sys.exit(main())
