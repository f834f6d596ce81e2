"""Simulated users for ADK's conversation scenarios: a starting prompt, then a model following a plan."""

from .llm_backed_user_simulator import LlmBackedUserSimulator, LlmBackedUserSimulatorConfig
from .user_simulator import BaseUserSimulatorConfig, NextUserMessage, Status, UserSimulator

__all__ = ["BaseUserSimulatorConfig", "LlmBackedUserSimulator", "LlmBackedUserSimulatorConfig", "NextUserMessage",
           "Status", "UserSimulator"]
