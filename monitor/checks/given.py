"""Claims of an answer read from a vendor API's response (AnswerEvent.adapted): the API located
them, so they are not split again. A claim the API cited is a claim if it has a letter (as a
cited v1 sentence is); the uncited sentences of the rest of the answer are kept only where v1
would keep them (is_claim: no headers, questions, meta statements or short fragments)."""

from __future__ import annotations

from monitor.checks.claims import classify_claim, is_claim
from monitor.config.options import CheckOptions
from monitor.records.models import AnswerEvent, Claim


def given_claims(event: AnswerEvent, options: CheckOptions) -> list[Claim]:
    if event.adapted is None:
        return []
    out: list[Claim] = []
    for claim in event.adapted.claims:
        text = claim.text
        keep = (
            any(map(str.isalpha, text))
            if claim.citation_indexes
            else is_claim(text, options.min_claim_words)
        )
        if keep:
            out.append(
                Claim(
                    len(out),
                    text,
                    claim.start,
                    claim.end,
                    claim.citation_indexes,
                    classify_claim(text),
                )
            )
    return out
