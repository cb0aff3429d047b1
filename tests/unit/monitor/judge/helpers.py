"""Hand-built events and verdicts (independent of the cheap tier's implementation)."""

from __future__ import annotations

from monitor.records.models import (
    AnswerEvent,
    Citation,
    CitationResult,
    Claim,
    ClaimResult,
    Document,
    Scores,
    Support,
    Verdict,
)

DOC = Document(id="1", text="Revenue grew 5% in 2023. The premium is 900 dollars.")


def event(event_id: str = "ev-1", app: str = "shop", **kw: object) -> AnswerEvent:
    answer = "Revenue grew 5% in 2023 [1]. The premium is 1200 dollars [2]. Nobody knows why."
    return AnswerEvent(
        event_id=event_id,
        answer=answer,
        app=app,
        documents=(DOC,),
        question="How did revenue do?",
        **kw,
    )  # type: ignore[arg-type]


def verdict(event_id: str = "ev-1", second_valid: bool = True) -> Verdict:
    c0 = Citation(index=0, raw="[1]", format="numeric", start=24, end=27, number=1)
    c1 = Citation(index=1, raw="[2]", format="numeric", start=60, end=63, number=2)
    r0 = CitationResult(c0, "valid", doc_id="1", cited_text=DOC.text)
    r1 = (
        CitationResult(c1, "valid", doc_id="1", cited_text="The premium is 900 dollars.")
        if second_valid
        else CitationResult(c1, "invalid", error="index_out_of_range")
    )
    claims = (
        ClaimResult(
            Claim(0, "Revenue grew 5% in 2023 [1].", 0, 28, (0,)),
            Support("supported", 0.9, "high", "lexical"),
        ),
        ClaimResult(
            Claim(1, "The premium is 1200 dollars [2].", 29, 64, (1,)),
            Support("not_supported", 0.2, "medium", "rules"),
        ),
        ClaimResult(
            Claim(2, "Nobody knows why.", 65, 82, ()),
            Support("not_supported", 0.0, "high", "rules"),
        ),
    )
    return Verdict(
        event_id=event_id,
        app="shop",
        citations=(r0, r1),
        claims=claims,
        scores=Scores(1.0, 0.5, 2 / 3, 2 / 3),
    )
