"""Record a real model's run to a JSON cassette once, then replay it offline (tutorials, CI).

    cassette = Cassette("notebooks/cassettes/weather.json")
    agent = Agent(model=cassette.record(Gemini(model="gemini-2.5-flash")), ...)   # once, with a key
    agent = Agent(model=cassette.replay(), ...)                                    # offline, forever
    agent = Agent(model=cassette.record_or_replay(Gemini(...)), ...)               # replay if recorded

Requests are matched by content. Function-call ids that adk_nb generates ('adk-...', fresh
each run) are numbered by first appearance before comparing, so a replayed run matches the
recorded one. A replayed answer is exactly the recorded one, partial chunks included.
"""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path
from typing import Any, AsyncGenerator, Optional, Union

from pydantic import PrivateAttr

from . import _retry
from .base_llm import BaseLlm
from .llm_request import LlmRequest
from .llm_response import LlmResponse
from ..errors.adk_nb_error import AdkNbError

_FORMAT = "adk_nb.cassette/1"


class CassetteMismatch(AdkNbError, AssertionError):
  """A replayed run sent a request the cassette did not record (names the first differing field)."""


class Cassette:
  """A JSON file of a model's request/response pairs: `.record(model)` writes it, `.replay()` reads it."""

  def __init__(self, path: Union[str, os.PathLike]):
    self.path = Path(path)
    """Where the cassette lives."""

  @property
  def exists(self) -> bool:
    """True once something was recorded."""
    return self.path.exists()

  def record(self, model: BaseLlm) -> "RecordingModel":
    """A model that forwards to `model` and writes every request and answer to the cassette (overwriting it)."""
    return RecordingModel(inner=model, path=str(self.path))

  def replay(self) -> "ReplayModel":
    """A model that answers from the cassette, offline; a request it did not record raises CassetteMismatch."""
    return ReplayModel(path=str(self.path))

  def record_or_replay(self, model: BaseLlm) -> BaseLlm:
    """Replays when the cassette exists, else records `model` into it (delete the file to re-record)."""
    return self.replay() if self.exists else self.record(model)

  @property
  def interactions(self) -> list[dict[str, Any]]:
    """The recorded pairs, as stored: {'request', 'stream', 'responses'} or {'request', 'stream', 'error'}."""
    return _load(self.path)["interactions"]


class RecordingModel(BaseLlm):
  """Forwards to a real model and records every request and answer (see Cassette.record)."""

  inner: BaseLlm
  """The model that really answers."""
  path: str
  """The cassette file, rewritten after every answer."""

  _interactions: list = PrivateAttr(default_factory=list)

  def __init__(self, *, inner: BaseLlm, path: str, **kwargs: Any):
    super().__init__(model=inner.model, inner=inner, path=path, **kwargs)
    self._save()

  @property
  def pairs_calls_by_id(self) -> bool:
    return self.inner.pairs_calls_by_id

  async def generate_content_async(
      self, llm_request: LlmRequest, stream: bool = False
  ) -> AsyncGenerator[LlmResponse, None]:
    """Answers as the inner model does, recording the request and every response (partials too)."""
    entry: dict[str, Any] = {"request": request_to_json(llm_request), "stream": stream, "responses": []}
    try:
      async for response in self.inner.generate_content_async(llm_request, stream=stream):
        entry["responses"].append(response.model_dump(mode="json", exclude_none=True))
        yield response
    except Exception as exc:
      entry["error"] = {"type": type(exc).__name__, "message": str(exc)}
      raise
    finally:
      self._interactions.append(entry)
      self._save()

  def _save(self) -> None:
    _write(Path(self.path), {"format": _FORMAT, "model": self.inner.model, "interactions": self._interactions})


class ReplayModel(BaseLlm):
  """Answers from a cassette, offline (see Cassette.replay)."""

  model: str = "replay"
  path: str
  """The cassette file."""

  _interactions: list = PrivateAttr(default_factory=list)
  _used: list = PrivateAttr(default_factory=list)

  def __init__(self, *, path: str, **kwargs: Any):
    data = _load(Path(path))
    super().__init__(model=kwargs.pop("model", data.get("model") or "replay"), path=path, **kwargs)
    self._interactions = data["interactions"]
    self._used = [False] * len(self._interactions)

  @property
  def remaining(self) -> int:
    """Recorded answers not yet replayed."""
    return self._used.count(False)

  def assert_complete(self) -> None:
    """Fails when the replayed run made fewer model calls than the recorded one."""
    if self.remaining:
      raise AssertionError(f"{self.remaining} recorded request(s) in {self.path} were never replayed; "
                           "the run took a different path than when it was recorded.")

  async def generate_content_async(
      self, llm_request: LlmRequest, stream: bool = False
  ) -> AsyncGenerator[LlmResponse, None]:
    """Yields the recorded answer to this request (raises CassetteMismatch naming the first differing field)."""
    entry = self._take({"request": request_to_json(llm_request), "stream": stream})
    for data in entry.get("responses", []):
      yield LlmResponse.model_validate(data)
    if "error" in entry:
      raise _replayed_error(entry["error"], self.model)

  def _take(self, wanted: dict[str, Any]) -> dict[str, Any]:
    pending = [i for i, used in enumerate(self._used) if not used]
    if not pending:
      raise CassetteMismatch(
          f"The run made more model calls than {self.path} recorded ({len(self._used)}). Re-record it: "
          "Cassette(path).record(model).")
    wanted = {**wanted, "request": _without_generated_ids(wanted["request"])}
    for i in pending:  # the next one first; any order for concurrent (parallel) agents
      entry = self._interactions[i]
      recorded = {"request": _without_generated_ids(entry["request"]), "stream": entry["stream"]}
      if _first_difference(recorded, wanted) is None:
        self._used[i] = True
        return entry
    nxt = self._interactions[pending[0]]
    path, recorded, got = _first_difference({"request": nxt["request"], "stream": nxt["stream"]}, wanted)
    path = path.removeprefix("request.")
    raise CassetteMismatch(
        f"The request differs from recorded request #{pending[0] + 1} of {self.path} at {path}: recorded "
        f"{_short(recorded)}, got {_short(got)}. If the change is intended, re-record the cassette "
        "(delete it, or use Cassette(path).record(model)).")


