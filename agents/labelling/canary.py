"""Canary per-claim gold labels (`gold.claims`) onto the `labels` topic, from the check path."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from monitor.records.labels import canary_labels, encode
from monitor.records.models import AnswerEvent, Verdict

Emit = Callable[[str, bytes, bytes], None]


def canary_label_hook(emit: Emit, app_label: Callable[[str | None], str]) -> Callable[..., None]:
    """A check-path verdict hook: a canary with `gold.claims` gives one label record per claim
    (source `canary`), buffered with the batch's other output (never awaited per event)."""

    def hook(event: AnswerEvent, verdict: Verdict, *_: Any) -> None:
        if not event.gold_claims or verdict.error is not None:
            return
        gold = [{"index": g.index, "text": g.text, "label": g.label} for g in event.gold_claims]
        texts = [c.claim.text for c in verdict.claims]
        for label in canary_labels(event.event_id, gold, texts, time.time(), app_label(event.app)):
            key, value = encode(label)
            emit("labels", key, value)

    return hook
