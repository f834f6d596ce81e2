"""google-adk's private `features._feature_registry` path, for tests written against it.

Holds `temporary_feature_override`, a context manager that sets an override (as `override_feature_enabled`
does, warnings included) and puts back what was there before when the block ends, also when it raises. The
names google-adk's tests import from this path (`FeatureName`, `is_feature_enabled`,
`override_feature_enabled`) are the package's own. adk_nb consults only the two skill features (see
`adk_nb.features`); overriding any other changes what `is_feature_enabled` answers and nothing else.
"""

from __future__ import annotations

from contextlib import contextmanager
from typing import Any, Iterator

from . import FeatureName, _key, _overrides, is_feature_enabled, override_feature_enabled

__all__ = ["FeatureName", "is_feature_enabled", "override_feature_enabled", "temporary_feature_override"]

_UNSET = object()


@contextmanager
def temporary_feature_override(feature_name: Any, enabled: bool) -> Iterator[None]:
  """Inside the block `is_feature_enabled(feature_name)` answers `enabled`; afterwards the earlier override (or
  none) is back. An unknown name raises ValueError before anything is changed."""
  key = _key(feature_name)
  before = _overrides.get(key, _UNSET)
  override_feature_enabled(key, enabled)
  try:
    yield
  finally:
    if before is _UNSET:
      _overrides.pop(key, None)
    else:
      _overrides[key] = before
