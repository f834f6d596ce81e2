"""Daytona remote sandboxes as an environment (google-adk 2.x's `google.adk.integrations.daytona`).

Needs the Daytona SDK when used: `pip install 'daytona>=0.191'`. Example::

    from adk_nb.integrations.daytona import DaytonaEnvironment
    from adk_nb.tools.environment import EnvironmentToolset

    agent = Agent(..., tools=[EnvironmentToolset(environment=DaytonaEnvironment())])
"""

from ._daytona_environment import DaytonaEnvironment

__all__ = ["DaytonaEnvironment"]
