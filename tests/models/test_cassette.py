"""Cassettes: record a model's run against a loopback server, replay it offline."""

import json

import pytest
from google.genai import types

from adk_nb.models import Cassette, CassetteMismatch, LlmRequest, ScriptedModel, call
from adk_nb.models._retry import ModelServerError, RetryOptions
from adk_nb.models.google_llm import Gemini


@pytest.fixture(autouse=True)
def _api_key(monkeypatch):
  monkeypatch.setenv("GOOGLE_API_KEY", "test-key")


def answer(*parts):
  return {"candidates": [{"content": {"role": "model", "parts": list(parts)}, "finishReason": "STOP"}],
          "usageMetadata": {"promptTokenCount": 5, "candidatesTokenCount": 2, "totalTokenCount": 7}}


def req(*texts, **config):
  return LlmRequest(model="gemini-2.5-flash", contents=[
      types.Content(role="user", parts=[types.Part(text=t)]) for t in texts],
      config=types.GenerateContentConfig(system_instruction="Be brief.", **config))


async def run(llm, request, stream=False):
  return [r async for r in llm.generate_content_async(request, stream=stream)]


def dumps(responses):
  return [r.model_dump(mode="json") for r in responses]


async def test_a_loopback_recording_replays_offline_identically(server, tmp_path):
  server.reply(answer({"text": "Hi!"}))
  server.stream([answer({"text": "Str"}), answer({"text": "eamed."})])
  cassette = Cassette(tmp_path / "run.json")
  recorder = cassette.record(Gemini(model="gemini-2.5-flash", base_url=server.url))
  recorded = [await run(recorder, req("Hello")), await run(recorder, req("Stream please"), stream=True)]
  requests_seen = len(server.requests)

  replay = Cassette(tmp_path / "run.json").replay()
  replayed = [await run(replay, req("Hello")), await run(replay, req("Stream please"), stream=True)]

  assert [dumps(r) for r in replayed] == [dumps(r) for r in recorded]
  assert [r.partial for r in replayed[1]] == [True, True, None]
  assert len(server.requests) == requests_seen == 2, "replay never touches the network"
  assert replay.model == "gemini-2.5-flash"
  replay.assert_complete()


async def test_a_changed_request_names_the_first_differing_field(tmp_path):
  cassette = Cassette(tmp_path / "c.json")
  await run(cassette.record(ScriptedModel(["one", "two"])), req("Hi", "and more"))
  replay = cassette.replay()
  with pytest.raises(CassetteMismatch, match=r"at contents\[1\]\.parts\[0\]\.text: recorded 'and more', got 'and less'"):
    await run(replay, req("Hi", "and less"))


async def test_config_and_stream_differences_are_named(tmp_path):
  cassette = Cassette(tmp_path / "c.json")
  await run(cassette.record(ScriptedModel(["one"])), req("Hi", temperature=0.1))
  with pytest.raises(CassetteMismatch, match=r"at config\.temperature: recorded 0\.1, got 0\.9"):
    await run(cassette.replay(), req("Hi", temperature=0.9))
  with pytest.raises(CassetteMismatch, match=r"at stream: recorded False, got True"):
    await run(cassette.replay(), req("Hi", temperature=0.1), stream=True)
  with pytest.raises(CassetteMismatch, match=r"at contents\[1\]: recorded \(nothing\)"):
    await run(cassette.replay(), req("Hi", "extra", temperature=0.1))


async def test_generated_call_ids_do_not_break_matching(tmp_path):
  def history(call_id):
    return LlmRequest(model="m", contents=[
        types.Content(role="user", parts=[types.Part(text="Weather?")]),
        types.Content(role="model", parts=[types.Part(function_call=types.FunctionCall(
            id=call_id, name="get_weather", args={"city": "Paris"}))]),
        types.Content(role="user", parts=[types.Part(function_response=types.FunctionResponse(
            id=call_id, name="get_weather", response={"result": "sunny"}))]),
    ])

  cassette = Cassette(tmp_path / "c.json")
  await run(cassette.record(ScriptedModel(["Sunny."])), history("adk-1111"))
  [resp] = await run(cassette.replay(), history("adk-2222"))
  assert resp.content.parts[0].text == "Sunny."
  stored = cassette.interactions[0]["request"]["contents"][1]["parts"][0]["function_call"]["id"]
  assert stored == "adk-#1"


async def test_concurrent_requests_may_replay_in_any_order(tmp_path):
  cassette = Cassette(tmp_path / "c.json")
  recorder = cassette.record(ScriptedModel(lambda r: "re: " + r.contents[0].parts[0].text))
  await run(recorder, req("a"))
  await run(recorder, req("b"))
  replay = cassette.replay()
  assert (await run(replay, req("b")))[0].content.parts[0].text == "re: b"
  assert (await run(replay, req("a")))[0].content.parts[0].text == "re: a"


async def test_more_calls_than_recorded_and_unused_recordings_are_reported(tmp_path):
  cassette = Cassette(tmp_path / "c.json")
  await run(cassette.record(ScriptedModel(["one"])), req("Hi"))
  replay = cassette.replay()
  await run(replay, req("Hi"))
  with pytest.raises(CassetteMismatch, match="more model calls"):
    await run(replay, req("Hi"))
  with pytest.raises(AssertionError, match="never replayed"):
    cassette.replay().assert_complete()


async def test_errors_are_recorded_and_replayed(server, tmp_path):
  server.reply({"error": {"code": 500, "message": "Internal", "status": "INTERNAL"}}, status=500)
  cassette = Cassette(tmp_path / "c.json")
  llm = Gemini(model="gemini-2.5-flash", base_url=server.url, retry_options=RetryOptions(attempts=1))
  with pytest.raises(ModelServerError) as recorded:
    await run(cassette.record(llm), req("Hi"))
  with pytest.raises(ModelServerError) as replayed:
    await run(cassette.replay(), req("Hi"))
  assert str(replayed.value) == str(recorded.value)


async def test_record_or_replay_and_a_readable_file(tmp_path):
  cassette = Cassette(tmp_path / "sub" / "c.json")
  first = cassette.record_or_replay(ScriptedModel([call("add", a=1, b=2)]))
  await run(first, req("Add"))
  second = cassette.record_or_replay(ScriptedModel([]))
  [resp] = await run(second, req("Add"))
  assert resp.content.parts[0].function_call.args == {"a": 1, "b": 2}
  data = json.loads((tmp_path / "sub" / "c.json").read_text())
  assert data["format"] == "adk_nb.cassette/1"
  assert data["interactions"][0]["request"]["config"]["system_instruction"] == "Be brief."


def test_missing_cassette_says_how_to_record(tmp_path):
  with pytest.raises(FileNotFoundError, match=r"\.record\(model\)"):
    Cassette(tmp_path / "none.json").replay()
