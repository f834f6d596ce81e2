"""Small helpers at google-adk's `utils` paths that ADK code imports."""
