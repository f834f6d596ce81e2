"""Errors adk_nb raises, at ADK's module paths."""
