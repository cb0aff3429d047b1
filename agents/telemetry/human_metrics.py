"""The judge measured against human labels, and the rates on the human scale: the gauges.

Built once with the other metrics (agents/telemetry/metrics.build_metrics). The human-scale rates
are new names beside the judge-scale ones (`ragmon_support_ratio` stays what it was, so no
dashboard or rule that reads it changes meaning): `ragmon_support_human_ratio{app}` and its
`_lower`/`_upper`, the same for hallucination, present only while enough calibration labels exist
(docs/estimation.md). `ragmon_rate_scale_human{app,rate}` says which scale the alert rules used.
"""

from __future__ import annotations

from dataclasses import dataclass

from prometheus_client import CollectorRegistry, Gauge

RATES = ("support", "hallucination")


@dataclass(frozen=True)
class HumanMetrics:
    # rate -> (estimate, lower, upper) on the human scale, by app
    human: dict[str, tuple[Gauge, Gauge, Gauge]]
    # the app's rates are on the human scale (1) or the judge's (0)
    scale_human: Gauge
    # (value, lower, upper) by app, model, rate ("_all" pools apps or models)
    sensitivity: tuple[Gauge, Gauge, Gauge]
    specificity: tuple[Gauge, Gauge, Gauge]
    calibration_labels: Gauge

    def app_gauges(self) -> tuple[Gauge, ...]:
        return (*(g for trio in self.human.values() for g in trio), self.scale_human)


def build_human_metrics(registry: CollectorRegistry) -> HumanMetrics:
    def gauge(name: str, doc: str, labels: tuple[str, ...]) -> Gauge:
        return Gauge(f"ragmon_{name}", doc, labels, registry=registry)

    def trio(name: str, doc: str, labels: tuple[str, ...]) -> tuple[Gauge, Gauge, Gauge]:
        return (
            gauge(name, doc, labels),
            gauge(f"{name}_lower", f"Lower bound of ragmon_{name}'s 95% interval.", labels),
            gauge(f"{name}_upper", f"Upper bound of ragmon_{name}'s 95% interval.", labels),
        )

    human = {
        rate: trio(
            f"{rate}_human_ratio",
            f"ragmon_{rate}_ratio corrected to the human scale with the judge's measured "
            "sensitivity and specificity (Rogan-Gladen; docs/estimation.md). Absent until "
            "enough calibration labels exist.",
            ("app",),
        )
        for rate in RATES
    }
    pair = ("app", "model", "rate")
    return HumanMetrics(
        human=human,
        scale_human=gauge(
            "rate_scale_human",
            "1: the app's support/hallucination rules read the human-scale bounds; 0: the "
            "judge's scale (not enough calibration labels).",
            ("app", "rate"),
        ),
        sensitivity=trio(
            "judge_sensitivity_ratio",
            "The judge's sensitivity against human labels (judge positive among human "
            "positives; positive: supported for rate=support, not_supported for "
            "rate=hallucination), over the calibration horizon. app/model _all: pooled.",
            pair,
        ),
        specificity=trio(
            "judge_specificity_ratio",
            "The judge's specificity against human labels (judge negative among human "
            "negatives), over the calibration horizon. app/model _all: pooled.",
            pair,
        ),
        calibration_labels=gauge(
            "calibration_labels",
            "Calibration pairs (human label and judge verdict on one claim) behind the judge's "
            "sensitivity (human=positive) and specificity (human=negative).",
            ("app", "model", "rate", "human"),
        ),
    )
