"""resolve_citations: every error code, the check order, evidence text and json values."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from monitor.citations import resolve_citations
from monitor.config.options import CheckOptions
from monitor.records.models import CITATION_ERRORS, AnswerEvent, Citation, Document, Segment
from tests.unit.monitor.citations.helpers import CODE, PAGES, check, errors

DATA = {"quote": {"premium": 1200, "city": "Springfield", "ok": True}, "items": [{"price": 2.5}]}


def test_valid_span_on_a_page_gives_the_full_evidence() -> None:
    (r,) = check("Revenue was $10M [r.pdf:2:4-49].")
    assert (r.status, r.error, r.doc_id) == ("valid", None, "r.pdf")
    assert r.cited_text == PAGES[1][4:49] == "company achieved $10M in total revenue for Q1"


def test_span_on_a_document_without_pages_indexes_its_text_and_ignores_the_page() -> None:
    (r,) = check("[notes.txt:99:0-5]")
    assert (r.status, r.cited_text) == ("valid", "plain")


def test_long_evidence_is_not_truncated() -> None:
    doc = Document(id="big.txt", text="x" * 3000)
    (r,) = check("[big.txt:1:0-2500]", documents=(doc,))
    assert r.valid and len(r.cited_text or "") == 2500


@pytest.mark.parametrize(
    ("answer", "error"),
    [
        ("[missing.pdf:1:0-4]", "document_not_found"),
        ("[r.pdf:3:0-4]", "page_out_of_range"),
        ("[r.pdf:0:0-4]", "page_out_of_range"),
        ("[r.pdf:1:8-4]", "end_before_start"),
        ("[r.pdf:1:4-4]", "empty_span"),
        ("[r.pdf:1:10-17]", "span_out_of_bounds"),
        ("[r.pdf:1:40-60]", "span_out_of_bounds"),
        ("[r.pdf:1:0-16]", None),
    ],
)
def test_span_errors(answer: str, error: str | None) -> None:
    assert errors(answer) == [error]


def test_span_too_long() -> None:
    opts = CheckOptions(max_span_chars=10)
    assert errors("[r.pdf:2:0-11] [r.pdf:2:0-10]", opts) == ["span_too_long", None]


def test_span_check_order_document_page_order_empty_bounds_length_excerpt() -> None:
    opts = CheckOptions(max_span_chars=3)
    # each citation fails several checks; the first in the documented order wins
    assert errors(
        "[nope.pdf:9:5-1] [r.pdf:9:5-1] [r.pdf:1:99-1] [r.pdf:1:99-99] [r.pdf:1:0-99]"
        ' [r.pdf:1:0-9 | excerpt: "zzz"]',
        opts,
    ) == [
        "document_not_found",
        "page_out_of_range",
        "end_before_start",
        "empty_span",
        "span_out_of_bounds",
        "span_too_long",
    ]


def test_excerpt_must_fuzzily_match_the_span() -> None:
    results = check(
        '[r.pdf:2:4-49 | excerpt: "company achieved $10M in total revenue"]'
        ' [r.pdf:2:4-49 | excerpt: "Company  achieved $10m in totl revenue..."]'
        ' [r.pdf:2:4-49 | excerpt: "losses doubled in the third quarter"]'
        ' [r.pdf:1:0-3 | excerpt: "0123456789abcdef and more text"]'
    )
    assert [r.error for r in results] == [None, None, "excerpt_mismatch", "excerpt_mismatch"]
    assert results[2].cited_text == PAGES[1][4:49]


def test_line_citations() -> None:
    results = check(
        "[src/auth.py:1-2] [src/auth.py:3] [src/auth.py:4] [src/auth.py:0-2]"
        " [src/auth.py:3-2] [src/other.py:1-2]"
    )
    assert [r.error for r in results] == [
        None,
        None,
        "line_out_of_range",  # 3 lines: the empty string after the final newline is no line
        "line_out_of_range",
        "end_before_start",
        "document_not_found",
    ]
    assert results[0].cited_text == "def login(user):\n    check(user)"
    assert results[1].cited_text == CODE.split("\n")[2]


def test_line_excerpt() -> None:
    assert errors(
        '[src/auth.py:3 | excerpt: "return token"] [src/auth.py:3 | excerpt: "raise Error"]'
    ) == [None, "excerpt_mismatch"]


def test_numeric_prefers_document_id_then_position() -> None:
    docs = (Document(id="a", text="A"), Document(id="2", text="two"), Document(id="c", text="C"))
    results = check("[1] [2] [3] [4] [0]", documents=docs)
    assert [(r.doc_id, r.error) for r in results] == [
        ("a", None),
        ("2", None),
        ("c", None),
        (None, "index_out_of_range"),
        (None, "index_out_of_range"),
    ]
    assert [r.cited_text for r in results[:3]] == ["A", "two", "C"]
    docs = (Document(id="x", text="X"), Document(id="y", text="Y"), Document(id="1", text="one"))
    assert [r.doc_id for r in check("[1] [2]", documents=docs)] == ["1", "y"]


def test_numeric_full_text_of_a_paged_document() -> None:
    (r,) = check("[1]")
    assert r.cited_text == "\n\n".join(PAGES)


def test_segment_citations() -> None:
    segs = (Segment("One.", ("r.pdf", 2, "missing.pdf", 7)),)
    results = check("One.", segments=segs)
    assert [(r.citation.raw, r.doc_id, r.error) for r in results] == [
        ("r.pdf", "r.pdf", None),
        ("2", "src/auth.py", None),
        ("missing.pdf", None, "document_not_found"),
        ("7", None, "index_out_of_range"),
    ]


def test_string_segment_id_is_never_a_position() -> None:
    assert errors("One.", segments=(Segment("One.", ("1",)),)) == ["document_not_found"]


def test_json_path_resolution_and_rendering() -> None:
    results = check(
        "Premium $1,200 [quote.premium]. Price 2.5 [items.0.price]. Flag [quote.ok]."
        " Gone [quote.deductible]. Deep [items.1.price] [items.x.price] [quote.premium.x].",
        data=DATA,
    )
    assert [r.error for r in results] == [
        None,
        None,
        None,
        "path_not_found",
        "path_not_found",
        "path_not_found",
        "path_not_found",
    ]
    assert (results[0].value, results[0].cited_text) == (1200, "quote.premium = 1200")
    assert results[2].value is True and results[2].doc_id is None


def test_json_object_value_is_rendered_short_and_not_value_checked() -> None:
    data = {"a": {"b": {"long": "z" * 1000}}}
    (r,) = check("No number here [a.b].", CheckOptions(cited_text_max_chars=20), data=data)
    assert r.valid and r.value == {"long": "z" * 1000}
    assert r.cited_text == 'a.b = {"long": "zzz…'


@pytest.mark.parametrize(
    ("answer", "error"),
    [
        ("The premium is $1,200 [quote.premium].", None),
        ("The premium is 1200 [quote.premium].", None),
        ("The premium is $1.2k [quote.premium].", None),
        ("The premium is 1,250 [quote.premium].", "value_mismatch"),
        ("The premium is 1,201 [quote.premium].", "value_mismatch"),
        ("The premium [quote.premium] is $1,200.", None),
        ("The premium [quote.premium] is unknown. It is 1,200.", "value_mismatch"),
        ("It costs $1,200. [quote.premium]", None),
        ("No figure at all [quote.premium].", "value_mismatch"),
        ("In 2023 the premium was $1,200 [quote.premium].", None),
        ("The premium was 1,200. In 2023 it was raised [quote.premium].", "value_mismatch"),
        ("The city is Springfield [quote.city].", None),
        ("The city is Springfeld [quote.city].", None),
        ("The city is Shelbyville [quote.city].", "value_mismatch"),
    ],
)
def test_value_checking(answer: str, error: str | None) -> None:
    assert errors(answer, data=DATA) == [error]


def test_value_checking_can_be_switched_off() -> None:
    opts = CheckOptions(check_values=False)
    assert errors("The premium is 99 [quote.premium].", opts, data=DATA) == [None]


def test_value_window_limits() -> None:
    far = "The premium is $1,200 " + "and so on " * 30 + "[quote.premium]."
    assert errors(far, data=DATA) == ["value_mismatch"]
    assert errors(far, CheckOptions(value_window_chars=400), data=DATA) == [None]
    # the previous citation ends the window: its number is not this citation's number
    assert errors("It is $1,200 [items.0.price] [1] and [quote.premium].", data=DATA) == [
        "value_mismatch",
        None,
        "value_mismatch",
    ]


def test_cross_reference_group_shares_its_window() -> None:
    answer = "Premium $1,200 and price $2.50 [quote.premium] [items.0.price]."
    assert errors(answer, data=DATA) == [None, None]


def test_malformed_resolves_to_malformed() -> None:
    (r,) = check("[r.pdf:2:abc-50]")
    assert (r.status, r.error, r.cited_text) == ("invalid", "malformed", None)


def test_every_citation_error_code_is_produced() -> None:
    produced: set[str] = set()
    cases = [
        ("[missing.pdf:1:0-4] [r.pdf:3:0-4] [r.pdf:1:10-17] [r.pdf:1:4-4] [r.pdf:1:8-4]", {}),
        ('[src/auth.py:9] [7] [quote.x] [r.pdf:1:0-3 | excerpt: "zzz"] [r.pdf:2:x-1]', {}),
        ("Premium 5 [quote.premium].", {}),
        ("[r.pdf:2:0-20]", {"options": CheckOptions(max_span_chars=10)}),
    ]
    for answer, kw in cases:
        for r in check(answer, kw.get("options"), data=DATA):
            if r.error:
                produced.add(r.error)
    # too_many_citations is a note of extract_citations, not a per-citation error
    assert produced == set(CITATION_ERRORS) - {"too_many_citations"}


line_docs = st.lists(
    st.builds(
        Document,
        id=st.sampled_from(["a.py", "b.py"]),
        text=st.one_of(st.none(), st.text(alphabet="ab\n", max_size=20)),
        pages=st.one_of(st.none(), st.lists(st.text(alphabet="a\n", max_size=6), max_size=2)),
    ).map(lambda d: d if d.pages is None else Document(d.id, d.text, tuple(d.pages))),
    max_size=3,
).map(tuple)
line_cites = st.lists(
    st.tuples(st.sampled_from(["a.py", "b.py", "c.py"]), st.integers(-1, 8), st.integers(-1, 8)),
    max_size=6,
)


@settings(max_examples=400, deadline=None)
@given(line_docs, line_cites)
def test_line_citations_resolve_alike_together_and_alone(
    docs: tuple[Document, ...], specs: list[tuple[str, int, int]]
) -> None:
    """A document's lines are split once per answer: sharing them changes no result."""
    ev = AnswerEvent(event_id="p", answer="x", documents=docs)
    cites = [
        Citation(k, f"[{ref}:{a}-{b}]", "line", 0, 1, k, ref, None, a, b)
        for k, (ref, a, b) in enumerate(specs)
    ]
    opts = CheckOptions()
    together = resolve_citations(ev, cites, opts)
    assert together == [resolve_citations(ev, [c], opts)[0] for c in cites]
