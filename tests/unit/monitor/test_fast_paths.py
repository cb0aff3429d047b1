"""The speed shortcuts of the checking core agree with the plain definitions they replace.

Each fast path (byte-table translation, memoised stems, digit-first number patterns, lazily built
evidence sets, substring bigram look-ups, set-based claim terms, early exits in claim splitting)
is checked against a straightforward reference written here, on generated text.
"""

from __future__ import annotations

import json
import re
from itertools import pairwise

from hypothesis import given, settings
from hypothesis import strategies as st

from monitor.check import check_bytes
from monitor.checks.claims import has_words, is_claim
from monitor.checks.evidence import (
    GENERIC_CODE_WORDS,
    SETS_AFTER,
    EvidenceIndex,
    claim_terms,
    shared_bigrams,
)
from monitor.config.options import CheckOptions
from monitor.records.models import Verdict
from monitor.text.numbers import _SCALE_TAIL, LENIENT_NUMBER_RE, NUMBER_RE, numbers, written_in
from monitor.text.words import SEPARATORS, STEMS, STOPWORDS, _stem, translator, words

# Characters that exercise every branch: ASCII letters and punctuation, digits, separators,
# sentence marks, NUL, non-ASCII letters whose lower case differs in length, CJK, odd spaces.
ALPHABET = "aAbZz09_-.,;:!?'\"()[]`$%/\n\t \x00\x1cİßÉé中ϒK\u00a0\u2028“”–"
texts = st.text(alphabet=ALPHABET, max_size=80)
WORDS = [
    *("The", "revenue", "Revenue", "grew", "five", "Five", "1,200", "3.14", "5.6", "million"),
    *("2.345k", "U.S.", "value", "valued", "validate_token", "camelCase", "PascalCase", "`run`"),
    *("2018–19", "COVID-19", "Windows", "10", "April", "9", "of", "the", ".", ";", "\n"),
]
sentences = st.lists(st.sampled_from(WORDS), max_size=14).map(" ".join)
some_text = st.one_of(texts, sentences)

# The number patterns as first written: look-behinds first (slower, same matches).
OLD_NUMBER_RE = re.compile(
    r"(?<![\w.])(?<![A-Za-z]-)(\d{1,3}(?:,\d{3})+|\d+)(\.\d+)?" + _SCALE_TAIL + r"(?![\w])(?!\.\d)"
)
OLD_LENIENT_RE = re.compile(r"(?<![\w.])(\d{1,3}(?:,\d{3})+|\d+)(\.\d+)?" + _SCALE_TAIL)
PASSAGE_TABLE = {**SEPARATORS, **{ord(c): "\x00" for c in ".!?;\n"}}


@given(some_text)
def test_byte_table_translation_is_str_translate(text: str) -> None:
    assert translator(SEPARATORS)(text) == text.translate(SEPARATORS)
    assert translator(SEPARATORS, lower=True)(text) == text.lower().translate(SEPARATORS)
    assert translator(PASSAGE_TABLE, lower=True)(text) == text.lower().translate(PASSAGE_TABLE)


@given(st.text(alphabet="abcdeilnorstuyz0İé", max_size=14))
def test_memoised_stems_are_the_stemmer(word: str) -> None:
    assert STEMS[word] == ("" if word in STOPWORDS else _stem(word))


@given(some_text)
def test_digit_first_number_patterns_match_like_the_look_behind_ones(text: str) -> None:
    for new, old in ((NUMBER_RE, OLD_NUMBER_RE), (LENIENT_NUMBER_RE, OLD_LENIENT_RE)):
        got = [(m.span(), m.groups()) for m in new.finditer(text)]
        assert got == [(m.span(), m.groups()) for m in old.finditer(text)]


def _passages(text: str) -> list[list[str]]:
    """Reference: content stems of each passage, as the index first computed them."""
    out = []
    for chunk in text.lower().translate(PASSAGE_TABLE).split("\x00"):
        stems = [s for s in (STEMS[t] for t in chunk.split()) if s]
        if stems:
            out.append(stems)
    return out


