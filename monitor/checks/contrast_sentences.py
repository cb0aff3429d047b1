"""Evidence sentences for monitor/checks/contrast.py: split, tokenised and memoised per text.

This module owns the sentence and token patterns, the `_Sentence` record (with the source's
hedge on how many, read when asked for), the memo of split texts with their inverted index
(`sentence_index`: stem -> sentences, built once per text however many claims it is aligned
with), and the verbatim test (`claim_core`, `verbatim`) that returns a claim found whole in its
evidence at once.
"""

from __future__ import annotations

import re
from collections import OrderedDict

from monitor.text.words import STEMS

_TOKEN_RE = re.compile(r"[^\W_]+(?:['’][^\W_]+)?")
# the same tokens in a lower-cased ASCII text: letters and digits there are [a-z0-9]
_ASCII_TOKEN_RE = re.compile(r"[a-z0-9]+(?:'[a-z0-9]+)?")
# a sentence ends at [.!?] before white space (not inside "4.2" or "U.S.A") or at a line break
# ... or where a word of two lower-case letters or more runs into a capital ("diet.These": a
# missing space, not an abbreviation like "U.S.A" or "Ph.D"); closing quotes and brackets
# after the mark belong to the sentence it ends ('He asked "why not?" The crowd ...'), unless
# the sentence goes on in lower case ('"Did sales fall?" he asked', "(up 12%!) grew")
_CLOSERS = "\"'”’)]"
_CLOSERS_CLASS = _CLOSERS.replace("]", "\\]")
# what follows a mark that ends a sentence; `(?![a-z\s])` after `\s+` so that backtracking to
# fewer spaces cannot step over a line break to a lower-case word
_ENDS = rf"(?:\s|$|[{_CLOSERS_CLASS}]+(?:\s+(?![a-z\s])|$))"
# Runs of plain characters are taken whole and never given back (`++`): the engine's loop then
# turns once per run and per mark, not once per character (3x faster on documents). The
# matches are the same: the loop stops only before a line break, the end or a mark that ends
# a sentence, where the end alternative always matches, so nothing is ever backtracked into
# (tests/unit/monitor/checks/test_contrast_sentences.py compares it with the one-char loop).
_SENTENCE_RE = re.compile(
    rf"(?:[^.!?\n]++|(?<![a-z][a-z])[.!?](?!{_ENDS})"
    rf"|[.!?](?!{_ENDS}|[A-Z]))+(?:[.!?]+[{_CLOSERS_CLASS}]*|\n|$)"
)
# A source that says it does not know how many ("it wasn't clear how many were killed")
# supports no definite count ("the strike killed thousands"); a claim that hedges may stand.
_SOURCE_HEDGE_RE = re.compile(
    r"\b(?:unclear|unknown|uncertain|unconfirmed|not\s+(?:yet\s+|immediately\s+)?"
    r"(?:clear|known|certain|confirmed)|(?:is|was|are|were)n['’]t\s+(?:yet\s+|immediately\s+)?"
    r"(?:clear|known|certain|confirmed)|no\s+word\s+on)\s+(?:exactly\s+)?"
    r"(?:how\s+(?:many|much)|the\s+(?:exact\s+)?(?:number|toll|extent|amount|size|scale))\b",
    re.I,
)
# parts of the words every hedge above holds: the regex runs only on sentences that have one
_HEDGE_HINTS = ("lear", "nown", "ertain", "onfirm", "ord on")


