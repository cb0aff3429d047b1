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

This module owns the alignment, the figure, date, antonym and hedge checks and `contrasts`
itself; the evidence sentences and the verbatim test are contrast_sentences.py's, negation
contrast_negation.py's, the entity and role swaps contrast_names.py's.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from monitor.checks.contrast_names import _entity_swap, _initial_missing, _role_swap
from monitor.checks.contrast_negation import (
    _content_stems,
    _negated_region,
    cue_free,
    may_negate,
    negated,
)
from monitor.checks.contrast_sentences import (
    _TOKEN_RE,
    _Sentence,
    _tokens,
    claim_core,
    sentence_index,
    verbatim,
)
from monitor.text.dates import date_stated, dates, format_date, missing_dates
from monitor.text.numbers import has_digit
from monitor.text.opposites import OPPOSITES
from monitor.text.units import same_quantities, unit_mismatch

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


def _align(
    claim_stems: frozenset[str], texts: Sequence[str]
) -> tuple[_Sentence, list[int], float] | None:
    """The evidence sentence sharing most of the claim's content stems (the first of the
    texts' sentences in order, on a tie), the positions of the shared tokens in it and the
    share of the claim's stems it holds; None when no sentence holds at least MIN_ALIGNED of
    them. Each text's sentences are found through its inverted index (stem -> sentences):
    only the sentences holding one of the claim's stems are counted."""
    best: _Sentence | None = None
    best_n = 0
    for text in texts:
        index = sentence_index(text)
        i, n = index.best(claim_stems)
        if n > best_n:  # an earlier text keeps a tie, as an earlier sentence does
            best, best_n = index.sentence(i), n
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


def contrasts(
    claim: str,
    texts: Sequence[str],
    names_missing: bool,
    polarity_share: float = POLARITY_ALIGNED,
    verbatim_checked: bool = False,
) -> tuple[str, ...]:
    """`names_missing`: a name of the claim after its first word is absent from the evidence
    (the caller knows from its term look-ups); the swap check runs only then, or when the
    first word may be a name and is absent. `polarity_share`: the share of the claim's content
    words the aligned sentence must hold for its polarity, predicate or roles to be compared
    (an uncited claim: all of them, UNCITED_POLARITY_SHARE). `verbatim_checked`: the caller
    has found the claim verbatim in none of `texts` already (the grounding of an uncited claim).
    Reasons (`negation_mismatch`, `antonym:a/b`, `unit_mismatch:...`, `date_mismatch:...`,
    `entity_swap:name`) why the evidence contradicts the claim; empty when none is seen."""
    if not texts:
        return ()
    if not verbatim_checked:
        core = claim_core(claim)
        for t in texts:
            if verbatim(claim, t, core):
                return ()
    out: list[str] = []
    # units and dates are written with digits; in ASCII a digit is 0-9, which has_digit finds by
    # ten byte searches, far cheaper than str.isdigit called per character (that cost ~2% of
    # the pure core's check on RAGTruth); other scripts have other digits ("٣", "²"): the full
    # test for them
    ascii_claim = claim.isascii()
    digits = has_digit(claim) if ascii_claim else any(map(str.isdigit, claim))
    if digits:
        unit = unit_mismatch(claim, texts)
        if unit is not None:
            out.append(f"unit_mismatch:{unit}")
    tokens: list[str]
    lowered: str | None = None
    if ascii_claim:  # lower() maps only A-Z: the same tokens as lower-casing each match
        lowered = claim.lower()
        tokens = _tokens(claim)  # a byte translation and a split, no regex scan (mostly)
    else:
        tokens = [m.group(0).lower() for m in _TOKEN_RE.finditer(claim)]
    # the negation look (a regex scan of the claim at least) waits for an aligned sentence
    # to compare it with, unless a cue word of the claim changes what it aligns on
    claim_negated: bool | None = None
    if not cue_free(tokens):
        claim_negated = may_negate(claim, lowered) and negated(claim)
    stems = frozenset(_content_stems(tokens, bool(claim_negated)))
    aligned = _align(stems, texts) if stems else None
    if aligned is None:
        return tuple(out)
    sentence, hits, share = aligned
    if digits:
        missing = missing_dates(claim, sentence.text)
        if missing:
            out.append(f"date_mismatch:{format_date(missing[0])}")
    if share >= polarity_share:
        if claim_negated is None:
            claim_negated = may_negate(claim, lowered) and negated(claim)
        if claim_negated != _negated_region(sentence, hits):
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
