"""pytest-benchmark figures for the pure checking core on the standard mix.

Disabled by default (`--benchmark-disable` in addopts): CI runs each body once as a smoke test.
Figures: `.venv/bin/pytest tests/bench/test_core_bench.py --benchmark-enable`; divide a round's
time by EVENTS for µs per event (the `events` extra info). Every round starts with a cold
evidence-index cache, as a stream of new answers over new documents does. Asserts no timings.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from monitor.check import check_bytes, check_event, clear_caches
from monitor.checks.claims import split_claims
from monitor.checks.evidence import EvidenceIndex, claim_terms
from monitor.checks.quotes import check_quotes
from monitor.checks.scoring import answer_scores
from monitor.checks.support import assess_claim
from monitor.citations.extract import extract_citations
from monitor.citations.resolve import resolve_citations
from monitor.config.options import CheckOptions
from monitor.inputs.decode import decode_event
from monitor.records.models import (
    AnswerEvent,
    Citation,
    CitationResult,
    Claim,
    ClaimResult,
    Verdict,
)
from tests.conftest import standard_mix

EVENTS = 500
OPTIONS = CheckOptions()

Staged = tuple[AnswerEvent, list[Citation], list[CitationResult], list[Claim]]


@pytest.fixture(scope="module")
def raw_events() -> list[bytes]:
    return [json.dumps(e, ensure_ascii=False).encode() for e in standard_mix(EVENTS, seed=7)]


@pytest.fixture(scope="module")
def events(raw_events: list[bytes]) -> list[AnswerEvent]:
    out = [decode_event(raw, OPTIONS) for raw in raw_events]
    assert all(isinstance(e, AnswerEvent) for e in out)
    return [e for e in out if isinstance(e, AnswerEvent)]


@pytest.fixture(scope="module")
def staged(events: list[AnswerEvent]) -> list[Staged]:
    out = []
    for event in events:
        citations, _ = extract_citations(event, OPTIONS)
        results = resolve_citations(event, citations, OPTIONS)
        claims = split_claims(event, citations, OPTIONS)
        out.append((event, citations, check_quotes(event, claims, results, OPTIONS), claims))
    return out


def _cold() -> None:
    clear_caches()


def _run(benchmark: Any, fn: Any, n: int) -> Any:
    benchmark.extra_info["events"] = n
    return benchmark.pedantic(fn, setup=_cold, rounds=5, iterations=1)


def test_core_check_bytes(benchmark: Any, raw_events: list[bytes]) -> None:
    """The official figure's path: bytes in, Verdict out, every stage."""
    verdicts = _run(benchmark, lambda: [check_bytes(r, OPTIONS) for r in raw_events], EVENTS)
    assert all(isinstance(v, Verdict) for v in verdicts)
    assert sum(len(v.claims) for v in verdicts) > len(verdicts)


def test_stage_decode(benchmark: Any, raw_events: list[bytes]) -> None:
    out = _run(benchmark, lambda: [decode_event(r, OPTIONS) for r in raw_events], EVENTS)
    assert all(isinstance(e, AnswerEvent) for e in out)


def test_stage_extract(benchmark: Any, events: list[AnswerEvent]) -> None:
    out = _run(benchmark, lambda: [extract_citations(e, OPTIONS) for e in events], len(events))
    assert sum(len(c) for c, _ in out) > len(events)


def test_stage_resolve(benchmark: Any, staged: list[Staged]) -> None:
    out = _run(
        benchmark, lambda: [resolve_citations(e, c, OPTIONS) for e, c, _, _ in staged], len(staged)
    )
    assert any(r.valid for results in out for r in results)


def test_stage_split(benchmark: Any, staged: list[Staged]) -> None:
    out = _run(
        benchmark, lambda: [split_claims(e, c, OPTIONS) for e, c, _, _ in staged], len(staged)
    )
    assert [len(claims) for claims in out] == [len(s[3]) for s in staged]


def test_stage_support(benchmark: Any, staged: list[Staged]) -> None:
    def support() -> list[ClaimResult]:
        out = []
        for event, _, results, claims in staged:
            by_index = {r.citation.index: r for r in results}
            for claim in claims:
                evidence = [by_index[i] for i in claim.citation_indexes]
                out.append(ClaimResult(claim, assess_claim(claim, evidence, event, OPTIONS)))
        return out

    out = _run(benchmark, support, len(staged))
    assert {r.support.verdict for r in out} >= {"supported", "not_supported"}


def test_stage_scores(benchmark: Any, staged: list[Staged]) -> None:
    checked = [(e, check_event(e, OPTIONS)) for e, _, _, _ in staged]
    out = _run(
        benchmark,
        lambda: [answer_scores(e, v.citations, v.claims, OPTIONS) for e, v in checked],
        len(checked),
    )
    assert out == [v.scores for _, v in checked]


def test_evidence_index_and_claim_terms(benchmark: Any, staged: list[Staged]) -> None:
    """The support tier's two lexical builders: every cited text indexed, every claim read."""
    texts = sorted({r.cited_text for _, _, results, _ in staged for r in results if r.cited_text})
    claims = [c.text for _, _, _, cs in staged for c in cs]

    def build() -> int:
        indexes = [EvidenceIndex(t) for t in texts]
        terms = [claim_terms(c) for c in claims]
        return len(indexes) + len(terms)

    assert _run(benchmark, build, len(staged)) == len(texts) + len(claims)
