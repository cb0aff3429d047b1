"""Offline judging for `ragmon eval --judge`: every judgeable claim of every event, no sampling,
with the same client, prompt, schema, retries and budgets as the stream. Plus the glue from
checked events to the TREC outputs and the HTML report rows.

Call sites in `ragmon eval` (after the cheap tier has produced `checked = [(event, verdict)]`)::

    result = judge_eval(checked, settings)              # --judge
    rows = report_rows(checked, labels, result.records)  # labels: event_id -> human label
    Path(args.html).write_text(render_report(rows, summary=text))           # --html
    qrels_text, board_text = trec_outputs(checked, result.records)           # --qrels/--leaderboard
"""

from __future__ import annotations

import asyncio
import time
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from prometheus_client import CollectorRegistry

from agents.judging.observer import MetricsObserver
from agents.telemetry.logs import configure_logging
from agents.telemetry.metrics import Metrics, build_metrics
from monitor.judge.client import AnswerOutcome, JudgeClient
from monitor.judge.config import JudgeConfig
from monitor.judge.record import judge_record
from monitor.judge.request import build_request, judge_items
from monitor.output.report_html import ReportRow
from monitor.output.trec import (
    format_leaderboard,
    format_qrels,
    leaderboard,
    qrels,
    response_from,
)
from monitor.records.models import AnswerEvent, Verdict
from monitor.sampling.policy import Budget

Checked = Sequence[tuple[AnswerEvent, Verdict]]


# What to try when every call ended one way (docs/judge.md has each server's settings).
_HINTS = {
    "format_rejected": "RAGMON_JUDGE_RESPONSE_FORMAT=auto tries each form; docs/judge.md "
    "names the one your server takes",
    "client_error": "check RAGMON_JUDGE_MODEL, OPENAI_API_KEY and the server's context size",
    "unverifiable": "raise RAGMON_JUDGE_TIMEOUT_SECONDS or lower RAGMON_JUDGE_MAX_EVIDENCE_CHARS",
    "judge_error": "the model's replies were unusable: see the rejections by reason",
    "rate_limited": "lower RAGMON_JUDGE_CONCURRENCY or RAGMON_JUDGE_CALLS_PER_MINUTE",
    "budget_calls": "RAGMON_JUDGE_CALLS_PER_MINUTE is spent",
    "budget_tokens": "RAGMON_JUDGE_TOKENS_PER_HOUR is spent",
}


@dataclass
class JudgeEvalResult:
    records: dict[str, dict[str, Any]] = field(default_factory=dict)  # event_id → judge record
    metrics: Metrics | None = None
    #: what the run saw of the server: its URL, the response format that ended up in use, and
    #: per outcome the server's last error text (secrets removed)
    url: str = ""
    form: str = ""
    problems: dict[str, str] = field(default_factory=dict)

    def _sum(self, metric: Any, suffix: str, label: str | None = None) -> Counter[str]:
        counts: Counter[str] = Counter()
        if self.metrics is None:
            return counts
        for family in metric.collect():
            for s in family.samples:
                if s.name.endswith(suffix):
                    counts[s.labels[label] if label else ""] += s.value
        return counts

    def latency(self) -> tuple[int, float]:
        """(attempts, seconds spent in them) over every HTTP attempt of the run."""
        if self.metrics is None:
            return 0, 0.0
        count = self._sum(self.metrics.judge_latency, "_count")[""]
        total = self._sum(self.metrics.judge_latency, "_sum")[""]
        return int(count), float(total)

    def invalid(self) -> dict[str, int]:
        """Replies that were not verdicts, by reason."""
        if self.metrics is None:
            return {}
        got = self._sum(self.metrics.judge_invalid_replies, "_total", "reason")
        return {k: int(v) for k, v in got.items()}

    def failure(self) -> str | None:
        """One line when the judge produced nothing: unreachable, or every call failed."""
        calls = self.outcomes()
        if not calls or calls.get("ok"):
            return None
        if calls.get("judge_down") == sum(calls.values()):
            why = self.problems.get("judge_down", f"cannot reach {self.url}")
            return f"ragmon eval: the judge is unreachable: {why}"
        worst = max(calls, key=lambda k: calls[k])
        counted = ", ".join(f"{k} {v}" for k, v in sorted(calls.items()))
        why = self.problems.get(worst, "")
        hint = _HINTS.get(worst, "")
        return (
            f"ragmon eval: every judge call to {self.url} failed ({counted})"
            + (f"; last {worst}: {why}" if why else "")
            + (f" ({hint})" if hint else "")
        )

    def outcomes(self) -> Counter[str]:
        """Logical calls by outcome (all models), from the run's own registry."""
        counts: Counter[str] = Counter()
        if self.metrics is None:
            return counts
        for metric in self.metrics.judge_requests.collect():
            for s in metric.samples:
                if s.name.endswith("_total"):
                    counts[s.labels["outcome"]] += int(s.value)
        return counts

    def tokens(self) -> tuple[int, int]:
        if self.metrics is None:
            return 0, 0
        got = {"in": 0.0, "out": 0.0}
        for metric in self.metrics.judge_tokens.collect():
            for s in metric.samples:
                if s.name.endswith("_total"):
                    got[s.labels["direction"]] += s.value
        return int(got["in"]), int(got["out"])


