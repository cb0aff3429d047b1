"""The human-scale gauges and the judge's sensitivity/specificity gauges from calibration
pairs: equal to the pure computation; absent (judge scale) until enough labels exist."""

from __future__ import annotations

from types import SimpleNamespace

import pytest
from prometheus_client import CollectorRegistry

from agents.stream.human_scale import HumanScale
from agents.telemetry.human_metrics import build_human_metrics
from monitor.estimation.human import window_human
from monitor.estimation.judge_error import judge_error
from monitor.estimation.pairs import CalibrationPairs
from monitor.estimation.window import answer_sums, label_sums
from monitor.records.labels import HumanLabel, JudgeSide


def window() -> dict[str, int]:
    sums: dict[str, int] = {}
    scores = [0.1 * (i % 10) for i in range(200)]
    for i, s in enumerate(scores):
        parts = [answer_sums([s], 0, 0)]
        if i % 4 == 0:  # a quarter judged; the judge says not supported below 0.5
            h = int(s < 0.5)
            parts.append(label_sums([s], 1 - h, h))
        for part in parts:
            for k, v in part.items():
                sums[k] = sums.get(k, 0) + v
    return sums


def store(n: int) -> tuple[CalibrationPairs, list[tuple[str, str]]]:
    pairs = CalibrationPairs(1e9)
    got = []
    for i in range(n):
        human = "not_supported" if i % 3 == 0 else "supported"
        judge = human if i % 5 else ("supported" if human == "not_supported" else "not_supported")
        side = JudgeSide(judge, "m", 10.0, "search")
        pairs.put(HumanLabel(f"e{i}", human, "import", 1.0, claim_index=0, judge=side))
        got.append((judge, human))
    return pairs, got


def scale(n: int, min_labels: int = 10) -> tuple[HumanScale, object, list[tuple[str, str]]]:
    metrics = build_human_metrics(CollectorRegistry())
    pairs, got = store(n)
    return (
        HumanScale(SimpleNamespace(calibration_min_labels=min_labels), metrics, pairs),
        metrics,
        got,
    )


def test_gauges_equal_the_pure_correction() -> None:
    human, m, got = scale(90)
    sums = window()
    out = human.publish("search", sums, now=20.0)
    for rate in ("support", "hallucination"):
        want = window_human(sums, rate, judge_error(got, rate))
        assert want is not None
        point, lower, upper = m.human[rate]  # type: ignore[attr-defined]
        assert point.labels(app="search")._value.get() == pytest.approx(want.value)
        assert lower.labels(app="search")._value.get() == pytest.approx(want.lower)
        assert upper.labels(app="search")._value.get() == pytest.approx(want.upper)
        assert out[f"{rate}_human"]["calibration"] == "app"
        assert m.scale_human.labels(app="search", rate=rate)._value.get() == 1  # type: ignore[attr-defined]
    values = human.values("search", sums, 20.0)
    assert (
        values["hallucination_scale_human"] == 1.0
        and values["hallucination_calibration_labels"] == 90
    )


def test_judge_gauges_per_app_model_and_pooled() -> None:
    human, m, got = scale(90)
    human.publish_judge(["search"], now=20.0)
    table = judge_error(got, "hallucination")
    sens = m.sensitivity[0]  # type: ignore[attr-defined]
    for app, model in (("search", "m"), ("search", "_all"), ("_all", "_all"), ("_all", "m")):
        v = sens.labels(app=app, model=model, rate="hallucination")._value.get()
        assert v == pytest.approx(table.sensitivity.value)
    count = m.calibration_labels.labels(  # type: ignore[attr-defined]
        app="_all", model="_all", rate="hallucination", human="negative"
    )._value.get()
    assert count == table.specificity.trials == 60


def test_too_few_labels_stay_on_the_judge_scale() -> None:
    human, m, _ = scale(20, min_labels=10)  # 7 human positives for hallucination
    sums = window()
    out = human.publish("search", sums, now=20.0)
    assert "hallucination_human" not in out
    assert m.scale_human.labels(app="search", rate="hallucination")._value.get() == 0  # type: ignore[attr-defined]
    values = human.values("search", sums, 20.0)
    assert (values["support_scale_human"], values["hallucination_scale_human"]) == (0.0, 0.0)
    assert "support" not in values and "hallucination_upper" not in values
    # the judge's agreement is measured all the same (judge_drift waits for min_events labels)
    agreement = human.agreement("search", 20.0)
    assert agreement is not None and values["judge_agreement"] == agreement[0]
    assert agreement[1] == 7  # the smaller class: 7 human not_supported labels
    human.forget("search")
