"""Property tests: extraction and resolution never raise; inline raw is the answer slice."""

from __future__ import annotations

import itertools
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from monitor.citations import extract_citations, resolve_citations
from monitor.config.options import CheckOptions
from monitor.records.models import AnswerEvent, Document, Segment

NASTY = "[]:-–,.|0123456789 ab`~\n/\"'excerpt()\\_%$kM"
TOKENS = [
    "[",
    "]",
    "[1]",
    "[1-3]",
    "[r.pdf:1:0-4]",
    '[r.pdf:2:1-5,6-9 | excerpt: "ab"]',
    "[src/a.py:1-2]",
    "[a.b]",
    "[a.0.c]",
    "```\n",
    "`",
    "``",
    " ",
    "\n",
    "1,200",
    "$2.5M",
    ". ",
    "(x)",
    "\\",
    "a",
]
answers = st.one_of(
    st.text(alphabet=NASTY, max_size=300),
    st.lists(st.sampled_from(TOKENS), max_size=60).map("".join),
    st.text(max_size=200),
)
documents = st.lists(
    st.builds(
        Document,
        id=st.sampled_from(["r.pdf", "src/a.py", "1", "2", "x"]),
        text=st.one_of(st.none(), st.text(alphabet="ab\n ", max_size=40)),
        pages=st.one_of(st.none(), st.lists(st.text(max_size=20), max_size=3).map(tuple)),
    ),
    max_size=4,
).map(tuple)
json_values: st.SearchStrategy[Any] = st.recursive(
    st.one_of(st.none(), st.booleans(), st.integers(), st.floats(), st.text(max_size=10)),
    lambda inner: st.one_of(
        st.lists(inner, max_size=3), st.dictionaries(st.sampled_from("abc0"), inner, max_size=3)
    ),
    max_leaves=8,
)
data = st.one_of(st.none(), st.dictionaries(st.sampled_from(["a", "b", "r"]), json_values))
segments = st.one_of(
    st.none(),
    st.lists(
        st.builds(
            Segment,
            text=st.text(alphabet="ab. ", max_size=10),
            citations=st.lists(
                st.one_of(st.integers(-3, 5), st.sampled_from(["r.pdf", "x", "1"])), max_size=3
            ).map(tuple),
        ),
        max_size=4,
    ).map(tuple),
)
options = st.builds(
    CheckOptions,
    max_citations=st.integers(0, 20),
    max_span_chars=st.integers(0, 50),
    value_window_chars=st.integers(0, 100),
    check_values=st.booleans(),
    cited_text_max_chars=st.integers(0, 30),
)


@settings(max_examples=400, deadline=None)
@given(answers, documents, data, segments, options)
def test_extract_and_resolve_never_raise(
    answer: str,
    docs: tuple[Document, ...],
    data_: dict[str, Any] | None,
    segs: tuple[Segment, ...] | None,
    opts: CheckOptions,
) -> None:
    ev = AnswerEvent(event_id="p", answer=answer, documents=docs, data=data_, segments=segs)
    found, notes = extract_citations(ev, opts)
    assert [c.index for c in found] == list(range(len(found)))
    assert len(found) <= opts.max_citations
    assert all(n.startswith("too_many_citations") for n in notes)
    for c in found:
        if segs is None:
            assert answer[c.start : c.end] == c.raw
            assert c.raw.startswith("[") and c.raw.endswith("]")
        else:
            assert c.format == "segment" and c.segment is not None
    results = resolve_citations(ev, found, opts)
    assert [r.citation for r in results] == found
    for r in results:
        assert (r.status == "valid") is (r.error is None)


@settings(max_examples=300, deadline=None)
@given(answers)
def test_inline_citations_are_ordered_and_disjoint_per_bracket(answer: str) -> None:
    ev = AnswerEvent(event_id="p", answer=answer, data={"a": 1})
    found, _ = extract_citations(ev, CheckOptions())
    spans = sorted({(c.start, c.end) for c in found})
    assert [(c.start, c.end) for c in found] == sorted((c.start, c.end) for c in found)
    assert all(a[1] <= b[0] for a, b in itertools.pairwise(spans))
    groups = [c.group for c in found]
    assert groups == sorted(groups)
