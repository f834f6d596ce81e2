"""E2B remote sandboxes as an environment (google-adk 2.x's `google.adk.integrations.e2b`).

Needs the E2B SDK when used: `pip install 'e2b>=2,<3'` and an `E2B_API_KEY`. Example::

    from adk_nb.integrations.e2b import E2BEnvironment
    from adk_nb.tools.environment import EnvironmentToolset

    agent = Agent(..., tools=[EnvironmentToolset(environment=E2BEnvironment(timeout=300))])
"""

from ._e2b_environment import E2BEnvironment

__all__ = ["E2BEnvironment"]
