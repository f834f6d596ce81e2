"""Computer use: a browser driven by a computer-use model (google-adk's `google.adk.tools.computer_use`).

Implement `BaseComputer` for your browser (Playwright, a remote sandbox such as
`adk_nb.integrations.vmaas.AgentEngineSandboxComputer`) and give it to `ComputerUseToolset`; the
model is told to use its predefined computer-use actions, and each action it calls runs the
matching method, answered with a screenshot and the page's URL.
"""

from .base_computer import BaseComputer, ComputerEnvironment, ComputerState
from .computer_use_tool import ComputerUseTool
from .computer_use_toolset import ComputerUseToolset

__all__ = ["BaseComputer", "ComputerEnvironment", "ComputerState", "ComputerUseTool", "ComputerUseToolset"]
