"""Retry decisions for a failed node run (the NodeRunner asks these before each retry)."""

from __future__ import annotations

from typing import Optional

from .._node_state import NodeState
from .._retry_config import RetryConfig


def _should_retry_node(exception: BaseException, retry_config: Optional[RetryConfig], node_state: NodeState) -> bool:
  """True when the attempt `node_state.attempt_count` failed with `exception` and the policy retries it."""
  if retry_config is None:
    return False
  return node_state.attempt_count < retry_config.attempts() and retry_config.retries(exception)


def _get_retry_delay(retry_config: Optional[RetryConfig], node_state: NodeState) -> float:
  """Seconds to wait after attempt `node_state.attempt_count` failed (1 s with no policy)."""
  if retry_config is None:
    return 1.0
  return retry_config.delay(node_state.attempt_count or 1)
