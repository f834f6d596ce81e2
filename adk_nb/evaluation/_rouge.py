"""ROUGE-1 as ADK's response_match_score computes it, without the rouge-score dependency.

Tokens: NFKC-normalised and lowercased; CJK characters are tokens on their own; Thai,
Lao, Khmer and Myanmar split into base-plus-marks clusters; other letters, digits and
combining marks make words; everything else separates. ASCII words are then cut at
anything but [a-z0-9] and words longer than three letters are Porter-stemmed (rouge-score's
default tokenizer with its stemmer on); other words are kept whole.
"""

from __future__ import annotations

import re
import unicodedata
from collections import Counter
from typing import NamedTuple

from ._porter import stem

_NON_ALNUM = re.compile(r"[^a-z0-9]+")


def _cjk(code: int) -> bool:
  return 0x4E00 <= code <= 0x9FFF or 0x3040 <= code <= 0x30FF or 0xAC00 <= code <= 0xD7AF


def _unspaced(code: int) -> bool:
  return 0x0E00 <= code <= 0x0EFF or 0x1780 <= code <= 0x17FF or 0x1000 <= code <= 0x109F


def tokenize(text: str) -> list[str]:
  """Splits text into the unigrams ROUGE-1 compares."""
  if text.isascii():  # fast path, same result: ASCII has no marks, CJK or unspaced scripts
    return [stem(w) if len(w) > 3 else w for w in _NON_ALNUM.sub(" ", text.lower()).split()]
  out: list[str] = []
  for ch in unicodedata.normalize("NFKC", text).lower():
    code = ord(ch)
    mark = unicodedata.category(ch).startswith("M")
    if _cjk(code):
      out += (" ", ch, " ")
    elif _unspaced(code):
      out.append(ch if mark else " " + ch)
    elif ch.isalnum() or mark:
      out.append(ch)
    else:
      out.append(" ")
  tokens: list[str] = []
  for word in "".join(out).split():
    if not word.isascii():
      tokens.append(word)
      continue
    for piece in _NON_ALNUM.sub(" ", word).split():
      tokens.append(stem(piece) if len(piece) > 3 else piece)
  return tokens


class RougeScore(NamedTuple):
  """Unigram precision, recall and F-measure."""

  precision: float
  recall: float
  fmeasure: float


def rouge1(candidate: str, reference: str) -> RougeScore:
  """ROUGE-1 of `candidate` (the agent's answer) against `reference` (the expected one)."""
  cand, ref = Counter(tokenize(candidate)), Counter(tokenize(reference))
  overlap = sum(min(n, cand[tok]) for tok, n in ref.items())
  precision = overlap / max(sum(cand.values()), 1)
  recall = overlap / max(sum(ref.values()), 1)
  f = 2 * precision * recall / (precision + recall) if precision + recall > 0 else 0.0
  return RougeScore(precision, recall, f)
