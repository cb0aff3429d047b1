"""TREC outputs (seed 003, Auto-ARGUE style): citation qrels and a leaderboard. Pure.

Only document-id citations count: segment citations and numeric `[n]` citations. Per response
(one answer event):
  CITATION_ACCURACY  = citations whose document exists / citations
  CITATION_SUPPORT   = citations that exist and support their sentence / citations
  AVG_CITATIONS      = citations
  PERFECT_CITATIONS  = 1 when every citation exists and supports, else 0
A response with no such citation is left out (there is nothing to measure). Per run and topic
the measure is the mean over that topic's responses; `all` is the mean over the run's topics
(each topic weighs the same, as trec_eval does).

A citation "supports" when it is valid and the claim it is attached to was judged supported:
the judge's verdict when there is one, else the cheap tier's. The run is `metadata.run`, else
the app; the topic is `metadata.topic_id` / `topic` / `question_id`, else a short hash of the
question, else the event id. Qrels rows are `topic run doc_id grade` with grade 1.0 when the
document supported some sentence of that run's answer to that topic, else 0.0.
"""

from __future__ import annotations

import hashlib
from collections import defaultdict
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from monitor.records.models import AnswerEvent, Verdict

MEASURES: tuple[str, ...] = (
    "CITATION_ACCURACY",
    "CITATION_SUPPORT",
    "AVG_CITATIONS",
    "PERFECT_CITATIONS",
)
_FORMATS = ("segment", "numeric")
_TOPIC_KEYS = ("topic_id", "topic", "question_id")


@dataclass(frozen=True, slots=True)
class CitationAssessment:
    doc_id: str
    exists: bool
    supports: bool


@dataclass(frozen=True, slots=True)
class Response:
    run: str
    topic: str
    citations: tuple[CitationAssessment, ...]

    def measures(self) -> dict[str, float]:
        n = len(self.citations)
        exist = sum(c.exists for c in self.citations)
        support = sum(c.exists and c.supports for c in self.citations)
        return {
            "CITATION_ACCURACY": exist / n,
            "CITATION_SUPPORT": support / n,
            "AVG_CITATIONS": float(n),
            "PERFECT_CITATIONS": 1.0 if exist == n and support == n else 0.0,
        }


def run_of(event: AnswerEvent) -> str:
    run = event.metadata.get("run")
    return str(run) if run not in (None, "") else (event.app or "ragmon")


def topic_of(event: AnswerEvent) -> str:
    for key in _TOPIC_KEYS:
        value = event.metadata.get(key)
        if value not in (None, ""):
            return str(value)
    if event.question:
        return "q" + hashlib.sha1(event.question.strip().encode()).hexdigest()[:10]
    return event.event_id


def response_from(
    event: AnswerEvent, verdict: Verdict, judged: Mapping[int, str | None] | None = None
) -> Response | None:
    """The response's citation assessments; `judged` maps claim index → judge verdict."""
    claim_of: dict[int, int] = {}
    cheap: dict[int, str] = {}
    for result in verdict.claims:
        cheap[result.claim.index] = result.support.verdict
        for i in result.claim.citation_indexes:
            claim_of.setdefault(i, result.claim.index)
    out = []
    for r in verdict.citations:
        c = r.citation
        if c.format not in _FORMATS:
            continue
        claim = claim_of.get(c.index)
        decided = None
        if claim is not None:
            decided = (judged or {}).get(claim) or cheap.get(claim)
        doc_id = r.doc_id or c.doc_ref or (str(c.number) if c.number is not None else c.raw)
        out.append(CitationAssessment(doc_id, r.valid, r.valid and decided == "supported"))
    if not out:
        return None
    return Response(run_of(event), topic_of(event), tuple(out))


def leaderboard(responses: Iterable[Response]) -> dict[str, dict[str, dict[str, float]]]:
    """run → topic (and "all") → measure → value."""
    by: dict[str, dict[str, list[dict[str, float]]]] = defaultdict(lambda: defaultdict(list))
    for r in responses:
        by[r.run][r.topic].append(r.measures())
    board: dict[str, dict[str, dict[str, float]]] = {}
    for run, topics in by.items():
        rows = {
            topic: {m: sum(x[m] for x in ms) / len(ms) for m in MEASURES}
            for topic, ms in topics.items()
        }
        rows["all"] = {m: sum(t[m] for t in rows.values()) / len(rows) for m in MEASURES}
        board[run] = rows
    return board


def qrels(responses: Iterable[Response]) -> list[tuple[str, str, str, float]]:
    grades: dict[tuple[str, str, str], float] = {}
    for r in responses:
        for c in r.citations:
            key = (r.topic, r.run, c.doc_id)
            grade = 1.0 if c.exists and c.supports else 0.0
            grades[key] = max(grades.get(key, 0.0), grade)
    return [(t, run, d, g) for (t, run, d), g in sorted(grades.items())]


def _num(value: float) -> str:
    return f"{value:.4f}"


def _field(value: str) -> str:
    """TREC files are whitespace-separated: a field never contains whitespace."""
    return "_".join(value.split()) or "_"


def format_qrels(rows: Iterable[tuple[str, str, str, float]]) -> str:
    return "".join(f"{_field(t)} {_field(run)} {_field(doc)} {g:.1f}\n" for t, run, doc, g in rows)


def format_leaderboard(board: Mapping[str, Mapping[str, Mapping[str, float]]]) -> str:
    lines = []
    for run in sorted(board):
        topics = [*sorted(t for t in board[run] if t != "all"), "all"]
        for topic in topics:
            lines += [
                f"{_field(run)} {_field(topic)} {m} {_num(board[run][topic][m])}" for m in MEASURES
            ]
    return "".join(line + "\n" for line in lines)
