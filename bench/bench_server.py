"""HTTP serving speed: `adk-nb api_server` replicas on PostgreSQL beside google-adk's `adk api_server`.

For each configuration the bench starts real server processes on 127.0.0.1, sends POST /run
(ADK's request body) for a scripted one-tool agent (the model calls `get_weather`, the tool runs,
the model answers: one user turn, three committed events, no network), and reports requests per
second, latency p50 / p95, and the servers' CPU time per request (read from /proc, so other jobs
on a shared machine move it much less than wall time).

Configurations (each framework runs the same agent, written below for `google.adk` or `adk_nb`):
  - one replica on an SQLite file, client straight to the server;
  - 1, 2 and 4 replicas on one PostgreSQL database behind a round-robin TCP balancer
    (a small asyncio proxy in its own process: each client connection goes to the next replica).

Load: `--concurrency` keep-alive connections (default 8), each sending its share of `--requests`
one after the other; each session gets at most `--turns` runs (sessions are made beforehand),
so history stays short and the figure is per request, not per history length. An untimed
warm-up precedes each measurement.

PostgreSQL: tests/pg_server.py's throwaway server ($ADK_NB_TEST_PG_URL, else Debian's binaries).
google-adk: $ADK_NB_BENCH_ADK_PYTHON or bench/.venv-adk (as bench/run.py); its PostgreSQL rows need
sqlalchemy and asyncpg in that interpreter (`pip install 'google-adk[db]' asyncpg`), else they are
skipped with a note.

  python bench/bench_server.py                         # both frameworks, 400 requests per configuration
  python bench/bench_server.py --only adk_nb --replicas 1,2 --requests 200
  python bench/bench_server.py --only adk_nb --replicas '' --requests 16   # SQLite only, no PostgreSQL
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from dataclasses import asdict, dataclass, field
from typing import Callable, Optional

BENCH_DIR = os.path.dirname(os.path.abspath(__file__))
REPO_ROOT = os.path.dirname(BENCH_DIR)
APP = "bench_agent"

AGENT_SOURCE = '''
"""A scripted one-tool agent for bench/bench_server.py (no network; nothing here is a real model)."""
from {prefix}.agents import LlmAgent
from {prefix}.models import BaseLlm, LlmResponse
from google.genai import types


def get_weather(city: str) -> dict:
  """Returns the weather in a city."""
  return {{"city": city, "forecast": "sunny", "temp_c": 21}}


class BenchModel(BaseLlm):
  async def generate_content_async(self, llm_request, stream: bool = False):
    last = llm_request.contents[-1].parts[-1]
    if last.function_response is not None:
      part = types.Part(text="Sunny in " + last.function_response.response["city"] + ".")
    else:
      part = types.Part(function_call=types.FunctionCall(name="get_weather", args={{"city": "Rome"}}))
    yield LlmResponse(content=types.Content(role="model", parts=[part]))


root_agent = LlmAgent(name="bench", model=BenchModel(model="bench-scripted"), tools=[get_weather])
'''


# -- the balancer (runs in its own process: python bench_server.py --balance PORT,PORT...) ---------


async def _pipe(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
  try:
    while data := await reader.read(65536):
      writer.write(data)
      await writer.drain()
  except (ConnectionError, asyncio.CancelledError):
    pass
  finally:
    writer.close()


async def _balance(backends: list[int]) -> None:
  """Round-robin TCP proxy: each accepted connection is piped to the next backend port."""
  turn = 0

  async def accept(client_r, client_w):
    nonlocal turn
    port = backends[turn % len(backends)]
    turn += 1
    server_r, server_w = await asyncio.open_connection("127.0.0.1", port)
    await asyncio.gather(_pipe(client_r, server_w), _pipe(server_r, client_w))

  server = await asyncio.start_server(accept, "127.0.0.1", 0, backlog=1024)
  print(server.sockets[0].getsockname()[1], flush=True)
  async with server:
    await server.serve_forever()


# -- servers ---------------------------------------------------------------------------------------


def _free_port() -> int:
  with socket.socket() as s:
    s.bind(("127.0.0.1", 0))
    return s.getsockname()[1]


def _cpu_seconds(pid: int) -> float:
  """User + system CPU time of a process (and its waited-for children), from /proc."""
  with open(f"/proc/{pid}/stat") as f:
    fields = f.read().rsplit(")", 1)[1].split()
  ticks = os.sysconf("SC_CLK_TCK")
  return sum(int(fields[i]) for i in (11, 12, 13, 14)) / ticks


def _postgres_pids(url: str) -> list[int]:
  """The PostgreSQL server listening on `url`'s port and its backends (found through /proc)."""
  port = url.rsplit(":", 1)[1].split("/")[0]
  main = None
  for entry in os.listdir("/proc"):
    if entry.isdigit():
      try:
        with open(f"/proc/{entry}/cmdline", "rb") as f:
          args = f.read().split(b"\0")
      except OSError:
        continue
      if args and args[0].endswith(b"postgres") and b"-p" in args and args[args.index(b"-p") + 1] == port.encode():
        main = int(entry)
  if main is None:
    return []
  pids = [main]
  for entry in os.listdir("/proc"):
    if entry.isdigit():
      try:
        with open(f"/proc/{entry}/stat") as f:
          if int(f.read().rsplit(")", 1)[1].split()[1]) == main:
            pids.append(int(entry))
      except OSError:
        continue
  return pids


