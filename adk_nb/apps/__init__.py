"""Apps: a root agent with its plugins and settings."""

from .app import App, EventsCompactionConfig, ResumabilityConfig

__all__ = ["App", "EventsCompactionConfig", "ResumabilityConfig"]
