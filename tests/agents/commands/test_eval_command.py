"""`ragmon eval`: the cheap tier against labels, end to end through the CLI."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from agents.cli import main

DOC = {"id": "1", "text": "Revenue grew by 5% in 2020 across Europe. Costs fell in Asia."}


def write(tmp_path: Path) -> tuple[Path, Path]:
    events = [
        {
            "event_id": "a",
            "answer": "Revenue grew by 5% in 2020 across Europe [1].",
            "documents": [DOC],
        },
        {
            "event_id": "b",
            "answer": "Revenue grew by 9% in 2020 across Europe [1].",
            "documents": [DOC],
        },
        # uncited, and not in the context either (an uncited claim the context supports is no
        # longer a hallucination: it is checked against the documents)
        {"event_id": "c", "answer": "Profits doubled in Africa in 2019.", "documents": [DOC]},
        {"event_id": "d", "answer": "# Title only", "documents": [DOC]},
        {"event_id": "e", "answer": "Costs fell in Asia during the year [1].", "documents": [DOC]},
    ]
    labels = [
        {"event_id": "a", "label": "supported"},
        {"event_id": "b", "label": "not_supported"},
        {"event_id": "c", "label": "partially_supported"},
        {"event_id": "d", "label": "supported"},
        {"event_id": "e", "label": "supported"},
    ]
    ev_path, lab_path = tmp_path / "ev.jsonl", tmp_path / "lab.jsonl"
    ev_path.write_text("\n".join(json.dumps(e) for e in events) + "\nnot json\n")
    lab_path.write_text("\n".join(json.dumps(r) for r in labels) + "\n")
    return ev_path, lab_path


def test_eval_json_figures(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    ev_path, lab_path = write(tmp_path)
    assert main(["eval", str(ev_path), "--labels", str(lab_path), "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["n"] == 4 and out["unscored"] == 1 and out["rejected"] == 1
    assert out["n_by_label"] == {"supported": 2, "partially_supported": 1, "not_supported": 1}
    # a and e are supported, b (changed figure) and c (uncited, ungrounded) are not
    assert out["balanced_accuracy"] == 1.0
    assert out["balanced_accuracy_partial_negative"] == 1.0
    assert out["auroc"] == 1.0
    assert out["confusion"]["not_supported"]["not_supported"] == 1
    assert out["confusion"]["partially_supported"]["not_supported"] == 1


def test_eval_text_report_and_bad_labels(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    ev_path, lab_path = write(tmp_path)
    assert main(["eval", str(ev_path), "--labels", str(lab_path)]) == 0
    text = capsys.readouterr().out
    assert "balanced accuracy (supported vs not, partial excluded): 1.000" in text
    assert "unscored (no claim)=1" in text
    lab_path.write_text('{"event_id": "a", "label": "maybe"}\n')
    assert main(["eval", str(ev_path), "--labels", str(lab_path)]) == 1
    assert "unknown label 'maybe'" in capsys.readouterr().err


def test_eval_rates_with_every_answer_judged(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    ev_path, lab_path = write(tmp_path)
    out_path = tmp_path / "rates.json"
    args = ["eval", str(ev_path), "--labels", str(lab_path), "--rates", "--judge-rate", "1"]
    assert main([*args, "--resamples", "3", "--json", str(out_path)]) == 0
    text = capsys.readouterr().out
    assert "oracle (the human label)" in text
    got = json.loads(out_path.read_text())
    # d has no claim; c is uncited, judged on the documents (as the stream judges it)
    assert (got["events"], got["judgeable_events"]) == (4, 4)
    sup, hal = got["support"], got["hallucination"]
    assert (sup["truth"], hal["truth"]) == (0.5, 0.25)
    # judged whole, the estimate is the truth: support a, e; hallucination b
    assert sup["estimate_abs_error_median"] == 0.0 and hal["estimate_abs_error_median"] == 0.0
    assert hal["reference"] == 0.25
    # cheap: a, e supported; b (changed figure) and c (uncited, not in the document) not
    assert sup["cheap"] == 0.5 and hal["cheap"] == 0.5
    for r in (sup, hal):
        assert r["ci_halfwidth_median"] <= r["judge_only_ci_halfwidth_median"]
        assert r["narrower_or_equal_share"] == 1.0


def test_eval_rates_rejects_a_bad_judge_rate(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    ev_path, lab_path = write(tmp_path)
    args = ["eval", str(ev_path), "--labels", str(lab_path), "--rates", "--judge-rate", "0"]
    assert main(args) != 0
    assert "--judge-rate" in capsys.readouterr().err


DEV = Path(__file__).resolve().parents[3].parent / "shared" / "eval" / "dev"


@pytest.mark.skipif(not DEV.is_dir(), reason="needs ../shared/eval/dev")
@pytest.mark.parametrize("name", ["expertqa", "wice"])
def test_eval_rates_on_the_dev_sets(
    name: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    events, labels = DEV / f"{name}-dev.events.jsonl", DEV / f"{name}-dev.labels.jsonl"
    out_path = tmp_path / "rates.json"
    html_path = tmp_path / "rates.html"
    args = ["eval", str(events), "--labels", str(labels), "--rates", "--resamples", "100"]
    assert main([*args, "--json", str(out_path), "--html", str(html_path)]) == 0
    got = json.loads(out_path.read_text())
    for rate in ("support", "hallucination"):
        r = got[rate]
        assert r["narrower_or_equal_share"] == 1.0  # never wider than judge only
        assert 0.85 <= r["ci_coverage"] <= 1.0  # 95% nominal; 100 resamples
        # far better than today's corrections wherever those are off by more than noise
        assert r["estimate_abs_error_median"] < 0.08
    assert "<svg" in html_path.read_text()


def test_eval_alerts_reports_every_rule_on_an_estimated_figure(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """`ragmon eval --alerts` on the user's own labelled claims: the JSON keys the docs name."""
    ev, lab = write(tmp_path)
    out = tmp_path / "alerts.json"
    code = main(
        ["eval", str(ev), "--labels", str(lab), "--alerts", "--rate", "2", "--weeks", "0.05",
         "--healthy", "0.3", "--incident", "0.05:0.6", "--incident-every", "1h",
         "--target-delay", "0", "--json", str(out)]
    )  # fmt: skip
    assert code == 0
    fig = json.loads(out.read_text())
    assert fig["claims"]["supported"] >= 1 and fig["claims"]["not_supported"] >= 1
    assert set(fig["rules"]) == {"support_low", "hallucination_high"}
    for rule in fig["rules"].values():
        assert {
            "false_pages_per_week", "false_pages_per_week_interval", "pages_per_incident",
            "detection_delay_p50_s", "detection_delay_p90_s", "halfwidth_median",
        } <= set(rule)  # fmt: skip
        lo, hi = rule["false_pages_per_week_interval"]
        assert lo <= rule["false_pages_per_week"] <= hi
    assert "false pages/week" in capsys.readouterr().out


