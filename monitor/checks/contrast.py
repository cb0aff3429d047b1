"""Meaning flips that word overlap cannot see: the cheap tier's confident mistakes.

A claim can share every content word with its evidence and still say the opposite. Each check
below compares the claim with the evidence sentence that shares most of its content words (its
alignment) or, for figures and dates, with the whole evidence; a hit names its category and
makes the claim not_supported (support.py):

- negation: a negation cue (not, never, no longer, failed to, denied, n't, ...) on one side only,
  in the aligned stretch of the evidence sentence (its first to last shared word, a few words of
  lead-in included) or anywhere in the claim; a litotes ("did not fail to") is no negation, nor
  is "not only"; the claim's own cue words do not count against its alignment;
- antonym: the claim's predicate word is absent from the aligned sentence, which holds its
  opposite from a closed list of pairs (verbs of rise against verbs of fall, approve/reject,
  permit/ban, guilty/innocent, higher/lower, ...);
- unit: a figure written with a unit (g/mg/kg, m/km, ml/l, s/min/h, thousand/million/billion,
  percent vs percentage points) that the evidence writes with another unit of the same kind, and
  never as the same quantity;
- date: a calendar date of the claim that the evidence does not state although it states dates
  (monitor/text/dates.py), day or month alike;
- entity: a name of the claim missing from the evidence while the aligned sentence holds the
  claim's other content words and a name the claim lacks ("Paris is the capital of Germany"
  against "Paris is the capital of France"), or two names of the claim in the other order
  around the same words ("YouTube acquired Google" against "Google acquired YouTube").

restated() tells the support tier which of a claim's figures the evidence states in another
form (another unit, an ISO date's month by name), so that they are not called missing.

Cheap by construction: the support tier calls this only for claims it would otherwise call
supported, partially supported or unverifiable; a claim found verbatim in its evidence (between
sentence boundaries) is returned at once; each check starts with a precompiled look at the claim
alone and reads the evidence only when the claim has something to compare (a unit, a date, a
missing name). Evidence sentences are split and tokenised once per text (memoised).
"""

from __future__ import annotations

import re
from collections import OrderedDict
from collections.abc import Sequence
from itertools import pairwise

from monitor.checks.evidence import index_evidence
from monitor.text.dates import date_stated, dates, format_date, missing_dates
from monitor.text.negation import NEGATION_RE
from monitor.text.opposites import OPPOSITES
from monitor.text.units import same_quantities, unit_mismatch
from monitor.text.words import STEMS, STOPWORDS, wordset

_TOKEN_RE = re.compile(r"[^\W_]+(?:['’][^\W_]+)?")
# a sentence ends at [.!?] before white space (not inside "4.2" or "U.S.A") or at a line break
# ... or where a word of two lower-case letters or more runs into a capital ("diet.These": a
# missing space, not an abbreviation like "U.S.A" or "Ph.D")
_SENTENCE_RE = re.compile(
    r"(?:[^.!?\n]|(?<![a-z][a-z])[.!?](?!\s|$)|[.!?](?![\sA-Z]|$))+(?:[.!?]+|\n|$)"
)
# Litotes: a plain negator right before (one word between at most) a word that is itself
# negative cancels it: "did not fail to", "never once failed to", "not impossible", "can't deny"
_NEGATIVE_WORD = re.compile(
    r"(?:den(?:y|ies|ied|ying)|fail(?:s|ed|ing)?\s+to|lack(?:s|ed|ing)?|without|unable"
    r"|unlikely|impossible|absent)$",
    re.I,
)
_NEGATOR = re.compile(r"(?:not|never|no|cannot|n['’]t)$", re.I)
_ONE_WORD_AT_MOST = re.compile(r"\W*(?:\w+\W+)?")
# Negation cues that are content words: the claim's own cue is what the evidence differs by, so
# it is left out of the share of the claim an evidence sentence must hold to be compared
_CUE_WORDS = wordset(
    "never none nobody nothing unable deny denies denied denying fail fails failed failing "
    "lack lacks lacked lacking unlikely impossible hardly rarely seldom absent"
)
_NEGATION_HINT = re.compile(
    r"\b(?:no|ne|cannot|without|un|den|fail|lack|impossible|hardly|rarely|seldom|absent)|n['’]t",
    re.I,
)
LEAD_IN_WORDS = 3  # words before the first shared word that may still negate it ("did not X")
MIN_ALIGNED = 0.5  # share of the claim's content words an aligned sentence must hold
# ... and to read its polarity or predicate: a paraphrase that shares less may say the same thing
# with other words ("might not" / "is unlikely to"). First read off ExpertQA dev's negated
# claims; held out (WiCE dev, ExpertQA halves; docs/contrast.md) below 0.65 the cue fires mostly
# on supported claims, from 0.7 up the figures are flat (within the bootstrap interval of "off")
POLARITY_ALIGNED = 0.7
# An uncited claim names no passage: its aligned sentence is a guess among every document, and
# a polarity read off a guess is weak evidence (ragtruth-dev: 0 of 44 such negation flips were
# hallucinations people marked). Compared only when the sentence holds every content word of
# the claim, i.e. restates it with only the polarity (or predicate, or roles) changed.
UNCITED_POLARITY_SHARE = 1.0

