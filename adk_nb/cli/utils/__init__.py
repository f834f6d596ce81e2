"""google-adk's `cli.utils` paths (the agent loader)."""
