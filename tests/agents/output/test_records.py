from __future__ import annotations

import json

from hypothesis import given
from hypothesis import strategies as st

from agents.output.records import (
    COUNT_FIELDS,
    _vector,
    add_vectors,
    event_ids,
    parse_score_record,
    score_entry,
    score_record,
    trimmed,
    vector_to_counts,
    verdict_counts,
    verdict_vector,
)
from tests.agents.helpers import mixed_verdict, verdict


def test_verdict_counts_follow_the_scoring_definitions() -> None:
    counts = verdict_counts(mixed_verdict())
    # cited: claims 0-3; decided: cited and not unverifiable → 0, 1, 3; supported: claim 0;
    # unsupported: cited with no valid citation (3: invalid only) or not_supported (1); the
    # uncited claim 4 is unverifiable against the context: a coverage gap, not a hallucination.
    assert counts == {
        "events": 1,
        "citations": 3,
        "valid_citations": 2,
        "claims": 5,
        "cited_claims": 4,
        "decided_claims": 3,
        "supported_claims": 1,
        "unsupported_claims": 2,
        # the estimation sums: claims 0-2 cite a passage and 4 is uncited (judged on the
        # context), score 0.5 each; 3 cites nothing readable: decided by rule, hallucinated
        "ruled_unsupported": 1,
        "all_n": 1,
        "all_m": 4,
        "all_mm": 16,
        "all_f": 20000,
        "all_ff": 400_000_000,
        "all_mf": 80000,
    }
    assert verdict_vector(mixed_verdict())[:11] == [1, 0, 3, 2, 5, 4, 3, 1, 2, 0, 0]


def test_verdict_counts_of_an_answer_without_citations_or_claims() -> None:
    assert verdict_counts(verdict()) == {"events": 1}
    assert trimmed(verdict_vector(verdict())) == [1]


def test_a_batch_record_round_trips_through_json() -> None:
    entries = [
        score_entry("e1", 10.0, 12.5, True, verdict_vector(mixed_verdict())),
        score_entry(None, 11.0, 12.6, False, (1, 1)),
    ]
    record = json.loads(json.dumps(score_record("search", entries)))
    assert record["events"][0] == ["e1", 10.0, 12.5, 1, trimmed(verdict_vector(mixed_verdict()))]
    batch = parse_score_record(record)
    assert batch is not None and batch.app == "search" and batch.kind == "scores"
    first, reject = batch.entries
    assert (first.event_id, first.event_time, first.counted_at, first.failed) == (
        "e1",
        10.0,
        12.5,
        True,
    )
    assert vector_to_counts(first.vector)["unsupported_claims"] == 2
    assert len(first.vector) == len(COUNT_FIELDS)
    assert reject.event_id is None and vector_to_counts(reject.vector)["rejected"] == 1
    assert event_ids(record) == ["e1"]


def test_fields_name_the_counts_so_a_reordered_or_newer_writer_is_read_right() -> None:
    record = {
        "v": 2,
        "app": "a",
        "fields": ["claims", "events", "from_the_future"],
        "events": [["e1", 1, 2, 0, [4, 1, 9]]],
    }
    batch = parse_score_record(record)
    assert batch is not None
    assert vector_to_counts(batch.entries[0].vector) == {
        **dict.fromkeys(COUNT_FIELDS, 0),
        "claims": 4,
        "events": 1,
    }


def test_judge_corrections_may_be_negative_scores_may_not() -> None:
    fields = ["events", "supported_claims", "decided_claims"]
    entry = ["e1", None, 5.0, 0, [0, -1, 1]]
    judge = parse_score_record({"app": "a", "kind": "judge", "fields": fields, "events": [entry]})
    scores = parse_score_record({"app": "a", "fields": fields, "events": [entry]})
    assert judge is not None and scores is not None
    assert vector_to_counts(judge.entries[0].vector)["supported_claims"] == -1
    assert vector_to_counts(scores.entries[0].vector)["supported_claims"] == 0
    assert event_ids({"app": "a", "kind": "judge", "fields": fields, "events": [entry]}) == []


def test_version_1_records_are_still_read() -> None:
    v1 = {
        "event_id": "e1",
        "app": "x",
        "processed_at": 3.0,
        "failed": True,
        "counts": {"events": 1},
    }
    batch = parse_score_record(v1)
    assert batch is not None and batch.entries[0].event_id == "e1"
    assert batch.entries[0].counted_at == 3.0 and batch.entries[0].failed


