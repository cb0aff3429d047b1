"""The cheap support tier: does the cited evidence back the claim? (tiers `rules` and `lexical`)

Rules first: an uncited claim, or one whose citations are all invalid, is not supported by
definition (a JSON-path date the claim states differently is also named `date_mismatch`); a
JSON-path citation whose value the claim states is supported structurally.
Otherwise the claim (citation markers removed) is compared with all its valid evidence together:

- coverage: weighted share of the claim's content stems found in the evidence (names and
  identifier parts weigh double), seed 001 §4.4's term coverage;
- phrase: share of the claim's content-stem bigrams found in the evidence: shared phrasing, the
  difference between restating the evidence and reusing its words for another statement;
- figures, names and code symbols: a figure or identifier of the claim that appears nowhere in
  the evidence is a changed fact, the strongest cheap signal of an unsupported claim (a figure
  the evidence states in another unit, "1.5 g" / "1,500 mg", is not missing: contrast.restated);
- meaning flips (contrast.py): negation, antonym, unit, date or swapped entity against the
  evidence sentence that states the claim; each is a changed fact too (scaled like a figure,
  not_supported, a reason naming it). Checked only for prose claims the words would let pass.

base = (coverage + phrase) / 2, mapped piecewise-linearly so that BINARY_BASE becomes 0.5 (the
cut that balances supported and unsupported claims as people judge them, see below); minus
NAME_PENALTY per missing name (at most 3); times MISSING_NUMBER_FACTOR when a figure is missing
(below UNVERIFIABLE_AT, but still ordered by wording); capped at 0.35 when a code symbol is.
Extractive claims about code (seed 001 §3.2.4) whose every identifier and figure is present score
at least SUPPORTED_AT. The score never drops when evidence is added. Bands: ≥ 0.75 supported,
0.55-0.75 partially supported (abstractive claims: unverifiable, wording cannot settle purpose or
behaviour), 0.4-0.55 unverifiable (the judge should look), below 0.4 not supported; a missing
figure is not supported whatever the score. Binary uses split at 0.5.

Measured on human labels (tests/bench/support_baseline.py: ExpertQA and WiCE dev, each also
split in two): the whole evidence ranks claims better than the best window of a few sentences;
weighting words by their rarity in the event's documents, or down-weighting the question's
words, ranked no better on WiCE and worse on ExpertQA; penalties that subtract (names) or scale
(figures) keep the ordering that a hard cap throws away. The constants are round values kept
where both sets agreed; BINARY_BASE 0.25 is the best or tied-best value (0.15-0.35 tried) on
both halves of both sets, and the tier's best score cut fitted on other rows lands at 0.49-0.63
and does no better there than the shipping 0.5. Also tried, none adding more than ~0.01-0.02
AUROC (inside the bootstrap interval) and none moving balanced accuracy: best-sentence share
of stems (mixed with or maxed against whole coverage), stem trigrams, skip-bigrams, 4-5
character prefix matching, longest missing run, rapidfuzz token_set/partial/ratio/WRatio of the
claim against the best sentence or the whole text (a third of the base: ExpertQA AUROC
+0.007), a bonus for long claims (+0.01-0.015, costs WiCE partial-as-negative AUROC),
a negation mismatch with the best sentence (scaled 0.7-0.9: lowers one half's AUROC), hedging
words (equally common under every label). ExpertQA stays level with word
overlap (AUROC ~0.63; a logistic fit on all of them, one half to the other, reached 0.63 too);
its one strong cue, evidence length (short cited texts are mostly unsupported, AUROC 0.63 on
its own), is how that set was collected rather than support, so it is not used.
"""

from __future__ import annotations

from collections.abc import Sequence

from monitor.checks.contrast import POLARITY_ALIGNED, contrasts, restated, value_date_mismatch
from monitor.checks.evidence import ClaimTerms, claim_terms, index_evidence, shared_bigrams
from monitor.citations.values import flag_stated, value_stated
from monitor.config.options import CheckOptions
from monitor.records.models import (
    AnswerEvent,
    CitationResult,
    Claim,
    ClaimVerdict,
    Confidence,
    Support,
)
from monitor.records.record import record
from monitor.text.dates import has_date
from monitor.text.words import remove_spans

SUPPORTED_AT = 0.75
PARTIAL_AT = 0.55
UNVERIFIABLE_AT = 0.4
PHRASE_SHARE = 0.5  # base = half term coverage, half shared phrasing
NAME_PENALTY = 0.1  # per name (capitalised word) absent from the evidence, at most 3
MISSING_NUMBER_FACTOR = 0.35  # a changed figure: scaled below UNVERIFIABLE_AT, order kept
CONTRADICTION_FACTOR = MISSING_NUMBER_FACTOR  # a negation, antonym, unit, date or name flip
MISSING_IDENTIFIER_CAP = 0.35  # a code symbol the cited code does not contain
BINARY_BASE = 0.25  # the base mapped to the binary cut 0.5 (fitted on WiCE dev)


