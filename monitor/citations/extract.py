"""Find the citations of an answer, in order of appearance (DESIGN.md §3).

Inline citations are `[...]` brackets whose content parses (grammar.py). Not citations:
- brackets inside code (fenced blocks, inline code spans; markdown.py) or escaped as `\\[`;
- `a[i]`, `arr[0]`: a numeric or json-path bracket glued to an identifier character, unless
  the numeric bracket reads like a prose citation (`quality[2].`, `LEDs[1][5]`, `in 339[1].`):
  the token before it is a plain word of 2+ letters or a plain number, what follows ends the
  word (space, end, sentence punctuation not followed by an identifier, another bracket) and
  every number resolves to a document of the event (by id or position). `arr[0]` never resolves,
  `a[i]` is not numeric, `m[1]` is one letter, `obj.items[1]`, `x_1[2]` are not plain words,
  `arr[1].size` and `arr[1] = 2` continue as code;
- a bracket glued to the `]` of a bracket that was not a citation (`arr[0][1]`, the label of a
  `[text][ref]` reference link), while `[1][2]` chains stay citations;
- markdown link text `[text](url)` is never a json path (numeric and file citations written as
  link text, `[1](https://...)`, still count);
- link reference definitions `[1]: https://...` at the start of a line.
Adjacent citation brackets separated only by spaces or tabs share a `group` (cross-reference).

Everything is linear in the answer length: one regex pass whose bracket class excludes `[`, `]`
and newlines (so no match attempt reads past the next bracket), bounded content length, and
forward-only pointers into the code regions.
"""

from __future__ import annotations

import re

from monitor.citations.grammar import Parsed, classify, classify_bracket
from monitor.citations.markdown import code_regions
from monitor.config.options import CheckOptions
from monitor.records.models import AnswerEvent, Citation

MAX_BRACKET_CHARS = 4096  # longer bracket content is prose, never a citation
SEGMENT_SEARCH_SLACK = 4096  # how far past the expected position a segment's text is looked for

_BRACKET = re.compile(rf"\[([^\[\]\n]{{0,{MAX_BRACKET_CHARS}}})\]")
# The token a glued bracket follows, read backwards from the bracket: letters (2+, apostrophes
# and hyphens inside) or a number, after whitespace, the start or an opening quote/parenthesis.
_PROSE_TOKEN = re.compile(
    r"(?:^|(?<=[\s(\"'“‘*]))(?:[^\W\d_]{2,}|[^\W\d_]+(?:['’-][^\W\d_]+)+|\d+(?:[.,]\d+)*)\Z"
)
_PROSE_LOOKBACK = 64  # a longer word is no prose word
# After a glued bracket and any brackets chained to it: code goes on (`.size`, `(`, `= 2`).
_CODE_AFTER = re.compile(r"(?:\[[^\[\]\n]*\])*(?:\.\w|[^\s.,;:!?)[\]\"'”’*_]|\s*[-+*/%<>=!^|&]?=)")


class _Out:
    def __init__(self, cap: int) -> None:
        self.cap = max(0, cap)
        self.items: list[Citation] = []
        self.notes: list[str] = []

    @property
    def room(self) -> int:
        return self.cap - len(self.items)

    def extend(self, citations: list[Citation]) -> bool:
        """Append up to the cap; False (and a note) once citations had to be dropped."""
        room = self.room
        self.items.extend(citations[:room])
        if len(citations) > room:
            self.notes.append(f"too_many_citations: capped at {self.cap}")
            return False
        return True


def extract_citations(
    event: AnswerEvent, options: CheckOptions
) -> tuple[list[Citation], list[str]]:
    """Citations with `index` 0..n-1 plus notes; segments, when present, replace inline ones."""
    out = _Out(options.max_citations)
    if event.segments is not None:
        _segment_citations(event, out)
    else:
        _inline_citations(event, out)
    return out.items, out.notes


def _segment_citations(event: AnswerEvent, out: _Out) -> None:
    answer = event.answer
    pos = 0
    for i, seg in enumerate(event.segments or ()):
        found = answer.find(seg.text, pos, pos + len(seg.text) + SEGMENT_SEARCH_SLACK)
        if found >= 0:
            start, end = found, found + len(seg.text)
            pos = end
        else:
            start = end = 0
        base = len(out.items)
        batch = []
        for k, cid in enumerate(seg.citations[: out.room + 1]):
            number = cid if isinstance(cid, int) and not isinstance(cid, bool) else None
            batch.append(
                Citation(
                    index=base + k,
                    raw=str(cid),
                    format="segment",
                    start=start,
                    end=end,
                    group=i,
                    doc_ref=None if number is not None else str(cid),
                    number=number,
                    segment=i,
                )
            )
        if not out.extend(batch):
            return


def _is_definition(text: str, start: int, end: int) -> bool:
    """`[label]: ...` at the start of a line (at most 3 spaces in): a link reference definition."""
    if end >= len(text) or text[end] != ":":
        return False
    k = start
    while k > 0 and start - k < 4 and text[k - 1] == " ":
        k -= 1
    return start - k <= 3 and (k == 0 or text[k - 1] == "\n")


_TASK_LINE = re.compile(r"[ \t]*(?:[-*+]|\d{1,3}[.)])[ \t]+\Z")
_TASK_BOXES = frozenset((" ", "x", "X"))


def _is_task_box(text: str, start: int, content: str) -> bool:
    """`[ ]` or `[x]` right after a list marker: a task-list box (`- [x] done`)."""
    if content not in _TASK_BOXES:
        return False
    line_start = text.rfind("\n", 0, start) + 1
    return _TASK_LINE.match(text, line_start, start) is not None


