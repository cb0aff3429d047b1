"""Sentence and block segmentation of an answer, with offsets into the answer.

Rules (seed 001 §6): markdown blocks first (fenced code, headers, list items, table rows, blank
lines), then sentence ends inside each block. A period does not end a sentence after a known
abbreviation, an initial or a dotted acronym (unless an obvious sentence opener follows), inside a
number or file name (no space follows), inside brackets or inline code, or before a lower-case
word. Citations right after the final period belong to the sentence they follow.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Sequence
from typing import Literal

from monitor.records.record import record
from monitor.text.words import STOPWORDS, wordset

BlockKind = Literal["text", "header", "code", "empty_item", "table"]


@record
class Sentence:
    start: int
    end: int
    kind: BlockKind


_FENCE_RE = re.compile(
    r"^[ \t]*(`{3,}|~{3,})[^\n]*\n?(?:.*?\n[ \t]*\1[ \t]*(?:\n|$)|.*\Z)", re.M | re.S
)
_HEADER_RE = re.compile(r"[ \t]{0,3}#{1,6}(?:[ \t]|$)")
_SETEXT_RE = re.compile(r"[ \t]*(?:=+|-{3,}|\*{3,}|_{3,})[ \t]*$")
# a list item's marker, with a task-list box (`- [ ] `, `- [x] `) when there is one
_ITEM_RE = re.compile(
    r"[ \t]*(?:[-*+•‣◦]|\d{1,3}[.)]|[A-Za-z][.)](?=[ \t]))[ \t]+(?P<task>\[[ xX]\](?:[ \t]+|$))?"
)
_EMPTY_ITEM_RE = re.compile(r"[ \t]*(?:[-*+•]|\d{1,3}[.)])[ \t]*(?:\[[ xX]\][ \t]*)?$")
_TABLE_RE = re.compile(r"[ \t]*\|")
_BRACKET_RE = re.compile(r"\[[^\[\]\n]{0,300}\]")
_INLINE_CODE_RE = re.compile(r"`[^`\n]+`")
_URL_RE = re.compile(r"\b(?:https?|ftp)://[^\s\]\)>]+")
_QUOTE_RE = re.compile(r"\"[^\"\n]{1,400}\"|“[^”\n]{1,400}”")
_TERMINATOR_RE = re.compile(r"[.!?]+[\"'”’)\]]*")

# Lower-case forms, without the final period. Titles and the like never end a sentence before a
# name; the rest (etc., Inc.) may, which the opener check below handles.
ABBREVIATIONS: frozenset[str] = wordset(
    """mr mrs ms dr prof sr jr st mt gen col capt lt sgt rev hon gov sen rep pres messrs
    no nos vol vols fig figs pp p vs v cf al approx c ca est etc eg ie viz incl dept univ
    inc co corp ltd llc bros assn intl natl jan feb mar apr jun jul aug sep sept oct nov dec
    mon tue wed thu fri sat sun ave blvd rd hwy ft sq min max avg nb op ed eds ref refs sec
    art ch chap para fn ibid esp govt misc orig appt assoc bldg cont div mfg mgmt pct qty std
    tel temp wk wks yr yrs hr hrs mo mos depts approx ext"""
)
# Words that open a new sentence after an ambiguous "etc." or "U.S.".
OPENERS: frozenset[str] = wordset(
    """the this these that those it its in on at for however but and also additionally
    moreover furthermore therefore thus a an as he she they we there our their his her
    when while if although after before since during according overall finally"""
)


def _protected(text: str, extra: Sequence[tuple[int, int]]) -> list[tuple[int, int]]:
    spans = list(extra)
    # each scan only when its opening character is in the text at all (a URL scan tries every
    # position of the answer otherwise); each scan's spans come sorted, so the sort below only
    # merges runs (linear even for 100,000 citations)
    if "[" in text:
        spans.extend([m.span() for m in _BRACKET_RE.finditer(text)])
    if "`" in text:
        spans.extend([m.span() for m in _INLINE_CODE_RE.finditer(text)])
    if "://" in text:
        spans.extend([m.span() for m in _URL_RE.finditer(text)])
    if '"' in text or "“" in text:
        # the closing quote's own last character may still end the sentence: "... Dead."
        spans.extend([(m.start(), m.end() - 2) for m in _QUOTE_RE.finditer(text)])
    spans.sort()
    merged: list[tuple[int, int]] = []
    for start, end in spans:
        if merged and start <= merged[-1][1]:
            merged[-1] = (merged[-1][0], max(merged[-1][1], end))
        else:
            merged.append((start, end))
    return merged


class _Ranges:
    """Sorted disjoint [start, end) ranges with O(log n) membership."""

    def __init__(self, ranges: list[tuple[int, int]]) -> None:
        self.ranges = ranges
        self.starts = [r[0] for r in ranges]

    def containing(self, pos: int) -> tuple[int, int] | None:
        i = bisect.bisect_right(self.starts, pos) - 1
        if i >= 0 and self.ranges[i][0] <= pos < self.ranges[i][1]:
            return self.ranges[i]
        return None

    def starting_at(self, pos: int) -> tuple[int, int] | None:
        i = bisect.bisect_left(self.starts, pos)
        if i < len(self.starts) and self.starts[i] == pos:
            return self.ranges[i]
        return None


def _word_before(text: str, pos: int, floor: int) -> str:
    k = pos
    while k > floor and not text[k - 1].isspace() and text[k - 1] not in "([{\"“'":
        k -= 1
    return text[k:pos]


_NONSPACE_RE = re.compile(r"\S+")


def _next_word(text: str, pos: int, end: int) -> str:
    m = _NONSPACE_RE.match(text, pos, end)
    return m.group(0).strip("\"“'(*_") if m else ""


def _is_abbreviation(token: str) -> bool:
    bare = token.lstrip("([\"'“*_")
    if not bare:
        return False
    if len(bare) == 1 and bare.isupper():
        return True  # an initial: "Mark T. Vande Hei"
    if "." in bare and re.fullmatch(r"(?:[A-Za-z]\.)+[A-Za-z]", bare):
        return True  # U.S, e.g, D.C
    return bare.lower() in ABBREVIATIONS


def _maybe_abbreviation(token: str) -> bool:
    """Dotted or non-alphabetic tokens ("i.e", "No.5") before "." and a lower-case word."""
    bare = token.strip("([\"'“*_")
    if bare.lower() in STOPWORDS:
        return False  # "with.", "a.": a real word, so a real sentence end
    return "." in bare or not bare.isalpha()


_ENDS = ".!?"
_CLOSERS = "\"'”’)]"


def _terminators(text: str, start: int, end: int) -> list[tuple[int, int, int]]:
    """The matches of `_TERMINATOR_RE` in text[start:end] as (start, end of the [.!?] run, end),
    by str.find: the regex tried its character set at every position of the answer."""
    out: list[tuple[int, int, int]] = []
    period = text.find(".", start, end)
    bang = text.find("!", start, end)
    query = text.find("?", start, end)
    pos = start
    while True:
        if 0 <= period < pos:
            period = text.find(".", pos, end)
        if 0 <= bang < pos:
            bang = text.find("!", pos, end)
        if 0 <= query < pos:
            query = text.find("?", pos, end)
        first = period
        if bang >= 0 and (first < 0 or bang < first):
            first = bang
        if query >= 0 and (first < 0 or query < first):
            first = query
        if first < 0:
            return out
        k = first + 1
        while k < end and text[k] in _ENDS:
            k += 1
        run_end = k
        while k < end and text[k] in _CLOSERS:
            k += 1
        out.append((first, run_end, k))
        pos = k


def _split_block(
    text: str, start: int, end: int, protected: _Ranges, out: list[tuple[int, int]]
) -> None:
    sent_start = start
    starts, ranges = protected.starts, protected.ranges
    for mark, run_end, after in _terminators(text, start, end):
        if after < end and not text[after].isspace():
            continue  # 3.14, report.pdf, "a.b": no space, no sentence end
        i = bisect.bisect_right(starts, mark) - 1
        if i >= 0 and mark < ranges[i][1]:
            continue  # inside brackets, inline code, a URL or a quotation
        nxt = after
        while nxt < end and text[nxt].isspace():
            nxt += 1
        # citations written after the period still belong to this sentence
        sent_end = after
        while nxt < end and text[nxt] == "[" and (bracket := protected.starting_at(nxt)):
            sent_end = nxt = min(bracket[1], end)
            while nxt < end and text[nxt].isspace():
                nxt += 1
        if nxt >= end:
            continue  # the block's end closes the sentence anyway
        # the word that follows is read only when the decision needs it
        if mark > 0 and text[mark - 1] == "]":
            pass  # a citation closes its sentence whatever follows
        elif run_end - mark == 1 and text[mark] == ".":  # a lone period, closing marks aside
            token = _word_before(text, mark, sent_start)
            if _is_abbreviation(token):
                following = _next_word(text, nxt, end)
                if following.lower().strip(",;:") not in OPENERS:
                    continue
                if following[:1].islower() and _maybe_abbreviation(token):
                    continue
            elif _maybe_abbreviation(token) and _next_word(text, nxt, end)[:1].islower():
                continue  # "approx. five", "Corp. and": a shortened word, not a sentence end
        elif _next_word(text, nxt, end)[:1].islower():
            continue  # "Really? no" or "wow!" inside a sentence
        out.append((sent_start, sent_end))
        sent_start = nxt
    out.append((sent_start, end))


def _lines(text: str, start: int, end: int) -> list[tuple[int, int]]:
    lines = []
    pos = start
    while pos < end:
        nl = text.find("\n", pos, end)
        line_end = end if nl < 0 else nl
        lines.append((pos, line_end))
        pos = line_end + 1
    return lines


def _title_like(line: str) -> bool:
    """Short, unpunctuated, and not cut after a function word ("... in the" wraps a sentence)."""
    words = line.split()
    if not words or len(words) > 8 or words[-1][-1] in ".,;:!?-":
        return False
    return words[-1].lower() not in STOPWORDS


def split_sentences(text: str, citation_spans: Sequence[tuple[int, int]] = ()) -> list[Sentence]:
    """Every sentence-like unit of `text`, in order, whitespace-trimmed, never overlapping."""
    protected = _Ranges(_protected(text, citation_spans))
    raw: list[tuple[int, int, BlockKind]] = []
    pos = 0
    if "```" in text or "~~~" in text:  # a fence needs three of either
        for fence in _FENCE_RE.finditer(text):
            _split_prose(text, pos, fence.start(), protected, raw)
            raw.append((fence.start(), fence.end(), "code"))
            pos = fence.end()
    if pos == 0 and "\n" not in text and text.strip() and not _may_be_marked(text):
        # one unmarked line (most answers): _split_prose's line walk would make it one block
        spans: list[tuple[int, int]] = []
        _split_block(text, 0, len(text), protected, spans)
        raw.extend([(s, e, "text") for s, e in spans])
    else:
        _split_prose(text, pos, len(text), protected, raw)
    out = []
    for s, e, kind in raw:
        while s < e and text[s].isspace():
            s += 1
        while e > s and text[e - 1].isspace():
            e -= 1
        if s < e:
            out.append(Sentence(s, e, kind))
    return out


# The characters a marked line (header, rule, list item, table row) shows first, after spaces
# and tabs: every pattern of _split_prose's chain starts with [ \t]* and then one of these
_MARK_FIRST = "#=-*_+•‣◦|"


def _may_be_marked(line: str) -> bool:
    """False only when none of _HEADER_RE, _SETEXT_RE, _EMPTY_ITEM_RE, _TABLE_RE and _ITEM_RE
    can match `line` (a line with more than spaces and tabs): its first other character is no
    marker, no digit (isdigit holds every \\d), and no "." or ")" follows it (an "a)" item)."""
    body = line.lstrip(" \t")
    return body[0] in _MARK_FIRST or body[0].isdigit() or body[1:2] in (".", ")")


def _split_prose(
    text: str, start: int, end: int, protected: _Ranges, out: list[tuple[int, int, BlockKind]]
) -> None:
    block_start: int | None = None
    prev_line, prev_start = "", -1

    def flush(block_end: int) -> None:
        nonlocal block_start
        if block_start is not None:
            spans: list[tuple[int, int]] = []
            _split_block(text, block_start, block_end, protected, spans)
            out.extend((s, e, "text") for s, e in spans)
        block_start = None

    for ls, le in _lines(text, start, end):
        line = text[ls:le]
        blank = not line.strip()
        # prose lines (most) can match none of the five patterns: none is run on them (each
        # match call sets up the regex engine's state, five times a line)
        marked = not blank and _may_be_marked(line)
        if blank:
            flush(ls)
        elif marked and (_HEADER_RE.match(line) or (prev_line.strip() and _SETEXT_RE.match(line))):
            flush(ls)
            out.append((ls, le, "header"))
        elif marked and _EMPTY_ITEM_RE.match(line):
            flush(ls)
            out.append((ls, le, "empty_item"))
        elif marked and _TABLE_RE.match(line):
            flush(ls)
            out.append((ls, le, "table"))
        elif marked and (item := _ITEM_RE.match(line)):
            flush(ls)
            block_start = ls + item.end()
            if item.group("task"):
                flush(le)  # a task is one line: the next line never continues it
        elif block_start is None:
            block_start = ls
        elif block_start == prev_start and _title_like(prev_line) and line.lstrip()[:1].isupper():
            # "Summary\nRevenue grew ...": a one-line title is a header, not part of a sentence
            out.append((block_start, ls, "header"))
            block_start = ls
        prev_line, prev_start = line, ls
    flush(end)
