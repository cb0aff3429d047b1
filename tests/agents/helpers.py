"""Hand-made verdicts and metric readers for the agents' unit tests."""

from __future__ import annotations

from typing import Any

from prometheus_client import CollectorRegistry

from agents.kafka.broker import free_port
from agents.telemetry.metrics import Metrics, build_metrics
from monitor.records.models import (
    Citation,
    CitationResult,
    Claim,
    ClaimResult,
    Scores,
    Support,
    Verdict,
)


def citation(
    index: int, status: str = "valid", error: str | None = None, fmt: str = "span"
) -> CitationResult:
    c = Citation(index=index, raw=f"[c{index}]", format=fmt, start=0, end=4)  # type: ignore[arg-type]
    return CitationResult(citation=c, status=status, error=error, doc_id="d", cited_text="text")  # type: ignore[arg-type]


def claim(
    index: int, cites: tuple[int, ...], verdict: str, tier: str = "lexical", text: str = "A claim."
) -> ClaimResult:
    return ClaimResult(
        claim=Claim(index=index, text=text, start=0, end=len(text), citation_indexes=cites),
        support=Support(verdict=verdict, score=0.5, confidence="medium", tier=tier),  # type: ignore[arg-type]
    )


def verdict(
    event_id: str = "e1",
    app: str | None = "search",
    citations: tuple[CitationResult, ...] = (),
    claims: tuple[ClaimResult, ...] = (),
) -> Verdict:
    scores = Scores(validity_rate=None, support_rate=None, coverage=None, hallucination_rate=None)
    return Verdict(event_id=event_id, app=app, citations=citations, claims=claims, scores=scores)


def mixed_verdict(event_id: str = "e1", app: str | None = "search") -> Verdict:
    """3 citations (one invalid), 5 claims: supported, not_supported, unverifiable, cited only by
    the invalid citation (partially_supported), uncited (unverifiable)."""
    return verdict(
        event_id,
        app,
        citations=(citation(0), citation(1), citation(2, "invalid", "span_out_of_bounds")),
        claims=(
            claim(0, (0,), "supported"),
            claim(1, (1,), "not_supported"),
            claim(2, (0, 1), "unverifiable"),
            claim(3, (2,), "partially_supported"),
            claim(4, (), "unverifiable", tier="rules"),
        ),
    )


def fresh_metrics() -> Metrics:
    return build_metrics(CollectorRegistry())


def value(metrics: Metrics, name: str, **labels: str) -> float:
    got = metrics.registry.get_sample_value(name, labels)
    return 0.0 if got is None else got


def samples(metrics: Metrics, name: str) -> dict[frozenset[tuple[str, str]], float]:
    out: dict[frozenset[tuple[str, str]], float] = {}
    for family in metrics.registry.collect():
        for s in family.samples:
            if s.name == name:
                out[frozenset(s.labels.items())] = s.value
    return out


def labels(**kw: Any) -> frozenset[tuple[str, str]]:
    return frozenset((k, str(v)) for k, v in kw.items())


def unreachable_judge_url() -> str:
    """An OpenAI base URL on a loopback port nobody listens on: connections are refused."""
    return f"http://127.0.0.1:{free_port()}/v1"


def unreachable_judge(metrics: Metrics) -> Any:
    """A judge client pointed at `unreachable_judge_url()`: every call is judge_down at once
    (the runner's plumbing without a server)."""
    from agents.judging.observer import MetricsObserver
    from monitor.judge.client import JudgeClient
    from monitor.judge.config import JudgeConfig

    config = JudgeConfig(base_url=unreachable_judge_url(), model="m", escalation_model=None)
    return JudgeClient(config, observer=MetricsObserver(metrics))
