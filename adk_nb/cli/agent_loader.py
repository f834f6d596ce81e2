"""Loads the agent of an agent folder (or module) the way `adk run` / `adk api_server` find it.

One loader serves `adk-nb run`, `web`, `api_server` and `eval`:

    my_agent/                 (the folder name is the app name)
      __init__.py             `from . import agent`
      agent.py                defines `root_agent = Agent(...)` (or `app = App(...)`)
      .env                    optional; loaded before the agent is imported

`.env` is searched from the agent folder up to the filesystem root (the nearest one wins); variables
already set in the environment are kept, as ADK does. Set ADK_NB_DISABLE_LOAD_DOTENV=1 to skip it.
An `App` named `app` wins over `root_agent`, in the package first, then in its `agent` submodule.
"""

from __future__ import annotations

import importlib
import importlib.util
import os
import sys
import traceback
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterator, Optional

from ..errors import AdkNbError, codes

DISABLE_DOTENV_ENV_VAR = "ADK_NB_DISABLE_LOAD_DOTENV"
"""Set to 1/true to skip loading `.env` files."""


class AgentLoadError(AdkNbError, ImportError):
  """An agent folder or module could not be loaded; the message says why and what to change."""

  error_code = codes.AGENT_LOAD_ERROR


class NotAnAgentFolderError(AgentLoadError):
  """The path exists but is neither a package nor a folder with agent.py."""

  error_code = codes.NOT_AN_AGENT_FOLDER


class MissingRootAgentError(AgentLoadError):
  """The module imported, but defines neither `root_agent` nor `app`."""

  error_code = codes.MISSING_ROOT_AGENT


class AgentImportError(AgentLoadError):
  """The user's code raised while it was imported; the message holds their traceback."""

  error_code = codes.AGENT_IMPORT_ERROR


@dataclass
class LoadedAgent:
  """What an agent folder holds: its app name, root agent, and App (when it defines one)."""

  name: str
  """The app name: the folder (or top-level module) name."""
  agent: Any
  """The root agent (the App's root agent when an App was found)."""
  app: Any = None
  """The `App` the module defines as `app`, or None."""
  path: Optional[Path] = None
  """The folder (or file) it was loaded from; None for a module path."""

  @property
  def target(self) -> Any:
    """What a Runner should run: the App when there is one (for its plugins), else the agent."""
    return self.app if self.app is not None else self.agent


def parse_dotenv(text: str) -> dict[str, str]:
  """The KEY=VALUE pairs of a `.env` text (`export` prefixes, quotes and `#` comments allowed)."""
  values: dict[str, str] = {}
  for raw in text.splitlines():
    line = raw.strip()
    if not line or line.startswith("#") or "=" not in line:
      continue
    key, _, value = line.partition("=")
    key = key.strip()
    if key.startswith("export "):
      key = key[len("export "):].strip()
    value = value.strip()
    if len(value) >= 2 and value[0] == value[-1] and value[0] in "'\"":
      value = value[1:-1]
    elif " #" in value:
      value = value.split(" #", 1)[0].rstrip()
    if key:
      values[key] = value
  return values


def find_dotenv(start: Path) -> Optional[Path]:
  """The nearest `.env` file in `start` or one of its parents."""
  folder = start.resolve()
  for candidate in (folder, *folder.parents):
    if (candidate / ".env").is_file():
      return candidate / ".env"
  return None


def load_dotenv_for(folder: Path) -> Optional[Path]:
  """Loads the nearest `.env` into os.environ without overriding variables already set; returns its path."""
  if os.environ.get(DISABLE_DOTENV_ENV_VAR, "").strip().lower() in ("1", "true", "yes"):
    return None
  path = find_dotenv(folder)
  if path is None:
    return None
  for key, value in parse_dotenv(path.read_text(encoding="utf-8")).items():
    os.environ.setdefault(key, value)
  return path


