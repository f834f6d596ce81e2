"""ROUGE-1 cross-checked on a varied corpus: against rouge-score (ASCII) and google-adk's own scorer (all).

The corpus is real prose (this repository's README, split into sentences) plus sentences in other
scripts (accents, German, Cyrillic, Greek, Arabic, Hindi, Thai, Chinese, Japanese, Korean, emoji,
units and numbers). Each sentence is paired with a perturbed copy of itself (words dropped and
shuffled, seeded) and with its neighbour, and the other-script sentences with each other, so scores
spread over the whole 0..1 range.
"""

from __future__ import annotations

import json
import random
import re
import subprocess
from pathlib import Path

import pytest

from adk_nb.evaluation._rouge import rouge1

REPO = Path(__file__).resolve().parents[2]

OTHER_SCRIPTS = [
    "Le café est fermé le dimanche, mais la crêperie reste ouverte jusqu'à 22 h.",
    "Die Straße nach München ist wegen Bauarbeiten gesperrt; nehmen Sie die Umleitung über Größenbach.",
    "Naïve coöperation and résumé writing are taught in the façade workshop.",
    "Поезд из Москвы прибывает в 9:45, платформа номер три.",
    "Η αποστολή θα φτάσει την Τρίτη στην Αθήνα.",
    "سيصل الطرد إلى القاهرة يوم الثلاثاء.",
    "नमस्ते, आपका ऑर्डर कल दिल्ली पहुँच जाएगा।",
    "สวัสดีครับ พัสดุของคุณจะมาถึงกรุงเทพพรุ่งนี้",
    "您的订单已经发货，预计明天到达北京。",
    "ご注文の商品は明日東京に到着する予定です。",
    "주문하신 상품은 내일 서울에 도착합니다.",
    "It is 21°C and sunny in Paris ☀️ — perfect for a 10 km run 🏃.",
    "Refund №42: €250.00 to order A1 (approved ✔) on 2026‑12‑01.",
    "Ｆｕｌｌｗｉｄｔｈ letters and ① ② ③ circled digits normalise to plain ones.",
]


def _prose(path: Path) -> str:
  """A markdown file's lines outside fenced code blocks."""
  lines, fenced = [], False
  for line in path.read_text(encoding="utf-8").splitlines():
    if line.lstrip().startswith("```"):
      fenced = not fenced
    elif not fenced:
      lines.append(line)
  return "\n".join(lines)


def _sentences() -> list[str]:
  text = "\n\n".join(_prose(REPO / name) for name in ("README.md", "tests/README.md", "bench/README.md"))
  found = [s.strip() for s in re.split(r"(?<=[.!?])\s+|\n\s*\n|\n[-|#]", text)]
  return [s for s in found if len(s.split()) >= 3] + OTHER_SCRIPTS


def _pairs() -> list[tuple[str, str]]:
  rng = random.Random(20261201)
  sentences = _sentences()
  pairs = []
  for i, sentence in enumerate(sentences):
    words = sentence.split()
    kept = [w for w in words if rng.random() > 0.3] or words[:1]
    rng.shuffle(kept)
    pairs.append((" ".join(kept), sentence))
    pairs.append((sentence, sentences[(i + 1) % len(sentences)]))
  pairs += [(a, b) for a in OTHER_SCRIPTS for b in OTHER_SCRIPTS]  # scripts against each other
  return pairs


def test_the_corpus_is_large_and_varied():
  pairs = _pairs()
  assert len(pairs) >= 1000
  assert sum(not (a + b).isascii() for a, b in pairs) >= 200
  scores = [rouge1(a, b).fmeasure for a, b in pairs]
  assert min(scores) == 0.0 and max(scores) == 1.0 and len({round(s, 2) for s in scores}) > 50


def test_ascii_pairs_score_as_rouge_score_does():
  rouge_scorer = pytest.importorskip("rouge_score.rouge_scorer", reason="rouge-score is in the dev extra")
  scorer = rouge_scorer.RougeScorer(["rouge1"], use_stemmer=True)
  ascii_pairs = [(a, b) for a, b in _pairs() if (a + b).isascii()]
  assert len(ascii_pairs) >= 1000
  differ = []
  for candidate, reference in ascii_pairs:
    ours = rouge1(candidate, reference)
    theirs = scorer.score(reference, candidate)["rouge1"]
    if (ours.precision, ours.recall, ours.fmeasure) != pytest.approx((theirs.precision, theirs.recall, theirs.fmeasure)):
      differ.append((candidate, reference, ours.fmeasure, theirs.fmeasure))
  assert differ == []


def test_every_pair_scores_as_google_adk_does():
  from tests.support import adk_python

  python = adk_python()
  if python is None:
    pytest.skip("google-adk is not installed (./dev test installs it into bench/.venv-adk)")
  if subprocess.run([python, "-c", "import rouge_score"], capture_output=True, timeout=120).returncode:
    pytest.skip("google-adk's scorer needs rouge-score in its venv (./dev test installs it)")
  pairs = _pairs()
  program = ("import json, sys\n"
             "from google.adk.evaluation.final_response_match_v1 import _calculate_rouge_1_scores as score\n"
             "print(json.dumps([score(c, r).fmeasure for c, r in json.load(sys.stdin)]))\n")
  done = subprocess.run([python, "-c", program], input=json.dumps(pairs), capture_output=True, text=True,
                        timeout=300)
  assert done.returncode == 0, done.stderr[-3000:]
  theirs = json.loads(done.stdout)
  differ = [(c, r, rouge1(c, r).fmeasure, f) for (c, r), f in zip(pairs, theirs)
            if rouge1(c, r).fmeasure != pytest.approx(f)]
  assert differ == []
