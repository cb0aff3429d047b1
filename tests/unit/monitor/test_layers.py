"""The shape of monitor/: wings import only downward, and no module imports itself round a circle.

Same rule and reader as agents/ (tests/layering.py). The ranks, lowest first, are the order a
reader can learn the core in; `monitor/check.py` sits on top as the readable pipeline.
"""

from __future__ import annotations

import pytest

from tests.layering import ROOT, find_cycle, graph, imports_of, upward, wing

#: low to high; a wing may import its own rank and lower ranks
RANKS: dict[str, float] = {
    "config": 0,  # settings, options, errors, cpus, envcheck
    "records": 0,  # the @record decorator and the event/verdict value classes
    "text": 1,  # words, stems, sentences, numbers, units, dates, negation, opposites
    "inputs": 2,  # bytes → AnswerEvent (v1 events; vendor envelopes)
    "sampling": 2,  # which answers the judge and the audit trail see (hash sampling, budgets)
    "citations": 3,  # extraction, resolution, structural validation
    "output": 4,  # verdict JSON, audit policy and text, TREC, HTML report, calibration, spans
    "checks": 5,  # claims, evidence, support, grounding, contrast, quotes, scoring
    "semantic": 6,  # tokeniser, windows, cosine (the model is in agents/semantic)
    "judge": 6,  # the LLM judge tier
    "estimation": 7,  # prediction-powered rates per window
    "alerting": 8,  # rules, rules file, the alert state machine
    "oncall": 9,  # ranking the answers behind an alert, links, the evidence page
    "check": 10,  # monitor/check.py: the readable pipeline
    "__init__": -1,  # monitor/__init__.py imports nothing and may be imported by anyone
}


def test_every_wing_has_a_rank() -> None:
    wings = {wing(m) for m in graph("monitor")}
    assert wings <= set(RANKS), f"add a rank for {sorted(wings - set(RANKS))}"


def test_imports_run_downward() -> None:
    found = upward(graph("monitor"), RANKS)
    assert not found, "upward imports between wings:\n" + "\n".join(found)


def test_no_import_circle() -> None:
    cycle = find_cycle(graph("monitor"))
    assert cycle is None, "import circle: " + " -> ".join(cycle or [])


def test_a_made_up_upward_import_fails(tmp_path: pytest.TempPathFactory) -> None:
    # the reader must see an upward import written in a real file: text/ importing checks/
    root = tmp_path  # type: ignore[assignment]
    (root / "monitor" / "text").mkdir(parents=True)
    (root / "monitor" / "checks").mkdir(parents=True)
    for pkg in ("monitor", "monitor/text", "monitor/checks"):
        (root / pkg / "__init__.py").write_text("")
    (root / "monitor" / "checks" / "support.py").write_text("X = 1\n")
    (root / "monitor" / "text" / "words.py").write_text(
        "def f():\n    from monitor.checks.support import X\n    return X\n"
    )
    edges = graph("monitor", root)
    assert upward(edges, RANKS) == ["monitor.text.words -> monitor.checks.support"]
    edges["monitor.checks.support"] = {"monitor.text.words"}
    assert find_cycle(edges) is not None


def test_the_real_tree_is_read() -> None:
    # a reader that found nothing would pass the rules above vacuously
    edges = graph("monitor")
    assert len(edges) > 60
    path = ROOT / "monitor" / "check.py"
    assert "monitor.checks.support" in imports_of(path, "monitor.check", "monitor")
