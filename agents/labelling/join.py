"""Pairs a human label with the judge's verdict on the same claim, whichever comes first.

Every worker holds every label (the `labels` topic is small and compacted: `feed.py` reads all
of it), but only the worker that judged an answer holds the judge's record (`JudgedClaims`, in
memory, newest kept). So exactly one worker sees both sides and publishes the label again with
the judge's side added, under the same key; every worker then reads that pair from the topic.
A human label arriving after that worker restarted finds no judged claim and stays unpaired
(counted: `unpaired`); the judge's record for a claim labelled before it was judged always
pairs.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from typing import Any

import structlog

from monitor.estimation.judge_error import GRADES
from monitor.estimation.pairs import CalibrationPairs
from monitor.records.labels import HumanLabel, JudgeSide, encode

log = structlog.get_logger("ragmon.labels")

PublishLabel = Callable[[HumanLabel], Awaitable[None]]


class JudgedClaims:
    """event id → (claim index → the judge's side), the newest `kept` answers."""

    def __init__(self, kept: int) -> None:
        self.kept = kept
        self._by_event: OrderedDict[str, dict[int, JudgeSide]] = OrderedDict()

    def add(self, record: Mapping[str, Any]) -> dict[int, JudgeSide]:
        event_id = str(record.get("event_id") or "")
        sides = {
            int(c["index"]): JudgeSide(
                verdict=str(c["verdict"]),
                model=str(c.get("model") or ""),
                judged_at=float(record.get("judged_at") or 0.0),
                app=str(record.get("app") or ""),
            )
            for c in record.get("claims") or ()
            if isinstance(c, Mapping)
            and c.get("verdict") in GRADES
            and isinstance(c.get("index"), int)
        }
        if event_id and sides and self.kept:
            self._by_event[event_id] = sides
            self._by_event.move_to_end(event_id)
            while len(self._by_event) > self.kept:
                self._by_event.popitem(last=False)
        return sides

    def get(self, event_id: str, index: int) -> JudgeSide | None:
        return self._by_event.get(event_id, {}).get(index)


@dataclass
class JoinCounts:
    labels: int = 0
    paired: int = 0
    unpaired: int = 0


class LabelJoin:
    def __init__(
        self, store: CalibrationPairs, judged: JudgedClaims, publish: PublishLabel | None
    ) -> None:
        self.store = store
        self.judged = judged
        self.publish = publish
        self.counts = JoinCounts()

    async def on_label(self, label: HumanLabel) -> None:
        """A record read from the `labels` topic."""
        kept = self.store.put(label)
        self.counts.labels += 1
        if kept.judge is not None or kept.claim_index is None:
            return
        side = self.judged.get(kept.event_id, kept.claim_index)
        if side is None:
            self.counts.unpaired += 1
            return
        await self._pair(kept, side)

    async def on_judged(self, record: Mapping[str, Any]) -> None:
        """A judge record this worker produced (agents/judging/agent.py)."""
        sides = self.judged.add(record)
        event_id = str(record.get("event_id") or "")
        for index, side in sides.items():
            label = self.store.get(f"{event_id}:{index}")
            if label is None:
                continue
            if label.judge is not None and (label.judge.verdict, label.judge.model) == (
                side.verdict,
                side.model,
            ):
                continue  # the same judgement read again (at-least-once delivery)
            await self._pair(label, side)

    async def _pair(self, label: HumanLabel, side: JudgeSide) -> None:
        paired = self.store.put(label.with_judge(side))
        self.counts.paired += 1
        if self.publish is not None:
            await self.publish(paired)
        log.info(
            "calibration pair",
            event_id=label.event_id,
            claim_index=label.claim_index,
            human=label.label,
            judge=side.verdict,
            model=side.model,
        )


def build_label_join(settings: Any, channel: Any) -> LabelJoin:
    """The worker's join, publishing pairs to the `labels` Faust channel (raw bytes)."""

    async def publish(label: HumanLabel) -> None:
        key, value = encode(label)
        await channel.send(key=key, value=value)

    return LabelJoin(
        CalibrationPairs(settings.calibration_horizon_seconds),
        JudgedClaims(settings.judged_claims_kept),
        publish,
    )
