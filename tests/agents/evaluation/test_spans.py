"""Span labels → claim labels, and the response/claim figures of `ragmon eval` on them."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from agents.cli import main
from agents.evaluation.span_eval import claim_figures, response_figures
from agents.evaluation.spans import claim_span_labels, load_span_labels, overlaps
from monitor.config.errors import InputError


@dataclass(frozen=True)
class R:
    start: int
    end: int


def test_overlap_is_half_open() -> None:
    assert overlaps(0, 10, [(9, 12)])
    assert not overlaps(0, 10, [(10, 12)])  # touching at the end is no overlap
    assert not overlaps(5, 10, [(0, 5)])
    assert overlaps(5, 10, [(0, 6)])
    assert overlaps(5, 10, [(6, 7)])  # a span inside the claim


def test_claim_labels_by_overlap() -> None:
    claims = [R(0, 20), R(21, 40), R(41, 60)]
    assert claim_span_labels(claims, [(25, 30)]) == ["supported", "not_supported", "supported"]
    assert claim_span_labels(claims, [(15, 45)]) == ["not_supported"] * 3
    assert claim_span_labels(claims, []) == ["supported"] * 3


@given(
    st.lists(st.tuples(st.integers(0, 50), st.integers(0, 20)), max_size=6),
    st.integers(0, 60),
    st.integers(1, 20),
)
def test_overlap_matches_character_sets(spans: list[tuple[int, int]], a: int, n: int) -> None:
    ranges = [(s, s + w) for s, w in spans]
    chars = {i for s, e in ranges for i in range(s, e)}
    assert overlaps(a, a + n, ranges) == bool(chars & set(range(a, a + n)))


def test_load_span_labels(tmp_path: Path) -> None:
    p = tmp_path / "l.jsonl"
    p.write_text(
        json.dumps({"event_id": "a", "spans": [{"start": 3, "end": 5}], "task_type": "QA"})
        + "\n\n"
        + json.dumps({"event_id": "b", "spans": [], "model": "m"})
        + "\n"
    )
    got = load_span_labels(str(p))
    assert got is not None
    assert got["a"].spans == ((3, 5),) and got["a"].hallucinated and got["a"].task_type == "QA"
    assert got["b"].label == "supported" and not got["b"].hallucinated and got["b"].model == "m"
    p.write_text(json.dumps({"event_id": "a", "label": "supported"}) + "\n")
    assert load_span_labels(str(p)) is None  # a claim-label file
    p.write_text(json.dumps({"event_id": "a", "spans": [{"start": 5, "end": 2}]}) + "\n")
    with pytest.raises(InputError, match="start must be"):
        load_span_labels(str(p))
    p.write_text(
        json.dumps({"event_id": "a", "spans": []}) + "\n" + json.dumps({"event_id": "b"}) + "\n"
    )
    with pytest.raises(InputError, match=":2: row without `spans`"):
        load_span_labels(str(p))


def test_response_figures_by_hand() -> None:
    # truth, predicted, score: tp=2, fp=1, fn=1, tn=1
    rows = [
        (True, True, 0.9),
        (True, True, 0.6),
        (True, False, 0.2),
        (False, True, 0.7),
        (False, False, 0.1),
    ]
    f = response_figures(rows)
    assert f["precision"] == pytest.approx(2 / 3) and f["recall"] == pytest.approx(2 / 3)
    assert f["f1"] == pytest.approx(2 / 3)
    # every answer hallucinated: P = 3/5, R = 1 → F1 = 2*3/(2*3+2) = 0.75
    assert f["always_f1"] == pytest.approx(0.75)
    # positives 0.9, 0.6, 0.2 vs negatives 0.7, 0.1: pairs won 2+1+1 of 6
    assert f["auroc"] == pytest.approx(4 / 6)


def test_claim_figures_leave_abstaining_claims_apart() -> None:
    rows = [
        ("supported", "abstain", 0.5),
        ("not_supported", "abstain", 0.5),
        ("not_supported", "not_supported", 0.1),
        ("supported", "supported", 0.9),
        ("not_supported", "supported", 0.8),
        ("supported", "unverifiable", 0.45),
    ]
    f = claim_figures(rows)
    # kept: recall of supported 1/2 (0.45 < 0.5 counts as not), of not_supported 1/2 → BA 0.5
    assert f["balanced_accuracy"] == pytest.approx(0.5)
    assert f["abstain"] == 2 and f["abstain_in_span"] == 1 and f["not_supported"] == 3
    # supported 0.9, 0.45 vs not 0.1, 0.8: pairs won 2 + 1 of 4
    assert f["auroc"] == pytest.approx(0.75)


def test_eval_command_reads_span_labels(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    doc = {"id": "1", "text": "Revenue grew by 5% in 2020 across Europe. Costs fell in Asia."}
    good = "Revenue grew by 5% in 2020 across Europe."
    bad = "Profits doubled in Africa during 2019 and 2018."
    events = [
        {"event_id": "a", "answer": good, "documents": [doc], "metadata": {"task_type": "QA"}},
        {"event_id": "b", "answer": f"{good} {bad}", "documents": [doc]},
    ]
    labels = [
        {"event_id": "a", "spans": [], "task_type": "QA", "model": "m1"},
        {
            "event_id": "b",
            "spans": [{"start": len(good) + 1, "end": len(good) + 9}],
            "task_type": "Summary",
            "model": "m1",
        },
    ]
    ev, lab = tmp_path / "e.jsonl", tmp_path / "l.jsonl"
    ev.write_text("\n".join(json.dumps(e) for e in events) + "\n")
    lab.write_text("\n".join(json.dumps(r) for r in labels) + "\n")
    assert main(["eval", str(ev), "--labels", str(lab), "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["response"]["f1"] == 1.0 and out["response"]["always_f1"] == pytest.approx(2 / 3)
    assert out["response"]["auroc"] == 1.0
    assert out["claims"]["n"] == 3 and out["claims"]["not_supported"] == 1
    assert out["claims"]["auroc"] == 1.0 and out["claims"]["balanced_accuracy"] == 1.0
    assert set(out["by_task"]) == {"QA", "Summary"}
    assert out["by_task"]["Summary"]["response"]["recall"] == 1.0
    assert out["by_model"]["m1"]["response"]["n"] == 2
    assert main(["eval", str(ev), "--labels", str(lab)]) == 0
    assert "task=Summary" in capsys.readouterr().out
