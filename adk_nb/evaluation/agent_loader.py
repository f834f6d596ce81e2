"""Finds the agent to evaluate: a module exposing `root_agent` (ADK's `agent.py` convention) or a folder holding one."""

from __future__ import annotations

import asyncio
import importlib
import importlib.util
import inspect
import sys
from pathlib import Path
from typing import Any, Optional


def _import_target(target: str):
  path = Path(target)
  if path.exists():
    path = path.resolve()
    if path.is_file():
      return _load_file(path, f"_adk_nb_eval_{path.stem}")
    if (path / "__init__.py").exists():
      parent = str(path.parent)
      if parent not in sys.path:
        sys.path.insert(0, parent)
      _forget_other(path.name, path)
      module = importlib.import_module(path.name)
      if not hasattr(module, "root_agent") and not hasattr(module, "agent") and (path / "agent.py").exists():
        module = importlib.import_module(f"{path.name}.agent")
      return module
    if (path / "agent.py").exists():
      return _load_file(path / "agent.py", f"_adk_nb_eval_{path.name}_agent")
    raise FileNotFoundError(
        f"{target!r} has neither __init__.py nor agent.py; an agent folder holds agent.py defining root_agent "
        "(and __init__.py with `from . import agent`).")
  return importlib.import_module(target)


def _forget_other(package: str, path: Path) -> None:
  """Drops an already-imported package of the same name from another folder, so this folder's agent loads."""
  cached = sys.modules.get(package)
  origin = getattr(cached, "__file__", None)
  if cached is None or (origin and Path(origin).resolve().parent == path):
    return
  for name in [n for n in sys.modules if n == package or n.startswith(package + ".")]:
    del sys.modules[name]


def _load_file(path: Path, name: str):
  spec = importlib.util.spec_from_file_location(name, path)
  module = importlib.util.module_from_spec(spec)
  sys.modules[name] = module
  spec.loader.exec_module(module)
  return module


async def load_agent_async(target: str, agent_name: Optional[str] = None) -> tuple[Any, Any]:
  """(agent, App or None) from a module name ('my_agent' or 'my_agent.agent') or an agent folder / file path.

  The module (or its `agent` submodule) must define `root_agent`, or `get_agent_async()`
  returning `(agent, exit_stack)`; an `app` (App) next to it is used for its plugins.
  """
  module = _import_target(target)
  holder = getattr(module, "agent", module)
  if not inspect.ismodule(holder):
    holder = module
  agent = getattr(holder, "root_agent", None) or getattr(module, "root_agent", None)
  if agent is None:
    factory = getattr(holder, "get_agent_async", None)
    if not callable(factory):
      raise ValueError(f"{target!r} defines no root_agent; define `root_agent = Agent(...)` in its agent.py.")
    made = factory()
    if inspect.isawaitable(made):
      made = await made
    agent = made[0] if isinstance(made, tuple) else made
  app = getattr(holder, "app", None)
  from ..apps.app import App

  if not isinstance(app, App):
    app = None
  if agent_name:
    sub = agent.find_agent(agent_name)
    if sub is None:
      raise ValueError(f"No agent named {agent_name!r} under {agent.name!r}.")
    agent = sub
  return agent, app


def load_agent(target: str, agent_name: Optional[str] = None) -> tuple[Any, Any]:
  """The sync form of `load_agent_async`, for scripts and the command line."""
  return asyncio.run(load_agent_async(target, agent_name))
