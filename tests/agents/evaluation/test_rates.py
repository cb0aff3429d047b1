"""`ragmon eval --rates` units: the reference label with the LLM judge (--judge)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from agents.cli import main
from agents.evaluation.rates import _judge_label, format_rates, rates_figures, units_of
from tests.agents.helpers import mixed_verdict


def test_the_judges_weakest_verdict_is_the_reference() -> None:
    record = {
        "claims": [
            {"verdict": "supported"},
            {"verdict": "partially_supported"},
            {"verdict": "unverifiable"},  # a timeout: no verdict
        ]
    }
    assert _judge_label(record) == "partially_supported"
    assert _judge_label({"claims": [{"verdict": "unverifiable"}, {"verdict": None}]}) is None
    assert _judge_label(None) is None


def test_units_take_the_weakest_judgeable_score_and_the_cheap_counts() -> None:
    from monitor.records.models import AnswerEvent

    verdict = mixed_verdict("e1")
    event = AnswerEvent(event_id="e1", answer="x", app="search")
    [unit] = units_of([(event, verdict)], {"e1": "supported"})
    # claims 0-2 cite a passage (score 0.5 each), the uncited one has no context to be judged
    # on (no documents); 5 claims, 1 supported, 2 hallucinated by the cheap tier (the claim
    # citing an invalid citation only, and the not_supported one)
    assert (unit.score, unit.judgeable, unit.claims) == (0.5, 3, 5)
    assert (unit.cheap_supported, unit.cheap_unsupported) == (1, 2)
    assert (unit.label, unit.truth) == ("supported", "supported")
    [judged] = units_of([(event, verdict)], {"e1": "supported"}, {"e1": {"claims": []}})
    assert judged.label is None and judged.truth == "supported"  # the judge gave no verdict
    assert units_of([(event, verdict)], {}) == []  # unlabelled: left out


def test_the_text_report_counts_judged_events_as_counts() -> None:
    from monitor.estimation.evaluate import EvalUnit

    units = [
        EvalUnit(
            label=label,
            truth=label,
            score=score,
            claims=1,
            cheap_supported=int(score >= 0.75),
            cheap_unsupported=int(score < 0.4),
            judgeable=1,
            judgeable_supported=int(score >= 0.75),
            judgeable_unsupported=int(score < 0.4),
        )
        for i in range(60)
        for score, label in [((i % 10) / 10, "supported" if i % 3 else "not_supported")]
    ]
    fig = rates_figures(units, judge_rate=0.5, resamples=20, seed=0, oracle=True)
    text = format_rates(fig)
    median = fig["judged_events_median"]
    shown = f"{median:g}"
    assert f"median {shown} events judged per resample" in text
    assert "." not in shown or shown.endswith(".5")  # a count, or halfway between two
    assert "Agresti-Coull adjusted, finite-population" in text


DOC = {"id": "1", "text": "Revenue grew by 5% in 2020 across Europe. Costs fell in Asia."}
GOOD = "Revenue grew by 5% in 2020 across Europe."
BAD = "Profits doubled in Africa during 2019 and 2018."
#: event b: GOOD, then BAD inside a marked span (the humans' hallucination)
MARKED_B = {"event_id": "b", "spans": [{"start": len(GOOD) + 1, "end": len(GOOD) + 9}]}


def _rates_on_spans(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], a_answer: str
) -> tuple[str, dict[str, Any]]:
    """`ragmon eval --rates` with every claim judged over event a (`a_answer`, no span marked)
    and event b (GOOD BAD, BAD marked): its text report and its JSON figures."""
    events = [
        {"event_id": "a", "answer": a_answer, "documents": [DOC]},
        {"event_id": "b", "answer": f"{GOOD} {BAD}", "documents": [DOC]},
    ]
    labels = [{"event_id": "a", "spans": []}, MARKED_B]
    ev, lab, out = tmp_path / "e.jsonl", tmp_path / "l.jsonl", tmp_path / "r.json"
    ev.write_text("\n".join(json.dumps(e) for e in events) + "\n")
    lab.write_text("\n".join(json.dumps(r) for r in labels) + "\n")
    args = ["eval", str(ev), "--labels", str(lab), "--rates", "--judge-rate", "1"]
    assert main([*args, "--resamples", "2", "--json", str(out)]) == 0
    return capsys.readouterr().out, json.loads(out.read_text())


def test_span_labels_give_one_unit_per_claim(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # a: one claim, no span (supported); b: the same claim and a second one inside a marked
    # span (not supported): 3 claims, truth support 2/3, hallucination 1/3
    text, got = _rates_on_spans(tmp_path, capsys, GOOD)
    assert "labelled claims" in text
    assert got["unit"] == "claim" and got["events"] == 3
    assert got["support"]["truth"] == pytest.approx(2 / 3)
    assert got["hallucination"]["truth"] == pytest.approx(1 / 3)
    # the oracle judge judging every claim: the estimate is the truth
    assert got["hallucination"]["estimate_abs_error_median"] == pytest.approx(0.0, abs=1e-12)


def test_a_refusal_counts_in_no_rate_as_in_the_stream(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # claims the documents support, one refusal among them (no span marked: the humans call
    # it supported), one marked claim. The stream counts the refusal in no rate
    # (monitor.estimation.window); with every claim judged the estimate is then 2 supported
    # of 3 counted, the truth 3 of 4; counted as not supported (before): 2 of 4
    refusal = "However, the passage does not provide specific information on salaries."
    text, got = _rates_on_spans(tmp_path, capsys, f"{GOOD} {refusal}")
    assert "1 counted in no rate" in text
    assert (got["events"], got["judgeable_events"], got["uncounted_events"]) == (4, 3, 1)
    assert got["support"]["truth"] == pytest.approx(3 / 4)
    assert got["support"]["reference"] == pytest.approx(2 / 3)
    assert got["hallucination"]["reference"] == pytest.approx(1 / 3)
    assert got["support"]["estimate_median"] == pytest.approx(2 / 3)
    assert got["hallucination"]["estimate_median"] == pytest.approx(1 / 3)