@settings(max_examples=300)
@given(some_text, some_text, some_text)
def test_lazy_evidence_sets_and_bigram_look_ups(text: str, other: str, claim: str) -> None:
    terms = claim_terms(claim)
    # 40 more distinct stems: a long text, whose bigrams are found by substring look-ups
    long_text = text + "\n" + " ".join(f"w{i}x" for i in range(40)) + " " + claim
    long_passages = _passages(long_text)
    long_bigrams = {" ".join(p) for ps in long_passages for p in pairwise(ps)}
    assert EvidenceIndex(long_text).bigrams_found(terms) == terms.bigrams & long_bigrams
    index, passages = EvidenceIndex(text), _passages(text)
    bigrams = {" ".join(p) for ps in passages for p in pairwise(ps)}
    assert index.stems == {s for ps in passages for s in ps}
    assert index.bigrams_found(terms) == terms.bigrams & bigrams
    assert index.passage_stems == tuple(map(frozenset, passages))
    assert index.passage_sizes == tuple(map(len, passages))
    assert index.bigrams == bigrams
    both = [EvidenceIndex(text), EvidenceIndex(other)]
    union = bigrams | {" ".join(p) for ps in _passages(other) for p in pairwise(ps)}
    assert shared_bigrams(terms, both) == len(terms.bigrams & union)


def test_bigram_look_ups_in_a_long_text_stay_inside_passages() -> None:
    text = "Revenue grew strongly in the north. Margins fell; costs rose sharply. " * 4
    index = EvidenceIndex(text)
    assert len(index.stems) < 32  # short: set path; make it long enough for look-ups
    long_index = EvidenceIndex(text + " ".join(f"word{i} term{i}" for i in range(40)))
    terms = claim_terms("Revenue grew, north margins fell and costs rose")
    assert long_index.bigrams_found(terms) == {"revenu grew", "margin fell", "cost ros"}
    assert "north margin" in terms.bigrams  # spans a sentence end in the evidence: not found


@given(sentences)
def test_claim_terms_follow_their_definition(text: str) -> None:
    tokens = words(text)
    kept = [
        (t, STEMS[t])
        for t in tokens
        if STEMS[t] and not t.isdecimal() and t not in GENERIC_CODE_WORDS
    ]
    terms = claim_terms(text)
    assert terms.terms == {key for _, key in kept}
    assert terms.bigrams == {" ".join(p) for p in pairwise(s for s in map(STEMS.get, tokens) if s)}
    assert terms.heavy >= terms.names and terms.terms >= terms.heavy


@given(st.text(alphabet=" ?!.\"'”’)]*_~\n\tab\u00a0>#", max_size=20))
def test_question_and_lead_checks_match_their_patterns(body: str) -> None:
    lead = re.sub(r"^[\s>*_~]+", "", body)
    question = re.sub(r"[\s\"'”’)\]*_~]+$", "", lead).endswith("?")
    reference = bool(lead) and not lead.startswith(("#", "```", "~~~")) and not question
    assert is_claim(body, 0) == (reference and has_words(lead, 0))


@given(st.text(alphabet="ab1 —-.,!", max_size=20), st.integers(-1, 5))
def test_word_count_fast_path(text: str, minimum: int) -> None:
    count = sum(1 for t in text.split() if t.isalnum() or t.strip(".,!—-"))
    tokens = text.split()
    expected = len(tokens) >= minimum and count >= max(minimum, 1)
    assert has_words(text, minimum) == expected


def test_a_figure_with_decimals_and_a_scale_is_checked_not_crashed() -> None:
    # "2.345k" has a unit of 1 (0.001 x 1000): the written-form look-up once called int("2.345")
    (mention,) = numbers("Sales reached 2.345k units")
    assert mention.unit == 1.0
    assert written_in(mention, "sales of 2.345k units")
    assert not written_in(mention, "sales of 2,345 units")
    event = {
        "event_id": "e1",
        "answer": "Sales reached 2.345k units last year [1].",
        "documents": [{"id": "1", "text": "Sales reached 2,345 units last year."}],
    }
    verdict = check_bytes(json.dumps(event).encode(), CheckOptions())
    assert isinstance(verdict, Verdict)
    assert verdict.claims[0].support.verdict == "supported"  # 2,345 is 2.345k as a figure


@settings(max_examples=200)
@given(some_text, st.lists(some_text, min_size=1, max_size=6))
def test_a_text_asked_often_answers_from_its_sets_as_it_did_by_look_ups(
    text: str, claims: list[str]
) -> None:
    """Past SETS_AFTER look-ups a text answers from its stem and bigram sets: the answers
    are the ones a fresh index (flat stems, substring look-ups) gives."""
    often = EvidenceIndex(text)
    for claim in claims * (SETS_AFTER + 1):
        terms = claim_terms(claim)
        fresh = EvidenceIndex(text)
        assert often.stems_found(terms.terms) == fresh.stems_found(terms.terms)
        assert often.bigrams_found(terms) == EvidenceIndex(text).bigrams_found(terms)
    assert often._stems is not None and often._bigrams is not None  # the sets were built
