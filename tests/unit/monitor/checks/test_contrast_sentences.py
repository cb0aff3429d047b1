"""Evidence sentences and their inverted index (issue 27.3): postings and the alignment they
give, hand-computed on small texts, and against the scan of every sentence that the index
replaced (kept here as the reference, not in monitor/)."""

from __future__ import annotations

import re

from hypothesis import given, settings
from hypothesis import strategies as st

from monitor.checks.contrast import MIN_ALIGNED, _align
from monitor.checks.contrast_sentences import (
    _ASCII_TOKEN_RE,
    _CLOSERS_CLASS,
    _ENDS,
    _HEDGE_HINTS,
    _SENTENCE_RE,
    _SOURCE_HEDGE_RE,
    _TOKEN_RE,
    SentenceIndex,
    _Sentence,
    _token_lists,
    _tokens,
    sentence_index,
    sentences_of,
    verbatim,
)
from monitor.text.words import STEMS
from tests.conftest import dev_sentences

TEXT = "Paris is the capital of France. Berlin is the capital of Germany! Paris hosts the Louvre."


def test_postings_list_each_stem_s_sentences_in_order() -> None:
    index = sentence_index(TEXT)
    assert [s.text for s in index.sentences] == [
        "Paris is the capital of France.",
        "Berlin is the capital of Germany!",
        "Paris hosts the Louvre.",
    ]
    # "is", "the", "of" are stopwords; france -> franc, germany -> germani, hosts -> host
    assert index.postings == {
        "paris": [0, 2],
        "capital": [0, 1],
        "franc": [0],
        "berlin": [1],
        "germani": [1],
        "host": [2],
        "louvr": [2],
    }


def test_a_stem_twice_in_a_sentence_is_posted_once() -> None:
    index = sentence_index("Rain, rain and more rain. Sun.")
    assert index.postings["rain"] == [0]
    assert index.best(frozenset({"rain", "sun"})) == (0, 1)  # a tie: the first sentence


def test_best_counts_distinct_shared_stems_and_keeps_the_first_on_a_tie() -> None:
    index = sentence_index(TEXT)
    # sentence 0 holds paris and capital, sentence 1 capital and germani: 2 each, 0 first
    assert index.best(frozenset({"paris", "capital", "germani"})) == (0, 2)
    assert index.best(frozenset({"berlin", "capital"})) == (1, 2)
    assert index.best(frozenset({"paris", "host", "louvr"})) == (2, 3)
    assert index.best(frozenset({"rome"})) == (-1, 0)
    assert index.best(frozenset()) == (-1, 0)


def test_alignment_through_the_postings_hand_computed() -> None:
    aligned = _align(frozenset({"berlin", "capital", "germani"}), [TEXT])
    assert aligned is not None
    sentence, hits, share = aligned
    assert sentence.text == "Berlin is the capital of Germany!"
    # tokens: berlin(0) is(1) the(2) capital(3) of(4) germany(5)
    assert hits == [0, 3, 5]
    assert share == 1.0
    # 1 of 3 stems is under MIN_ALIGNED: no sentence is aligned
    assert _align(frozenset({"louvr", "rome", "madrid"}), [TEXT]) is None


def test_an_earlier_text_keeps_a_tie_a_later_one_wins_with_more() -> None:
    first, second = "Rome is old.", "Rome is old and grand."
    stems = frozenset({"rome", "old", "grand"})
    aligned = _align(stems, [first, second])
    assert aligned is not None and aligned[0].text == second  # 3 shared beat 2
    aligned = _align(frozenset({"rome", "old"}), [first, second])
    assert aligned is not None and aligned[0].text == first  # 2 and 2: the first text


def test_offsets_are_read_only_when_asked_for() -> None:
    sentence = _Sentence("  Revenue didn't grow in 2023.  ")
    assert sentence._spans is None
    assert sentence.tokens == ["revenue", "didn't", "grow", "in", "2023"]
    assert sentence.spans == [(0, 7), (8, 14), (15, 19), (20, 22), (23, 27)]
    assert sentence.text[8:14] == "didn't"


# --- against the reference ---------------------------------------------------------------------
def _scan_align(
    claim_stems: frozenset[str], texts: list[str]
) -> tuple[str, list[int], float] | None:
    """Reference: the alignment as first written, every sentence of every text intersected
    with the claim's stems, the first with the most kept."""
    best: _Sentence | None = None
    best_n = 0
    for text in texts:
        for sentence in sentences_of(text):
            n = len(claim_stems & sentence.stem_set)
            if n > best_n:
                best, best_n = sentence, n
    if best is None or best_n < MIN_ALIGNED * len(claim_stems):
        return None
    hits = [i for i, s in enumerate(best.stems) if s and s in claim_stems]
    return best.text, hits, best_n / len(claim_stems)


