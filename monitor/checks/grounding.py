"""Uncited claims against the retrieved context: a hallucination is what the context does not
support, not what the answer forgot to cite.

An uncited claim is first a citation-coverage problem (`coverage`). It is then checked against
every document of the event (and the event's `data`, rendered as "key words: value" lines,
data_text.py), as
if it cited the one that supports it best: a claim found verbatim in one (between sentence
boundaries), or stating a value of the data under its key with the rest of what it says in
that value's record, is supported by rule; a claim naming
a code symbol is checked against the lines around it; otherwise the lexical tier scores it against the document that
shares most of its content words (the one it would have cited), contrast checks included (a
claim that flips a document's statement is not supported by it; a claim naming a person, place
or organisation that no text of the event mentions is not supported, `name_missing:<name>`,
contrast_names.new_names). Every such verdict carries the reason `uncited`, so coverage and grounding stay
apart in verdicts and metrics; only a `not_supported` one is a hallucination.

Answers that never cite (many RAG systems emit no inline markers) are then measured on their
grounding instead of reading 100% hallucination.

Bounded work: past `max_grounded_claims` uncited claims in one answer, and past the citation
cap (the answer's citations after it were never read), claims are undecided (`unverifiable`,
reason `over_cap`) and left out of the answer's rates.
"""

from __future__ import annotations

from dataclasses import field
from typing import Any

from monitor.checks.contrast import MIN_ALIGNED, UNCITED_POLARITY_SHARE
from monitor.checks.contrast_names import new_names
from monitor.checks.contrast_sentences import claim_core, verbatim
from monitor.checks.data_claims import (
    NO_ATTRIBUTES,
    Attributes,
    attribute_conflicts,
    time_conflicts,
)
from monitor.checks.data_context import data_context
from monitor.checks.data_text import Leaf, data_lines, line
from monitor.checks.evidence import ClaimTerms, claim_terms, index_evidence
from monitor.checks.support import CONTRADICTION_FACTOR, lexical_support
from monitor.citations.values import checkable_number, value_stated
from monitor.config.options import CheckOptions
from monitor.records.models import AnswerEvent, Claim, Support
from monitor.records.record import record
from monitor.text.abstention import (
    MIN_RESIDUE_WORDS,
    abstention_spans,
    content_words,
    residue,
)
from monitor.text.negation import NEGATION_RE
from monitor.text.references import SOURCE_NAMES, source_references_removed
from monitor.text.refusal_gate import may_refuse
from monitor.text.words import identifiers

UNCITED = "uncited"
# support.py's reason that a name is missing from the scored document: always its third, after
# term_coverage= and phrase_overlap=
_NAMES_MISSING = "names_missing="
OVER_CAP = "over_cap"
SYMBOL_LINES = 5  # lines around a code symbol an uncited claim about it is checked against
LONG_TEXT = 4_000  # past this, a document's stem and bigram sets are built once for all claims
MAX_STATED_CHARS = 200  # a longer string of the data is no value a sentence states (a review)

NO_CONTEXT = Support("not_supported", 0.0, "high", "rules", (UNCITED, "no_context"))
UNDECIDED = Support("unverifiable", 0.5, "low", "rules", (UNCITED, OVER_CAP))
ABSTENTION = "abstention"
# a refusal: neither support nor hallucination; 0.5 is the score of "no evidence either way"
ABSTAINED = Support("abstain", 0.5, "high", "rules", (UNCITED, ABSTENTION))


def data_leaves(data: Any) -> list[tuple[str, Any]]:
    """(key words, value) of every leaf of `data`: `{"quote": {"premium": 300}}` →
    [("quote premium", 300)] (data_text.py)."""
    return [(words, value) for words, value, _, _ in data_lines(data)]


@record
class Context:
    """The event's retrieved context: every document's text, then its data rendered as text
    (data_text.py), and the data's leaves."""

    texts: list[str]
    leaves: list[Leaf]
    attributes: Attributes  # the data's boolean/null attributes (data_claims.py)
    times: frozenset[int]  # the clock times the data states (minutes after midnight)
    records: dict[int, str]  # an object's lines by its id, filled as claims need them
    values: list[tuple[str, Any, int]]  # _stated_values (filled on first use)
    may_refuse: bool = True  # False: no sentence of the answer can be a refusal
    # for _new_names, built on first use: the content stems of all the texts
    stems: list[frozenset[str]] = field(default_factory=list)


