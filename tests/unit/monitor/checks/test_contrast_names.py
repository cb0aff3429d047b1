"""Names an uncited claim brings in (issue 24, point 4): a proper name that no text of the
event mentions makes the claim not_supported, as a missing figure does; capitals that are no
such name (a sentence opener, a heading, a title, a date, a derived form, an acronym written
out) do not."""

from __future__ import annotations

import re

import pytest
from hypothesis import given
from hypothesis import strategies as st

from monitor.check import check_event
from monitor.checks.contrast_names import _names, new_names
from monitor.checks.evidence import index_evidence
from monitor.checks.support import lexical_support
from monitor.config.options import CheckOptions
from monitor.records.models import AnswerEvent, Document
from monitor.text.words import STOPWORDS


def names_in(claim: str, *texts: str) -> list[str]:
    def known(key: str) -> bool:
        return any(key in index_evidence(t).stems for t in texts)

    return new_names(claim, known, texts)


ARTICLE = (
    "Arizona's governor Doug Ducey signed the bill on Friday. Shoppers in Phoenix can now order "
    "blood tests without a doctor. A Korean clinic chain and Canada's largest lab both plan "
    "stores. The Bureau counts prices; BLS figures show the same. The stores are in Tucson, AZ."
)


@pytest.mark.parametrize(
    ("claim", "missing"),
    [
        # a place, a person, a company no sentence of the article names
        ("The bill was signed by the Texas governor on Friday.", ["texas"]),
        (
            "Shoppers in Phoenix can now order tests through Quest Diagnostics.",
            ["quest", "diagnostics"],
        ),
        ("Doug Ducey and Greg Abbott signed the bill.", ["greg", "abbott"]),
        # a derived form needs all of the shorter word but its last letter: Austria is no
        # form of Australia, Britain none of British
        ("The chain also opened stores in Austria.", ["austria"]),
    ],
)
def test_a_name_no_text_mentions_is_returned(claim: str, missing: list[str]) -> None:
    assert names_in(claim, ARTICLE.replace("Korean", "Australian")) == missing


@pytest.mark.parametrize(
    "claim",
    [
        "Governor Doug Ducey signed the bill in Phoenix.",  # every name is in the article
        "Ducey's bill lets shoppers order tests.",  # a possessive: the name is "Ducey"
        "Signed on Friday, the bill lets shoppers order tests.",  # the first word opens it
        "Shoppers can order tests. Prices will fall, analysts say.",  # after a sentence end
        "Tests: Shoppers order them without a doctor.",  # after a colon
        'The law is called "Direct Testing" by shoppers in Phoenix.',  # after a quote
        "The bill took effect on Monday in March.",  # month and day names are dates
        "Rep. Ducey and Gov. Ducey are the same man.",  # a short abbreviation is a title
        "The Korean chain plans stores in Phoenix.",  # named in the article
        "A Canadian lab plans stores in Phoenix.",  # a form of "Canada"
        "A Koreans-only chain plans stores.",  # hyphenated: not read as a name
        "The stores are in Tucson, Arizona.",  # written out for the context's "AZ"
        "The Bureau of Labor Statistics figures show the same.",  # the initials of "BLS"
        "Scope of Coverage: Shoppers order tests without a doctor.",  # a label before a colon
        "Direct Blood Testing Comes To Arizona",  # a title: every long word capitalised
    ],
)
def test_capitals_that_are_no_new_name_are_not_returned(claim: str) -> None:
    assert names_in(claim, ARTICLE) == []


def test_a_name_found_in_any_text_of_the_context_is_known() -> None:
    assert names_in("The tests are run by Quest.", ARTICLE) == ["quest"]
    assert names_in("The tests are run by Quest.", ARTICLE, "Quest Diagnostics runs labs.") == []
    # the claim's first word may just open the sentence: it is never taken for a name
    assert names_in("Quest will run the tests.", ARTICLE) == []


def test_the_context_is_read_only_for_a_name_its_stem_does_not_find() -> None:
    class Texts(list[str]):
        read = 0

        def __iter__(self):  # type: ignore[no-untyped-def]
            Texts.read += 1
            return super().__iter__()

    texts = Texts([ARTICLE])

    def known(key: str) -> bool:
        return key in index_evidence(ARTICLE).stems

    assert new_names("Doug Ducey signed it in Phoenix.", known, texts) == []
    assert Texts.read == 0
    assert new_names("It was signed by Greg Abbott.", known, texts) == ["greg", "abbott"]
    assert Texts.read > 0


WORDS = st.sampled_from(
    [
        "Phoenix",
        "Quest",
        "Texas",
        "the",
        "bill",
        "Ducey",
        "signed",
        "Korean",
        "Rep.",
        "AZ",
        "Arizona",
        "on",
        "Monday",
        "Labs",
        ":",
        ".",
        '"',
        "shoppers",
    ]
)


@given(st.lists(WORDS, min_size=1, max_size=12))
def test_new_names_are_capitalised_words_of_the_claim_that_no_text_holds(words: list[str]) -> None:
    claim = " ".join(words)
    found = names_in(claim, ARTICLE)
    capitalised = {w.lower() for w in re.findall(r"[A-Z][a-z]+", claim)}
    assert set(found) <= capitalised
    assert len(found) == len(set(found))
    stems = index_evidence(ARTICLE).stems
    assert not any(index_evidence(n).stems <= stems for n in found)


