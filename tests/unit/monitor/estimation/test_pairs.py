"""Calibration pairs: latest label per claim, the judge's side kept, the horizon, the tables."""

from __future__ import annotations

from monitor.estimation.pairs import ALL, CalibrationPairs, table_for
from monitor.records.labels import HumanLabel, JudgeSide


def lab(
    eid: str, human: str, judge: str | None, at: float = 100.0, app: str = "a", model: str = "m"
) -> HumanLabel:
    side = None if judge is None else JudgeSide(judge, model, at, app)
    return HumanLabel(eid, human, "import", at, claim_index=0, judge=side)


def test_tables_per_app_model_and_pooled() -> None:
    store = CalibrationPairs(horizon_seconds=50)
    for i, (h, j) in enumerate(
        [("not_supported", "not_supported")] * 3 + [("supported", "not_supported")]
    ):
        store.put(lab(f"x{i}", h, j))
    store.put(lab("y", "not_supported", "supported", app="b", model="n"))
    store.put(lab("z", "abstain", "supported"))  # can't tell: no pair
    store.put(lab("w", "supported", None))  # no judge verdict yet: no pair
    store.put(lab("old", "supported", "supported", at=10.0))  # past the horizon
    tables = store.tables(now=120.0)
    hal = tables[("a", "m")]["hallucination"]
    assert (hal.true_positive, hal.false_negative, hal.true_negative, hal.false_positive) == (
        3,
        0,
        0,
        1,
    )
    assert tables[(ALL, ALL)]["hallucination"].labels == 5
    assert tables[("b", ALL)]["hallucination"].false_negative == 1
    assert tables[(ALL, "n")]["hallucination"].labels == 1
    assert ("a", ALL) in tables and len(tables) == 7  # a·m, b·n, each pooled 3 ways, one shared


def test_a_new_human_label_keeps_the_judges_side() -> None:
    store = CalibrationPairs(3600)
    store.put(lab("e", "supported", "supported"))
    kept = store.put(lab("e", "not_supported", None))
    assert kept.label == "not_supported" and kept.judge is not None
    assert len(store.pairs(100.0)) == 1


def test_table_for_prefers_the_app_then_the_pool() -> None:
    store = CalibrationPairs(1e9)
    for i in range(3):
        store.put(lab(f"p{i}", "not_supported", "not_supported", app="big"))
        store.put(lab(f"n{i}", "supported", "supported", app="big"))
    store.put(lab("s", "supported", "supported", app="small"))
    tables = store.tables(200.0)
    got = table_for(tables, "big", "hallucination", 3)
    assert got is not None and got[1] == "app"
    got = table_for(tables, "small", "hallucination", 3)
    assert got is not None and got[1] == "pooled"
    assert table_for(tables, "small", "hallucination", 4) is None
