"""The live-run import paths: the queue works, a live connection is refused with a clear error."""

import pytest
from google.genai import types

from adk_nb.agents.live_request_queue import LiveRequest, LiveRequestQueue
from adk_nb.models import LlmRequest
from adk_nb.models.base_llm_connection import BaseLlmConnection
from adk_nb.testing import ScriptedModel


async def test_queue_delivers_requests_in_order_and_records_close():
  queue = LiveRequestQueue()
  queue.send_content(types.Content(role="user", parts=[types.Part(text="hi")]))
  queue.send_realtime(types.Blob(mime_type="audio/pcm", data=b"\x00\x01"))
  queue.send_activity_start()
  assert not queue.closed
  queue.close()
  assert queue.closed
  got = [await queue.get() for _ in range(4)]
  assert got[0].content.parts[0].text == "hi"
  assert got[1].blob.data == b"\x00\x01"
  assert got[2].activity_start is not None
  assert got[3] == LiveRequest(close=True)


def test_live_request_round_trips_bytes_as_base64_json():
  request = LiveRequest(blob=types.Blob(mime_type="audio/pcm", data=b"\xff"))
  assert LiveRequest.model_validate_json(request.model_dump_json()) == request


def test_a_live_connection_is_refused_on_use_not_on_import():
  with pytest.raises(NotImplementedError, match="Live"):
    ScriptedModel(["x"]).connect(LlmRequest())


async def test_base_llm_connection_methods_name_what_is_missing():
  class Half(BaseLlmConnection):
    async def send_history(self, history):
      self.history = history

  conn = Half()
  await conn.send_history([])
  assert conn.history == []
  with pytest.raises(NotImplementedError, match="Half does not implement send_content"):
    await conn.send_content(types.Content(role="user", parts=[]))