def is_agent_folder(path: Path) -> bool:
  """True when `path` is a folder holding an agent (`agent.py`, or `__init__.py`)."""
  return path.is_dir() and ((path / "agent.py").is_file() or (path / "__init__.py").is_file())


def _user_traceback(exc: BaseException, folder: Optional[Path]) -> str:
  """The traceback of `exc`, keeping the user's frames (and the error line) but not the import machinery."""
  frames = traceback.extract_tb(exc.__traceback__)
  mine = [f for f in frames if "importlib" not in f.filename and not f.filename.endswith("agent_loader.py")]
  if folder is not None:
    inside = [f for f in mine if str(folder) in f.filename]
    mine = inside or mine
  lines = traceback.format_list(mine) + traceback.format_exception_only(type(exc), exc)
  return "Traceback (most recent call last):\n" + "".join(lines)


def _import(name: str, folder: Optional[Path]):
  """Imports `name`; an exception raised by the user's code becomes AgentImportError with their traceback."""
  try:
    return importlib.import_module(name)
  except ModuleNotFoundError as exc:
    if exc.name == name or (exc.name and name.startswith(exc.name + ".")):
      return None
    raise AgentImportError(
        f"Importing {name!r} failed: {exc}. Install the missing package or fix the import.\n"
        f"{_user_traceback(exc, folder)}") from exc
  except AgentLoadError:
    raise
  except BaseException as exc:  # noqa: BLE001 - any error in user code is reported with its traceback
    if isinstance(exc, (KeyboardInterrupt, SystemExit)):
      raise
    raise AgentImportError(
        f"Importing {name!r} raised {type(exc).__name__}: {exc}. Fix the agent's code:\n"
        f"{_user_traceback(exc, folder)}") from exc


def _forget(package: str, folder: Path) -> None:
  """Drops an already-imported package of the same name from another folder, so this folder's code loads."""
  cached = sys.modules.get(package)
  if cached is None:
    return
  origin = getattr(cached, "__file__", None) or next(iter(getattr(cached, "__path__", None) or []), None)
  if origin and (Path(origin).resolve() == folder or Path(origin).resolve().parent == folder):
    return
  for name in [n for n in sys.modules if n == package or n.startswith(package + ".")]:
    del sys.modules[name]


def _found_in(module: Any) -> tuple[Any, Any]:
  """(agent, app) a module defines: `app` (an App) wins over `root_agent`."""
  from ..agents.base_agent import BaseAgent
  from ..apps.app import App

  app = getattr(module, "app", None)
  if isinstance(app, App):
    return app.root_agent, app
  agent = getattr(module, "root_agent", None)
  if agent is None:
    return None, None
  if not isinstance(agent, BaseAgent) and not hasattr(agent, "run_async"):
    raise MissingRootAgentError(
        f"{module.__name__}.root_agent is a {type(agent).__name__}, not an agent; "
        "set root_agent = Agent(...) (or app = App(...)).")
  return agent, None


def _from_package(name: str, folder: Optional[Path]) -> tuple[Any, Any]:
  module = _import(name, folder)
  if module is None:
    raise AgentLoadError(f"No module named {name!r}; pass an agent folder path or an importable module name.")
  agent, app = _found_in(module)
  if agent is None and hasattr(module, "__path__"):
    submodule = getattr(module, "agent", None)
    if not hasattr(submodule, "__name__"):
      submodule = _import(f"{name}.agent", folder)
    if submodule is not None:
      agent, app = _found_in(submodule)
  if agent is None:
    where = f"{folder}/agent.py" if folder is not None else f"module {name!r}"
    raise MissingRootAgentError(
        f"{where} defines no root_agent; add `root_agent = Agent(name=..., model=..., instruction=...)` "
        "to agent.py (or `app = App(name=..., root_agent=...)`), and `from . import agent` to __init__.py.")
  return agent, app