class _Sentence:
    """One evidence sentence: its text, and on first use its lower-cased word tokens, their
    stems, the tokens' offsets (the aligned sentence's negation look, `_negated_region`) and
    the source's hedge on how many. Most sentences of a document are never aligned with a
    claim: the index posts their stems (`SentenceIndex`) from their tokens without building
    their stem lists, stem sets or hedges. `following`: the next sentence's text, for
    `next_hedged`."""

    __slots__ = ("_following", "_hedged", "_spans", "_stems", "_tokens", "text")

    def __init__(self, text: str, following: str = "", tokens: list[str] | None = None) -> None:
        self.text = text.strip()
        self._following = following
        self._tokens: list[str] | None = tokens  # `_tokens(text)` when the index has them
        self._stems: list[str] | None = None
        self._spans: list[tuple[int, int]] | None = None
        self._hedged: bool | None = None

    @property
    def tokens(self) -> list[str]:
        """The lower-cased word tokens."""
        if self._tokens is None:
            self._tokens = _tokens(self.text)
        return self._tokens

    @property
    def stems(self) -> list[str]:
        """The stem of each token, "" for a stopword."""
        if self._stems is None:
            self._stems = list(map(_STEM, self.tokens))
        return self._stems

    @property
    def stem_set(self) -> frozenset[str]:
        """The content stems (what the index posts)."""
        return frozenset(self.stems) - _NO_STEM

    @property
    def spans(self) -> list[tuple[int, int]]:
        """(start, end) of each token in `text`."""
        if self._spans is None:
            self._spans = [m.span() for m in _TOKEN_RE.finditer(self.text)]
        return self._spans

    @property
    def hedged(self) -> bool:
        """The source says it does not know how many."""
        if self._hedged is None:
            self._hedged = _hedges(self.text)
        return self._hedged

    @property
    def next_hedged(self) -> bool:
        """The next sentence hedges: a hedge may follow what it hedges."""
        return bool(self._following) and _hedges(self._following)


def _hedges(text: str) -> bool:
    return any(w in text for w in _HEDGE_HINTS) and bool(_SOURCE_HEDGE_RE.search(text))


# ASCII text lower-cased with every character that is no part of a token made a space: the
# tokens are then its words (split, one C call) unless an apostrophe joins two of them
_ASCII_WORDS = bytes(
    c if chr(c) in "abcdefghijklmnopqrstuvwxyz0123456789'" else c + 32 if 65 <= c <= 90 else 32
    for c in range(256)
)


def _tokens(text: str) -> list[str]:
    """The lower-cased word tokens of a sentence, as `_TOKEN_RE` finds them."""
    if text.isascii():
        # lower() maps only A-Z here: the same tokens as lower-casing each match of _TOKEN_RE
        spaced = text.encode("ascii").translate(_ASCII_WORDS).decode("ascii")
        return _ASCII_TOKEN_RE.findall(spaced) if "'" in spaced else spaced.split()
    return [m.group(0).lower() for m in _TOKEN_RE.finditer(text)]


# the same table keeping line breaks: the sentences of a text joined by "\n" (none holds one:
# a sentence ends at a line break, which strip() then cuts) are tokenised by one translation
# and cut apart again by one split, instead of four C calls per sentence
_ASCII_LINES = _ASCII_WORDS[:10] + b"\n" + _ASCII_WORDS[11:]


def _token_lists(texts: list[str]) -> list[list[str]]:
    """`_tokens` of each of `texts` (stripped sentences: no line break inside)."""
    if not texts:
        return []
    joined = "\n".join(texts)
    if not joined.isascii():
        return list(map(_tokens, texts))
    spaced = joined.encode("ascii").translate(_ASCII_LINES).decode("ascii").split("\n")
    if "'" not in joined:
        return list(map(str.split, spaced))
    return [_ASCII_TOKEN_RE.findall(line) if "'" in line else line.split() for line in spaced]


_NO_STEM = frozenset(("",))
_STEM = STEMS.__getitem__


