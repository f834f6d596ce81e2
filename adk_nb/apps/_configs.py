"""Façade at google-adk 2.x's path `apps._configs` (its samples import ResumabilityConfig from here): see apps.app."""

from .app import EventsCompactionConfig, ResumabilityConfig

__all__ = ["EventsCompactionConfig", "ResumabilityConfig"]
