"""Agents: the LLM-driven agent, workflow agents, and the contexts they run with."""

from .base_agent import BaseAgent
from .callback_context import CallbackContext
from .context import Context
from .invocation_context import InvocationContext, LlmCallsLimitExceededError
from .live_request_queue import LiveRequest, LiveRequestQueue
from .llm_agent import Agent, LlmAgent
from .loop_agent import LoopAgent
from .parallel_agent import ParallelAgent
from .readonly_context import ReadonlyContext
from .run_config import RunConfig, StreamingMode
from .sequential_agent import SequentialAgent

__all__ = [
    "Agent",
    "BaseAgent",
    "CallbackContext",
    "Context",
    "InvocationContext",
    "LlmAgent",
    "LiveRequest",
    "LiveRequestQueue",
    "LlmCallsLimitExceededError",
    "LoopAgent",
    "ParallelAgent",
    "ReadonlyContext",
    "RunConfig",
    "SequentialAgent",
    "StreamingMode",
]