class SentenceIndex:
    """The sentences of one evidence text and where each content stem occurs: stem -> the
    numbers of the sentences holding it, in order (an inverted index). A claim is aligned by
    looking up its own stems instead of intersecting every sentence with them (`align`).
    The `_Sentence` records are made on first use (`sentence`): most sentences of a document
    are never aligned with a claim, and the index needs only their tokens."""

    __slots__ = ("_all", "_made", "_token_lists", "postings", "texts")

    def __init__(self, texts: list[str]) -> None:
        self.texts = texts
        token_lists = _token_lists(texts)
        self._token_lists = token_lists
        self._made: list[_Sentence | None] = [None] * len(texts)
        self._all: list[_Sentence] | None = None
        postings: dict[str, list[int]] = {}
        get = postings.get
        for i, tokens in enumerate(token_lists):
            # no frozenset per sentence, no test per stem: stopwords are posted under "" and
            # dropped at the end; a plain dict, not a defaultdict: most stems of a document
            # are new when met, and a defaultdict's miss (__missing__, then the factory) cost
            # the compiled core ~4x a look-up and a store
            for key in set(map(_STEM, tokens)):
                found = get(key)
                if found is None:
                    postings[key] = [i]
                else:
                    found.append(i)
        postings.pop("", None)
        self.postings = postings

    def sentence(self, i: int) -> _Sentence:
        """Sentence number `i` (made once, with the tokens the index read)."""
        made = self._made[i]
        if made is None:
            texts = self.texts
            following = texts[i + 1] if i + 1 < len(texts) else ""
            made = _Sentence(texts[i], following, self._token_lists[i])
            self._made[i] = made
        return made

    @property
    def sentences(self) -> list[_Sentence]:
        """Every sentence, in order."""
        if self._all is None:
            self._all = [self.sentence(i) for i in range(len(self.texts))]
        return self._all

    def best(self, stems: frozenset[str]) -> tuple[int, int]:
        """(sentence number, shared stems) of the first sentence sharing most of `stems`
        (distinct stems, as `len(stems & sentence.stem_set)`); (-1, 0) when none shares any."""
        if not self.texts:
            return -1, 0
        postings = self.postings
        # a count per sentence in a list, not a dict of the sentences met: no hashing, and
        # max() and index() find the first sentence with the most in C (max without a
        # `default=`: a keyword argument sends the call through the slow argument parser)
        counts = [0] * len(self.texts)
        for key in stems:
            found = postings.get(key)
            if found is not None:
                for i in found:
                    counts[i] += 1
        best_n = max(counts)
        if best_n == 0:
            return -1, 0
        return counts.index(best_n), best_n


_SENTENCES_MAX = 512
_sentences: OrderedDict[str, SentenceIndex] = OrderedDict()


def clear_sentence_cache() -> None:
    """Forget every memoised sentence index (benchmarks: each round starts cold)."""
    _sentences.clear()


def sentence_index(text: str) -> SentenceIndex:
    """The sentences of an evidence text and their inverted index, memoised per text."""
    found = _sentences.get(text)
    if found is not None:
        _sentences.move_to_end(text)
        return found
    # the pattern has no groups: findall gives the sentences' texts without match objects
    texts = list(filter(None, map(str.strip, _SENTENCE_RE.findall(text))))
    index = SentenceIndex(texts)
    if len(text) <= 200_000:
        _sentences[text] = index
        if len(_sentences) > _SENTENCES_MAX:
            _sentences.popitem(last=False)
    return index


def _split(text: str) -> list[_Sentence]:
    return sentence_index(text).sentences


def sentences_of(text: str) -> list[_Sentence]:
    """The sentences of an evidence text (text, tokens, stems), memoised per text."""
    return _split(text)


def claim_core(claim: str) -> str:
    """The claim with its spacing normalised and its end punctuation cut (for `verbatim`)."""
    if claim.isascii() and claim.isprintable() and "  " not in claim:
        # single spaces only (printable ASCII has no other white space): splitting and joining
        # again would give the text back (two C scans instead of a string per word)
        return claim.strip(" ").rstrip(" .!?;:")
    return " ".join(claim.split()).rstrip(" .!?;:")


def verbatim(claim: str, evidence: str, core: str | None = None) -> bool:
    """The claim (end punctuation and spacing aside) is a whole sentence or clause run of the
    evidence: between the evidence's start or a sentence end and a sentence end or its end.
    `core`: claim_core(claim), when the caller has it."""
    if core is None:
        core = claim_core(claim)
    if len(core) < 2:
        return False
    if len(evidence) <= len(core) + 2 and evidence.strip().rstrip(".!?;") == core:
        return True  # a span citing exactly the sentence
    start = evidence.find(core)
    while start >= 0:
        end = start + len(core)
        after = evidence[end : end + 1]
        opens = _opens(evidence[:start].rstrip(), evidence[start : start + 1])
        if opens and (not after or after in ".!?;\n"):
            return True
        start = evidence.find(core, start + 1)
    return False


def _opens(before: str, first: str) -> bool:
    """A sentence or clause may start at `first` after `before` (the evidence up to a claim
    found in it, white space stripped): nothing, a sentence end with closing quotes and
    brackets after it when `first` is not a lower-case letter ('He asked "why not?" The
    crowd ...', as _SENTENCE_RE reads it), a bare sentence end, a line break, a colon or a
    semicolon."""
    if not before:
        return True
    if before[-1] in _CLOSERS:
        bare = before.rstrip(_CLOSERS)
        return bool(bare) and bare[-1] in ".!?" and not "a" <= first <= "z"
    return before[-1] in ".!?\n:;"
