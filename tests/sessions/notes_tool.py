"""The note-taking tool the rewind and fork tests share: it writes state of every scope and artifacts."""

from __future__ import annotations

from google.genai import types

from adk_nb.tools.tool_context import ToolContext


async def note(text: str, tool_context: ToolContext) -> dict:
  """Keeps a note."""
  tool_context.state["note"] = text
  tool_context.state[f"seen_{text}"] = True
  tool_context.state["user:last_note"] = text
  await tool_context.save_artifact("report.txt", types.Part(text=f"report {text}"))
  await tool_context.save_artifact(f"only_{text}.txt", types.Part(text=text))
  await tool_context.save_artifact("user:profile.txt", types.Part(text=f"profile {text}"))
  return {"kept": text}


def texts(request) -> list[str]:
  """The text parts of a model request, in order."""
  return [p.text for c in request.contents for p in c.parts or [] if p.text]