def _reference_sentence(text: str) -> tuple[list[str], list[tuple[int, int]], list[str]]:
    """Reference: tokens, offsets and stems as the sentence first computed them."""
    text = text.strip()
    found = [(m.group(0).lower(), m.start(), m.end()) for m in _TOKEN_RE.finditer(text)]
    tokens = [t for t, _, _ in found]
    return tokens, [(s, e) for _, s, e in found], [STEMS[t] for t in tokens]


VOCABULARY = [
    *("Paris", "paris", "capital", "capitals", "France", "grew", "growing", "not", "the"),
    *("revenue", "Revenue", "fell", "rose", "2023", "4.2", "U.S.", "don't", "it’s", "café"),
    *("İstanbul", "Straße", "x_y", "a", "of", ".", "!", "?", "\n", ",", ";", "Berlin"),
]
words_text = st.lists(st.sampled_from(VOCABULARY), max_size=30).map(" ".join)
joined_text = st.lists(st.sampled_from(VOCABULARY), max_size=30).map("".join)
any_text = st.one_of(words_text, joined_text, st.text(max_size=60))
claim_stems = st.frozensets(
    st.sampled_from(
        [STEMS[w.lower()] for w in VOCABULARY if STEMS[w.lower()] and w.isalpha()] + ["zzz"]
    ),
    max_size=6,
)


@settings(max_examples=300)
@given(st.lists(any_text, min_size=1, max_size=3), claim_stems)
def test_indexed_alignment_is_the_scan_of_every_sentence(
    texts: list[str], stems: frozenset[str]
) -> None:
    aligned = _align(stems, texts) if stems else None
    expected = _scan_align(stems, texts) if stems else None
    got = None if aligned is None else (aligned[0].text, aligned[1], aligned[2])
    assert got == expected


@settings(max_examples=300)
@given(any_text)
def test_sentence_tokens_offsets_and_stems_are_the_reference(text: str) -> None:
    sentence = _Sentence(text)
    tokens, spans, stems = _reference_sentence(text)
    assert sentence.tokens == tokens
    assert sentence.spans == spans
    assert sentence.stems == stems
    assert sentence.stem_set == frozenset(stems) - {""}


@given(st.text(alphabet="aAzZ09_'’-. é", max_size=40))
def test_the_ascii_token_pattern_on_lower_case_is_the_token_pattern(text: str) -> None:
    if text.isascii():
        expected = [m.group(0).lower() for m in _TOKEN_RE.finditer(text)]
        assert _ASCII_TOKEN_RE.findall(text.lower()) == expected
        assert _tokens(text) == expected  # contrasts tokenises an ASCII claim so


def test_the_index_is_memoised_per_text() -> None:
    assert sentence_index(TEXT) is sentence_index(TEXT)
    assert isinstance(sentence_index(TEXT), SentenceIndex)
    assert sentences_of(TEXT) is sentence_index(TEXT).sentences


def _texts(text: str) -> list[str]:
    return [s.text for s in sentences_of(text)]


def test_a_sentence_ends_at_a_terminator_before_a_closing_quote_or_bracket() -> None:
    # a quoted question or exclamation closes its sentence as a bare one does
    assert _texts('He asked "why not?" The crowd cheered.') == [
        'He asked "why not?"',
        "The crowd cheered.",
    ]
    assert _texts("She shouted “Stop!” Then she left.") == ["She shouted “Stop!”", "Then she left."]
    assert _texts("He said 'it is over.' Nobody answered.") == [
        "He said 'it is over.'",
        "Nobody answered.",
    ]
    assert _texts("Prices rose (see above.) Wages did not.") == [
        "Prices rose (see above.)",
        "Wages did not.",
    ]
    assert _texts('The last line read "Why?"') == ['The last line read "Why?"']


def test_a_quote_followed_by_more_of_the_sentence_does_not_end_it() -> None:
    # no white space after the closing mark: "?"- is no sentence end
    assert _texts('The slogan "Why not?"-style ads ran twice. They failed.') == [
        'The slogan "Why not?"-style ads ran twice.',
        "They failed.",
    ]
    assert _texts('Its name, "Go!", stuck.') == ['Its name, "Go!", stuck.']
    # ... nor does white space and a lower-case word after it: the sentence goes on
    assert _texts('"Did sales fall?" he asked. Nobody knew.') == [
        '"Did sales fall?" he asked.',
        "Nobody knew.",
    ]
    assert _texts("Revenue (up 12%!) grew in 2023.") == ["Revenue (up 12%!) grew in 2023."]
    assert not verbatim("he asked.", '"Did sales fall?" he asked.')


_LOWER = st.text(alphabet="abcdefgh", min_size=1, max_size=6)
_SENTENCE = st.tuples(
    st.lists(_LOWER, min_size=1, max_size=5),
    st.sampled_from([".", "!", "?", "?!", "..."]),
    st.sampled_from(["", '"', "”", "'", "’", ")", "]", '")']),
).map(lambda p: "A " + " ".join(p[0]) + p[1] + p[2])


