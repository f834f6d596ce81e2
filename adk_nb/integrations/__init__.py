"""Third-party services behind adk_nb interfaces (google-adk 2.x's `google.adk.integrations`).

adk_nb has: `daytona.DaytonaEnvironment` and `e2b.E2BEnvironment` (remote sandboxes as
environments for `EnvironmentToolset`) and `vmaas.AgentEngineSandboxComputer` (a Vertex AI
sandbox browser for `ComputerUseToolset`, whose browser actions are not ported yet). Each imports
its service's SDK only when it is used, so it constructs without the SDK, and using it without the
SDK raises ImportError naming the `pip install` that fixes it.
"""
