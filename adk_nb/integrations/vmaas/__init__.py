"""Vertex AI Agent Engine sandboxes (google-adk 2.x's `google.adk.integrations.vmaas`), partly.

`AgentEngineSandboxComputer` constructs, takes the same arguments and runs a turn with
`ComputerUseToolset` as google-adk's (the sandbox is provisioned on the first browser action).
Its browser actions are not ported: the first one raises ImportError naming
`pip install 'google-cloud-agentplatform[agent-engines]>=2.2,<3'` without the SDK, and
NotImplementedError with it. google-adk's `AgentEngineEnvironment` and `SandboxClient` are not here.
"""

from .sandbox_computer import AgentEngineSandboxComputer

__all__ = ["AgentEngineSandboxComputer"]
