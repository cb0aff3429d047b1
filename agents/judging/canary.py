"""Canary agreement of the cheap tier, kept on the check path (judge on or off). Imports no
network client, so the app factory can install it unconditionally."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from agents.telemetry.metrics import Metrics
from monitor.judge.answer import AgreementWindow, says_supported
from monitor.records.models import AnswerEvent, Verdict


def cheap_canary_hook(
    metrics: Metrics, app_label: Callable[[str | None], str], window: int = 200
) -> Callable[..., None]:
    """A check-path verdict hook `(event, verdict, *_)`: every canary (event with gold.label)
    updates `cheap_agreement_ratio{app}`, judge enabled or not. CPU only, never awaits."""
    agreement = AgreementWindow(window)

    def hook(event: AnswerEvent, verdict: Verdict, *_: Any) -> None:
        if event.gold_label is None or verdict.error is not None:
            return
        app = app_label(event.app)
        ratio = agreement.observe(
            app, says_supported(r.support.verdict for r in verdict.claims), event.gold_label
        )
        if ratio is not None:
            metrics.cheap_agreement_ratio.labels(app=app).set(ratio)

    return hook
