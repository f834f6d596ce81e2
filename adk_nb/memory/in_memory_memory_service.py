"""Memory kept in this process: keyword search over past sessions, for tests and notebooks."""

from __future__ import annotations

import datetime
import itertools
import re
import threading
import unicodedata
import uuid
from typing import TYPE_CHECKING, Mapping, Optional, Sequence

from google.genai import types

from .base_memory_service import BaseMemoryService, SearchMemoryResponse
from .memory_entry import MemoryEntry

if TYPE_CHECKING:
  from ..events.event import Event
  from ..sessions.session import Session

MAX_RESULTS = 10
"""A search returns at most this many memories, those with the most words in common with the query first."""

_WORD = re.compile(r"\w+")
_NO_SESSION = "__no_session__"
_EXPLICIT = "__explicit__"


def _is_latin(char: str) -> bool:
  if char.isascii():
    return char.isalnum() or char == "_"
  return unicodedata.name(char, "").startswith("LATIN")


def _normal(text: str) -> str:
  return unicodedata.normalize("NFC", text).lower()


def query_words(text: str) -> set[str]:
  """The lowercase words of a query."""
  return set(_WORD.findall(_normal(text)))


def searchable_words(text: str) -> set[str]:
  """The words a memory can be found by.

  Besides each word, a word that mixes Latin and other scripts (Japanese or Chinese
  written without spaces, e.g. '私はPythonを使う') also counts each single-script run,
  so a query for 'python' finds it.
  """
  words = query_words(text)
  for word in list(words):
    if not word.isascii():
      for _, run in itertools.groupby(word, _is_latin):
        words.add("".join(run))
  return words


class _Memory:
  __slots__ = ("entry", "words", "text")

  def __init__(self, entry: MemoryEntry, text: str) -> None:
    self.entry = entry
    self.text = _normal(text)
    self.words = searchable_words(text)


def _text_of(content: Optional[types.Content]) -> str:
  if content is None or not content.parts:
    return ""
  return " ".join(p.text for p in content.parts if p.text and not p.thought)


def _timestamp(seconds: float) -> str:
  return datetime.datetime.fromtimestamp(seconds).isoformat()


class InMemoryMemoryService(BaseMemoryService):
  """Remembers the text of past sessions in a dict and finds them by shared keywords.

  A search scores each remembered event by how many query words it contains and
  returns the best `MAX_RESULTS`, ties in the order they were remembered. Memories are
  per app and user. Not semantic search: use it for prototypes and tests.
  """

  def __init__(self) -> None:
    self._lock = threading.Lock()
    # (app, user) -> source (session id, or a marker) -> memories in insertion order
    self._memories: dict[tuple[str, str], dict[str, list[_Memory]]] = {}
    self._forgotten: dict[tuple[str, str], set[str]] = {}

  @staticmethod
  def _from_event(event: "Event") -> Optional[_Memory]:
    text = _text_of(event.content)
    if not text:
      return None
    entry = MemoryEntry(id=event.id, content=event.content.model_copy(deep=True),
                        author=event.author, timestamp=_timestamp(event.timestamp))
    return _Memory(entry, text)

  async def add_session_to_memory(self, session: "Session") -> None:
    key = (session.app_name, session.user_id)
    with self._lock:
      forgotten = self._forgotten.get(key, set())
      memories = [m for m in map(self._from_event, session.events)
                  if m is not None and m.entry.id not in forgotten]
      self._memories.setdefault(key, {})[session.id] = memories

  async def add_events_to_memory(
      self,
      *,
      app_name: str,
      user_id: str,
      events: Sequence["Event"],
      session_id: Optional[str] = None,
      custom_metadata: Optional[Mapping[str, object]] = None,
  ) -> None:
    key = (app_name, user_id)
    with self._lock:
      forgotten = self._forgotten.get(key, set())
      memories = self._memories.setdefault(key, {}).setdefault(session_id or _NO_SESSION, [])
      known = {m.entry.id for m in memories}
      for event in events:
        memory = self._from_event(event)
        if memory is not None and event.id not in known and event.id not in forgotten:
          if custom_metadata:
            memory.entry.custom_metadata = dict(custom_metadata)
          memories.append(memory)
          known.add(event.id)

  async def add_memory(
      self,
      *,
      app_name: str,
      user_id: str,
      memories: Sequence[MemoryEntry],
      custom_metadata: Optional[Mapping[str, object]] = None,
  ) -> None:
    key = (app_name, user_id)
    with self._lock:
      stored = self._memories.setdefault(key, {}).setdefault(_EXPLICIT, [])
      for entry in memories:
        copy = entry.model_copy(deep=True)
        if not copy.id:
          copy.id = str(uuid.uuid4())
        if custom_metadata:
          copy.custom_metadata = {**dict(custom_metadata), **copy.custom_metadata}
        stored.append(_Memory(copy, _text_of(copy.content)))

  async def search_memory(self, *, app_name: str, user_id: str, query: str) -> SearchMemoryResponse:
    wanted = query_words(query)
    if not wanted:
      return SearchMemoryResponse()
    with self._lock:
      memories = [m for source in self._memories.get((app_name, user_id), {}).values() for m in source]
    scored = []
    for memory in memories:
      # Scripts without spaces (CJK) match inside the text, not only as whole words.
      score = sum(1 for w in wanted
                  if w in memory.words or (not w.isascii() and w in memory.text))
      if score:
        scored.append((score, memory.entry))
    scored.sort(key=lambda pair: -pair[0])
    return SearchMemoryResponse(memories=[e.model_copy(deep=True) for _, e in scored[:MAX_RESULTS]])

  async def delete_memory(self, *, app_name: str, user_id: str, memory_id: Optional[str] = None) -> None:
    if not memory_id:
      return
    key = (app_name, user_id)
    with self._lock:
      for source, memories in self._memories.get(key, {}).items():
        self._memories[key][source] = [m for m in memories if m.entry.id != memory_id]
      # A session added again later must not bring the forgotten memory back.
      self._forgotten.setdefault(key, set()).add(memory_id)
