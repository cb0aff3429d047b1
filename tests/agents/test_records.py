from __future__ import annotations

from agents.records import (
    COUNT_FIELDS,
    add_vectors,
    parse_score_record,
    score_record,
    vector_to_counts,
    verdict_counts,
)
from tests.agents.helpers import mixed_verdict, verdict


def test_verdict_counts_follow_the_scoring_definitions() -> None:
    counts = verdict_counts(mixed_verdict())
    # cited: claims 0-3; decided: cited and not unverifiable → 0, 1, 3; supported: claim 0;
    # unsupported: no valid citation (3: invalid only, 4: uncited) or not_supported (1).
    assert counts == {
        "events": 1,
        "citations": 3,
        "valid_citations": 2,
        "claims": 5,
        "cited_claims": 4,
        "decided_claims": 3,
        "supported_claims": 1,
        "unsupported_claims": 3,
    }


def test_verdict_counts_of_an_answer_without_citations_or_claims() -> None:
    counts = verdict_counts(verdict())
    assert counts["events"] == 1
    assert sum(counts.values()) == 1


def test_score_record_round_trips_to_a_vector() -> None:
    record = score_record(
        event_id="e1",
        app="search",
        counts=verdict_counts(mixed_verdict()),
        event_time=10.0,
        processed_at=12.5,
        failed=True,
    )
    assert "rejected" not in record["counts"]  # zeros are left out
    parsed = parse_score_record(record)
    assert parsed is not None
    assert parsed.event_id == "e1" and parsed.app == "search" and parsed.failed
    assert vector_to_counts(parsed.vector)["unsupported_claims"] == 3
    assert len(parsed.vector) == len(COUNT_FIELDS)


def test_parse_score_record_is_tolerant() -> None:
    assert parse_score_record(None) is None
    assert parse_score_record([1, 2]) is None
    assert parse_score_record({"app": "x"}) is None  # no counts
    assert parse_score_record({"counts": {}}) is None  # no app, no key
    keyed = parse_score_record({"counts": {"events": 1}}, key="docs")
    assert keyed is not None and keyed.app == "docs" and keyed.event_id is None
    odd = parse_score_record(
        {"app": "a", "counts": {"events": 2, "unknown": 5, "claims": -1, "citations": True}}
    )
    assert odd is not None
    assert vector_to_counts(odd.vector) == {**dict.fromkeys(COUNT_FIELDS, 0), "events": 2}


def test_add_vectors() -> None:
    assert add_vectors(None, [1, 2]) == [1, 2]
    assert add_vectors([], [1, 2]) == [1, 2]
    assert add_vectors([1, 1], [2, 3]) == [3, 4]
    # A stored vector from an older version (fewer fields) grows; a longer one keeps its tail.
    assert add_vectors([1], [1, 1]) == [2, 1]
    assert add_vectors([1, 1, 7], [1, 1]) == [2, 2, 7]