def context_of(event: AnswerEvent) -> Context:
    texts = [t for t in (doc.full_text for doc in event.documents) if t and not t.isspace()]
    # not deduplicated: hashing whole documents per answer costs more than a repeat
    refusing = may_refuse(event.answer)
    if event.data is not None:
        # built once per distinct data value, shared by the answers about it (data_context.py)
        data = data_context(event.data)
        if data.leaves:
            texts.append(data.text)
            return Context(
                texts, data.leaves, data.attributes, data.times, data.records, data.values, refusing
            )
    return Context(texts, [], NO_ATTRIBUTES, frozenset(), {}, [], refusing)


def context_texts(event: AnswerEvent) -> list[str]:
    """The event's retrieved context as texts: every document, then its data."""
    return context_of(event).texts


def _record_text(context: Context, parent: int) -> str:
    """The lines of one object of the data (a value's siblings) and of the data's top level,
    built once per object and event."""
    found = context.records.get(parent)
    if found is None:
        leaves = context.leaves
        top = leaves[0][3] if leaves else 0
        found = "\n".join(line(leaf) for leaf in leaves if leaf[3] in (parent, top))
        context.records[parent] = found
    return found


def _stated_values(context: Context) -> list[tuple[str, Any, int]]:
    """(key's last word, value, parent) of the leaves a claim can state: numbers and strings of
    three characters or more under a key (built once per event)."""
    found = context.values
    if not found and context.leaves and not context.records.get(-1):
        for words, value, _, parent in context.leaves:
            key = words.rsplit(" ", 1)[-1] if words else ""
            if not key or isinstance(value, bool):
                continue
            # a value a sentence can state: a number, or a short string (a name, a date, an
            # address; a sentence does not state a whole review text)
            if checkable_number(value) is not None or (
                isinstance(value, str) and 3 <= len(value) <= MAX_STATED_CHARS
            ):
                found.append((key, value, parent))
        context.records[-1] = "built"  # (ids are positive) an empty list is built too
    return found


def _value_in_data(
    claim: str, context: Context, options: CheckOptions, terms: ClaimTerms | None = None
) -> bool:
    """The claim states a value of the data under its key's last word ("The premium ... is
    1,200" for quote.premium = 1200), negates nothing, states no figure the data lacks, and
    the rest of what it says is found near the value: at least half of its content words (the
    share contrast.py asks of an aligned sentence) in the value's own record (its sibling
    leaves) and the record's top level. One matching number is not enough: "3.5 stars from 3
    reviews" is not supported by `business_stars = 3.5` alone. `terms`: claim_terms(claim),
    when the caller has it."""
    lowered = claim.lower()
    figures_read = False
    for key, value, parent in _stated_values(context):
        if key not in lowered:
            continue
        stated = value_stated(
            value,
            [claim],
            rel_tol=options.numeric_rel_tolerance,
            min_similarity=options.string_min_similarity,
        )
        if not stated:
            continue
        if terms is None:
            terms = claim_terms(claim)
        if not figures_read:
            everything = index_evidence(context.texts[-1])
            if any(not everything.has_number(m) for m in terms.numbers):
                return False  # a figure of the claim that the data does not hold
            figures_read = True
        found = index_evidence(_record_text(context, parent)).stems_found(terms.terms)
        if terms.terms and len(found) >= MIN_ALIGNED * len(terms.terms):
            # a negated claim is never supported here; read last, as few claims get this far
            # (every other way out is False too, so reading it first or last is the same)
            return NEGATION_RE.search(claim) is None
    return False


def _symbol_passage(claim: str, texts: list[str]) -> str | None:
    """The lines around the first code symbol of the claim found in a document: what a line
    citation would cite (the symbol's line and the next SYMBOL_LINES - 1)."""
    for name in identifiers(claim):
        for text in texts:
            at = text.find(name)
            if at >= 0:
                start = text.rfind("\n", 0, at) + 1
                end = start
                for _ in range(SYMBOL_LINES):
                    nl = text.find("\n", end)
                    if nl < 0:
                        return text[start:]
                    end = nl + 1
                return text[start:end]
    return None


