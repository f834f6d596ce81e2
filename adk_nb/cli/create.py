"""`adk-nb create NAME [--model M]`: scaffolds an agent folder that runs offline as created.

    NAME/__init__.py          from . import agent
    NAME/agent.py             root_agent with one tool; a ScriptedModel unless --model is given
    NAME/.env                 only with --model: where the API key goes
    NAME/.gitignore           only with --model: keeps .env (and the notebook's sessions) out of git
    NAME/NAME.evalset.json    one eval case (`adk-nb eval NAME NAME/NAME.evalset.json`)
    NAME/NAME.ipynb           a notebook that loads the folder and runs it with %%agent
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

AGENT_PY = '''"""The {name} agent. Run it with `adk-nb run {name}` or serve it with `adk-nb api_server {name}`."""

from adk_nb import Agent
{model_import}

def get_weather(city: str) -> dict:
  """Returns the current weather for a city."""
  return {{"city": city, "temp_c": 21, "sky": "sunny"}}

{model_block}
root_agent = Agent(
    name="{name}",
    model={model_expr},
    description="Answers questions about the weather.",
    instruction="Answer weather questions. Call get_weather for the city the user names.",
    tools=[get_weather],
)
'''

SCRIPTED_BLOCK = '''
def scripted(request):
  """A scripted stand-in for a model (not a real model): calls the tool, then answers from its result.

  Replace `model=ScriptedModel(scripted)` with a real model name (e.g. "gemini-2.5-flash") and set the
  API key in .env to talk to a real model.
  """
  last = request.contents[-1].parts[-1]
  if last.function_response is not None:
    weather = last.function_response.response
    return f"It is {weather['temp_c']} °C and {weather['sky']} in {weather['city']}."
  words = [w.strip("?.!,") for w in (last.text or "").split()]
  city = next((w for w in reversed(words) if w[:1].isupper()), "Paris")
  return call("get_weather", city=city)

'''


def _eval_set(name: str) -> dict:
  return {
      "eval_set_id": f"{name}_basics",
      "name": f"{name} basics",
      "eval_cases": [{
          "eval_id": "weather_in_paris",
          "conversation": [{
              "invocation_id": "turn-1",
              "user_content": {"role": "user", "parts": [{"text": "What is the weather in Paris?"}]},
              "final_response": {"role": "model", "parts": [{"text": "It is 21 °C and sunny in Paris."}]},
              "intermediate_data": {"tool_uses": [{"name": "get_weather", "args": {"city": "Paris"}}]},
          }],
          "session_input": {"app_name": name, "user_id": "user", "state": {}},
      }],
  }


def notebook_cell(kind: str, text: str, number: int) -> dict:
  """One cell of a generated notebook (nbformat 4.5: every cell has an id, here `cell-<number>`)."""
  c = {"cell_type": kind, "id": f"cell-{number}", "metadata": {}, "source": text.splitlines(keepends=True)}
  if kind == "code":
    c.update(execution_count=None, outputs=[])
  return c


def numbered(cells: list[tuple[str, str]]) -> list[dict]:
  """(kind, text) pairs as notebook cells with ids."""
  return [notebook_cell(kind, text, number) for number, (kind, text) in enumerate(cells, start=1)]


def _notebook(name: str, scripted: bool) -> dict:
  model_note = ("It uses a **scripted model** (`ScriptedModel`: fixed rules, not a real model), so it runs offline."
                if scripted else "It uses a real model: set its API key in `.env` first.")
  return {
      "nbformat": 4, "nbformat_minor": 5,
      "metadata": {"kernelspec": {"name": "python3", "display_name": "Python 3", "language": "python"}},
      "cells": numbered([
          ("markdown", f"# {name}\n\nThis notebook loads the `{name}` agent folder beside it. {model_note}"),
          ("code", "%load_ext adk_nb\nfrom adk_nb.cli.agent_loader import load_agent_folder\n\n"
                   "loaded = load_agent_folder(\".\")  # this notebook sits in the agent folder\nroot_agent = loaded.agent\nroot_agent"),
          ("code", "%%agent root_agent --store memory:// --out run\nWhat is the weather in Paris?"),
          ("code", "print(run.final_text)\nassert run.final_text"),
      ]),
  }


def create_agent_folder(name: str, parent: Path = Path("."), model: str | None = None) -> Path:
  """Writes the agent folder `parent/name`; refuses to overwrite an existing one."""
  if not name.isidentifier():
    raise ValueError(f"{name!r} is not a Python identifier (the folder is imported as a package); "
                     f"try {name.replace('-', '_').replace(' ', '_')!r}.")
  folder = Path(parent) / name
  if folder.exists():
    raise FileExistsError(f"{str(folder)!r} already exists; pick another name or remove it.")
  scripted = model is None
  folder.mkdir(parents=True)
  (folder / "__init__.py").write_text("from . import agent\n")
  (folder / "agent.py").write_text(AGENT_PY.format(
      name=name,
      model_import="from adk_nb.models import ScriptedModel, call\n" if scripted else "",
      model_block=SCRIPTED_BLOCK if scripted else "",
      model_expr="ScriptedModel(scripted)" if scripted else repr(model)))
  if not scripted:
    (folder / ".env").write_text("# Keys for the model; loaded before the agent is imported.\n"
                                 "GOOGLE_API_KEY=\n# OPENAI_API_KEY=\n")
    # The key never reaches git by accident: .env is ignored beside it (and the notebook's session store).
    (folder / ".gitignore").write_text(".env\n.adk_nb/\n")
  (folder / f"{name}.evalset.json").write_text(json.dumps(_eval_set(name), indent=2, ensure_ascii=False) + "\n")
  (folder / f"{name}.ipynb").write_text(json.dumps(_notebook(name, scripted), indent=1, ensure_ascii=False) + "\n")
  return folder


def add_arguments(p: argparse.ArgumentParser) -> None:
  """Declares the create subcommand's arguments."""
  p.add_argument("name", metavar="NAME", help="the agent's folder and app name (a Python identifier)")
  p.add_argument("--model", default=None,
                 help="a real model name (e.g. gemini-2.5-flash); default: a scripted offline model")
  p.add_argument("--path", default=".", help="where to create the folder (default: the current folder)")


def run(args: argparse.Namespace) -> int:
  """Runs the create subcommand; returns the exit code."""
  try:
    folder = create_agent_folder(args.name, Path(args.path), args.model)
  except (ValueError, FileExistsError) as exc:
    print(f"adk-nb create: {exc}", file=sys.stderr)
    return 2
  print(f"Created {folder}/ (agent.py, {args.name}.evalset.json, {args.name}.ipynb)"
        + (" with a scripted offline model." if args.model is None
           else f" with model {args.model}; put its key in .env (listed in .gitignore, so git leaves it out)."))
  print(f"  adk-nb run {folder}\n  adk-nb api_server {folder}\n  adk-nb eval {folder} {folder}/{args.name}.evalset.json")
  return 0
