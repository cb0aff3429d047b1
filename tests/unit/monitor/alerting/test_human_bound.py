"""An estimated rule on the human scale compares the human-scale bound at its own level.

The gauges' human-scale bounds are 95%; a rule with another level (the defaults: a stated
false-page budget) must not read them, nor fall back to the judge-scale bound at its level.
"""

from __future__ import annotations

import random
from dataclasses import replace

from monitor.alerting.alert_rules import AlertRule, WindowFigures
from monitor.estimation.human import window_human
from monitor.estimation.judge_error import JudgeError
from monitor.estimation.window import answer_sums, label_sums, rate_figures

TABLE = JudgeError(true_positive=45, false_negative=5, true_negative=105, false_positive=45)


def window() -> dict[str, int]:
    rng = random.Random(7)
    sums: dict[str, int] = {}
    for i in range(400):
        score = rng.random()
        parts = [answer_sums([score], 0, 0)]
        if i % 5 == 0:  # a fifth judged: the judge calls 40% of them not supported
            bad = int(rng.random() < 0.4)
            parts.append(label_sums([score], 1 - bad, bad))
        for part in parts:
            for k, v in part.items():
                sums[k] = sums.get(k, 0) + v
    return sums


def rule(level: float) -> AlertRule:
    return AlertRule(
        name="hallucination_high", figure="hallucination", op="above", threshold=0.10,
        resolve_threshold=0.07, min_events=1, min_judged=1, level=level,
    )  # fmt: skip


def test_the_rule_reads_the_human_bound_at_its_level() -> None:
    sums = window()
    plain = WindowFigures.from_counts("a", 0.0, events=400, **sums)
    calibrated = replace(plain, calibration={"hallucination": TABLE})
    strict = rule(0.9995)
    want = window_human(sums, "hallucination", replace(TABLE, level=0.9995))
    assert want is not None and want.lower is not None
    assert strict.observed(calibrated) == want.lower
    # neither the 95% human bound nor the judge scale at the rule's level
    at95 = window_human(sums, "hallucination", TABLE)
    assert at95 is not None and at95.lower is not None and want.lower < at95.lower
    judge = rate_figures(sums, "hallucination", 0.9995).estimate
    assert judge is not None and strict.observed(plain) == judge.lower != want.lower


def test_without_calibration_nothing_changes() -> None:
    sums = window()
    plain = WindowFigures.from_counts("a", 0.0, events=400, **sums)
    assert rule(0.95).observed(plain) == plain.values["hallucination_lower"]