def _new_names(text: str, context: Context) -> list[str]:
    """Names of the claim that no text of the context mentions (contrast_names.new_names);
    a source reference's word ("Passage", left by source_references_removed) is no name."""
    texts = context.texts
    if not context.stems:  # every text's content stems, once per event
        sets = [index_evidence(t).stems for t in texts]
        context.stems.append(sets[0] if len(sets) == 1 else frozenset().union(*sets))
    found = new_names(text, context.stems[0].__contains__, texts)
    return [n for n in found if n.rstrip("s") not in SOURCE_NAMES] if found else found


def ground_uncited(claim: Claim, context: Context, options: CheckOptions) -> Support:
    """The verdict on an uncited claim from the event's context (`context_of`). A refusal
    ("the passages do not say") abstains; the content beside a refusal clause is what is
    checked ("X is Y, but the passages do not say Z": X is Y)."""
    text = claim.text
    refusals = abstention_spans(text) if context.may_refuse else []
    if refusals:
        text = residue(text, refusals)
        if content_words(text) < MIN_RESIDUE_WORDS:
            return ABSTAINED
    texts = context.texts
    if not texts:
        return NO_CONTEXT
    text = source_references_removed(text)
    core = claim_core(text)
    for t in texts:
        if verbatim(text, t, core):
            return Support("supported", 1.0, "high", "rules", (UNCITED, "verbatim_in_context"))
    # the claim's terms, once: the data look-up, the choice of document and the scoring share them
    terms = claim_terms(text)
    conflicts: list[str] = []
    names: list[str] | None = None  # names no document mentions (_new_names), read once
    if context.leaves:
        conflicts = attribute_conflicts(text, context.attributes)
        conflicts += time_conflicts(text, context.times)
        if not conflicts and _value_in_data(text, context, options, terms):
            names = _new_names(text, context)
            if not names:  # "4.5 stars on Google": the data names no Google
                return Support("supported", 1.0, "high", "rules", (UNCITED, "value_in_data"))
    best = texts[0]
    passage = _symbol_passage(text, texts) if "`" in text or "_" in text else None
    if passage is not None:
        best = passage  # the lines that hold the code symbol the claim names
    elif len(texts) > 1:
        # the document sharing most of the claim's content stems is the one it would cite; only
        # that one is scored (scoring every document cost a tenth of the check on the mix)
        # (names count twice, as in the term coverage)
        shared = -1
        for t in texts:
            index = index_evidence(t)
            if len(t) > LONG_TEXT:
                _ = index.stems, index.bigrams  # set look-ups instead of a scan per claim
            found = index.stems_found(terms.terms)
            n = len(found) + len(found & terms.heavy)
            if n > shared:
                best, shared = t, n
    # verbatim in no text: contrasts need not look again, unless `best` is a symbol's lines
    # (a claim verbatim there may not be in its document: the line before need not end a sentence)
    support = lexical_support(
        text, [best], claim.kind, UNCITED_POLARITY_SHARE, terms, verbatim_checked=passage is None
    )
    if (
        support.verdict != "not_supported"
        and passage is None
        and (
            names is not None
            or (len(support.reasons) > 2 and support.reasons[2].startswith(_NAMES_MISSING))
        )
    ):
        # a name no document mentions is brought in from outside the context, as a figure is
        # (read only when a name is missing from the best document: lexical_support says so)
        if names is None:
            names = _new_names(text, context)
        conflicts += [f"name_missing:{n}" for n in names[:3]]
    if conflicts:  # the record says otherwise (or nothing): a changed fact, as in support.py
        score = round(support.score * CONTRADICTION_FACTOR, 4)
        return Support(
            "not_supported", score, "high", "lexical", (UNCITED, *support.reasons, *conflicts)
        )
    return Support(
        support.verdict,
        support.score,
        support.confidence,
        support.tier,
        (UNCITED, *support.reasons),
    )