@record
class Signals:
    coverage: float
    phrase: float
    missing_numbers: tuple[str, ...]
    missing_identifiers: tuple[str, ...]
    missing_names: int
    identifiers: int
    numbers: int
    terms: int

    @property
    def base(self) -> float:
        return (1 - PHRASE_SHARE) * self.coverage + PHRASE_SHARE * self.phrase


def calibrated(base: float) -> float:
    """Piecewise-linear and increasing: 0 -> 0, BINARY_BASE -> 0.5, 1 -> 1."""
    if base <= BINARY_BASE:
        return 0.5 * base / BINARY_BASE
    return 0.5 + 0.5 * (base - BINARY_BASE) / (1 - BINARY_BASE)


def _weight(found: frozenset[str] | set[str], heavy: frozenset[str]) -> int:
    return len(found) + len(found & heavy) if heavy else len(found)


def _union(sets: list[frozenset[str]]) -> frozenset[str]:
    if len(sets) == 1:
        return sets[0]
    return frozenset().union(*sets)


def signals(
    claim_text: str, evidence_texts: Sequence[str], terms: ClaimTerms | None = None
) -> Signals:
    """`terms`: claim_terms(claim_text), when the caller has it (the grounding)."""
    if terms is None:
        terms = claim_terms(claim_text)
    indexes = [index_evidence(t) for t in evidence_texts]
    total = _weight(terms.terms, terms.heavy)
    if indexes and total:
        if len(indexes) == 1:
            found = indexes[0].stems_found(terms.terms)
        else:
            found = terms.terms & _union([ev.stems for ev in indexes])
        missing_names = len(terms.names - found)
        coverage = _weight(found, terms.heavy) / total
    elif total:
        coverage = 0.0
        missing_names = len(terms.names)
    else:
        # nothing but function words and figures: the figures (checked below) are the claim;
        # without figures either, nothing can be checked (BINARY_BASE: unverifiable)
        coverage = 1.0 if (terms.numbers or terms.identifiers) else BINARY_BASE
        missing_names = 0
    # a one-word claim has no phrase to match
    phrase = shared_bigrams(terms, indexes) / len(terms.bigrams) if terms.bigrams else coverage
    # most claims cite one text and name no code symbol: no generator or any() for them
    if len(indexes) == 1:
        only = indexes[0]
        # (most claims state no figure: no generator for them)
        missing_numbers = (
            tuple(m.raw for m in terms.numbers if not only.has_number(m)) if terms.numbers else ()
        )
        missing_ids = (
            tuple(n for n in terms.identifiers if not only.mentions(n)) if terms.identifiers else ()
        )
    else:
        missing_numbers = tuple(
            m.raw for m in terms.numbers if not any(ev.has_number(m) for ev in indexes)
        )
        missing_ids = tuple(
            name for name in terms.identifiers if not any(ev.mentions(name) for ev in indexes)
        )
    return Signals(  # positional: keyword arguments cost a frozen dataclass a third more
        coverage,
        phrase,
        missing_numbers,
        missing_ids,
        missing_names,
        len(terms.identifiers),
        len(terms.numbers),
        len(terms.terms),
    )


def lexical_support(
    claim_text: str,
    evidence_texts: Sequence[str],
    kind: str,
    polarity_share: float = POLARITY_ALIGNED,
    terms: ClaimTerms | None = None,
    verbatim_checked: bool = False,
) -> Support:
    """`terms`: claim_terms(claim_text), when the caller has it; `verbatim_checked`: the claim
    is verbatim in none of the evidence texts (the caller looked: contrasts need not)."""
    sig = signals(claim_text, evidence_texts, terms)
    reasons = [f"term_coverage={sig.coverage:.2f}", f"phrase_overlap={sig.phrase:.2f}"]
    score = max(0.0, calibrated(sig.base) - NAME_PENALTY * min(sig.missing_names, 3))
    if sig.missing_names:
        reasons.append(f"names_missing={sig.missing_names}")
    named = kind == "extractive" and sig.identifiers
    if named and not sig.missing_identifiers and not sig.missing_numbers:
        score = max(score, SUPPORTED_AT)  # every named symbol and figure is there
        reasons.append("identifiers_found")
    # PascalCase words are names in prose; they are code symbols only in claims about code
    missing_ids = [n for n in sig.missing_identifiers if kind == "extractive" or _code_shaped(n)]
    if missing_ids:
        score = min(score, MISSING_IDENTIFIER_CAP)
        reasons.extend(f"identifier_missing:{name}" for name in missing_ids[:3])
    missing = sig.missing_numbers
    if missing:
        # the same quantity in another unit, or an ISO date's month named in the evidence
        again = restated(claim_text, evidence_texts)
        if again:
            missing = tuple(r for r in missing if r.split()[0] not in again)
    flipped: tuple[str, ...] = ()
    # Only a prose claim the words would let pass is worth the closer look (contrast.py); a
    # claim about code stands or falls by its symbols and figures. A changed figure settles the
    # verdict already, so the look is taken then only to name a changed date as one.
    if score >= UNVERIFIABLE_AT and not named and (not missing or has_date(claim_text)):
        flipped = contrasts(
            claim_text, evidence_texts, sig.missing_names > 0, polarity_share, verbatim_checked
        )
    if missing or flipped:
        score *= MISSING_NUMBER_FACTOR  # once, whatever the number of flips
        reasons.extend(f"number_missing:{raw}" for raw in missing[:3])
        reasons.extend(flipped)
    verdict, confidence = _band(score, kind, bool(missing or flipped))
    return Support(verdict, round(score, 4), confidence, "lexical", tuple(reasons))