def test_eval_alerts_refuses_a_bad_incident() -> None:
    assert main(["eval", "--alerts", "--incident", "0.5"]) != 0


def test_eval_rates_rejects_half_a_simulated_judge(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    ev_path, lab_path = write(tmp_path)
    args = ["eval", str(ev_path), "--labels", str(lab_path), "--rates"]
    assert main([*args, "--judge-sensitivity", "0.9"]) != 0
    assert "go together" in capsys.readouterr().err
    assert main([*args, "--judge-sensitivity", "1.5", "--judge-specificity", "0.7"]) != 0
    assert "[0, 1]" in capsys.readouterr().err
    assert main([*args, "--human-labels", "0"]) != 0
    assert "--human-labels" in capsys.readouterr().err


def test_eval_rates_with_a_perfect_simulated_judge_and_every_label(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # Se = Sp = 1 and every event judged and human-labelled: every estimate is the truth
    ev_path, lab_path = write(tmp_path)
    out_path = tmp_path / "rates.json"
    args = ["eval", str(ev_path), "--labels", str(lab_path), "--rates", "--judge-rate", "1"]
    args += ["--judge-sensitivity", "1", "--judge-specificity", "1", "--human-labels", "10"]
    assert main([*args, "--resamples", "3", "--json", str(out_path)]) == 0
    out = capsys.readouterr().out
    assert "simulated (sensitivity 1, specificity 1)" in out
    assert "misses: 0.000 above the truth, 0.000 below" in out
    got = json.loads(out_path.read_text())
    assert got["human_labels"] == 10 and got["judge_sensitivity"] == 1.0
    for rate in ("support", "hallucination"):
        r = got[rate]
        assert r["judge_scale_abs_error_median"] == 0.0
        assert r["corrected_abs_error_median"] == pytest.approx(0.0, abs=1e-12)
        assert r["corrected_ci_coverage"] == 1.0
        assert r["corrected_ci_miss_above"] == r["corrected_ci_miss_below"] == 0.0
        assert "estimate_abs_error_median" in r and "ci_coverage" in r  # old keys kept


@pytest.mark.skipif(not DEV.is_dir(), reason="needs ../shared/eval/dev")
def test_eval_rates_human_scale_on_wice(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    events, labels = DEV / "wice-dev.events.jsonl", DEV / "wice-dev.labels.jsonl"
    out_path = tmp_path / "rates.json"
    args = ["eval", str(events), "--labels", str(labels), "--rates", "--resamples", "200"]
    args += ["--judge-sensitivity", "0.9", "--judge-specificity", "0.7", "--human-labels", "200"]
    assert main([*args, "--json", str(out_path)]) == 0
    got = json.loads(out_path.read_text())
    for rate in ("support", "hallucination"):
        r = got[rate]
        assert 0.88 <= r["corrected_ci_coverage"] <= 1.0  # 95% nominal; 200 resamples
        assert r["corrected_abs_error_median"] < r["judge_scale_abs_error_median"]
        assert r["corrected_ci_halfwidth_median"] <= r["human_only_ci_halfwidth_median"]
    # the simulated judge reads hallucination far above the truth (0.123 -> ~0.37)
    assert got["hallucination"]["judge_scale_abs_error_median"] > 0.15
