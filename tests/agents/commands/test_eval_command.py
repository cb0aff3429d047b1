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
