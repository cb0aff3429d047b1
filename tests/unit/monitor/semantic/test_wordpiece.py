"""The pure WordPiece tokeniser: BERT uncased rules, hand-made vocabularies, the model's vocab."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from monitor.semantic.wordpiece import WordPiece, normalise, pre_tokenise

VOCAB_FILE = (
    Path(__file__).resolve().parents[4] / "agents" / "semantic" / "data" / "minilm-vocab.txt"
)
TINY = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "un", "##aff", "##able", "runn", "##ing", "run", ","]


def test_normalise_lowercases_strips_accents_and_control_characters() -> None:
    assert normalise("Café\u0000 NAÏVE\u200b\tx") == "cafe naive x"


def test_normalise_spaces_cjk_characters() -> None:
    assert normalise("ab中文") == "ab 中  文 "


def test_pre_tokenise_makes_each_punctuation_character_a_word() -> None:
    assert pre_tokenise("isn't 3.5km, (ok)$") == [
        "isn", "'", "t", "3", ".", "5km", ",", "(", "ok", ")", "$"
    ]  # fmt: skip


def test_greedy_longest_match_with_continuations() -> None:
    wp = WordPiece(TINY)
    # un + ##aff + ##able; runn + ##ing (not run + ...: longest first); "," alone
    assert wp.encode("Unaffable running,") == [2, 4, 5, 6, 7, 8, 10, 3]


def test_a_word_with_an_unmatched_rest_is_one_unknown() -> None:
    wp = WordPiece(TINY)
    assert wp.encode("unx run") == [2, 1, 9, 3]
    assert wp.encode("r" * 101) == [2, 1, 3]  # over 100 characters


def test_truncation_keeps_cls_and_sep() -> None:
    wp = WordPiece(TINY)
    assert wp.encode("run run run run", max_tokens=4) == [2, 9, 9, 3]
    with pytest.raises(ValueError):
        wp.encode("run", max_tokens=1)


def test_a_vocabulary_without_special_tokens_is_refused() -> None:
    with pytest.raises(ValueError, match="UNK"):
        WordPiece(["[PAD]", "a"])


@pytest.fixture(scope="module")
def model_vocab() -> WordPiece:
    with VOCAB_FILE.open(encoding="utf-8") as fh:
        return WordPiece.from_lines(fh)


def test_the_model_vocabulary_gives_berts_ids(model_vocab: WordPiece) -> None:
    # ids as the `tokenizers` package gives them with the model's tokenizer.json
    assert model_vocab.encode("Hello, world!") == [101, 7592, 1010, 2088, 999, 102]
    assert model_vocab.encode("unaffable Café") == [101, 14477, 20961, 3468, 7668, 102]
    assert model_vocab.encode("Paris isn't 3.5km") == [
        101, 3000, 3475, 1005, 1056, 1017, 1012, 1019, 22287, 102
    ]  # fmt: skip


@given(st.text(max_size=300), st.integers(min_value=2, max_value=40))
def test_encoding_is_framed_and_bounded(text: str, max_tokens: int) -> None:
    wp = WordPiece(TINY)
    ids = wp.encode(text, max_tokens)
    assert ids[0] == 2 and ids[-1] == 3
    assert 2 <= len(ids) <= max_tokens
    assert all(0 <= i < len(TINY) for i in ids)