def _wait_ready(port: int, process: subprocess.Popen, deadline_s: float = 180.0) -> None:
  end = time.monotonic() + deadline_s
  while time.monotonic() < end:
    if process.poll() is not None:
      raise RuntimeError(f"server exited with {process.returncode}: {process.stderr.read()[-3000:]}")
    try:
      with urllib.request.urlopen(f"http://127.0.0.1:{port}/list-apps", timeout=5) as answer:
        if answer.status == 200:
          return
    except OSError:
      time.sleep(0.1)  # the server is still importing; poll until it answers
  raise RuntimeError(f"server on port {port} did not answer /list-apps within {deadline_s:.0f} s")


def _start_server(framework: str, python: str, agents_dir: str, session_uri: str) -> tuple[subprocess.Popen, int]:
  port = _free_port()
  env = {**os.environ, "PYTHONPATH": REPO_ROOT if framework == "adk_nb" else ""}
  if framework == "adk_nb":
    cmd = [python, "-m", "adk_nb.cli", "api_server", os.path.join(agents_dir, APP), "--port", str(port),
           "--session_service_uri", session_uri, "--log_level", "warning"]
  else:
    cmd = [python, "-m", "google.adk.cli", "api_server", "--port", str(port), "--no-reload", "--log_level",
           "warning", "--session_service_uri", session_uri, agents_dir]
  process = subprocess.Popen(cmd, cwd=agents_dir, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                             text=True)
  try:
    _wait_ready(port, process)
  except BaseException:
    process.kill()
    raise
  return process, port


def _stop(process: subprocess.Popen) -> None:
  process.terminate()
  try:
    process.wait(30)
  except subprocess.TimeoutExpired:
    process.kill()
    process.wait()


# -- the client: raw HTTP/1.1 keep-alive over asyncio, so the load generator stays cheap ------------