def _code_shaped(name: str) -> bool:
    return "_" in name or "." in name or name[:1].islower()


def _band(score: float, kind: str, contradicted: bool) -> tuple[ClaimVerdict, Confidence]:
    if contradicted:  # a changed figure, or a meaning flip (contrast.py)
        return "not_supported", "high"
    if score >= SUPPORTED_AT:
        return "supported", "high" if score >= 0.9 else "medium"
    if score >= PARTIAL_AT:
        if kind == "abstractive":
            return "unverifiable", "low"
        return "partially_supported", "medium"
    if score >= UNVERIFIABLE_AT:
        return "unverifiable", "low"
    return "not_supported", "high" if score < 0.2 else "medium"


def _evidence_texts(results: Sequence[CitationResult]) -> list[str]:
    if len(results) == 1:  # the usual claim: one citation
        r = results[0]
        if r.citation.format == "json_path":
            only = str(r.value) if r.value is not None else ""
        else:
            only = r.cited_text or ""
        return [only] if only else []
    texts = []
    for r in results:
        if r.citation.format == "json_path":
            texts.append(str(r.value) if r.value is not None else "")
        elif r.cited_text:
            texts.append(r.cited_text)
    # Evidence is a set: a claim citing one span 1,000 times must not scan it 1,000 times
    # per figure (that made a 1 MB answer of repeated citations run for minutes).
    return list(dict.fromkeys(t for t in texts if t))


def assess_claim(
    claim: Claim,
    evidence: Sequence[CitationResult],
    event: AnswerEvent,
    options: CheckOptions,
) -> Support:
    if not claim.citation_indexes or not evidence:
        # check.py grounds uncited claims in the whole context (grounding.py); this is the
        # verdict for a claim assessed without its event's context
        return Support("not_supported", 0.0, "high", "rules", ("uncited",))
    valid = [r for r in evidence if r.valid]
    if not valid:
        errors = sorted({r.error for r in evidence if r.error})
        # a JSON-path date the claim states differently is named as the date flip it is
        changed = [
            d
            for r in evidence
            if r.error == "value_mismatch"
            and (d := value_date_mismatch(claim.text, r.value)) is not None
        ]
        return Support(
            "not_supported",
            0.0,
            "high",
            "rules",
            (
                "invalid_citations",
                *(f"citation_error:{e}" for e in errors),
                *(f"date_mismatch:{d}" for d in changed[:1]),
            ),
        )
    markers = [
        (r.citation.start, r.citation.end) for r in evidence if r.citation.format != "segment"
    ]
    text = remove_spans(claim.text, claim.start, markers)
    values = [r for r in valid if r.citation.format == "json_path"]
    if values and len(values) == len(valid):
        stated = [
            value_stated(
                r.value,
                [text],
                rel_tol=options.numeric_rel_tolerance,
                min_similarity=options.string_min_similarity,
            )
            for r in values
        ]
        if all(stated):
            return Support("supported", 1.0, "high", "rules", ("value_match",))
        if all(isinstance(r.value, bool) for r in values):  # `[active]` with data {"active": true}
            flags = [flag_stated(r.citation.path or "", r.value, text) for r in values]
            if all(f is True for f in flags):
                return Support("supported", 1.0, "high", "rules", ("value_match",))
            if any(f is False for f in flags):
                return Support("not_supported", 0.0, "high", "rules", ("negation_mismatch",))
    texts = _evidence_texts(valid)
    if not texts:
        return Support("unverifiable", 0.5, "low", "rules", ("no_evidence_text",))
    return lexical_support(text, texts, claim.kind)
