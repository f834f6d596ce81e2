"""The Porter stemmer with NLTK's extensions, as rouge-score uses it (so ROUGE numbers match ADK's).

Written from the published algorithm (Porter, 1980) plus the documented NLTK-mode
departures: a small table of irregular forms, words of one or two letters left alone,
'ies'/'ied' of four-letter words kept as 'ie', 'y' -> 'i' only after a consonant that
is not the first letter, 'alli' handled before the other step-2 rules, 'bli' -> 'ble',
'fulli' -> 'ful', 'logi' -> 'log', and a two-letter vowel-consonant stem counting as
ending in consonant-vowel-consonant.
"""

from __future__ import annotations

import functools

_IRREGULAR = {
    "skies": "sky", "sky": "sky", "dying": "die", "lying": "lie", "tying": "tie", "news": "news",
    "innings": "inning", "inning": "inning", "outings": "outing", "outing": "outing",
    "cannings": "canning", "canning": "canning", "howe": "howe", "proceed": "proceed",
    "exceed": "exceed", "succeed": "succeed",
}
_VOWELS = frozenset("aeiou")


def _consonant(word: str, i: int) -> bool:
  ch = word[i]
  if ch in _VOWELS:
    return False
  if ch == "y":
    return i == 0 or not _consonant(word, i - 1)
  return True


def _measure(stem: str) -> int:
  """m in [C](VC)^m[V]: how many vowel-to-consonant transitions the stem has."""
  m, prev_vowel = 0, False
  for i in range(len(stem)):
    cons = _consonant(stem, i)
    if cons and prev_vowel:
      m += 1
    prev_vowel = not cons
  return m


def _has_vowel(stem: str) -> bool:
  return any(not _consonant(stem, i) for i in range(len(stem)))


def _double_consonant(word: str) -> bool:
  return len(word) >= 2 and word[-1] == word[-2] and _consonant(word, len(word) - 1)


def _cvc(word: str) -> bool:
  n = len(word)
  if n >= 3 and _consonant(word, n - 3) and not _consonant(word, n - 2) and _consonant(word, n - 1):
    return word[-1] not in "wxy"
  return n == 2 and not _consonant(word, 0) and _consonant(word, 1)


def _positive(stem: str) -> bool:
  return _measure(stem) > 0


def _rules(word: str, rules) -> str:
  """Applies the first rule whose suffix matches (its condition decides if it changes anything)."""
  for suffix, replacement, condition in rules:
    if suffix == "*d":
      if _double_consonant(word):
        stem = word[:-2]
        return stem + replacement if condition is None or condition(stem) else word
      continue
    if word.endswith(suffix):
      stem = word[: len(word) - len(suffix)]
      return stem + replacement if condition is None or condition(stem) else word
  return word


def _step1a(word: str) -> str:
  if word.endswith("ies") and len(word) == 4:
    return word[:-3] + "ie"
  return _rules(word, [("sses", "ss", None), ("ies", "i", None), ("ss", "ss", None), ("s", "", None)])


def _step1b(word: str) -> str:
  if word.endswith("ied"):
    return word[:-3] + ("ie" if len(word) == 4 else "i")
  if word.endswith("eed"):
    stem = word[:-3]
    return stem + "ee" if _measure(stem) > 0 else word
  for suffix in ("ed", "ing"):
    if word.endswith(suffix) and _has_vowel(word[: -len(suffix)]):
      base = word[: -len(suffix)]
      break
  else:
    return word
  return _rules(base, [
      ("at", "ate", None), ("bl", "ble", None), ("iz", "ize", None),
      ("*d", base[-1:], lambda stem: base[-1] not in "lsz"),
      ("", "e", lambda stem: _measure(stem) == 1 and _cvc(stem)),
  ])


def _step1c(word: str) -> str:
  return _rules(word, [("y", "i", lambda stem: len(stem) > 1 and _consonant(stem, len(stem) - 1))])


def _step2(word: str) -> str:
  if word.endswith("alli") and _positive(word[:-4]):
    return _step2(word[:-4] + "al")
  p = _positive
  return _rules(word, [
      ("ational", "ate", p), ("tional", "tion", p), ("enci", "ence", p), ("anci", "ance", p),
      ("izer", "ize", p), ("bli", "ble", p), ("alli", "al", p), ("entli", "ent", p), ("eli", "e", p),
      ("ousli", "ous", p), ("ization", "ize", p), ("ation", "ate", p), ("ator", "ate", p),
      ("alism", "al", p), ("iveness", "ive", p), ("fulness", "ful", p), ("ousness", "ous", p),
      ("aliti", "al", p), ("iviti", "ive", p), ("biliti", "ble", p), ("fulli", "ful", p),
      ("logi", "log", lambda stem: _positive(word[:-3])),
  ])


def _step3(word: str) -> str:
  p = _positive
  return _rules(word, [
      ("icate", "ic", p), ("ative", "", p), ("alize", "al", p), ("iciti", "ic", p), ("ical", "ic", p),
      ("ful", "", p), ("ness", "", p),
  ])


def _step4(word: str) -> str:
  def big(stem: str) -> bool:
    return _measure(stem) > 1

  return _rules(word, [
      ("al", "", big), ("ance", "", big), ("ence", "", big), ("er", "", big), ("ic", "", big),
      ("able", "", big), ("ible", "", big), ("ant", "", big), ("ement", "", big), ("ment", "", big),
      ("ent", "", big), ("ion", "", lambda stem: big(stem) and stem[-1:] in ("s", "t")),
      ("ou", "", big), ("ism", "", big), ("ate", "", big), ("iti", "", big), ("ous", "", big),
      ("ive", "", big), ("ize", "", big),
  ])


def _step5(word: str) -> str:
  if word.endswith("e"):
    stem = word[:-1]
    m = _measure(stem)
    if m > 1 or (m == 1 and not _cvc(stem)):
      word = stem
  if word.endswith("ll") and _measure(word[:-1]) > 1:
    word = word[:-1]
  return word


@functools.lru_cache(maxsize=65536)
def stem(word: str) -> str:
  """The Porter stem of a word, lowercased: 'running' -> 'run', 'generously' -> 'gener'."""
  word = word.lower()
  if word in _IRREGULAR:
    return _IRREGULAR[word]
  if len(word) <= 2:
    return word
  for step in (_step1a, _step1b, _step1c, _step2, _step3, _step4, _step5):
    word = step(word)
  return word