class Connection:
  """One keep-alive HTTP/1.1 connection sending JSON POSTs."""

  def __init__(self, port: int):
    self.port = port

  async def open(self) -> "Connection":
    self.reader, self.writer = await asyncio.open_connection("127.0.0.1", self.port)
    return self

  async def post(self, path: str, body: dict) -> tuple[int, bytes]:
    data = json.dumps(body).encode()
    self.writer.write(f"POST {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                      f"Content-Length: {len(data)}\r\n\r\n".encode() + data)
    head = await self.reader.readuntil(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    status = int(lines[0].split()[1])
    headers = {k.strip().lower(): v.strip() for k, _, v in (line.partition(":") for line in lines[1:] if line)}
    if "content-length" in headers:
      return status, await self.reader.readexactly(int(headers["content-length"]))
    chunks = []
    while True:  # chunked transfer encoding
      size = int((await self.reader.readuntil(b"\r\n")).strip(), 16)
      chunk = await self.reader.readexactly(size + 2)
      if size == 0:
        return status, b"".join(chunks)
      chunks.append(chunk[:-2])

  def close(self) -> None:
    self.writer.close()


def _message(text: str) -> dict:
  return {"role": "user", "parts": [{"text": text}]}


async def _load(port: int, requests: int, concurrency: int, turns: int, tag: str,
                mark: Callable[[str], None]) -> dict:
  """Creates the sessions, warms up each connection, then times `requests` /run calls.

  `mark("start")` and `mark("end")` are called right at the timer's start and end.
  """
  per_worker = max(1, requests // concurrency)
  sessions_per_worker = -(-per_worker // turns)
  conns = [await Connection(port).open() for _ in range(concurrency)]
  for w, conn in enumerate(conns):
    for k in ["warm", *range(sessions_per_worker)]:
      status, body = await conn.post(f"/apps/{APP}/users/u/sessions", {"sessionId": f"{tag}-{w}-{k}"})
      if status != 200:
        raise RuntimeError(f"creating a session answered {status}: {body[:300]!r}")
    for _ in range(2):
      await conn.post("/run", {"appName": APP, "userId": "u", "sessionId": f"{tag}-{w}-warm",
                               "newMessage": _message("Weather in Rome?")})
  for conn in conns:  # uvicorn closes connections idle for 5 s, as the first ones may have been during set-up
    conn.close()
  conns = [await Connection(port).open() for _ in range(concurrency)]  # same round-robin order: same replicas
  latencies: list[float] = []
  failures: list[str] = []

  async def worker(w: int, conn: Connection) -> None:
    for i in range(per_worker):
      body = {"appName": APP, "userId": "u", "sessionId": f"{tag}-{w}-{i // turns}",
              "newMessage": _message("Weather in Rome?")}
      start = time.perf_counter()
      status, answer = await conn.post("/run", body)
      latencies.append(time.perf_counter() - start)
      if status != 200 or b"Sunny in Rome." not in answer:
        failures.append(f"{status}: {answer[:200]!r}")

  mark("start")
  start = time.perf_counter()
  await asyncio.gather(*(worker(w, conn) for w, conn in enumerate(conns)))
  elapsed = time.perf_counter() - start
  mark("end")
  for conn in conns:
    conn.close()
  latencies.sort()
  n = len(latencies)
  return {"requests": n, "seconds": elapsed, "rps": n / elapsed,
          "p50_ms": 1000 * latencies[n // 2], "p95_ms": 1000 * latencies[min(n - 1, int(n * 0.95))],
          "failures": len(failures), "first_failure": failures[0] if failures else None}


# -- one configuration -------------------------------------------------------------------------------


@dataclass
class Result:
  framework: str
  store: str
  replicas: int
  rps: float = 0.0
  p50_ms: float = 0.0
  p95_ms: float = 0.0
  cpu_ms_per_request: float = 0.0
  """Servers' CPU time (all replicas) per timed request, warm-up and session creation excluded."""
  balancer_cpu_ms_per_request: float = 0.0
  database_cpu_ms_per_request: float = 0.0
  """PostgreSQL's CPU time (server and backends) per timed request; 0 for SQLite (it runs inside the server)."""
  requests: int = 0
  seconds: float = 0.0
  failures: int = 0
  load_before: list = field(default_factory=list)
  note: str = ""


def _measure(framework: str, python: str, store: str, replicas: int, pg_admin: Optional[str], args) -> Result:
  result = Result(framework=framework, store=store, replicas=replicas, load_before=list(os.getloadavg()))
  work = tempfile.mkdtemp(prefix="adk_nb_bench_server_")
  processes: list[subprocess.Popen] = []
  balancer = None
  try:
    folder = os.path.join(work, APP)
    os.makedirs(folder)
    prefix = "adk_nb" if framework == "adk_nb" else "google.adk"
    with open(os.path.join(folder, "agent.py"), "w") as f:
      f.write(AGENT_SOURCE.format(prefix=prefix))
    with open(os.path.join(folder, "__init__.py"), "w") as f:
      f.write("from . import agent\n")
    if store == "sqlite":
      uri = f"sqlite:///{os.path.join(work, 'sessions.db')}"
    else:
      name = f"bench_{framework.replace('-', '_')}_{replicas}_{os.getpid()}"
      from tests.pg_server import admin_sql

      asyncio.run(admin_sql(pg_admin, f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
      asyncio.run(admin_sql(pg_admin, f'CREATE DATABASE "{name}"'))
      base = pg_admin.rsplit("/", 1)[0]
      uri = f"{base}/{name}"
      if framework == "google-adk":
        uri = uri.replace("postgresql://", "postgresql+asyncpg://", 1)
    ports = []
    for _ in range(replicas):
      process, port = _start_server(framework, python, work, uri)
      processes.append(process)
      ports.append(port)
    port = ports[0]
    if store != "sqlite":
      balancer = subprocess.Popen([sys.executable, os.path.abspath(__file__), "--balance",
                                   ",".join(map(str, ports))], stdout=subprocess.PIPE, text=True)
      port = int(balancer.stdout.readline())
    cpu: dict[str, tuple[float, float]] = {}

    def database_cpu() -> float:
      total = 0.0
      for pid in _postgres_pids(pg_admin) if store != "sqlite" else []:
        try:
          total += _cpu_seconds(pid)
        except OSError:  # a backend that just exited: its time moved to the server's children total
          pass
      return total

    def mark(when: str) -> None:  # CPU time of the servers, the balancer and the database, at the timer's ends
      cpu[when] = (sum(_cpu_seconds(p.pid) for p in processes), _cpu_seconds(balancer.pid) if balancer else 0.0,
                   database_cpu())

    figures = asyncio.run(_load(port, args.requests, args.concurrency, args.turns,
                                f"{framework}-{store}-{replicas}", mark))
    for key in ("rps", "p50_ms", "p95_ms", "requests", "seconds", "failures"):
      setattr(result, key, figures[key])
    result.cpu_ms_per_request = 1000 * (cpu["end"][0] - cpu["start"][0]) / figures["requests"]
    result.balancer_cpu_ms_per_request = 1000 * (cpu["end"][1] - cpu["start"][1]) / figures["requests"]
    result.database_cpu_ms_per_request = 1000 * (cpu["end"][2] - cpu["start"][2]) / figures["requests"]
    if figures["first_failure"]:
      result.note = f"first failure: {figures['first_failure']}"
  finally:
    for process in processes:
      _stop(process)
    if balancer is not None:
      _stop(balancer)
    shutil.rmtree(work, ignore_errors=True)
  return result


# -- driver ------------------------------------------------------------------------------------------


def _adk_python(explicit: Optional[str]) -> Optional[str]:
  sys.path.insert(0, BENCH_DIR)
  from run import adk_python  # bench/run.py: $ADK_NB_BENCH_ADK_PYTHON, else bench/.venv-adk

  return adk_python(explicit)


def _can_import(python: str, modules: str) -> bool:
  return subprocess.run([python, "-c", f"import {modules}"], capture_output=True).returncode == 0


def _table(results: list[Result]) -> str:
  rows = ["| framework | store | replicas | req/s | p50 ms | p95 ms | server CPU ms/req | PostgreSQL CPU ms/req | "
          "load avg (1 min) |", "|---|---|---:|---:|---:|---:|---:|---:|---:|"]
  for r in results:
    if r.note.startswith("skipped"):
      rows.append(f"| {r.framework} | {r.store} | {r.replicas} | {r.note} | | | | | |")
      continue
    rows.append(f"| {r.framework} | {r.store} | {r.replicas} | {r.rps:.0f} | {r.p50_ms:.1f} | {r.p95_ms:.1f} | "
                f"{r.cpu_ms_per_request:.2f} | {r.database_cpu_ms_per_request:.2f} | {r.load_before[0]:.1f} |")
  by = {(r.framework, r.store, r.replicas): r for r in results if r.rps}
  lines = ["", "| store | replicas | req/s ratio (adk_nb / google-adk) | CPU per request ratio (google-adk / adk_nb) |",
           "|---|---:|---:|---:|"]
  for (fw, store, replicas), ours in by.items():
    theirs = by.get(("google-adk", store, replicas))
    if fw == "adk_nb" and theirs is not None:
      lines.append(f"| {store} | {replicas} | {ours.rps / theirs.rps:.1f}x | "
                   f"{theirs.cpu_ms_per_request / ours.cpu_ms_per_request:.1f}x |")
  return "\n".join(rows + (lines if len(lines) > 3 else []))


def main() -> int:
  parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
  parser.add_argument("--balance", help=argparse.SUPPRESS)
  parser.add_argument("--requests", type=int, default=400, help="timed /run requests per configuration (400)")
  parser.add_argument("--concurrency", type=int, default=8, help="keep-alive client connections (8)")
  parser.add_argument("--turns", type=int, default=5, help="runs per session before the next session (5)")
  parser.add_argument("--replicas", default="1,2,4", help="replica counts on PostgreSQL (1,2,4)")
  parser.add_argument("--only", choices=["adk_nb", "google-adk"], help="one framework only")
  parser.add_argument("--no-sqlite", action="store_true", help="skip the single-replica SQLite rows")
  parser.add_argument("--adk-python", help="interpreter with google-adk (default as bench/run.py)")
  parser.add_argument("--json", default=os.path.join(BENCH_DIR, "results", "server.json"), help="results file")
  args = parser.parse_args()
  if args.balance:
    asyncio.run(_balance([int(p) for p in args.balance.split(",")]))
    return 0

  sys.path.insert(0, REPO_ROOT)
  from tests.pg_server import PostgresUnavailable, throwaway_postgres

  frameworks = {}
  if args.only != "google-adk":
    frameworks["adk_nb"] = sys.executable
  if args.only != "adk_nb":
    frameworks["google-adk"] = _adk_python(args.adk_python)
  replica_counts = [int(n) for n in args.replicas.split(",") if n]
  results: list[Result] = []
  import contextlib

  try:
    with throwaway_postgres(max_connections=300) if replica_counts else contextlib.nullcontext() as pg:
      for framework, python in frameworks.items():
        if not args.no_sqlite:
          results.append(_measure(framework, python, "sqlite", 1, None, args))
          print(_table(results[-1:]).splitlines()[-1], file=sys.stderr)
        pg_ok = framework == "adk_nb" or _can_import(python, "sqlalchemy, asyncpg")
        for replicas in replica_counts:
          if not pg_ok:
            results.append(Result(framework, "postgresql", replicas, note=(
                f"skipped: {python} lacks sqlalchemy/asyncpg (pip install 'google-adk[db]' asyncpg)")))
            continue
          results.append(_measure(framework, python, "postgresql", replicas, pg, args))
          print(_table(results[-1:]).splitlines()[-1], file=sys.stderr)
  except PostgresUnavailable as exc:
    print(f"bench_server: {exc}", file=sys.stderr)
    return 2
  os.makedirs(os.path.dirname(args.json), exist_ok=True)
  with open(args.json, "w") as f:
    json.dump({"cpus": os.cpu_count(), "load_after": os.getloadavg(), "requests": args.requests,
               "concurrency": args.concurrency, "turns_per_session": args.turns,
               "results": [asdict(r) for r in results]}, f, indent=2)
  print(_table(results))
  print(f"\n{os.cpu_count()} CPUs; load average after the run: {', '.join(f'{x:.1f}' for x in os.getloadavg())}")
  return 0


if __name__ == "__main__":
  sys.exit(main())
