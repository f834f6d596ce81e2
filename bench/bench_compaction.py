"""Request size in a long session, with and without events compaction, on adk_nb and google-adk.

One LlmAgent, a scripted model (no network), N user turns in one session. The model records what
each request carries (number of contents, characters of their JSON); the summarizer is a scripted
model too, answering a fixed ~300-character summary. Compaction: sliding window, interval 10,
overlap 2. Printed: the request at turns 10, 50, 100, 500, 1,000 (and N), and the ratio of the last to
turn 50. google-adk runs from $ADK_NB_BENCH_ADK_PYTHON or bench/.venv-adk.

  python bench/bench_compaction.py                 # both frameworks, 1,000 turns
  python bench/bench_compaction.py --turns 200 --only adk_nb
  python bench/bench_compaction.py --only google.adk --compaction on --turns 500
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import subprocess
import sys
import time

BENCH_DIR = os.path.dirname(os.path.abspath(__file__))
CHECKPOINTS = (10, 50, 100, 500, 1000)
SUMMARY = ("Conversation language: English. The user asks numbered questions about a travel plan; the agent "
           "answered each with the matching itinerary note. Decisions so far: trains over flights, budget "
           "hotels, two nights per city. Open: the last question. Tools used: none. " * 1)


def child(prefix: str, turns: int, compact: bool) -> dict:
  import importlib

  from google.genai import types

  agents = importlib.import_module(f"{prefix}.agents")
  apps = importlib.import_module(f"{prefix}.apps.app")
  base_llm = importlib.import_module(f"{prefix}.models.base_llm")
  llm_response = importlib.import_module(f"{prefix}.models.llm_response")
  runners = importlib.import_module(f"{prefix}.runners")
  sessions = importlib.import_module(f"{prefix}.sessions")
  summarizer_mod = importlib.import_module(f"{prefix}.apps.llm_event_summarizer")

  sizes: list[tuple[int, int]] = []

  class Agent(base_llm.BaseLlm):
    model: str = "scripted-agent"

    async def generate_content_async(self, llm_request, stream=False):
      contents = llm_request.contents
      sizes.append((len(contents), sum(len(c.model_dump_json(exclude_none=True)) for c in contents)))
      text = f"Answer {len(sizes)}: take the 09:12 train, then walk ten minutes to the budget hotel by the station."
      yield llm_response.LlmResponse(content=types.Content(role="model", parts=[types.Part(text=text)]))

  class Summarizer(base_llm.BaseLlm):
    model: str = "scripted-summarizer"

    async def generate_content_async(self, llm_request, stream=False):
      yield llm_response.LlmResponse(content=types.Content(role="model", parts=[types.Part(text=SUMMARY)]))

  agent = agents.LlmAgent(name="planner", model=Agent(), instruction="Answer travel questions.")
  kwargs = {}
  if compact:
    kwargs["events_compaction_config"] = apps.EventsCompactionConfig(
        compaction_interval=10, overlap_size=2, summarizer=summarizer_mod.LlmEventSummarizer(llm=Summarizer()))
  app = apps.App(name="bench", root_agent=agent, **kwargs)
  service = sessions.InMemorySessionService()
  runner = runners.Runner(app=app, session_service=service)

  async def main():
    session = await service.create_session(app_name="bench", user_id="u")
    start = time.perf_counter()
    for n in range(1, turns + 1):
      message = types.Content(role="user", parts=[types.Part(text=f"Question {n}: how do I get to stop {n}?")])
      async for _ in runner.run_async(user_id="u", session_id=session.id, new_message=message):
        pass
    return time.perf_counter() - start

  seconds = asyncio.run(main())
  return {"sizes": sizes, "seconds": seconds}


def run_side(python: str, prefix: str, turns: int, compact: bool) -> dict:
  code = (f"import sys, json; sys.path.insert(0, {BENCH_DIR!r}); import bench_compaction as b; "
          f"print(json.dumps(b.child({prefix!r}, {turns}, {compact})))")
  env = {**os.environ, "ADK_NB_BLOCK_REAL_MODELS": "1"}
  out = subprocess.run([python, "-c", code], capture_output=True, text=True, env=env, timeout=3600)
  if out.returncode:
    raise RuntimeError(f"{prefix} failed:\n{out.stderr[-3000:]}")
  return json.loads(out.stdout.strip().splitlines()[-1])


def main() -> None:
  parser = argparse.ArgumentParser()
  parser.add_argument("--turns", type=int, default=1000)
  parser.add_argument("--only", choices=("adk_nb", "google.adk"))
  parser.add_argument("--compaction", choices=("both", "on", "off"), default="both")
  args = parser.parse_args()
  adk_python = os.environ.get("ADK_NB_BENCH_ADK_PYTHON") or os.path.join(BENCH_DIR, ".venv-adk", "bin", "python")
  sides = [("adk_nb", sys.executable), ("google.adk", adk_python)]
  points = [c for c in CHECKPOINTS if c <= args.turns] + ([args.turns] if args.turns not in CHECKPOINTS else [])
  print(f"| framework | compaction | " + " | ".join(f"turn {p:,}" for p in points) + " | last / turn 50 | run time |")
  print("|---|---|" + "---:|" * (len(points) + 2))
  for prefix, python in sides:
    if args.only and prefix != args.only:
      continue
    for compact in {"both": (False, True), "on": (True,), "off": (False,)}[args.compaction]:
      result = run_side(python, prefix, args.turns, compact)
      sizes = result["sizes"]
      first_calls = [s for s in sizes]  # one model call per turn
      cells = [f"{first_calls[p - 1][1]:,} ch / {first_calls[p - 1][0]} contents" for p in points]
      ratio = first_calls[points[-1] - 1][1] / first_calls[49][1] if args.turns >= 50 else float("nan")
      print(f"| {prefix} | {'on' if compact else 'off'} | " + " | ".join(cells)
            + f" | {ratio:.2f} | {result['seconds']:.1f} s |")


if __name__ == "__main__":
  main()
