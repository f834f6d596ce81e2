"""Third-party services behind adk_nb interfaces (google-adk 2.x's `google.adk.integrations`).

adk_nb has: `daytona.DaytonaEnvironment` and `e2b.E2BEnvironment` (remote sandboxes as
environments for `EnvironmentToolset`), `vmaas.AgentEngineSandboxComputer` (a Vertex AI
sandbox browser for `ComputerUseToolset`, whose browser actions are not ported yet), and
`skill_registry.GCPSkillRegistry` (skills from Google Cloud's Agent Registry for `SkillToolset(registry=...)`,
over httpx and google-auth, which adk_nb already depends on). The others each import
its service's SDK only when it is used, so it constructs without the SDK, and using it without the
SDK raises ImportError naming the `pip install` that fixes it.
"""