async def judge_events(
    checked: Checked, client: JudgeClient, concurrency: int = 4, max_evidence_chars: int = 6_000
) -> dict[str, dict[str, Any]]:
    gate = asyncio.Semaphore(max(1, concurrency))
    records: dict[str, dict[str, Any]] = {}

    async def one(event: AnswerEvent, verdict: Verdict) -> None:
        items = judge_items(verdict, max_evidence_chars, event)
        request = build_request(event, verdict, items, "eval", client.config.batch_size)
        if not items and not request.gold_answer:
            return
        async with gate:
            outcomes = await client.judge([i.pair for i in items]) if items else []
            answer: AnswerOutcome | None = None
            if request.gold_answer and request.answer:
                answer = await client.judge_answer(
                    request.question, request.answer, request.gold_answer
                )
        records[event.event_id] = judge_record(request, outcomes, answer, time.time())

    await asyncio.gather(*(one(e, v) for e, v in checked if v.error is None))
    return records


def judge_eval(
    checked: Checked, settings: Any, *, client: JudgeClient | None = None
) -> JudgeEvalResult:
    """Judge every event (blocking); budgets from the settings still apply."""
    # the judge's warnings (a server's error text) go to stderr: stdout carries `--json`
    configure_logging(settings.log_level, settings.log_format)
    metrics = build_metrics(CollectorRegistry())
    config = JudgeConfig.from_settings(settings)
    result = JudgeEvalResult(metrics=metrics, url=config.base_url or "https://api.openai.com/v1")

    async def go() -> dict[str, dict[str, Any]]:
        judge = client or JudgeClient(
            config,
            observer=MetricsObserver(metrics, log_problems=False),  # in the summary instead
            budget=Budget(settings.judge_calls_per_minute, settings.judge_tokens_per_hour),
        )
        try:
            return await judge_events(
                checked, judge, judge.config.max_in_flight, settings.judge_max_evidence_chars
            )
        finally:
            result.form, result.problems = judge.form, dict(judge.problems)
            await judge.aclose()

    result.records = asyncio.run(go())
    return result


def _judged_claims(record: Mapping[str, Any] | None) -> dict[int, str | None]:
    if not record:
        return {}
    return {c["index"]: c.get("verdict") for c in record.get("claims", [])}


def weakest_cheap(verdict: Verdict) -> tuple[str, float] | None:
    """The weakest cited claim's (verdict, score), all claims when none is cited (as `ragmon
    eval` reduces an event to one unit)."""
    claims = [c for c in verdict.claims if c.claim.cited] or list(verdict.claims)
    if not claims:
        return None
    weakest = min(claims, key=lambda c: c.support.score)
    return weakest.support.verdict, weakest.support.score


def weakest_judged(record: Mapping[str, Any] | None) -> tuple[str, float] | None:
    """The weakest claim the judge gave a verdict and score (timeouts and failures left out),
    among the cited claims when there are any, as `weakest_cheap` picks the cheap tier's: the
    two verdicts compared with one human label are then about the same claim."""
    scored = [
        c
        for c in (record or {}).get("claims", [])
        if c.get("verdict") and isinstance(c.get("score"), int | float)
    ]
    scored = [c for c in scored if c.get("cited", True)] or scored
    if not scored:
        return None
    weakest = min(scored, key=lambda c: c["score"])
    return str(weakest["verdict"]), float(weakest["score"])


def report_rows(
    checked: Checked,
    labels: Mapping[str, str],
    records: Mapping[str, Mapping[str, Any]] | None = None,
) -> list[ReportRow]:
    """One row per labelled, scorable event: cheap and judge verdict and score of its weakest
    claim."""
    rows = []
    for event, verdict in checked:
        label = labels.get(event.event_id)
        cheap = weakest_cheap(verdict)
        if label is None or cheap is None:
            continue
        judged = weakest_judged((records or {}).get(event.event_id))
        rows.append(
            ReportRow(
                event_id=event.event_id,
                app=event.app or "other",
                label=label,
                cheap_verdict=cheap[0],
                cheap_score=cheap[1],
                judge_verdict=judged[0] if judged else None,
                judge_score=judged[1] if judged else None,
            )
        )
    return rows


def trec_outputs(
    checked: Checked, records: Mapping[str, Mapping[str, Any]] | None = None
) -> tuple[str, str]:
    """(qrels text, leaderboard text); the judge's claim verdicts win over the cheap tier's."""
    responses = []
    for event, verdict in checked:
        if verdict.error is not None:
            continue
        r = response_from(event, verdict, _judged_claims((records or {}).get(event.event_id)))
        if r is not None:
            responses.append(r)
    return format_qrels(qrels(responses)), format_leaderboard(leaderboard(responses))
