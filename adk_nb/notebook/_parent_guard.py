"""Keeps each cell's kernel status under its own request while widget messages arrive mid-cell.

ipykernel 7 dispatches a widget's `comm_msg` concurrently with a running cell: it reads the
shell's current parent request, handles the message, then writes that parent back into the
context all shell handlers share. When the cell ends and the next queued cell starts between
the read and the write-back, the write-back puts the finished cell's request back, and every
later status message of the new cell (its `idle` among them) names the old one. The front
end then never sees the new cell finish: under Run All it stays `[*]` forever. The views'
first message (the event tree asks for everything so far once it renders) lands exactly in
that window, since a scripted run often ends as its view appears.

The guard notes the request each cell starts under and puts it back when the cell ends, before
ipykernel publishes the cell's `idle`. It only acts when the parent was changed behind the
cell's back, and does nothing outside ipykernel.
"""

from __future__ import annotations

from typing import Any

_INSTALLED_ON: set[int] = set()


def install(shell: Any = None) -> bool:
  """Registers the guard on the running IPython kernel (once); False when there is nothing to guard."""
  if shell is None:
    try:
      from IPython import get_ipython
    except ImportError:
      return False
    shell = get_ipython()
  kernel = getattr(shell, "kernel", None)
  if kernel is None or not hasattr(kernel, "get_parent") or not hasattr(kernel, "_shell_parent_ident"):
    return False
  if id(shell) in _INSTALLED_ON:
    return True
  started: dict[str, Any] = {}

  def note_parent(_info: Any = None) -> None:
    started["parent"] = kernel.get_parent("shell")
    started["ident"] = kernel._get_shell_context_var(kernel._shell_parent_ident)

  def restore_parent(_result: Any = None) -> None:
    parent = started.pop("parent", None)
    if parent and kernel.get_parent("shell") is not parent:
      kernel.set_parent(started.get("ident"), parent, channel="shell")

  shell.events.register("pre_run_cell", note_parent)
  shell.events.register("post_run_cell", restore_parent)
  _INSTALLED_ON.add(id(shell))
  return True