# a capitalised word after the first (the first may just open the sentence)
_NAME_RE = re.compile(r"(?<=[\s(\"“'])([A-Z][a-z]+(?:[-'][A-Za-z]+)*)")


_CALENDAR = wordset(
    "january february march april may june july august september october november december "
    "monday tuesday wednesday thursday friday saturday sunday"
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
_COUNT_RE = re.compile(
    r"\d|\b(?:dozens|scores|hundreds|thousands|millions|billions|many|numerous|several|"
    r"few|all|none)\b",
    re.I,
)
_CLAIM_HEDGE_RE = re.compile(
    r"\b(?:unclear|unknown|uncertain|unconfirmed|not\s+(?:yet\s+|immediately\s+)?"
    r"(?:clear|known|certain)|may|might|could|possibly|perhaps|reportedly|allegedly|"
    r"apparently|likely|unlikely|estimated|about|around|approximately|unspecified|"
    r"undisclosed|an?\s+number\s+of)\b|n['’]t\s+(?:yet\s+|immediately\s+)?(?:clear|known)",
    re.I,
)


class _Sentence:
    """One evidence sentence: its text, word tokens with their offsets, and lower-cased words."""

    __slots__ = ("hedged", "next_hedged", "spans", "stem_set", "stems", "text", "tokens")

    def __init__(self, text: str) -> None:
        self.text = text = text.strip()
        # the source says it does not know how many (read once per sentence, not per claim);
        # the next sentence's too: a hedge may follow what it hedges
        self.hedged = any(w in text for w in _HEDGE_HINTS) and bool(_SOURCE_HEDGE_RE.search(text))
        self.next_hedged = False
        found = [(m.group(0).lower(), m.start(), m.end()) for m in _TOKEN_RE.finditer(text)]
        self.tokens = [t for t, _, _ in found]
        self.spans = [(s, e) for _, s, e in found]
        self.stems = [STEMS[t] for t in self.tokens]
        self.stem_set = frozenset(self.stems) - {""}


_SENTENCES_MAX = 512
_sentences: OrderedDict[str, list[_Sentence]] = OrderedDict()


def _split(text: str) -> list[_Sentence]:
    found = _sentences.get(text)
    if found is not None:
        _sentences.move_to_end(text)
        return found
    out = [_Sentence(m.group(0)) for m in _SENTENCE_RE.finditer(text) if m.group(0).strip()]
    for before, after in pairwise(out):
        before.next_hedged = after.hedged
    if len(text) <= 200_000:
        _sentences[text] = out
        if len(_sentences) > _SENTENCES_MAX:
            _sentences.popitem(last=False)
    return out


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
        before = evidence[:start].rstrip()
        end = start + len(core)
        after = evidence[end : end + 1]
        if (not before or before[-1] in ".!?\n:;") and (not after or after in ".!?;\n"):
            return True
        start = evidence.find(core, start + 1)
    return False


def _align(
    claim_stems: frozenset[str], texts: Sequence[str]
) -> tuple[_Sentence, list[int], float] | None:
    """The evidence sentence sharing most of the claim's content stems, the positions of the
    shared tokens in it and the share of the claim's stems it holds; None when no sentence holds
    at least MIN_ALIGNED of them."""
    best: _Sentence | None = None
    best_n = 0
    for text in texts:
        for sentence in _split(text):
            # distinct shared stems by one set intersection (C), the positions for the winner
            n = len(claim_stems & sentence.stem_set)
            if n > best_n:
                best, best_n = sentence, n
    if best is None or best_n < MIN_ALIGNED * len(claim_stems):
        return None
    hits = [i for i, s in enumerate(best.stems) if s and s in claim_stems]
    return best, hits, best_n / len(claim_stems)


def _hedged_source(claim: str, sentence: _Sentence) -> bool:
    """The aligned sentence, or the one after it, says the source does not know how many,
    and the claim states a count without hedging."""
    if not (sentence.hedged or sentence.next_hedged):
        return False
    return _COUNT_RE.search(claim) is not None and _CLAIM_HEDGE_RE.search(claim) is None


def negated(text: str, start: int = 0, end: int | None = None) -> bool:
    """`text[start:end]` holds a negation cue that no litotes cancels ("did not fail to")."""
    stop = len(text) if end is None else end
    cues = list(NEGATION_RE.finditer(text, start, stop))
    if not cues:
        return False
    if len(cues) == 1:
        return True
    left = len(cues)
    i = 0
    while i + 1 < len(cues):
        a, b = cues[i], cues[i + 1]
        gap = _ONE_WORD_AT_MOST.fullmatch(text, a.end(), b.start())
        if gap and _NEGATOR.match(a.group(0)) and _NEGATIVE_WORD.match(b.group(0)):
            left -= 2
            i += 2
        else:
            i += 1
    return left > 0


# a lead-in does not reach across these: a cue before a colon, a dash or a bracket belongs to
# another clause ("... was never disputed: The University is under investigation")
_LEAD_IN_STOP = re.compile(r"[:;()\[\]—–]|--|\.(?=[A-Z])")


def _negated_region(sentence: _Sentence, hits: list[int]) -> bool:
    first = max(0, hits[0] - LEAD_IN_WORDS)
    start = sentence.spans[first][0]
    if first < hits[0]:
        lead = sentence.text[start : sentence.spans[hits[0]][0]]
        stops = list(_LEAD_IN_STOP.finditer(lead))
        if stops:
            start += stops[-1].end()
    end = sentence.spans[hits[-1]][1]
    # the cue may follow the last shared word's auxiliary: "X was not" ... keep one word more
    if hits[-1] + 1 < len(sentence.spans):
        end = sentence.spans[hits[-1] + 1][1]
    return negated(sentence.text, start, end)


def _content_stems(tokens: list[str], claim_negated: bool) -> set[str]:
    """The claim's content stems to align on; its negation cue words (and the "longer" of "no
    longer") are left out when it is negated: the un-negated evidence cannot hold them."""
    if not claim_negated:
        return {STEMS[t] for t in tokens if t not in STOPWORDS} - {""}
    out = set()
    for i, t in enumerate(tokens):
        if t in STOPWORDS or t in _CUE_WORDS or (t == "longer" and tokens[i - 1 : i] == ["no"]):
            continue
        out.add(STEMS[t])
    return out - {""}


def _antonym(claim_tokens: list[str], sentence: _Sentence) -> str | None:
    there = set(sentence.tokens)
    mine = set(claim_tokens)
    for word in claim_tokens:
        opposites = OPPOSITES.get(word)
        if opposites is None or word in there:
            continue
        hit = opposites & there
        if hit and hit.isdisjoint(mine):
            return f"{word}/{min(hit)}"
    return None


def restated(claim: str, texts: Sequence[str]) -> frozenset[str]:
    """Figures of the claim (digits as written, "1,500", "0.5") that the evidence states in
    another form, so that their digits are missing from it without a changed fact: the same
    quantity in another unit ("1.5 g" / "1,500 mg", "90 minutes" / "1.5 hours") or the month of
    an ISO date the evidence writes with the month's name ("2024-03-01" / "1 March 2024")."""
    out = same_quantities(claim, texts)
    if "-" in claim:
        for date in dates(claim):
            year, month, day = date
            iso = day and f"{year:04d}-{month:02d}-{day:02d}" in claim
            if iso and any(date_stated(date, dates(t, yearless=True)) for t in texts):
                out.add(f"{month:02d}")
    return frozenset(out)


def value_date_mismatch(claim: str, value: object) -> str | None:
    """A JSON value that is a date (or holds one) against the claim citing it: the claim's first
    date the value does not state (formatted), None when either side states no date."""
    if not isinstance(value, str) or len(value) > 64:
        return None
    found = dates(value)
    if not found:
        return None
    for date in dates(claim):
        if not date_stated(date, found):
            return format_date(date)
    return None


def _names(text: str) -> set[str]:
    """Capitalised words after the first; month and day names are dates, not entities."""
    return {m.group(1).lower() for m in _NAME_RE.finditer(text)} - _CALENDAR


def initial_name(text: str) -> str | None:
    """The first word, lower-cased, when it may be a name: capitalised letters, not a function
    word ("Paris is ...", not "The ..."); the other names are the capitalised words after it."""
    head = text.lstrip(" \t\"“'(*_").split(None, 1)
    if not head:
        return None
    word = head[0].rstrip(".,;:!?\"”')*_")
    if len(word) < 2 or not word.isalpha() or not word[0].isupper():
        return None
    low = word.lower()
    return None if low in STOPWORDS or low in _CALENDAR else low


def _all_names(text: str) -> set[str]:
    names = _names(text)
    first = initial_name(text)
    if first is not None:
        names.add(first)
    return names


def _initial_missing(claim: str, texts: Sequence[str]) -> bool:
    """The claim's first word may be a name and no evidence text has its stem."""
    first = initial_name(claim)
    if first is None:
        return False
    key = frozenset((STEMS[first],))
    return not any(index_evidence(t).stems_found(key) for t in texts)


def _entity_swap(
    claim: str, claim_tokens: list[str], sentence: _Sentence, lowered: str
) -> str | None:
    text = claim.strip()
    inner = [n for n in _names(text) if n not in lowered]
    first = initial_name(text)
    initial = first if first is not None and first not in lowered else None
    if not inner and initial is None:
        return None
    missing = set(inner) | ({initial} if initial else set())
    others = {STEMS[t] for t in claim_tokens if t not in missing} - {""}
    if others - set(sentence.stems):
        return None  # the sentence does not state the rest of the claim: not a swap, a gap
    mine = set(claim_tokens)
    rival_first = initial_name(sentence.text)
    if inner and any(n not in mine for n in _all_names(sentence.text)):
        return inner[0]
    # a sentence-initial word is often no name ("Additionally", "Key"): it is a swapped entity
    # only against the aligned sentence's own first word ("Berlin is ..." / "Paris is ...")
    if initial is not None and rival_first is not None and rival_first not in mine:
        return initial
    return None


def _role_swap(claim: str, claim_tokens: list[str], sentence: _Sentence) -> str | None:
    """Two names of the claim that the aligned sentence holds in the other order around the same
    words ("YouTube acquired Google" / "Google acquired YouTube"): the same relation with its
    roles swapped. The words between must be the same and hold a content word, so a passive
    ("was acquired by") or a list ("Smith and Jones") is no swap; a symmetric relation
    ("France borders Spain") is read as one (docs/contrast.md)."""
    names = [m.group(1).lower() for m in _NAME_RE.finditer(claim)]
    first = initial_name(claim.strip())
    if first is not None:
        names.insert(0, first)
    if len(names) < 2:
        return None
    theirs = sentence.tokens
    places = []
    for name in dict.fromkeys(names):
        if claim_tokens.count(name) == 1 and theirs.count(name) == 1:
            places.append((claim_tokens.index(name), theirs.index(name), name))
    places.sort()
    for i, (mine_a, theirs_a, a) in enumerate(places):
        for mine_b, theirs_b, b in places[i + 1 :]:
            if theirs_b > theirs_a:
                continue
            between = claim_tokens[mine_a + 1 : mine_b]
            if between == theirs[theirs_b + 1 : theirs_a] and any(
                t not in STOPWORDS for t in between
            ):
                return f"{a}/{b}"
    return None


def contrasts(
    claim: str, texts: Sequence[str], names_missing: bool, polarity_share: float = POLARITY_ALIGNED
) -> tuple[str, ...]:
    """`names_missing`: a name of the claim after its first word is absent from the evidence
    (the caller knows from its term look-ups); the swap check runs only then, or when the
    first word may be a name and is absent. `polarity_share`: the share of the claim's content
    words the aligned sentence must hold for its polarity, predicate or roles to be compared
    (an uncited claim: all of them, UNCITED_POLARITY_SHARE).
    Reasons (`negation_mismatch`, `antonym:a/b`, `unit_mismatch:...`, `date_mismatch:...`,
    `entity_swap:name`) why the evidence contradicts the claim; empty when none is seen."""
    if not texts:
        return ()
    core = claim_core(claim)
    for t in texts:
        if verbatim(claim, t, core):
            return ()
    out: list[str] = []
    digits = any(c.isdigit() for c in claim)  # units and dates are written with digits
    if digits:
        unit = unit_mismatch(claim, texts)
        if unit is not None:
            out.append(f"unit_mismatch:{unit}")
    tokens = [m.group(0).lower() for m in _TOKEN_RE.finditer(claim)]
    claim_negated = _NEGATION_HINT.search(claim) is not None and negated(claim)
    stems = frozenset(_content_stems(tokens, claim_negated))
    aligned = _align(stems, texts) if stems else None
    if aligned is None:
        return tuple(out)
    sentence, hits, share = aligned
    if digits:
        missing = missing_dates(claim, sentence.text)
        if missing:
            out.append(f"date_mismatch:{format_date(missing[0])}")
    if share >= polarity_share and claim_negated != _negated_region(sentence, hits):
        out.append("negation_mismatch")
    if _hedged_source(claim, sentence):  # aligned on half its words at least
        out.append("hedged_source")
    # the claim's predicate is by definition not in the sentence: the rest must be
    if share * len(stems) >= polarity_share * (len(stems) - 1):
        opposite = _antonym(tokens, sentence)
        if opposite is not None:
            out.append(f"antonym:{opposite}")
    swapped = None
    if names_missing or _initial_missing(claim, texts):
        lowered = " ".join(t.lower() for t in texts)
        swapped = _entity_swap(claim, tokens, sentence, lowered)
    elif share >= polarity_share:
        swapped = _role_swap(claim, tokens, sentence)
    if swapped is not None:
        out.append(f"entity_swap:{swapped}")
    return tuple(out)
