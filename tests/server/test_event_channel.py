"""A run's events on their way to a slow or gone client: bounded, and a client that leaves never stalls the run."""

from __future__ import annotations

import asyncio
import json

from adk_nb.server import channel as channel_module
from adk_nb.server.channel import EventChannel
from tests.server.test_api_server import message


def test_a_full_channel_makes_the_run_wait_and_abandoning_it_lets_the_run_finish():
  async def scenario():
    channel = EventChannel(limit=2)
    produced = []

    async def run():
      for n in range(10):
        await channel.put(n)
        produced.append(n)
      channel.close()

    task = asyncio.create_task(run())
    for _ in range(20):  # let the producer go as far as it can (scheduler turns, not time)
      await asyncio.sleep(0)
    held_while_connected = (list(produced), channel.buffered, task.done())
    assert await channel.get() == 0  # the client reads one: the run may produce one more
    for _ in range(20):
      await asyncio.sleep(0)
    after_one_read = list(produced)
    channel.abandon()  # the client disconnects
    await asyncio.wait_for(task, 5)
    return held_while_connected, after_one_read, produced, channel.buffered

  held, after_one_read, produced, left = asyncio.run(scenario())
  assert held == ([0, 1], 2, False)  # never more than the limit ahead of the client; nothing dropped
  assert after_one_read == [0, 1, 2]
  assert produced == list(range(10)) and left <= 1  # once abandoned, the rest is not buffered


def test_a_run_that_ends_while_its_client_is_behind_ends_the_stream_after_every_event():
  async def scenario():
    channel = EventChannel(limit=2)
    await channel.put("a")
    await channel.put("b")
    channel.close(ValueError("model failed"))  # full: the error and the end wait for the reader
    return [await channel.get() for _ in range(4)]

  a, b, error, end = asyncio.run(scenario())
  assert (a, b, str(error), end) == ("a", "b", "model failed", None)


def test_sse_with_a_small_buffer_still_delivers_every_event_in_order(serve_app, monkeypatch):
  monkeypatch.setattr(channel_module, "MAX_BUFFERED_EVENTS", 1)
  client = serve_app()
  body = {"appName": "weather_app", "userId": "u", "sessionId": "s", "newMessage": message("Weather in Paris?")}
  streamed = [json.loads(line[6:]) for line in client.post("/run_sse", json=body).text.splitlines()
              if line.startswith("data: ")]
  stored = client.get("/apps/weather_app/users/u/sessions/s").json()["events"]
  assert [e["id"] for e in streamed] == [e["id"] for e in stored][-len(streamed):] and len(streamed) >= 3
