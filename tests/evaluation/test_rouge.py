"""response_match_score's ROUGE-1 and its Porter stemmer, against hand-computed values and rouge-score."""

import pytest

from adk_nb.evaluation._porter import stem
from adk_nb.evaluation._rouge import rouge1, tokenize


@pytest.mark.parametrize("word,expected", [
    # Porter (1980)'s own examples, plus NLTK-mode departures rouge-score inherits.
    ("caresses", "caress"), ("ponies", "poni"), ("cats", "cat"), ("feed", "feed"), ("agreed", "agre"),
    ("plastered", "plaster"), ("motoring", "motor"), ("sing", "sing"), ("conflated", "conflat"),
    ("hopping", "hop"), ("falling", "fall"), ("filing", "file"), ("happy", "happi"), ("sky", "sky"),
    ("relational", "relat"), ("conditional", "condit"), ("generalization", "gener"), ("triplicate", "triplic"),
    ("electricity", "electr"), ("adjustment", "adjust"), ("controlling", "control"), ("roll", "roll"),
    ("ties", "tie"), ("dying", "die"), ("running", "run"), ("generously", "gener"),
])
def test_porter_stems_like_nltk(word, expected):
  assert stem(word) == expected


def test_tokenizer_lowercases_splits_and_stems_long_words_only():
  assert tokenize("The dogs RAN, running!") == ["the", "dog", "ran", "run"]
  assert tokenize("user_id=42") == ["user", "id", "42"]
  assert tokenize("東京の天気") == ["東", "京", "の", "天", "気"]
  assert tokenize("Ça va") == ["ça", "va"]  # non-ASCII words are kept whole, unstemmed


@pytest.mark.parametrize("candidate,reference,p,r,f", [
    ("the quick brown fox", "the quick brown dog", 0.75, 0.75, 0.75),
    ("running dogs", "the dog runs", 1.0, 2 / 3, 0.8),
    ("It is sunny", "It is sunny", 1.0, 1.0, 1.0),
    ("", "anything at all", 0.0, 0.0, 0.0),
    ("東京", "東京の天気", 1.0, 0.4, 2 * 0.4 / 1.4),
    ("a a a b", "a b b", 0.5, 2 / 3, 2 * 0.5 * (2 / 3) / (0.5 + 2 / 3)),  # clipped counts
])
def test_rouge1_hand_computed(candidate, reference, p, r, f):
  score = rouge1(candidate, reference)
  assert score.precision == pytest.approx(p)
  assert score.recall == pytest.approx(r)
  assert score.fmeasure == pytest.approx(f)


def test_rouge1_matches_values_from_adk_and_rouge_score():
  # Computed with google-adk 2.13's _calculate_rouge_1_scores (rouge-score 0.1.2 + nltk).
  assert rouge1("It is 21°C and sunny in Paris!", "The weather in Paris is sunny and 21 degrees.").fmeasure == \
      pytest.approx(0.7058823529411765)
  assert rouge1("I rolled a 17-sided die twice: 13 and 4.",
                "I have rolled a 17 sided die twice. The first roll was 13 and the second roll was 4.").fmeasure == \
      pytest.approx(0.6896551724137931)


def test_rouge1_matches_rouge_score_when_installed():
  rouge_scorer = pytest.importorskip("rouge_score.rouge_scorer")
  scorer = rouge_scorer.RougeScorer(["rouge1"], use_stemmer=True)
  for a, b in [("Generously generalized conditions", "general condition"), ("Hopping happily", "hop happy")]:
    assert rouge1(a, b).fmeasure == pytest.approx(scorer.score(b, a)["rouge1"].fmeasure)


def test_google_adks_private_rouge_helper_name_scores_the_same():
  from adk_nb.evaluation.final_response_match_v1 import _calculate_rouge_1_scores

  score = _calculate_rouge_1_scores("This is a test candidate response.", "This is a test reference.")
  assert (score.precision, score.recall, score.fmeasure) == pytest.approx((2 / 3, 4 / 5, 8 / 11))
  assert _calculate_rouge_1_scores("", "").fmeasure == 0