def load_agent_folder(target: str | os.PathLike) -> LoadedAgent:
  """Loads an agent folder, a single agent file, or an importable module path ('pkg' or 'pkg.agent').

  `.env` is loaded first. Raises NotAnAgentFolderError for a folder with neither `__init__.py` nor
  `agent.py`, AgentImportError (with the user's traceback) when their code raises on import, and
  MissingRootAgentError when nothing defines `root_agent` or `app`.
  """
  path = Path(target)
  if path.exists():
    path = path.resolve()
    if path.is_file():
      return _load_file(path)
    if not is_agent_folder(path):
      raise NotAnAgentFolderError(
          f"{str(target)!r} is not a Python package (no __init__.py) and has no agent.py; an agent folder holds "
          "agent.py defining root_agent and __init__.py with `from . import agent` (`adk-nb create NAME` makes one).")
    name = path.name
    if not name.isidentifier():
      raise NotAnAgentFolderError(
          f"Folder name {name!r} is not a Python identifier, so it cannot be imported; rename it "
          f"(e.g. {name.replace('-', '_').replace(' ', '_')!r}).")
    load_dotenv_for(path)
    if str(path.parent) not in sys.path:
      sys.path.insert(0, str(path.parent))
    _forget(name, path)
    agent, app = _from_package(name, path)
    return LoadedAgent(name=name, agent=agent, app=app, path=path)
  if not all(part.isidentifier() for part in str(target).split(".")):
    raise NotAnAgentFolderError(f"{str(target)!r} is neither an existing folder nor a module name.")
  agent, app = _from_package(str(target), None)
  return LoadedAgent(name=str(target).split(".")[0], agent=agent, app=app)


def _load_file(path: Path) -> LoadedAgent:
  """Loads a single agent file (`my_agent.py` defining root_agent) under a private module name."""
  if path.suffix != ".py":
    raise NotAnAgentFolderError(f"{str(path)!r} is a file but not a .py file; pass an agent folder.")
  load_dotenv_for(path.parent)
  module_name = f"_adk_nb_agent_{path.stem}"
  spec = importlib.util.spec_from_file_location(module_name, path)
  module = importlib.util.module_from_spec(spec)
  sys.modules[module_name] = module
  try:
    spec.loader.exec_module(module)
  except BaseException as exc:  # noqa: BLE001 - the user's code raised; report it with their traceback
    del sys.modules[module_name]
    if isinstance(exc, (KeyboardInterrupt, SystemExit)):
      raise
    raise AgentImportError(f"Loading {str(path)!r} raised {type(exc).__name__}: {exc}. Fix the agent's code:\n"
                           f"{_user_traceback(exc, path.parent)}") from exc
  agent, app = _found_in(module)
  if agent is None:
    raise MissingRootAgentError(f"{str(path)!r} defines no root_agent; add `root_agent = Agent(...)` to it.")
  name = path.parent.name if path.stem == "agent" else path.stem
  return LoadedAgent(name=name, agent=agent, app=app, path=path)


def agent_folders(agents_dir: str | os.PathLike) -> list[Path]:
  """The agent folders an `api_server` argument names: the folder itself if it is one, else its agent subfolders."""
  path = Path(agents_dir).resolve()
  if not path.is_dir():
    raise NotAnAgentFolderError(f"{str(agents_dir)!r} is not a folder.")
  if is_agent_folder(path):
    return [path]
  found = sorted(p for p in path.iterdir() if not p.name.startswith((".", "_")) and is_agent_folder(p))
  if not found:
    raise NotAnAgentFolderError(
        f"{str(agents_dir)!r} holds no agent folder (a subfolder with agent.py); `adk-nb create NAME` makes one.")
  return found


def iter_agents(paths: list[str]) -> Iterator[Path]:
  """Every agent folder under the given paths, each once."""
  seen: set[Path] = set()
  for p in paths:
    for folder in agent_folders(p):
      if folder not in seen:
        seen.add(folder)
        yield folder
