"""Apps: a root agent with its plugins and settings."""

from .app import App, ResumabilityConfig

__all__ = ["App", "ResumabilityConfig"]
