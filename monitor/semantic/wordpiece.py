"""BERT's uncased WordPiece tokeniser, as all-MiniLM-L6-v2 was trained with, in pure Python.

The `tokenizers` package would do this, but it pulls in the Hugging Face hub client (a
downloader, and a `click` newer than faust-streaming accepts), and the semantic tier must
never download anything. The rules are those of the model's tokenizer.json (BertNormalizer with
clean_text, handle_chinese_chars, lowercase, accents stripped because lowercase is on and
strip_accents is unset; BertPreTokenizer; WordPiece with `##` continuations, words over 100
characters unknown; `[CLS] … [SEP]`). docs/semantic.md says how this was checked against
`tokenizers` on both dev sets.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Iterable, Sequence

MAX_WORD_CHARS = 100  # tokenizer.json: max_input_chars_per_word
PREFIX = "##"


def _is_control(ch: str) -> bool:
    if ch in "\t\n\r":
        return False
    return unicodedata.category(ch) in ("Cc", "Cf")


def _is_whitespace(ch: str) -> bool:
    return ch in " \t\n\r" or unicodedata.category(ch) == "Zs"


def _is_punctuation(ch: str) -> bool:
    cp = ord(ch)
    # BERT counts every non-alphanumeric ASCII symbol ($, ^, `) as punctuation, Unicode P* too
    if 33 <= cp <= 47 or 58 <= cp <= 64 or 91 <= cp <= 96 or 123 <= cp <= 126:
        return True
    return unicodedata.category(ch).startswith("P")


def _is_cjk(cp: int) -> bool:
    return (
        0x4E00 <= cp <= 0x9FFF
        or 0x3400 <= cp <= 0x4DBF
        or 0x20000 <= cp <= 0x2A6DF
        or 0x2A700 <= cp <= 0x2B73F
        or 0x2B740 <= cp <= 0x2B81F
        or 0x2B820 <= cp <= 0x2CEAF
        or 0xF900 <= cp <= 0xFAFF
        or 0x2F800 <= cp <= 0x2FA1F
    )


def normalise(text: str) -> str:
    """clean_text, spaces around CJK characters, accents stripped (NFD, marks dropped), lower."""
    out: list[str] = []
    for ch in text:
        cp = ord(ch)
        if cp == 0 or cp == 0xFFFD or _is_control(ch):
            continue
        if _is_whitespace(ch):
            out.append(" ")
        elif _is_cjk(cp):
            out.append(f" {ch} ")
        else:
            out.append(ch)
    decomposed = unicodedata.normalize("NFD", "".join(out))
    return "".join(c for c in decomposed if unicodedata.category(c) != "Mn").lower()


def pre_tokenise(text: str) -> list[str]:
    """Split on whitespace, then every punctuation character is a word of its own."""
    words: list[str] = []
    for chunk in text.split():
        current: list[str] = []
        for ch in chunk:
            if _is_punctuation(ch):
                if current:
                    words.append("".join(current))
                    current = []
                words.append(ch)
            else:
                current.append(ch)
        if current:
            words.append("".join(current))
    return words


class WordPiece:
    """Text → token ids of the model's vocabulary (ids are line numbers of vocab.txt)."""

    def __init__(self, vocab: Sequence[str]) -> None:
        self.vocab: dict[str, int] = {tok: i for i, tok in enumerate(vocab) if tok}
        for special in ("[UNK]", "[CLS]", "[SEP]", "[PAD]"):
            if special not in self.vocab:
                raise ValueError(f"vocabulary lacks {special}")
        self.unk = self.vocab["[UNK]"]
        self.cls = self.vocab["[CLS]"]
        self.sep = self.vocab["[SEP]"]
        self.pad = self.vocab["[PAD]"]
        self._memo: dict[str, tuple[int, ...]] = {}

    @classmethod
    def from_lines(cls, lines: Iterable[str]) -> WordPiece:
        return cls([line.rstrip("\r\n") for line in lines])

    def word_ids(self, word: str) -> tuple[int, ...]:
        """Greedy longest match first; a word with any unmatched rest is one [UNK]."""
        memo = self._memo.get(word)
        if memo is not None:
            return memo
        ids: list[int] = []
        if len(word) > MAX_WORD_CHARS:
            ids = [self.unk]
        else:
            start = 0
            while start < len(word):
                end = len(word)
                found = None
                while end > start:
                    piece = word[start:end] if start == 0 else PREFIX + word[start:end]
                    found = self.vocab.get(piece)
                    if found is not None:
                        break
                    end -= 1
                if found is None:
                    ids = [self.unk]
                    break
                ids.append(found)
                start = end
        result = tuple(ids)
        if len(self._memo) < 200_000:  # documents repeat words; the bound caps the memory
            self._memo[word] = result
        return result

    def encode(self, text: str, max_tokens: int = 256) -> list[int]:
        """`[CLS] pieces [SEP]`, pieces cut so the whole is at most `max_tokens` long."""
        if max_tokens < 2:
            raise ValueError("max_tokens must leave room for [CLS] and [SEP]")
        ids = [self.cls]
        room = max_tokens - 1
        for word in pre_tokenise(normalise(text)):
            ids.extend(self.word_ids(word))
            if len(ids) >= room:
                del ids[room:]
                break
        ids.append(self.sep)
        return ids
