from __future__ import annotations

from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from agents.stream.window_store import CountedRecords


class Stored:
    def __init__(self) -> None:
        self.entries: dict[str, Any] = {}

    def __setitem__(self, key: str, value: Any) -> None:
        self.entries[key] = value


def store(horizon: float = 100, max_ids: int = 10, step: float = 60) -> CountedRecords:
    return CountedRecords(Stored(), step, horizon, max_ids)


def test_ids_within_the_horizon_and_per_kind() -> None:
    s = store()
    s.add_id("e1", 1000)
    assert s.seen("e1", 1050) and s.seen("e1", 1100)
    assert not s.seen("e1", 1101)
    assert not s.seen("e1", 1050, kind="judge")  # a judge correction is its own thing


def test_commit_writes_one_entry_and_adds_to_the_sums() -> None:
    s = store()
    s.add_id("e1", 1000)
    s.commit("3:41", "search", "scores", ["e1"], {960.0: [1, 0, 2]}, 1001)
    s.commit("3:42", "search", "scores", [], {960.0: [1, 1]}, 1002)
    assert s.table.entries["3:41"] == {
        "t": 1001,
        "app": "search",
        "kind": "scores",
        "ids": ["e1"],
        "buckets": [[960.0, [1, 0, 2]]],
    }
    assert s.get("search", 1000) == [2, 1, 2] and s.get("search", 1020) is None
    assert s.counted("3:42") and not s.counted("3:43") and s.apps() == {"search"}


def test_prune_by_age_and_bound_by_count() -> None:
    s = store(max_ids=3)
    for i, t in enumerate((1000, 1010, 1020, 1030)):
        s.add_id(f"e{i}", t)
    assert not s.seen("e0", 1030)  # the oldest went first
    s.commit("0:1", "a", "scores", [], {960.0: [1]}, 1010)
    s.commit("0:2", "a", "scores", [], {1080.0: [1]}, 1100)
    s.prune(now=1115, keep_buckets_seconds=60)
    assert [i for i in ("e1", "e2", "e3") if s.seen(i, 1115)] == ["e2", "e3"]
    assert s.get("a", 1000) is None and s.get("a", 1100) == [1]  # bucket 960 < 1115 - 60
    assert not s.counted("0:1") and s.counted("0:2")


def test_rebuild_skips_what_it_cannot_read() -> None:
    s = store(horizon=1000)
    s.add_id("stale", 5)
    stored = [
        (
            "0:2",
            {"t": 2000, "app": "a", "kind": "scores", "ids": ["b", 7], "buckets": [[1980, [1]]]},
        ),
        ("0:1", {"t": 1000, "app": "a", "ids": ["a"], "buckets": [[960, [1, "x"]], "junk"]}),
        ("0:3", {"t": 1500, "app": "a", "kind": "judge", "ids": ["a"], "buckets": []}),
        ("0:4", {"t": "x", "app": "a", "ids": ["c"]}),
        (("search", (0, 60)), [1, 0, 3]),  # an older version's bucket vector
        ("0:5", {"t": 1, "app": "a", "kind": "unknown", "ids": ["d"]}),
    ]
    assert s.rebuild(stored) == 3
    assert s.seen("a", 1000) and s.seen("a", 1500, kind="judge") and s.seen("b", 2000)
    assert not s.seen("stale", 5) and not s.seen("c", 0)
    assert s.get("a", 961) == [1, 0] and s.get("a", 1990) == [1]
    assert s.counted("0:1") and not s.counted("0:4")


@given(
    st.lists(
        st.tuples(st.sampled_from("abcdef"), st.integers(0, 300), st.integers(0, 3)), max_size=40
    )
)
def test_a_rebuilt_store_answers_like_the_live_one(stream: list[tuple[str, int, int]]) -> None:
    live = store(horizon=1000, max_ids=100)
    for n, (event_id, t, claims) in enumerate(stream):
        if not live.seen(event_id, t):
            live.add_id(event_id, t)
            live.commit(f"0:{n}", "app", "scores", [event_id], {live.bucket(t): [1, claims]}, t)
    rebuilt = store(horizon=1000, max_ids=100)
    rebuilt.rebuild(live.table.entries.items())
    assert rebuilt.sums == live.sums
    for event_id in "abcdefg":
        assert rebuilt.seen(event_id, 300) == live.seen(event_id, 300)