def _inline_citations(event: AnswerEvent, out: _Out) -> None:
    text = event.answer
    if "[" not in text:
        return
    code = code_regions(text)
    n_code = len(code)
    ci = 0
    n_text = len(text)
    doc_ids = frozenset(d.id for d in event.documents)
    has_data = event.data is not None
    data_keys = frozenset(event.data) if isinstance(event.data, dict) else frozenset()
    n_docs = len(event.documents)
    last_end = -1  # end of the last bracket that was a citation
    group = -1
    items, cap = out.items, out.cap
    for m in _BRACKET.finditer(text):
        start, end = m.span()
        if n_code:
            while ci < n_code and code[ci][1] <= start:
                ci += 1
            if ci < n_code and code[ci][0] < end:
                continue
        before = text[start - 1] if start else ""
        if before == "\\" or (before == "]" and start != last_end):
            continue
        content = m.group(1)
        # the cheap one-character tests first: most brackets are neither shape
        after = text[end] if end < n_text else ""
        if after == ":" and _is_definition(text, start, end):
            continue
        if content in _TASK_BOXES and _is_task_box(text, start, content):
            continue
        link = after == "("
        glued = bool(before) and (before.isalnum() or before == "_")
        parsed = classify_bracket(
            content, doc_ids, has_data and not link, glued, data_keys, not has_data and not link
        )
        if parsed is None:
            if not glued:
                continue
            parsed = _glued_citation(text, start, end, content, doc_ids, n_docs)
            if parsed is None:
                continue
        if parsed.format == "numeric" and _not_a_reference(text, start, parsed, doc_ids, n_docs):
            continue
        if last_end < 0 or start - last_end > 64:
            group += 1
        elif start != last_end:
            gap = text[last_end:start]
            if not gap.isspace() or "\n" in gap:
                group += 1
        last_end = end
        citations = _build(parsed, m.group(0), start, end, group, len(items))
        if len(items) + len(citations) <= cap:
            items.extend(citations)
        elif not out.extend(citations):
            return


def _resolves(n: int, doc_ids: frozenset[str], n_docs: int) -> bool:
    return str(n) in doc_ids or 1 <= n <= n_docs


_MATH_BEFORE = re.compile(
    r"(?:[∈=≤≥<>]|\b(?:interval|range|between|within|domain|values?))\s*\Z", re.I
)


def _not_a_reference(
    text: str, start: int, parsed: Parsed, doc_ids: frozenset[str], n_docs: int
) -> bool:
    """A year (`[2019]`) or an interval (`[0, 1]`) in brackets, not a citation: it has the shape
    (one number of four digits; two numbers) and nothing it could point to exists, or it holds a
    0 (documents count from 1), or math precedes it (`x ∈ [1, 2]`, `in the range [1, 2]`)."""
    numbers = parsed.numbers
    if len(numbers) == 1:  # the usual citation, [3]: cheapest tests first
        n = numbers[0]
        return 1000 <= n <= 2999 and not _resolves(n, doc_ids, n_docs)
    if parsed.malformed is not None or len(numbers) != 2:
        return False
    raw = text[start : text.find("]", start) + 1]
    if "-" in raw or "–" in raw:
        return False  # [1-3] is a range of citations
    resolved = [_resolves(n, doc_ids, n_docs) for n in numbers]
    if not any(resolved) or (0 in numbers and not resolved[numbers.index(0)]):
        return True
    return _MATH_BEFORE.search(text, max(0, start - 24), start) is not None


def _glued_citation(
    text: str, start: int, end: int, content: str, doc_ids: frozenset[str], n_docs: int
) -> Parsed | None:
    """A numeric bracket glued to a word that reads as a prose citation (see the module doc)."""
    if not content.strip()[:1].isdigit():
        return None
    parsed = classify(content, doc_ids=doc_ids, json_paths=False, glued=False)
    if parsed is None or parsed.format != "numeric" or parsed.malformed or not parsed.numbers:
        return None
    if not all(str(n) in doc_ids or 1 <= n <= n_docs for n in parsed.numbers):
        return None
    if _PROSE_TOKEN.search(text, max(0, start - _PROSE_LOOKBACK), start) is None:
        return None
    if _CODE_AFTER.match(text, end):
        return None
    return parsed


def _build(p: Parsed, raw: str, start: int, end: int, group: int, base: int) -> list[Citation]:
    """The Citations of one bracket, numbered from `base`."""
    if p.malformed is not None:
        return [
            Citation(
                index=base,
                raw=raw,
                format=p.format,
                start=start,
                end=end,
                group=group,
                doc_ref=p.doc_ref,
                malformed=p.malformed,
            )
        ]
    # positional (index, raw, format, start, end, group, doc_ref, page, range_start, range_end,
    # number, path, excerpt): keyword arguments cost the generated __init__ more per call
    fmt = p.format
    if fmt == "numeric":
        numbers = p.numbers
        if len(numbers) == 1:  # the usual [3]: no comprehension to set up
            n = numbers[0]
            return [Citation(base, raw, fmt, start, end, group, None, None, None, None, n)]
        return [
            Citation(base + k, raw, fmt, start, end, group, None, None, None, None, n)
            for k, n in enumerate(numbers)
        ]
    if fmt == "json_path":
        return [Citation(base, raw, fmt, start, end, group, None, None, None, None, None, p.path)]
    doc_ref, page, excerpt, ranges = p.doc_ref, p.page, p.excerpt, p.ranges
    if len(ranges) == 1:
        a, b = ranges[0]
        return [
            Citation(base, raw, fmt, start, end, group, doc_ref, page, a, b, None, None, excerpt)
        ]
    return [
        Citation(base + k, raw, fmt, start, end, group, doc_ref, page, a, b, None, None, excerpt)
        for k, (a, b) in enumerate(ranges)
    ]
