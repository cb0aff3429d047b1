"""Answer → claims: sentence units that assert something, with their citations attached.

Non-claims (seed 001 §6) are headers, code blocks, questions, meta statements ("This section
covers", "See also", "Note:", the answer announcing itself: "Here is a summary in 80 words:"), empty list items and uncited fragments under `min_claim_words`
words (RAGMON_MIN_CLAIM_WORDS). Every other sentence that carries a citation is a claim, whatever
its length: a short cited sentence dropped would be a verdict nobody sees.
Kinds follow seed 001 §3.2.3: code spans, named symbols, locations and direct quotations make a
claim extractive; purpose and capability verbs make it abstractive; anything else is unknown.
"""

from __future__ import annotations

import bisect
import re
import string
from collections.abc import Sequence

from monitor.config.options import CheckOptions
from monitor.records.models import AnswerEvent, Citation, Claim, ClaimKind
from monitor.text.sentences import split_sentences
from monitor.text.words import fold, quotations, remove_spans, wordset

_META_RE = re.compile(
    r"^(?:(?:this|in this)\s+(?:section|answer|response)\b"
    r"|see\s+(?:also|more|below|above)\b"
    r"|note\s*:"
    r"|(?:sources?|references?|citations?)\s*:"
    # the answer's closing courtesies: about the conversation, not the world
    r"|(?:please\s+)?(?:let\s+me\s+know|feel\s+free\s+to)\b"
    r"|i\s+hope\s+(?:this|that)\s+(?:helps|answers)\b|hope\s+(?:this|that)\s+helps\b)",
    re.I,
)
# The answer announcing itself ("Here is a summary of the article in 121 words:", "Based on the
# given passages, here are the steps:"): about the answer, not the world. Only when nothing
# follows a colon in the same sentence ("Here is the answer: X is Y" asserts X is Y).
_PREAMBLE_RE = re.compile(
    r"^(?:(?:sure|certainly|okay|ok|of course|absolutely)[,!.]?\s+)?"
    r"(?:(?:based\s+on|according\s+to|from|using)\b[^:]{0,120}?,\s*)?"
    r"(?:here\s+(?:is|are)|here['’]s|below\s+(?:is|are))\s+"
    r"(?:a|an|the|some|my|our|your|what|how|this|these|brief|more)\b[^:]*(?::\s*)?$",
    re.I,
)
_PUNCTUATION = string.punctuation + "“”‘’–—…«»•·"
_LEAD_CHARS = ">*_~"
_LEAD_RE = re.compile(r"^[\s>*_~]+")  # blockquote and emphasis markers before the first word
_TRAIL_CHARS = "\"'”’)]*_~"  # and white space: closing marks after a sentence's last word

_EXTRACTIVE_RE = re.compile(
    r"`[^`\n]+`"
    r"|\b(?:function|class|method|variable|module|field|attribute|parameter|constant)\s+"
    r"[`\"“]?(?:[A-Za-z_]\w*_\w*|[a-z]+[A-Z]\w*|[A-Z]\w*|\w+\(\))"
    r"|\b(?:[Dd]efined|[Dd]eclared|[Ll]ocated|[Ff]ound|[Ss]tored)\s+(?:in|at)\b"
    r"|\b(?:named|called)\s+[`\"“]?[A-Z_]\w*"
    r"|\b(?!(?:The|This|That|These|Those|Each|Every|Its|Their|Our|One|An?|Any)\b)"
    r"(?:[A-Z]\w*|\w+_\w*|[a-z]+[A-Z]\w*)\s+(?:class|function|method|module)\b"
)
_EXTRACTIVE_TRIGGERS = wordset(
    "function class method variable module field attribute parameter constant "
    "defined declared located found stored named called"
)
_ABSTRACTIVE_WORDS = wordset(
    "handle handles handling manage manages managing responsible implement implements "
    "implementing provide provides providing support supports supporting architecture design "
    "pattern ensure ensures ensuring guarantee guarantees prevent prevents preventing"
)

_KIND_WORDS = _EXTRACTIVE_TRIGGERS | _ABSTRACTIVE_WORDS


def classify_claim(text: str) -> ClaimKind:
    """Seed 001 decision tree: code/symbol/location/quotation → extractive, purpose → abstractive."""
    # split_words(text.lower()) in one pass; a list: isdisjoint looks each word up without
    # building a set of the claim's words
    lowered = fold(text).split()
    # most claims hold no word of either list: one look-up per word tells, then the two lists
    # are asked apart only for the few that hold one
    listed = not _KIND_WORDS.isdisjoint(lowered)
    if (
        "`" in text or (listed and not _EXTRACTIVE_TRIGGERS.isdisjoint(lowered))
    ) and _EXTRACTIVE_RE.search(text):
        return "extractive"
    if ('"' in text or "“" in text) and quotations(text):
        return "extractive"
    if listed and not _ABSTRACTIVE_WORDS.isdisjoint(lowered):
        return "abstractive"
    return "unknown"


