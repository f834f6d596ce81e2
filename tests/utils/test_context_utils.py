"""Aclosing closes an async generator left early, so its cleanup runs at once."""

import pytest

from adk_nb.utils.context_utils import Aclosing


async def test_generator_left_by_break_or_error_is_closed():
  log = []

  async def numbers():
    try:
      for i in range(10):
        yield i
    finally:
      log.append("closed")

  agen = numbers()
  async with Aclosing(agen) as same:
    assert same is agen
    async for i in agen:
      if i == 1:
        break
  assert log == ["closed"]

  with pytest.raises(RuntimeError):
    async with Aclosing(numbers()) as agen:
      async for _ in agen:
        raise RuntimeError("boom")
  assert log == ["closed", "closed"]
