"""Prefix-scoped session state: one mapping, writes recorded as a delta."""

from __future__ import annotations

from typing import Any, Iterable, Iterator, MutableMapping, Optional

from ..errors.adk_nb_error import AdkNbError
from ..errors.stale_session_error import StaleSessionError


class StateSchemaError(AdkNbError, TypeError):
  """A state write that the declared state schema does not allow (an undeclared key, a wrong type)."""


_ADAPTERS: dict[tuple[type, str], Any] = {}


def _check_entry(schema: Any, key: str, value: Any) -> None:
  """StateSchemaError unless `schema` (a pydantic model) declares `key` and `value` fits its type.

  Keys holding ':' (the app:, user:, temp: scopes and ADK's own `<owner>:<key>` entries) are not checked.
  """
  if ":" in key:
    return
  fields = schema.model_fields
  if key not in fields:
    raise StateSchemaError(
        f"Key '{key}' is not declared in state schema '{schema.__name__}'. Declared fields: "
        f"{sorted(fields)}. Add it to the schema, or use a prefixed key (temp:{key}) for scratch values."
    )
  adapter = _ADAPTERS.get((schema, key))
  if adapter is None:
    from pydantic import TypeAdapter

    adapter = _ADAPTERS[(schema, key)] = TypeAdapter(fields[key].rebuild_annotation())
  from pydantic import ValidationError

  try:
    adapter.validate_python(value)
  except ValidationError as exc:
    raise StateSchemaError(
        f"Value for '{key}' does not satisfy field '{key}' ({fields[key].rebuild_annotation()}) in "
        f"'{schema.__name__}': {exc}"
    ) from exc


class State(MutableMapping):
  """A view of session state whose writes are recorded in `delta`.

  Keys are routed by prefix when the Runner commits the delta: `app:` is shared by
  every user of the app, `user:` by every session of one user, `temp:` lives for one
  invocation and is never stored, and unprefixed keys belong to the session.
  Reads see the merged view, newest write first.
  """

  APP_PREFIX = "app:"
  USER_PREFIX = "user:"
  TEMP_PREFIX = "temp:"

  __slots__ = ("_value", "_delta", "_schema")

  def __init__(self, value: dict[str, Any], delta: dict[str, Any], schema: Any = None):
    """`schema` (ADK 2.x): a pydantic model declaring the state keys and their types; each write
    (`state[k] = v`, `update`) is checked against it and a mismatch raises StateSchemaError,
    recording nothing. Writes into a container read from the state are not checked."""
    self._value = value
    self._delta = delta
    self._schema = schema if isinstance(schema, type) else None

  def __getitem__(self, key: str) -> Any:
    if key in self._delta:
      return self._delta[key]
    return self._value[key]

  def __setitem__(self, key: str, value: Any) -> None:
    if self._schema is not None:
      _check_entry(self._schema, key, value)
    self._value[key] = value
    self._delta[key] = value

  def __delitem__(self, key: str) -> None:
    raise TypeError(
        f"State keys cannot be deleted (tried {key!r}); set the key to None instead so the "
        "change is recorded in the event's state_delta."
    )

  def __contains__(self, key: object) -> bool:
    return key in self._delta or key in self._value

  def __iter__(self) -> Iterator[str]:
    return iter(self.to_dict())

  def __len__(self) -> int:
    return len(self.to_dict())

  def __repr__(self) -> str:
    return f"State({self.to_dict()!r})"

  def get(self, key: str, default: Any = None) -> Any:
    if key in self._delta:
      return self._delta[key]
    return self._value.get(key, default)

  def setdefault(self, key: str, default: Any = None) -> Any:
    if key in self:
      return self[key]
    self[key] = default
    return default

  def update(self, other: Any = (), /, **kwargs: Any) -> None:
    items = dict(other, **kwargs)
    if self._schema is not None:
      for k, v in items.items():  # all checked first: a refused update records nothing
        _check_entry(self._schema, k, v)
    for k, v in items.items():
      self[k] = v

  def has_delta(self) -> bool:
    """True when this view recorded at least one write."""
    return bool(self._delta)

  def to_dict(self) -> dict[str, Any]:
    """The merged state as a plain dict."""
    merged = dict(self._value)
    merged.update(self._delta)
    return merged

  @property
  def delta(self) -> dict[str, Any]:
    """The writes recorded so far."""
    return self._delta