def has_words(text: str, minimum: int) -> bool:
    """At least `minimum` whitespace-separated tokens hold a letter or digit ("—" is no word)."""
    need = max(minimum, 1)
    # the first `need` tokens, then the rest unsplit: a sentence's first words usually settle
    # it, and the rest is split only when they do not
    head = text.split(None, need)
    count = 0
    for i in range(min(len(head), need)):
        token = head[i]
        if token.isalnum() or token.strip(_PUNCTUATION):
            count += 1
    if count >= need:
        return True
    if len(head) <= need:
        return False  # no tokens left
    for token in head[need].split():
        if token.isalnum() or token.strip(_PUNCTUATION):
            count += 1
            if count >= need:
                return True
    return False


def _ends_with_question(body: str) -> bool:
    """`_TRAIL_RE.sub("", body).endswith("?")`, looking only at the last characters."""
    k = len(body)
    while k and (body[k - 1] in _TRAIL_CHARS or body[k - 1].isspace()):
        k -= 1
    return k > 0 and body[k - 1] == "?"


# What _META_RE's alternatives begin with, lower-cased, up to four letters ("in" and "i" are
# asked apart: each needs white space next)
_META_HEADS = ("this", "see", "note", "sour", "refe", "cita", "plea", "let", "feel", "hope")


def _may_be_meta(body: str) -> bool:
    """False only when `_META_RE` cannot match `body`: its first four characters are ASCII
    (where re.I pairs each letter only with its other case) and begin none of its phrases.
    Most sentences ("The", "It", "Aspirin") are told apart without a regex match call."""
    head = body[:4]
    if not head.isascii():
        return True
    head = head.lower()
    if head.startswith("in"):
        return head[2:3].isspace()  # "in this"
    if head.startswith("i"):
        return head[1:2].isspace()  # "i hope"
    return head.startswith(_META_HEADS)


def is_claim(text: str, min_words: int, has_letter: bool = True) -> bool:
    """`text` is a sentence with its citations already removed."""
    if not has_letter:
        return False
    body = _LEAD_RE.sub("", text) if text[:1] in _LEAD_CHARS or text[:1].isspace() else text
    if not body or body.startswith(("#", "```", "~~~")):
        return False
    if _ends_with_question(body):
        return False
    if (_may_be_meta(body) and _META_RE.match(body)) or (
        body[:1] in "SsHhBbCcOoAaFfUu" and _PREAMBLE_RE.match(body)
    ):
        return False
    return has_words(body, min_words)


def split_claims(
    event: AnswerEvent, citations: Sequence[Citation], options: CheckOptions
) -> list[Claim]:
    if event.segments is not None:
        return _segment_claims(event, citations)
    text = event.answer
    inline = sorted((c for c in citations if c.segment is None), key=lambda c: (c.start, c.index))
    spans = [(c.start, c.end) for c in inline]
    kept: list[tuple[int, int, str]] = []
    for sentence in split_sentences(text, spans):
        if sentence.kind != "text":
            continue
        inside = _spans_within(spans, sentence.start, sentence.end)
        clean = remove_spans(text[sentence.start : sentence.end], sentence.start, inside)
        # a sentence that carries a citation asserts something whatever its length ("Aspirin
        # reduces fever [1]."), if it has a word (not a bare list number: "1[1]."); the
        # short-fragment filter only keeps uncited scraps out
        if (
            is_claim(clean, 1, any(map(str.isalpha, clean)))
            if inside
            else is_claim(clean, options.min_claim_words)
        ):
            kept.append((sentence.start, sentence.end, clean))
    starts = [start for start, _, _ in kept]
    attached: list[list[int]] = [[] for _ in kept]
    for citation in inline:
        i = bisect.bisect_right(starts, citation.start) - 1
        if i >= 0 and citation.start < kept[i][1]:
            attached[i].append(citation.index)
    # positional: keyword arguments cost a frozen dataclass a third more
    return [
        Claim(n, text[start:end], start, end, tuple(attached[n]), classify_claim(clean))
        for n, (start, end, clean) in enumerate(kept)
    ]


def _spans_within(spans: list[tuple[int, int]], start: int, end: int) -> list[tuple[int, int]]:
    i = bisect.bisect_left(spans, (start, -1))
    out = []
    while i < len(spans) and spans[i][0] < end:
        out.append(spans[i])
        i += 1
    return out


def _segment_claims(event: AnswerEvent, citations: Sequence[Citation]) -> list[Claim]:
    """One claim per non-blank segment; offsets locate the segment in the concatenated answer."""
    by_segment: dict[int, list[int]] = {}
    for citation in citations:
        if citation.segment is not None:
            by_segment.setdefault(citation.segment, []).append(citation.index)
    claims: list[Claim] = []
    cursor = 0
    for i, segment in enumerate(event.segments or ()):
        body = segment.text.strip()
        if not body:
            continue
        found = event.answer.find(body, cursor)
        if found >= 0:
            start, end = found, found + len(body)
            cursor = end
        else:
            # the producer's answer is not the concatenation: keep the segment's own text
            start = end = cursor
        claims.append(
            Claim(
                index=len(claims),
                text=body,
                start=start,
                end=end,
                citation_indexes=tuple(by_segment.get(i, ())),
                kind=classify_claim(body),
            )
        )
    return claims
