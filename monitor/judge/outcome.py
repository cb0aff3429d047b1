"""What became of a claim/evidence pair or an answer after the judge was asked. Pure."""

from __future__ import annotations

from dataclasses import dataclass

from monitor.judge.schema import AnswerVerdict, PairVerdict
from monitor.records.models import ClaimVerdict


@dataclass(frozen=True, slots=True)
class PairOutcome:
    """What became of one claim/evidence pair. `verdict` is None unless the judge answered."""

    outcome: str
    verdict: PairVerdict | None = None
    model: str | None = None
    escalated: bool = False
    cached: bool = False

    @property
    def claim_verdict(self) -> ClaimVerdict | None:
        """The verdict to record: the judge's, `unverifiable` after timeouts, else none."""
        if self.verdict is not None:
            return self.verdict.verdict
        return "unverifiable" if self.outcome == "unverifiable" else None


@dataclass(frozen=True, slots=True)
class AnswerOutcome:
    outcome: str
    verdict: AnswerVerdict | None = None
    model: str | None = None
