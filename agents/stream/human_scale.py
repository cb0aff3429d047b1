"""The window's support and hallucination on the human scale, and the judge's measured error:
gauges, and the values the alert rules read.

Calibration tables come from the worker's calibration pairs (every label of the `labels` topic,
paired with the judge's verdict: agents/labelling), pooled over RAGMON_CALIBRATION_HORIZON_SECONDS.
An app's window is corrected with its own table once that holds RAGMON_CALIBRATION_MIN_LABELS
human labels of each class, else with the pooled table once that does; until then nothing changes:
the gauges and rules stay on the judge's scale (`ragmon_rate_scale_human` 0).
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterable, Mapping
from typing import Any

from agents.telemetry.human_metrics import HumanMetrics
from monitor.estimation.human import HumanEstimate, window_human
from monitor.estimation.judge_error import JudgeError
from monitor.estimation.pairs import ALL, CalibrationPairs, table_for
from monitor.estimation.window import RATES

Tables = dict[tuple[str, str], dict[str, JudgeError]]


class HumanScale:
    def __init__(self, settings: Any, metrics: HumanMetrics, pairs: CalibrationPairs) -> None:
        self.metrics = metrics
        self.pairs = pairs
        self.min_labels = settings.calibration_min_labels
        self._tables: tuple[float, Tables] | None = None
        self._judge_series: set[tuple[str, str, str]] = set()

    def tables(self, now: float) -> Tables:
        """Computed once per gauge tick (`now`), shared by every app."""
        if self._tables is None or self._tables[0] != now:
            self._tables = (now, self.pairs.tables(now))
        return self._tables[1]

    def _chosen(
        self, app: str, counts: Mapping[str, int], now: float
    ) -> dict[str, tuple[HumanEstimate, str, JudgeError]]:
        """rate → (human-scale estimate, `app` or `pooled` calibration, its table)."""
        tables = self.tables(now)
        out = {}
        for rate in RATES:
            chosen = table_for(tables, app, rate, self.min_labels)
            if chosen is None:
                continue
            got = window_human(counts, rate, chosen[0])
            if got is not None and got.value is not None:
                out[rate] = (got, chosen[1], chosen[0])
        return out

    def estimates(
        self, app: str, counts: Mapping[str, int], now: float
    ) -> dict[str, tuple[HumanEstimate, str]]:
        """rate → (human-scale estimate, `app` or `pooled` calibration) where there is one."""
        return {
            rate: (est, scope) for rate, (est, scope, _) in self._chosen(app, counts, now).items()
        }

    def calibration(self, app: str, counts: Mapping[str, int], now: float) -> dict[str, JudgeError]:
        """rate → the calibration table of its human-scale figure, where there is one: the alert
        rules recompute the bound at their own level from it."""
        return {rate: table for rate, (_, _, table) in self._chosen(app, counts, now).items()}

    def values(self, app: str, counts: Mapping[str, int], now: float) -> dict[str, float | None]:
        """What the alert rules read in place of the judge-scale figures: per rate the human
        estimate and bounds where there is one, and `{rate}_scale_human` (1 or 0) always, so
        the alert text says which scale it used."""
        out: dict[str, float | None] = {}
        got = self.estimates(app, counts, now)
        for rate in RATES:
            if rate in got:
                est = got[rate][0]
                out.update(
                    {
                        rate: est.value,
                        f"{rate}_lower": est.lower,
                        f"{rate}_upper": est.upper,
                        f"{rate}_scale_human": 1.0,
                        f"{rate}_calibration_labels": float(est.labels),
                    }
                )
            else:
                out[f"{rate}_scale_human"] = 0.0
        agreement = self.agreement(app, now)
        if agreement is not None:
            out["judge_agreement"] = agreement[0]
        return out

    def agreement(self, app: str, now: float) -> tuple[float, int] | None:
        """(the lowest upper bound of the judge's sensitivity and specificity for the app, over
        both rates; the labels of the smallest class behind it), what `judge_drift` watches;
        None without a label of each class."""
        by_rate = self.tables(now).get((app, ALL))
        if not by_rate:
            return None
        bounds, sizes = [], []
        for table in by_rate.values():
            for share in (table.sensitivity, table.specificity):
                if share.upper is None:
                    return None
                bounds.append(share.upper)
                sizes.append(share.trials)
        return min(bounds), min(sizes)

    def publish(self, app: str, counts: Mapping[str, int], now: float) -> dict[str, Any]:
        """Set the app's human-scale gauges; returns them (for /status)."""
        got = self.estimates(app, counts, now)
        m = self.metrics
        exported: dict[str, Any] = {}
        for rate in RATES:
            trio = m.human[rate]
            if rate in got:
                est, scope = got[rate]
                for gauge, v in zip(trio, (est.value, est.lower, est.upper), strict=True):
                    gauge.labels(app=app).set(v or 0.0)
                exported[f"{rate}_human"] = {**est.to_dict(), "calibration": scope}
            else:
                for gauge in trio:
                    with contextlib.suppress(KeyError):
                        gauge.remove(app)
            m.scale_human.labels(app=app, rate=rate).set(1 if rate in got else 0)
        return exported

    def publish_judge(self, apps: Iterable[str], now: float) -> None:
        """The judge's sensitivity and specificity per (app, model) of the apps this worker
        owns, and pooled (app `_all`: every worker publishes the same figure)."""
        wanted = set(apps) | {ALL}
        seen: set[tuple[str, str, str]] = set()
        m = self.metrics
        for (app, model), by_rate in self.tables(now).items():
            if app not in wanted:
                continue
            for rate, table in by_rate.items():
                key = (app, model, rate)
                seen.add(key)
                for trio, share in (
                    (m.sensitivity, table.sensitivity),
                    (m.specificity, table.specificity),
                ):
                    if share.value is None:
                        for gauge in trio:
                            with contextlib.suppress(KeyError):
                                gauge.remove(*key)
                        continue
                    for gauge, v in zip(trio, (share.value, share.lower, share.upper), strict=True):
                        gauge.labels(app=app, model=model, rate=rate).set(v or 0.0)
                for human, share in (
                    ("positive", table.sensitivity),
                    ("negative", table.specificity),
                ):
                    m.calibration_labels.labels(app=app, model=model, rate=rate, human=human).set(
                        share.trials
                    )
        for key in self._judge_series - seen:
            for gauge in (*m.sensitivity, *m.specificity):
                with contextlib.suppress(KeyError):
                    gauge.remove(*key)
            for human in ("positive", "negative"):
                with contextlib.suppress(KeyError):
                    m.calibration_labels.remove(*key, human)
        self._judge_series = seen

    def forget(self, app: str) -> None:
        for rate in RATES:
            for gauge in self.metrics.human[rate]:
                with contextlib.suppress(KeyError):
                    gauge.remove(app)
            with contextlib.suppress(KeyError):
                self.metrics.scale_human.remove(app, rate)
