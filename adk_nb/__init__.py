"""adk_nb: Google ADK's agent architecture, fast and native to Jupyter notebooks."""

from .utils.lazy import lazy_exports as _lazy_exports

__version__ = "0.1.0"

__all__ = ["Agent", "Context", "Event", "LlmAgent", "Runner", "InMemoryRunner", "Workflow", "__version__"]


# Lazy, so `import adk_nb` stays light and the notebook extension loads fast.
__getattr__ = _lazy_exports(__name__, {
    "Agent": ".agents.llm_agent:LlmAgent", "LlmAgent": ".agents.llm_agent", "Runner": ".runners",
    "InMemoryRunner": ".runners", "Workflow": ".workflow._workflow", "Event": ".events.event",
    "Context": ".agents.context"})


def load_ipython_extension(ipython) -> None:
  """`%load_ext adk_nb`: registers the %%agent / %agent magics (IPython is imported only now)."""
  from .notebook import load_ipython_extension as load

  load(ipython)


def unload_ipython_extension(ipython) -> None:
  """`%unload_ext adk_nb`: removes the magics and the cell transformer."""
  from .notebook import unload_ipython_extension as unload

  unload(ipython)


def _load_in_ipython() -> None:
  """In a notebook (IPython), `import adk_nb` loads the extension: `%%agent` works without `%load_ext adk_nb`.

  Nothing happens in plain Python (IPython is not imported, and this does not import it) or when
  the extension is already loaded; without the notebook extras it stays quiet (`%load_ext adk_nb`
  then says what to install).
  """
  import sys

  ipython = sys.modules.get("IPython")
  shell = getattr(ipython, "get_ipython", lambda: None)() if ipython is not None else None
  if shell is None or "agent" in shell.magics_manager.magics.get("cell", {}):
    return
  try:
    shell.extension_manager.load_extension(__name__)
  except Exception as exc:  # noqa: BLE001 - importing adk_nb must never fail because a notebook part did
    import logging

    logging.getLogger("adk_nb.notebook").debug("adk_nb: the notebook extension did not load: %s", exc)


_load_in_ipython()