def split_delta(delta: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any], dict[str, Any]]:
  """Routes a state delta by prefix into (app, user, session) parts; temp: keys are dropped.

  App and user keys keep their prefix stripped, as they are stored in their own tables.
  """
  app: dict[str, Any] = {}
  user: dict[str, Any] = {}
  session: dict[str, Any] = {}
  for key, value in delta.items():
    if key.startswith(State.APP_PREFIX):
      app[key[4:]] = value
    elif key.startswith(State.USER_PREFIX):
      user[key[5:]] = value
    elif not key.startswith(State.TEMP_PREFIX):
      session[key] = value
  return app, user, session


def merge_state(app: dict[str, Any], user: dict[str, Any], session: dict[str, Any]) -> dict[str, Any]:
  """Builds the merged view a session exposes: session keys plus prefixed app: and user: keys."""
  merged = dict(session)
  for k, v in app.items():
    merged[State.APP_PREFIX + k] = v
  for k, v in user.items():
    merged[State.USER_PREFIX + k] = v
  return merged



class SharedWrite:
  """Optimistic concurrency for `app:` and `user:` state, the same on every store.

  Each shared row (one per app, one per app and user) has a `revision` counted up by
  every write, and remembers per key the revision that last wrote it. A session copy
  holds the revision it was loaded at; writing a key that another session wrote after
  that revision is refused (the copy may have computed the value from the old one),
  while writes of other keys go through. After a write the copy holds the whole row as
  written, so it is current again.

  Not covered, as in most optimistic schemes: a write of key B computed from key A when
  only A changed meanwhile.
  """

  @staticmethod
  def check(scope: str, owner: str, session_id: str, delta: dict[str, Any],
            key_revisions: dict[str, int], seen: Optional[int]) -> None:
    """Raises StaleSessionError when a key of `delta` was written after revision `seen`.

    `seen` is the revision the writer's copy holds, or None for a blind write (initial
    state at creation), which is never refused.
    """
    if seen is None:
      return
    changed = [k for k in delta if key_revisions.get(k, 0) > seen]
    if changed:
      raise stale_shared_state(session_id, scope, owner, changed)

  @staticmethod
  def apply(state: dict[str, Any], key_revisions: dict[str, int], revision: int,
            delta: dict[str, Any]) -> int:
    """Applies a checked `delta` to a row (both dicts updated in place); returns its new revision."""
    revision += 1
    state.update(delta)
    for key in delta:
      key_revisions[key] = revision
    return revision

  @staticmethod
  def refresh(session: Any, scope: str, state: dict[str, Any], revision: int) -> None:
    """Brings a session copy's view of one shared row up to the row as just written."""
    prefix = State.APP_PREFIX if scope == "app" else State.USER_PREFIX
    session.state.update({prefix + k: v for k, v in state.items()})
    setattr(session, f"_{scope}_revision", revision)


def stale_shared_state(session_id: str, scope: str, owner: str, keys: Iterable[str]) -> StaleSessionError:
  """The error for a write of `app:` / `user:` keys that another session changed meanwhile.

  `scope` is "app" or "user", `owner` the app name or user id, `keys` the unprefixed keys
  that changed. The error carries `scope` and `keys` (prefixed) as attributes.
  """
  prefixed = sorted(f"{scope}:{k}" for k in keys)
  named = ", ".join(repr(k) for k in prefixed)
  whose = f"app {owner!r}" if scope == "app" else f"user {owner!r}"
  error = StaleSessionError(
      f"Cannot write {named}: another session changed it in the {scope} state of {whose} "
      f"since this copy of session {session_id!r} was loaded, so this write could overwrite "
      "that change "
      "(nothing was written). Reload the session with get_session(...) and retry."
  )
  error.scope = scope
  error.keys = prefixed
  return error