@given(st.lists(_SENTENCE, min_size=1, max_size=5), st.sampled_from([" ", "  ", "\n", " \n "]))
def test_sentences_ending_in_terminators_and_closers_come_back_whole(
    sentences: list[str], gap: str
) -> None:
    assert _texts(gap.join(sentences)) == sentences


def test_a_sentence_after_a_closing_quote_or_bracket_is_verbatim() -> None:
    evidence = 'He asked "why not?" The crowd cheered. Prices rose (see above.) Wages fell.'
    assert verbatim("The crowd cheered.", evidence)
    assert verbatim("Wages fell", evidence)
    # a quote or bracket after no sentence end opens no sentence
    assert not verbatim("cheered loudly", 'They "sang" cheered loudly.')
    assert not verbatim("wages fell", "Prices rose (a lot) wages fell.")


# the sentence pattern as first written: one plain character per turn of the loop
_ONE_CHAR_SENTENCE_RE = re.compile(
    rf"(?:[^.!?\n]|(?<![a-z][a-z])[.!?](?!{_ENDS})"
    rf"|[.!?](?!{_ENDS}|[A-Z]))+(?:[.!?]+[{_CLOSERS_CLASS}]*|\n|$)"
)
_SENTENCE_CHARS = "aZ b.!?\n\"'”’)]é \t"


@settings(max_examples=500)
@given(st.one_of(st.text(alphabet=_SENTENCE_CHARS, max_size=40), any_text))
def test_the_sentence_pattern_takes_runs_whole_with_the_same_matches(text: str) -> None:
    expected = [m.span() for m in _ONE_CHAR_SENTENCE_RE.finditer(text)]
    assert [m.span() for m in _SENTENCE_RE.finditer(text)] == expected


def _reference_index(text: str) -> tuple[list[str], list[bool], list[bool], dict[str, list[int]]]:
    """Reference: the sentences, hedges and postings as first built, every sentence's stem set
    and hedge read up front and the next sentence's hedge copied back."""
    texts = [m.group(0).strip() for m in _ONE_CHAR_SENTENCE_RE.finditer(text)]
    texts = [t for t in texts if t]
    hedged = [any(w in t for w in _HEDGE_HINTS) and bool(_SOURCE_HEDGE_RE.search(t)) for t in texts]
    postings: dict[str, list[int]] = {}
    for i, t in enumerate(texts):
        _, _, stems = _reference_sentence(t)
        for key in frozenset(stems) - {""}:
            postings.setdefault(key, []).append(i)
    return texts, hedged, [*hedged[1:], False][: len(hedged)], postings


_HEDGE_TEXT = st.lists(
    st.sampled_from(
        [*VOCABULARY, "It was unclear how many died.", "not known how many", "the toll", "wasn't"]
    ),
    max_size=20,
).map(" ".join)


@settings(max_examples=300)
@given(st.one_of(any_text, _HEDGE_TEXT))
def test_the_index_and_the_lazy_hedges_are_the_reference(text: str) -> None:
    texts, hedged, next_hedged, postings = _reference_index(text)
    index = sentence_index(text)
    assert [s.text for s in index.sentences] == texts
    assert [s.hedged for s in index.sentences] == hedged
    assert [s.next_hedged for s in index.sentences] == next_hedged
    assert index.postings == postings


def test_a_hedge_in_the_next_sentence_is_read_from_its_text() -> None:
    index = sentence_index("Thousands died in the strike. It was unclear how many were killed.")
    first, second = index.sentences
    assert first._hedged is None  # nothing read while indexing
    assert (first.hedged, first.next_hedged) == (False, True)
    assert (second.hedged, second.next_hedged) == (True, False)


# --- the index tokenises a text's sentences at once ----------------------------------------
def _check_token_lists(texts: list[str]) -> None:
    assert _token_lists(texts) == [_tokens(t) for t in texts]


@settings(max_examples=300)
@given(st.lists(any_text.map(str.strip).filter(lambda t: "\n" not in t), max_size=5))
def test_the_token_lists_of_joined_sentences_are_each_sentence_s_tokens(texts: list[str]) -> None:
    _check_token_lists(texts)


def test_the_token_lists_of_the_dev_sentences_are_each_sentence_s_tokens() -> None:
    texts = [s for s in (t.strip() for t in dev_sentences()) if s and "\n" not in s]
    for start in range(0, len(texts), 50):
        _check_token_lists(texts[start : start + 50])


def test_an_index_made_sentence_has_the_tokens_the_index_read() -> None:
    index = sentence_index("It wasn't raining. Don't go out! Rain fell.")
    assert index.best(frozenset({"rain"})) == (0, 1)
    assert [s.tokens for s in index.sentences] == [
        ["it", "wasn't", "raining"],
        ["don't", "go", "out"],
        ["rain", "fell"],
    ]
    assert index.sentence(2) is index.sentences[2]
