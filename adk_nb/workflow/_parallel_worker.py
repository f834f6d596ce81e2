"""_ParallelWorker: a node that runs another node once per item of a list input, concurrently.

Made by `node(f, parallel_worker=True)` (and `Node(parallel_worker=True)`). Each item runs as a
`ctx.run_node` child ('square@1/square@1', 'square@1/square@2', ...), so items that finished
before a pause are replayed, not run again, when the workflow resumes.
"""

from __future__ import annotations

import asyncio
from typing import Any, AsyncGenerator, Optional

from pydantic import model_validator

from ..agents.context import Context
from ._base_node import BaseNode
from ._errors import WorkflowConfigurationError


class _ParallelWorker(BaseNode):
  """Runs `worker` once per item of a list input (a non-list is one item); outputs the results in order."""

  worker: BaseNode
  """The node run for each item."""
  max_parallel_workers: Optional[int] = None
  """How many items run at once (None: all)."""

  @model_validator(mode="before")
  @classmethod
  def _from_node(cls, data: Any) -> Any:
    # google-adk's spelling: _ParallelWorker(node=f, max_parallel_workers=...).
    if isinstance(data, dict) and "node" in data and "worker" not in data:
      from ._node import build_node

      data = dict(data)
      worker = build_node(data.pop("node"))
      data.setdefault("name", worker.name)
      data["worker"] = worker
    if isinstance(data, dict):
      limit = data.get("max_parallel_workers")
      if limit is not None and limit < 1:
        raise WorkflowConfigurationError(
            f"max_parallel_workers must be greater than or equal to 1, got {limit}; use None for no limit."
        )
    return data

  @property
  def _node(self) -> BaseNode:
    """The node run for each item (google-adk's name for `worker`)."""
    return self.worker

  async def _run_impl(self, *, ctx: Context, node_input: Any) -> AsyncGenerator[Any, None]:
    items = node_input if isinstance(node_input, list) else [node_input]
    limit = asyncio.Semaphore(self.max_parallel_workers or len(items) or 1)

    async def one(item: Any) -> Any:
      async with limit:
        return await ctx.run_node(self.worker, node_input=item)

    yield list(await asyncio.gather(*(one(item) for item in items)))
