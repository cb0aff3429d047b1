"""1 MB adversarial answers: linear-time extraction must still give the right output.

No time assertions (house rule); the report quotes timings from a script.
"""

from __future__ import annotations

import pytest

from monitor.citations import extract_citations, resolve_citations
from monitor.config.options import CheckOptions
from monitor.records.models import AnswerEvent, Document

M = 1_000_000
DOCS = (Document(id="r.pdf", pages=("x" * 100,)),)


def run(answer: str, data: dict[str, object] | None = None) -> list[str]:
    ev = AnswerEvent(event_id="adv", answer=answer, documents=DOCS, data=data)
    found, _ = extract_citations(ev, CheckOptions())
    results = resolve_citations(ev, found, CheckOptions())
    assert all(answer[c.start : c.end] == c.raw for c in found)
    return [f"{r.citation.raw}:{r.error}" for r in results]


@pytest.mark.parametrize(
    "answer",
    [
        "[" * M,
        "]" * M,
        "[a:" * (M // 3),
        "[1," * (M // 3),
        "[r.pdf:1:" * (M // 9),
        "[" * (M // 2) + "]" * (M // 2 - 3) + "[]",
        "[" + "a" * (M - 2) + "]",
        "`" * M,
        "".join("`" * k + " [1] " for k in range(1, 1400)).replace("[1]", "[x]"),
        "```\n" + "[1] " * (M // 4),
        "~~~\n" * (M // 4),
        "[sic] " * (M // 6),
        "a[0]" * (M // 4),
        "\\[1]" * (M // 4),
        "[x](y)" * (M // 6),
        "[John 3:16] " * (M // 12),
        "1" * M,
        "\n" * M,
    ],
    ids=lambda a: repr(a[:12]),
)
def test_no_citations_in_adversarial_megabyte(answer: str) -> None:
    assert run(answer, data={"q": {"p": 1}}) == []


def test_unclosed_fence_after_a_citation() -> None:
    assert run("[1] ok\n```\n" + "[1] " * (M // 4)) == ["[1]:None"]


def test_megabyte_of_citations_is_capped() -> None:
    ev = AnswerEvent(event_id="adv", answer="[1] " * (M // 4), documents=DOCS)
    found, notes = extract_citations(ev, CheckOptions())
    assert len(found) == 1000 and notes == ["too_many_citations: capped at 1000"]
    ev = AnswerEvent(event_id="adv", answer="[1-100]" * (M // 7), documents=DOCS)
    found, _ = extract_citations(ev, CheckOptions())
    assert [c.number for c in found[:101]] == [*range(1, 101), 1]


def test_megabyte_of_json_paths_with_value_checks() -> None:
    results = run("It is 5 [q.p] " * (M // 14), data={"q": {"p": 5}})
    assert results == ["[q.p]:None"] * 1000


def test_huge_evidence_and_giant_numbers() -> None:
    doc = Document(id="big.txt", text="y" * M)
    ev = AnswerEvent(
        event_id="adv",
        answer=f"[big.txt:1:0-{M}] [big.txt:1:0-99999999999999] [1] " + "9" * 5000 + " [q.p]",
        documents=(doc,),
        data={"q": {"p": 10**400}},
    )
    found, _ = extract_citations(ev, CheckOptions())
    errs = [r.error for r in resolve_citations(ev, found, CheckOptions())]
    assert errs == ["span_too_long", "span_out_of_bounds", None, None]
