"""adk_nb: Google ADK's agent architecture, fast and native to Jupyter notebooks."""

__version__ = "0.1.0"

__all__ = ["Agent", "Context", "Event", "LlmAgent", "Runner", "InMemoryRunner", "Workflow", "__version__"]


def __getattr__(name: str):
  # Lazy, so `import adk_nb` stays light and the notebook extension loads fast.
  if name in ("Agent", "LlmAgent"):
    from .agents.llm_agent import LlmAgent

    return LlmAgent
  if name in ("Runner", "InMemoryRunner"):
    from . import runners

    return getattr(runners, name)
  if name == "Workflow":
    from .workflow._workflow import Workflow

    return Workflow
  if name == "Event":
    from .events.event import Event

    return Event
  if name == "Context":
    from .agents.context import Context

    return Context
  raise AttributeError(f"module 'adk_nb' has no attribute {name!r}")


def load_ipython_extension(ipython) -> None:
  """`%load_ext adk_nb`: registers the %%agent / %agent magics (IPython is imported only now)."""
  from .notebook import load_ipython_extension as load

  load(ipython)


def unload_ipython_extension(ipython) -> None:
  """`%unload_ext adk_nb`: removes the magics and the cell transformer."""
  from .notebook import unload_ipython_extension as unload

  unload(ipython)
