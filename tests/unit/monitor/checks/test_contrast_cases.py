"""Hand-written cases of the five meaning flips (issue 16), none of them seen while writing
monitor/checks/contrast.py, through the whole check (extract, resolve, split, support): each flip is
not_supported with a reason naming its category; each look-alike control (same meaning in other
words, units or date formats) carries no flip reason. The cases live in contrast_cases.jsonl;
a case the cheap checks are known to miss is kept there with its `known_limit` (an xfail, strict:
it fails the suite once fixed, so the mark goes) rather than deleted. `batch` 1 was written
first and run against the code of the time (its failures led to the general fixes in
contrast.py); batch 2 was written after those fixes, as a check that they generalise. docs/contrast.md
gives the pass counts per category and batch, before and after."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from monitor.check import check_event
from monitor.config.options import CheckOptions
from monitor.records.models import AnswerEvent, Document

FLIPS = ("negation_mismatch", "antonym", "unit_mismatch", "date_mismatch", "entity_swap")
CASES = [
    json.loads(line)
    for line in (Path(__file__).parent / "contrast_cases.jsonl").read_text().splitlines()
    if line.strip()
]


def check_case(case: dict[str, Any]) -> tuple[str, tuple[str, ...]]:
    """The verdict and reasons of the case's one claim: `claim [cite].` citing the evidence as
    document 1, or a value of the event's data by its JSON path."""
    answer = f"{case['claim']} {case['cite']}."
    if "data" in case:
        event = AnswerEvent("case", answer, data=case["data"])
    else:
        event = AnswerEvent("case", answer, documents=(Document("1", case["evidence"]),))
    verdict = check_event(event, CheckOptions())
    (claim,) = verdict.claims
    return claim.support.verdict, claim.support.reasons


def flips(reasons: tuple[str, ...]) -> list[str]:
    return [r for r in reasons if r.split(":")[0] in FLIPS]


def _param(case: dict[str, Any]) -> Any:
    marks = []
    if case.get("known_limit"):
        marks.append(pytest.mark.xfail(reason=case["known_limit"], strict=True))
    return pytest.param(case, marks=marks, id=f"{case['category']}:{case['claim'][:40]}")


@pytest.mark.parametrize("case", [_param(c) for c in CASES if c["expect"]])
def test_a_flip_is_not_supported_with_its_reason(case: dict[str, Any]) -> None:
    verdict, reasons = check_case(case)
    assert verdict == "not_supported", reasons
    assert any(f.split(":")[0] == case["expect"] for f in flips(reasons)), reasons


@pytest.mark.parametrize("case", [_param(c) for c in CASES if not c["expect"]])
def test_a_look_alike_is_not_a_flip(case: dict[str, Any]) -> None:
    verdict, reasons = check_case(case)
    assert flips(reasons) == [], reasons
    assert verdict != "not_supported", reasons


def test_every_category_has_ten_cases_and_the_controls_twenty() -> None:
    counts: dict[str, int] = {}
    for case in CASES:
        counts[case["category"]] = counts.get(case["category"], 0) + 1
    assert set(counts) == {"negation", "unit", "date", "entity", "antonym", "control"}
    assert min(v for k, v in counts.items() if k != "control") >= 10
    assert counts["control"] >= 20
