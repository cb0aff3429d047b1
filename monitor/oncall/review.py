"""Human review on the evidence page: per claim, supported / not supported / can't tell. Pure.

The form is shown only to a login that may review (RAGMON_REVIEW_TOKEN); it posts to
REVIEW_PATH with the login's CSRF token, the claim, the audit record the page read the answer
from (so the server can check that the answer and the claim exist before anything is written),
an optional reviewer name, and where to come back to. Everything a reviewer types is escaped
wherever it is shown (html_bits.esc), and the page's Content-Security-Policy runs no script.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from monitor.oncall.html_bits import esc

REVIEW_PATH = "/evidence/review"
#: what a reviewer can say → the button's text
CHOICES: dict[str, str] = {
    "supported": "supported",
    "not_supported": "not supported",
    "abstain": "can't tell",
}
MAX_REVIEWER = 100  # characters of a reviewer's name kept


class BadReview(ValueError):
    """A review POST that cannot be taken: `status` is the HTTP status to answer with."""

    def __init__(self, message: str, status: int = 400) -> None:
        super().__init__(message)
        self.status = status


@dataclass(frozen=True, slots=True)
class ReviewInput:
    event_id: str
    claim_index: int
    label: str
    reviewer: str | None
    partition: int
    offset: int
    next: str


def parse_review(form: Mapping[str, Any]) -> ReviewInput:
    """The POSTed fields, checked; BadReview (400) naming the first wrong one."""
    event_id = str(form.get("event_id") or "").strip()
    if not event_id or len(event_id) > 200:
        raise BadReview("event_id is missing or too long")
    label = str(form.get("label") or "")
    if label not in CHOICES:
        raise BadReview(f"label must be one of {', '.join(CHOICES)}")
    try:
        index = int(str(form.get("claim_index")))
        partition = int(str(form.get("partition")))
        offset = int(str(form.get("offset")))
    except ValueError:
        raise BadReview("claim_index, partition and offset must be integers") from None
    if min(index, partition, offset) < 0:
        raise BadReview("claim_index, partition and offset must be >= 0")
    reviewer = " ".join(str(form.get("reviewer") or "").split())[:MAX_REVIEWER] or None
    return ReviewInput(
        event_id, index, label, reviewer, partition, offset, str(form.get("next") or "")
    )


def claim_of(record: Mapping[str, Any], review: ReviewInput) -> bool:
    """Whether the audit record is the reviewed answer's and holds the reviewed claim."""
    if record.get("event_id") != review.event_id:
        return False
    indexes = {c.get("index") for c in record.get("claims") or () if isinstance(c, Mapping)}
    return review.claim_index in indexes


@dataclass(frozen=True)
class ReviewForms:
    """What the page needs to draw the forms: the login's CSRF token, where to come back, and
    the labels already given (by `event_id:claim_index`, as label dicts)."""

    csrf: str
    next: str
    action: str = REVIEW_PATH
    labels: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)

    def cell(self, entry: Mapping[str, Any], claim: Mapping[str, Any]) -> str:
        """The review cell of one claim: the label so far (escaped) and the three buttons."""
        event_id, index = entry.get("event_id"), claim.get("index")
        given = self.labels.get(f"{event_id}:{index}")
        said = ""
        if given:
            who = f" by {esc(given.get('reviewer'))}" if given.get("reviewer") else ""
            said = (
                f'<span class="label">{esc(CHOICES.get(str(given.get("label")), given.get("label")))}'
                f" ({esc(given.get('source'))}{who})</span><br>"
            )
        audit = entry.get("audit_record") or {}
        if audit.get("offset", -1) < 0 or not isinstance(index, int):
            return f"<td>{said}</td>"
        hidden = {
            "csrf": self.csrf,
            "next": self.next,
            "event_id": event_id,
            "claim_index": index,
            "partition": audit.get("partition"),
            "offset": audit.get("offset"),
        }
        fields = "".join(
            f'<input type="hidden" name="{k}" value="{esc(v)}">' for k, v in hidden.items()
        )
        buttons = "".join(
            f'<button type="submit" name="label" value="{k}">{esc(v)}</button>'
            for k, v in CHOICES.items()
        )
        return (
            f'<td>{said}<form method="post" action="{esc(self.action)}" class="review">{fields}'
            '<input name="reviewer" placeholder="your name" maxlength="100" size="10"> '
            f"{buttons}</form></td>"
        )
