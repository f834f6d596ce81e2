"""adk_nb in Jupyter: `%%agent` cells, LiveRun handles, and the live RunView.

`%load_ext adk_nb` registers the magics. Without magics: `adk_nb.notebook.run(agent,
"message")` or `await adk_nb.notebook.arun(agent, "message")`.
"""

from ._answers import Decision
from ._policy import ENV_VAR as APPROVE_ENV_VAR
from ._sessions import SessionBusyError
from .api import arun, run
from .chat import ChatView, chat
from .diff_view import DiffView, diff_view
from .live_run import LiveRun
from .magics import AgentMagics, load_ipython_extension, unload_ipython_extension
from .recorded import open_recorded  # registers the viewer reports use for recorded runs (adk_nb.inspect.opener)
from .graph import graph_view
from .tools_view import tools_view
from .trajectory import trajectory_frame
from .views import ConfirmationPanel, EventTree, RunView, StateView
from .waiting import NoAnswer

__all__ = [
    "APPROVE_ENV_VAR",
    "AgentMagics",
    "ChatView",
    "ConfirmationPanel",
    "Decision",
    "DiffView",
    "EventTree",
    "LiveRun",
    "NoAnswer",
    "RunView",
    "SessionBusyError",
    "StateView",
    "arun",
    "chat",
    "diff_view",
    "graph_view",
    "load_ipython_extension",
    "open_recorded",
    "run",
    "tools_view",
    "trajectory_frame",
    "unload_ipython_extension",
]
