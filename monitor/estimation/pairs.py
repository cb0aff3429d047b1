"""Calibration pairs: the latest human label of each claim with the judge's verdict on it, and
the judge's error tables per app and judge model over a horizon. Pure.

Fed with `labels` topic records (monitor.records.labels), latest per key wins, as on the
compacted topic. A pair counts when it has both sides, its human label is a grade (not
`abstain`) and the judge's verdict is one, and the judge gave it within the horizon (the
judge's error is what drifts, so the judge's time decides). Tables: per (app, model), per app
over every model, per model over every app, and pooled (ALL for either).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from monitor.estimation.judge_error import GRADES, JudgeError, judge_error
from monitor.estimation.window import RATES
from monitor.records.labels import HumanLabel

ALL = "_all"  # the label value of a table pooled over apps or models


@dataclass(frozen=True, slots=True)
class Pair:
    app: str
    model: str
    judged_at: float
    judge: str
    human: str


class CalibrationPairs:
    def __init__(self, horizon_seconds: float) -> None:
        self.horizon = horizon_seconds
        self.labels: dict[str, HumanLabel] = {}

    def put(self, label: HumanLabel) -> HumanLabel:
        """Keep `label` as its claim's latest; a new human label without the judge's side keeps
        the side already known (the judge judged the claim once; the person changed their
        mind). Returns what is kept."""
        old = self.labels.get(label.key())
        if label.judge is None and old is not None and old.judge is not None:
            label = label.with_judge(old.judge)
        self.labels[label.key()] = label
        return label

    def get(self, key: str) -> HumanLabel | None:
        return self.labels.get(key)

    def pairs(self, now: float) -> list[Pair]:
        since = now - self.horizon
        out = []
        for lab in self.labels.values():
            j = lab.judge
            if j is None or j.judged_at < since or lab.label not in GRADES:
                continue
            if j.verdict not in GRADES:
                continue
            out.append(
                Pair(j.app or lab.app or "", j.model or "", j.judged_at, j.verdict, lab.label)
            )
        return out

    def tables(self, now: float) -> dict[tuple[str, str], dict[str, JudgeError]]:
        """(app, model) → rate → table, with ALL rows for the pooled groups."""
        groups: dict[tuple[str, str], list[tuple[str, str]]] = {}
        for p in self.pairs(now):
            for key in ((p.app, p.model), (p.app, ALL), (ALL, p.model), (ALL, ALL)):
                groups.setdefault(key, []).append((p.judge, p.human))
        return {k: {r: judge_error(v, r) for r in RATES} for k, v in groups.items()}


def table_for(
    tables: dict[tuple[str, str], dict[str, JudgeError]], app: str, rate: str, min_labels: int
) -> tuple[JudgeError, str] | None:
    """The table that corrects an app's window: the app's own (all models) when it holds at
    least `min_labels` labels of each class, else the pooled one when that does; with which
    (`app` or `pooled`). None: not enough calibration yet (the judge's scale stands)."""
    for key, scope in (((app, ALL), "app"), ((ALL, ALL), "pooled")):
        table = tables.get(key, {}).get(rate)
        if table is not None and _enough(table, min_labels):
            return table, scope
    return None


def _enough(table: JudgeError, min_labels: int) -> bool:
    return min(table.sensitivity.trials, table.specificity.trials) >= min_labels


def put_all(store: CalibrationPairs, labels: Iterable[HumanLabel]) -> None:
    for lab in labels:
        store.put(lab)