def request_to_json(llm_request: LlmRequest) -> dict[str, Any]:
  """The request as comparable JSON: model, contents and config (transport options, billing labels and
  tool objects left out)."""
  config = llm_request.config.model_dump(mode="json", exclude_none=True, exclude={"http_options", "labels"},
                                         fallback=_fallback)
  contents = [c.model_dump(mode="json", exclude_none=True) for c in llm_request.contents]
  return {"model": llm_request.model, "contents": _number_generated_ids(contents), "config": config}


def _fallback(value: Any) -> Any:
  if isinstance(value, type) and hasattr(value, "model_json_schema"):
    return value.model_json_schema()
  return getattr(value, "__qualname__", None) or repr(value)


def _number_generated_ids(contents: list[dict[str, Any]]) -> list[dict[str, Any]]:
  """Replaces adk_nb's random 'adk-<uuid>' call ids by 'adk-#1', 'adk-#2', ... in order of appearance."""
  numbers: dict[str, str] = {}
  for content in contents:
    for part in content.get("parts") or []:
      for key in ("function_call", "function_response"):
        item = part.get(key)
        if isinstance(item, dict) and str(item.get("id", "")).startswith("adk-"):
          item["id"] = numbers.setdefault(item["id"], f"adk-#{len(numbers) + 1}")
  return contents


def _without_generated_ids(request: dict[str, Any]) -> dict[str, Any]:
  """The request JSON without adk_nb's own call ids, which a request may or may not carry
  (they are left out for models that do not pair calls by id) and which carry no meaning."""
  contents = []
  for content in request.get("contents") or []:
    parts = []
    for part in content.get("parts") or []:
      part = dict(part)
      for key in ("function_call", "function_response"):
        item = part.get(key)
        if isinstance(item, dict) and str(item.get("id", "")).startswith("adk-"):
          part[key] = {k: v for k, v in item.items() if k != "id"}
      parts.append(part)
    contents.append({**content, "parts": parts})
  return {**request, "contents": contents}


def _first_difference(recorded: Any, got: Any, path: str = "") -> Optional[tuple[str, Any, Any]]:
  """(path, recorded value, new value) of the first difference, e.g. ('request.contents[3].parts[0].text', ...)."""
  if isinstance(recorded, dict) and isinstance(got, dict):
    for key in list(recorded) + [k for k in got if k not in recorded]:
      sub = f"{path}.{key}" if path else str(key)
      if key not in got:
        return sub, recorded[key], _MISSING
      if key not in recorded:
        return sub, _MISSING, got[key]
      found = _first_difference(recorded[key], got[key], sub)
      if found:
        return found
    return None
  if isinstance(recorded, list) and isinstance(got, list):
    for i, (a, b) in enumerate(zip(recorded, got)):
      found = _first_difference(a, b, f"{path}[{i}]")
      if found:
        return found
    if len(recorded) != len(got):
      i = min(len(recorded), len(got))
      return (f"{path}[{i}]", recorded[i] if i < len(recorded) else _MISSING, got[i] if i < len(got) else _MISSING)
    return None
  return None if recorded == got else (path, recorded, got)


class _Missing:
  def __repr__(self) -> str:
    return "(nothing)"


_MISSING = _Missing()


def _short(value: Any, limit: int = 120) -> str:
  text = repr(value)
  return text if len(text) <= limit else text[:limit - 3] + "..."


def _replayed_error(error: dict[str, str], model: str) -> Exception:
  cls = getattr(_retry, error.get("type", ""), None)
  if not (isinstance(cls, type) and issubclass(cls, _retry.ModelCallError)):
    cls = _retry.ModelCallError
  return cls(error.get("message", "The recorded model call failed."), model=model)


def _load(path: Path) -> dict[str, Any]:
  if not path.exists():
    raise FileNotFoundError(f"No cassette at {path}. Record one first: Cassette({str(path)!r}).record(model), "
                            "run the agent once with real credentials, then replay.")
  data = json.loads(path.read_text(encoding="utf-8"))
  if data.get("format") != _FORMAT:
    raise ValueError(f"{path} is not an adk_nb cassette (format {data.get('format')!r}, expected {_FORMAT!r}).")
  return data


def _write(path: Path, data: dict[str, Any]) -> None:
  # Write then rename, so an interrupted recording never leaves half a file behind.
  path.parent.mkdir(parents=True, exist_ok=True)
  fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=path.name, suffix=".tmp")
  with os.fdopen(fd, "w", encoding="utf-8") as f:
    json.dump(data, f, indent=1, ensure_ascii=False)
    f.write("\n")
  os.replace(tmp, path)