def test_parse_score_record_is_tolerant() -> None:
    assert parse_score_record(None) is None
    assert parse_score_record([1, 2]) is None
    assert parse_score_record({"app": "x"}) is None  # no counts, no fields
    assert parse_score_record({"counts": {}}) is None  # no app, no key
    assert parse_score_record({"app": "x", "kind": "other", "fields": [], "events": []}) is None
    keyed = parse_score_record({"counts": {"events": 1}}, key="docs")
    assert keyed is not None and keyed.app == "docs" and keyed.entries[0].event_id is None
    odd = parse_score_record(
        {"app": "a", "counts": {"events": 2, "unknown": 5, "claims": -1, "citations": True}}
    )
    assert odd is not None
    assert vector_to_counts(odd.entries[0].vector) == {
        **dict.fromkeys(COUNT_FIELDS, 0),
        "events": 2,
    }
    broken = parse_score_record(
        {"app": "a", "fields": ["events"], "events": [["ok", 1, 2, 0, [1]], "junk", [1, 2], None]}
    )
    assert broken is not None and [e.event_id for e in broken.entries] == ["ok"]


@given(st.lists(st.integers(-5, 5), max_size=12))
def test_trimmed_drops_only_trailing_zeros(vector: list[int]) -> None:
    out = trimmed(vector)
    assert out == vector[: len(out)] and not any(vector[len(out) :])
    assert not out or out[-1] != 0


def test_add_vectors() -> None:
    assert add_vectors(None, [1, 2]) == [1, 2]
    assert add_vectors([], [1, 2]) == [1, 2]
    assert add_vectors([1, 1], [2, 3]) == [3, 4]
    # A stored vector from an older version (fewer fields) grows; a longer one keeps its tail.
    assert add_vectors([1], [1, 1]) == [2, 1]
    assert add_vectors([1, 1, 7], [1, 1]) == [2, 2, 7]


_VALUE = st.one_of(
    st.integers(-5, 10**12), st.booleans(), st.floats(allow_nan=False), st.none(), st.text()
)


@given(
    values=st.lists(_VALUE, max_size=len(COUNT_FIELDS) + 3),
    kind=st.sampled_from(["scores", "judge"]),
)
def test_a_record_in_this_versions_order_reads_as_the_field_by_field_reader_does(
    values: list[object], kind: str
) -> None:
    # this version's records take a shortcut past the per-field look-ups: same vectors
    record = {
        "app": "a",
        "kind": kind,
        "fields": list(COUNT_FIELDS),
        "events": [["e", 1.0, 2.0, 1, values]],
    }
    batch = parse_score_record(record)
    assert batch is not None
    expected = _vector(list(COUNT_FIELDS), values, negative=kind == "judge")
    assert batch.entries[0].vector == expected
    # and the same with the fields named in another order (the field-by-field reader)
    shuffled = list(reversed(COUNT_FIELDS))
    record["fields"] = shuffled
    again = parse_score_record(record)
    assert again is not None
    assert again.entries[0].vector == _vector(shuffled, values, negative=kind == "judge")


def test_an_answer_of_refusals_counts_as_abstained() -> None:
    from monitor.check import check_event
    from monitor.config.options import CheckOptions
    from monitor.records.models import AnswerEvent, Document

    docs = (Document("a", "The reservoir held 40 million cubic metres in May."),)
    refusal = check_event(
        AnswerEvent("e", "The passages do not mention the level in July.", documents=docs),
        CheckOptions(),
    )
    counts = verdict_counts(refusal)
    assert counts["abstained_answers"] == 1 and "claims" not in counts
    answered = check_event(
        AnswerEvent(
            "f",
            "The reservoir held 40 million cubic metres in May. The passages do not say more.",
            documents=docs,
        ),
        CheckOptions(),
    )
    assert "abstained_answers" not in verdict_counts(answered)
    assert verdict_counts(answered)["claims"] == 1


def test_judge_labels_leave_claims_the_judge_calls_refusals_out() -> None:
    from agents.output.records import judge_delta

    claims = [
        {"outcome": "ok", "verdict": "supported"},
        {"outcome": "ok", "verdict": "abstain"},
        {"outcome": "ok", "verdict": "not_supported"},
    ]
    delta = vector_to_counts(judge_delta(claims, [0.9, 0.5, 0.2]))
    same = vector_to_counts(judge_delta([claims[0], claims[2]], [0.9, 0.2]))
    labels = {k: v for k, v in delta.items() if k.startswith("lab_")}
    assert labels == {k: v for k, v in same.items() if k.startswith("lab_")}
    assert labels["lab_n"] == 1 and labels["lab_m"] == 2
    assert delta["judge_calls"] == 3
