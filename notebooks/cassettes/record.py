"""Records the cassettes tutorial 05 replays, against a local stand-in server (no real model is involved).

    python notebooks/cassettes/record.py

The real adapters (Gemini through google-genai, LiteLlm through litellm's OpenAI client) talk to an
HTTP server on 127.0.0.1 that speaks the Gemini `generateContent` and OpenAI `chat/completions` wire
formats and answers with the hand-written replies below. Each cassette says so in `recorded_against`.
The agent is built by executing the notebook's "agent-definition" cell, so a replay in the notebook
sends exactly the recorded requests. To record a real model instead, run the notebook with a key and
`Cassette(path).record(Gemini(...))`.
"""

from __future__ import annotations

import asyncio
import json
import os
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

HERE = Path(__file__).resolve().parent
NOTEBOOK = HERE.parent / "05_real_models.ipynb"
ANSWER = "Paris: 24 °C and sunny. Rome: 27 °C under a clear sky."
NOTE = ("a local stand-in server on 127.0.0.1 speaking the {wire} wire format, with hand-written answers "
        "(notebooks/cassettes/record.py); not {real}")

GEMINI_ANSWERS = [
    {"candidates": [{"content": {"role": "model", "parts": [
        {"functionCall": {"name": "get_weather", "args": {"city": "Paris"}}},
        {"functionCall": {"name": "get_weather", "args": {"city": "Rome"}}}]}, "finishReason": "STOP"}],
     "usageMetadata": {"promptTokenCount": 61, "candidatesTokenCount": 14, "totalTokenCount": 75}},
    {"candidates": [{"content": {"role": "model", "parts": [{"text": ANSWER}]}, "finishReason": "STOP"}],
     "usageMetadata": {"promptTokenCount": 112, "candidatesTokenCount": 19, "totalTokenCount": 131}},
]


def _openai(message: dict, finish: str) -> dict:
  return {"id": "chatcmpl-standin", "object": "chat.completion", "created": 1767225600, "model": "gpt-4o-mini",
          "choices": [{"index": 0, "message": {"role": "assistant", **message}, "finish_reason": finish}],
          "usage": {"prompt_tokens": 70, "completion_tokens": 18, "total_tokens": 88}}


OPENAI_ANSWERS = [
    _openai({"content": None, "tool_calls": [
        {"id": "call_paris", "type": "function",
         "function": {"name": "get_weather", "arguments": json.dumps({"city": "Paris"})}},
        {"id": "call_rome", "type": "function",
         "function": {"name": "get_weather", "arguments": json.dumps({"city": "Rome"})}}]}, "tool_calls"),
    _openai({"content": ANSWER}, "stop"),
]


class StandIn:
  """An HTTP server on 127.0.0.1 that answers each POST with the next scripted JSON body."""

  def __init__(self, answers: list[dict]):
    self.answers = list(answers)
    self.paths: list[str] = []
    outer = self

    class Handler(BaseHTTPRequestHandler):
      def log_message(self, *args):
        pass

      def do_POST(self):
        self.rfile.read(int(self.headers.get("Content-Length") or 0))
        outer.paths.append(self.path)
        body = json.dumps(outer.answers.pop(0)).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=self.server.serve_forever, daemon=True).start()
    self.url = f"http://127.0.0.1:{self.server.server_port}"

  def close(self):
    self.server.shutdown()
    self.server.server_close()


def notebook_namespace() -> dict:
  """Executes the notebook's agent-definition cell and returns its names."""
  cells = json.loads(NOTEBOOK.read_text())["cells"]
  source = next("".join(c["source"]) for c in cells
                if c["cell_type"] == "code" and "# agent-definition" in "".join(c["source"]))
  namespace: dict = {}
  exec("from adk_nb import Agent\n" + source, namespace)
  return namespace


async def record(name: str, make_model, answers: list[dict], wire: str, real: str) -> None:
  from google.genai import types

  from adk_nb.models import Cassette
  from adk_nb.runners import InMemoryRunner

  ns = notebook_namespace()
  server = StandIn(answers)
  try:
    path = HERE / name
    path.unlink(missing_ok=True)
    agent = ns["make_weather_agent"](Cassette(path).record(make_model(server.url)))
    runner = InMemoryRunner(agent, app_name="weather")
    session = await runner.session_service.create_session(app_name="weather", user_id="user")
    message = types.Content(role="user", parts=[types.Part(text=ns["QUESTION"])])
    async for event in runner.run_async(user_id="user", session_id=session.id, new_message=message):
      if event.error_code:
        raise RuntimeError(f"{event.error_code}: {event.error_message}")
    assert not server.answers, "the agent made fewer model calls than scripted"
  finally:
    server.close()
  data = json.loads(path.read_text())
  data["recorded_against"] = NOTE.format(wire=wire, real=real)
  path.write_text(json.dumps(data, indent=1, ensure_ascii=False) + "\n")
  print(f"recorded {path.relative_to(HERE.parent.parent)} ({len(data['interactions'])} requests to {server.paths})")


def main() -> None:
  os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
  from adk_nb.models import Gemini, LiteLlm

  asyncio.run(record("gemini_weather.json",
                     lambda url: Gemini(model="gemini-2.5-flash", base_url=url, client_kwargs={"api_key": "stand-in"}),
                     GEMINI_ANSWERS, "Gemini generateContent", "Google's Gemini API"))
  asyncio.run(record("litellm_weather.json",
                     lambda url: LiteLlm(model="openai/gpt-4o-mini", api_base=url + "/v1", api_key="stand-in"),
                     OPENAI_ANSWERS, "OpenAI chat/completions", "OpenAI's API"))


if __name__ == "__main__":
  main()