# --- through the check: uncited claims only ----------------------------------------------

DOCS = (Document("a", ARTICLE),)


def claims_of(answer: str, **kw: object) -> list[tuple[str, tuple[str, ...]]]:
    event = AnswerEvent("e", answer, documents=kw.get("documents", DOCS), data=kw.get("data"))  # type: ignore[arg-type]
    verdict = check_event(event, CheckOptions())
    return [(c.support.verdict, c.support.reasons) for c in verdict.claims]


def test_an_uncited_claim_naming_what_no_document_names_is_not_supported() -> None:
    ((verdict, reasons),) = claims_of("The Texas governor Doug Ducey signed the bill on Friday.")
    assert verdict == "not_supported"
    assert "name_missing:texas" in reasons
    # its faithful twin
    ((verdict, reasons),) = claims_of("The Arizona governor Doug Ducey signed the bill on Friday.")
    assert verdict != "not_supported"
    assert not any(r.startswith("name_missing") for r in reasons)


def test_a_source_reference_left_in_the_claim_is_no_name() -> None:
    ((verdict, reasons),) = claims_of("Governor Doug Ducey signed the bill on Friday (Passage ).")
    assert not any(r.startswith("name_missing") for r in reasons), reasons
    assert verdict != "not_supported"


def test_a_value_of_the_data_with_a_name_the_data_lacks_is_not_supported() -> None:
    data = {"name": "Mesa Verde", "city": "Santa Barbara", "stars": 4.5}
    ((verdict, reasons),) = claims_of(
        "Mesa Verde has a rating of 4.5 stars.", documents=(), data=data
    )
    assert (verdict, reasons) == ("supported", ("uncited", "value_in_data"))
    ((verdict, reasons),) = claims_of(
        "Mesa Verde has a rating of 4.5 stars on Google.", documents=(), data=data
    )
    assert verdict == "not_supported"
    assert "name_missing:google" in reasons


def test_a_cited_claim_is_judged_by_its_citation_as_before() -> None:
    # the name rule is the grounding's: a cited claim keeps the names penalty of the lexical tier
    support = lexical_support("Texas governor Doug Ducey signed the bill.", [ARTICLE], "unknown")
    assert not any(r.startswith("name_missing") for r in support.reasons)


# --- the swap checks read the same name positions -------------------------------------------
# A word that may just open a sentence (the first word, a word after a colon, a bracket or a
# quote) is capitalised for that reason alone: it is no name of a swap, unless the first word
# stands where the aligned sentence's first word stands ("Berlin is ..." / "Paris is ...").


def swap_of(claim: str, evidence: str) -> list[str]:
    support = lexical_support(claim, [evidence], "unknown")
    return [r for r in support.reasons if r.startswith("entity_swap")]


@pytest.mark.parametrize(
    ("claim", "evidence"),
    [
        # an imperative and an adverb open their sentences: different words in different places
        (
            "Whisk the eggs into the warm milk slowly",
            "Gradually beat the eggs into the warm milk slowly.",
        ),
        # an introductory word set off by a comma is not the subject
        (
            "Lastly, the committee publishes its report in spring",
            "Usually the committee publishes its report in spring.",
        ),
        # a label before a colon, and the word after the colon opens the clause
        (
            "Background: Voters approved the budget in March",
            "Members approved the budget in March.",
        ),
        # a word after an opening bracket
        ("Walking lowers blood pressure (Study 2)", "Walking lowers blood pressure, Smith found."),
    ],
)
def test_a_word_that_may_open_a_sentence_is_no_swapped_name(claim: str, evidence: str) -> None:
    assert swap_of(claim, evidence) == []


@pytest.mark.parametrize(
    ("claim", "evidence", "swapped"),
    [
        # the first word in the aligned sentence's first word's place, before the same word
        (
            "Oslo hosts the winter festival every year",
            "Bergen hosts the winter festival every year.",
            "oslo",
        ),
        # a name after white space inside the sentence keeps being read, a colon before the clause
        (
            "Budget: The council met Jones in March",
            "Budget: The council met Smith in March.",
            "jones",
        ),
    ],
)
def test_a_name_in_its_place_is_still_a_swap(claim: str, evidence: str, swapped: str) -> None:
    assert swap_of(claim, evidence) == [f"entity_swap:{swapped}"]


OPENERS = [".", ":", ";", "!", "?", "(", '"', "“", "[", "–", "—", "-"]
SEPARATORS = [" ", *(f" {o} " for o in OPENERS), *(f"{o} " for o in OPENERS)]


@given(
    st.lists(
        st.tuples(
            st.sampled_from(["Bergen", "Trondheim", "Finally", "Another", "Both", "met", "the"]),
            st.sampled_from(SEPARATORS),
        ),
        max_size=10,
    )
)
def test_the_swap_checks_and_new_names_read_the_same_name_positions(
    parts: list[tuple[str, str]],
) -> None:
    # a capitalised word after white space that follows a word is a name of both rules (of
    # new_names: when no text holds it and it is no stopword); after an opener, of neither.
    # (the claim opens and ends with a lower-case word: no heading, no first word to read)
    text = "visitors" + "".join(sep + word for word, sep in parts) + " visited"
    expected = {w.lower() for w, sep in parts if w[0].isupper() and sep == " "}
    assert _names(text) == expected
    assert set(new_names(text, lambda _: False, [])) == expected - STOPWORDS
