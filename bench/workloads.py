"""Runs one benchmark workload on google-adk or adk_nb and prints its timings as JSON.

The same code drives both frameworks: every import goes through the package prefix chosen on
the command line (`google.adk` or `adk_nb`), and the model is a scripted `BaseLlm` written here
against the API both share, so the two sides do exactly the same work. `bench/run.py` starts one
subprocess per framework and workload, so nothing (caches, memory) is shared between them.

  python bench/workloads.py --framework adk_nb --workload tool_turns --n 1000
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import importlib
import json
import logging
import os
import resource
import statistics
import sys
import time
import warnings
from typing import Any, Callable

REPO_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
FRAMEWORKS = {"google-adk": "google.adk", "adk_nb": "adk_nb"}
CHECKPOINTS = (25, 200, 1000)
QUICK_CHECKPOINTS = (5, 10, 20)
WINDOW = 25
QUICK_WINDOW = 5
PARALLEL_CHILDREN = 8
PARALLEL_LATENCY_S = 0.05


class Framework:
  """The classes a workload needs, imported from `google.adk` or `adk_nb`."""

  def __init__(self, name: str):
    prefix = FRAMEWORKS[name]
    if name == "adk_nb" and REPO_ROOT not in sys.path:
      sys.path.insert(0, REPO_ROOT)  # the checkout under test, installed or not
    agents = importlib.import_module(prefix + ".agents")
    tools = importlib.import_module(prefix + ".tools")
    models = importlib.import_module(prefix + ".models")
    self.name = name
    self.events_per_run = 0
    """Events the last run yielded: the same on both frameworks, or they did different work."""
    self.cpu_ms: list[float] = []
    self.floor_ms: list[float] = []
    """CPU time of each run (process_time): unlike wall time, barely moved by other processes."""
    self.LlmAgent = agents.LlmAgent
    self.SequentialAgent = agents.SequentialAgent
    self.ParallelAgent = agents.ParallelAgent
    self.InMemoryRunner = importlib.import_module(prefix + ".runners").InMemoryRunner
    self.FunctionTool = tools.FunctionTool
    self.BaseLlm = models.BaseLlm
    self.LlmResponse = models.LlmResponse
    self.types = importlib.import_module("google.genai.types")

  def model(self, answer: Callable[[Any], Any], latency: float = 0.0):
    """A scripted model: `answer(llm_request)` returns a text or a (name, args) function call.

    It keeps no request (a long benchmark must not grow its own memory) and sleeps `latency`
    seconds with asyncio.sleep before answering, like a remote model would.
    """
    types = self.types
    LlmResponse = self.LlmResponse

    class BenchModel(self.BaseLlm):
      async def generate_content_async(self, llm_request, stream: bool = False):
        if latency:
          await asyncio.sleep(latency)
        reply = answer(llm_request)
        if isinstance(reply, tuple):
          name, args = reply
          part = types.Part(function_call=types.FunctionCall(name=name, args=args))
        else:
          part = types.Part(text=reply)
        yield LlmResponse(content=types.Content(role="model", parts=[part]))

    return BenchModel(model="bench-scripted")

  def user(self, text: str):
    return self.types.Content(role="user", parts=[self.types.Part(text=text)])


def _last_part(llm_request):
  contents = llm_request.contents
  if not contents or not contents[-1].parts:
    return None
  return contents[-1].parts[-1]


def get_weather(city: str) -> dict:
  """Returns the weather in a city."""
  return {"city": city, "forecast": "sunny", "temp_c": 21}


async def _drain(runner, session_id: str, message) -> int:
  count = 0
  async for _ in runner.run_async(user_id="u", session_id=session_id, new_message=message):
    count += 1
  return count


async def _warm_up(fw: Framework, runner) -> None:
  # One untimed run in a throwaway session, so lazy imports and first-use caches (pydantic
  # schemas, tool declarations) land outside the figures on both frameworks.
  session = await runner.session_service.create_session(app_name=runner.app_name, user_id="warm-up")
  async for _ in runner.run_async(user_id="warm-up", session_id=session.id, new_message=fw.user("warm up")):
    pass


async def _timed_runs(fw: Framework, runner, n: int, texts: Callable[[int], str]) -> list[float]:
  await _warm_up(fw, runner)
  session = await runner.session_service.create_session(app_name=runner.app_name, user_id="u")
  times = []
  for i in range(n):
    message = fw.user(texts(i))
    cpu_start = time.process_time()  # read first: the clock read (a system call) stays outside the wall window
    start = time.perf_counter()
    fw.events_per_run = await _drain(runner, session.id, message)
    times.append((time.perf_counter() - start) * 1000)
    fw.cpu_ms.append((time.process_time() - cpu_start) * 1000)
    if (i + 1) % 100 == 0:  # long google-adk runs take minutes: show they move
      print(f"  {fw.name}: {i + 1}/{n}, last run {times[-1]:.2f} ms", file=sys.stderr, flush=True)
  return times


async def tool_turns(fw: Framework, n: int, tool: Any = None) -> list[float]:
  """(a) One LlmAgent with one sync tool; each user turn: the model calls the tool, then answers.
  adk_nb runs the tool on a worker thread (its default); google-adk on the event loop (its default)."""

  def answer(llm_request):
    last = _last_part(llm_request)
    if last is not None and last.function_response is not None:
      return "It is sunny in " + str(last.function_response.response.get("city"))
    return ("get_weather", {"city": "Paris"})

  agent = fw.LlmAgent(name="weather", model=fw.model(answer), instruction="Answer about the weather.",
                      tools=[tool or fw.FunctionTool(get_weather)])
  runner = fw.InMemoryRunner(agent=agent, app_name="bench")
  return await _timed_runs(fw, runner, n, lambda i: f"Weather in Paris? ({i})")


async def tool_turns_on_loop(fw: Framework, n: int) -> list[float]:
  """(a') As (a), with the tool declared to run on the event loop's thread: adk_nb's
  `FunctionTool(..., run_on_loop=True)`; google-adk calls a sync tool there by default."""
  if fw.name == "adk_nb":
    tool = fw.FunctionTool(get_weather, run_on_loop=True)
  else:
    tool = fw.FunctionTool(get_weather)
  return await tool_turns(fw, n, tool)


async def sequential_runs(fw: Framework, n: int) -> list[float]:
  """(b) A SequentialAgent of 3 LlmAgents; each stores its answer under output_key and the next
  one reads it through `{key}` in its instruction."""

  def writer(name):
    return fw.model(lambda llm_request: f"{name} says: done")

  children = [
      fw.LlmAgent(name="draft", model=writer("draft"), instruction="Write a draft.", output_key="draft"),
      fw.LlmAgent(name="review", model=writer("review"), instruction="Review this draft: {draft}",
                  output_key="review"),
      fw.LlmAgent(name="final", model=writer("final"), instruction="Apply the review: {review}",
                  output_key="final"),
  ]
  pipeline = fw.SequentialAgent(name="pipeline", sub_agents=children)
  runner = fw.InMemoryRunner(agent=pipeline, app_name="bench")
  return await _timed_runs(fw, runner, n, lambda i: f"Topic {i}")


async def parallel_runs(fw: Framework, n: int) -> list[float]:
  """(c) A ParallelAgent of 8 LlmAgents whose model takes 50 ms; wall time per run."""
  children = [
      fw.LlmAgent(name=f"worker_{k}", model=fw.model(lambda r, k=k: f"worker {k} done",
                                                      latency=PARALLEL_LATENCY_S),
                  instruction="Do your part.")
      for k in range(PARALLEL_CHILDREN)
  ]
  fan_out = fw.ParallelAgent(name="fan_out", sub_agents=children)
  runner = fw.InMemoryRunner(agent=fan_out, app_name="bench")
  # A fresh session per run, so the figure is the fan-out itself, not history growth.
  await _warm_up(fw, runner)
  times = []
  for i in range(n):
    fw.floor_ms.append(await _sleep_floor())  # measured next to each run: the load changes
    session = await runner.session_service.create_session(app_name="bench", user_id="u")
    cpu_start = time.process_time()  # read first: the clock read (a system call) stays outside the wall window
    start = time.perf_counter()
    fw.events_per_run = await _drain(runner, session.id, fw.user(f"Job {i}"))
    times.append((time.perf_counter() - start) * 1000)
    fw.cpu_ms.append((time.process_time() - cpu_start) * 1000)
  return times


async def _sleep_floor() -> float:
  # What 8 concurrent 50 ms sleeps take on this machine with no framework at all: the floor
  # under (c). A loaded machine wakes sleepers late and raises it by several ms.
  start = time.perf_counter()
  await asyncio.gather(*(asyncio.sleep(PARALLEL_LATENCY_S) for _ in range(PARALLEL_CHILDREN)))
  return (time.perf_counter() - start) * 1000


WORKLOADS = {"tool_turns": tool_turns, "tool_turns_on_loop": tool_turns_on_loop, "sequential_runs": sequential_runs,
             "parallel_runs": parallel_runs}


def _rss_mb() -> float:
  # ru_maxrss is KiB on Linux, bytes on macOS.
  peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
  return peak / (1024 * 1024) if sys.platform == "darwin" else peak / 1024


def summarise(workload: str, times: list[float], cpu_ms: list[float], floors: list[float],
              quick: bool) -> dict[str, Any]:
  """Turns per-run times into the figures the table shows."""
  if workload == "parallel_runs":
    return {"median_ms": statistics.median(times), "cpu_median_ms": statistics.median(cpu_ms),
            "floor_ms": statistics.median(floors),
            "overhead_ms": statistics.median(t - f for t, f in zip(times, floors)), "runs": len(times)}
  checkpoints = QUICK_CHECKPOINTS if quick else CHECKPOINTS
  window = QUICK_WINDOW if quick else WINDOW
  # The median of the window is the headline figure: the machines this runs on are shared, and
  # one preempted turn should not move it. The mean (which includes GC pauses) is kept too.
  medians, means, cpu = {}, {}, {}
  for n in checkpoints:
    if n <= len(times):
      medians[str(n)] = statistics.median(times[n - window:n])
      means[str(n)] = statistics.fmean(times[n - window:n])
      cpu[str(n)] = statistics.median(cpu_ms[n - window:n])
  return {"ms_at": medians, "mean_ms_at": means, "cpu_ms_at": cpu, "window": window, "runs": len(times)}


def run(framework: str, workload: str, n: int, quick: bool = False) -> dict[str, Any]:
  """Runs one workload `n` times on one framework and returns its figures (in this process)."""
  logging.disable(logging.WARNING)  # google-adk warns about the app name on every run
  warnings.simplefilter("ignore", DeprecationWarning)  # google-adk 2.x deprecates the workflow agents
  import_start = time.perf_counter()
  fw = Framework(framework)
  import_ms = (time.perf_counter() - import_start) * 1000
  rss_before = _rss_mb()
  gc.collect()
  start = time.perf_counter()
  times = asyncio.run(WORKLOADS[workload](fw, n))
  total_s = time.perf_counter() - start
  result = summarise(workload, times, fw.cpu_ms, fw.floor_ms, quick)
  result.update(framework=framework, workload=workload, n=n, events_per_run=fw.events_per_run,
                total_s=total_s, import_ms=import_ms,
                rss_after_import_mb=rss_before, peak_rss_mb=_rss_mb())
  return result


def main(argv=None) -> None:
  parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
  parser.add_argument("--framework", choices=sorted(FRAMEWORKS), required=True)
  parser.add_argument("--workload", choices=sorted(WORKLOADS), required=True)
  parser.add_argument("--n", type=int, required=True)
  parser.add_argument("--quick", action="store_true", help="small checkpoints (5/10/20) for smoke tests")
  args = parser.parse_args(argv)
  print(json.dumps(run(args.framework, args.workload, args.n, args.quick)))


if __name__ == "__main__":
  main()
