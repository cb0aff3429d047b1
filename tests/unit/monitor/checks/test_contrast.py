"""The cheap tier's confident mistakes (issue 16), one category at a time: each flip is
not_supported with a reason naming it, and the faithful twin of each case stays supported."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from monitor.checks.contrast import contrasts, restated, value_date_mismatch
from monitor.checks.contrast_negation import negated
from monitor.checks.contrast_sentences import verbatim
from monitor.checks.support import CONTRADICTION_FACTOR, calibrated, lexical_support, signals


def verdict_of(claim: str, evidence: str) -> tuple[str, tuple[str, ...]]:
    support = lexical_support(claim, [evidence], "unknown")
    flips = tuple(
        r
        for r in support.reasons
        if r.split(":")[0]
        in ("negation_mismatch", "antonym", "unit_mismatch", "date_mismatch", "entity_swap")
    )
    return support.verdict, flips


def assert_flip(claim: str, evidence: str, reason: str) -> None:
    verdict, flips = verdict_of(claim, evidence)
    assert verdict == "not_supported", (claim, evidence, flips)
    assert any(f == reason or f.startswith(reason + ":") for f in flips), flips


def assert_no_flip(claim: str, evidence: str) -> None:
    verdict, flips = verdict_of(claim, evidence)
    assert flips == () and verdict != "not_supported", (claim, evidence, verdict, flips)


NEGATIONS = [
    ("Revenue for 2023 was not 4.2 billion dollars", "Revenue for 2023 was 4.2 billion dollars."),
    (
        "The drug never lowered blood pressure in trials",
        "The drug lowered blood pressure in trials.",
    ),
    ("The plant no longer produces steel for export", "The plant produces steel for export."),
    (
        "The company failed to reach its emissions target",
        "The company reached its emissions target.",
    ),
    ("The minister denied signing the trade agreement", "The minister signed the trade agreement."),
    ("The bridge reopened to traffic in March", "The bridge has not reopened to traffic in March."),
    (
        "The vaccine prevents infection in adults",
        "The vaccine doesn't prevent infection in adults.",
    ),
]


@pytest.mark.parametrize(("claim", "evidence"), NEGATIONS)
def test_negation_and_polarity(claim: str, evidence: str) -> None:
    assert_flip(claim, evidence, "negation_mismatch")


@pytest.mark.parametrize(
    ("claim", "evidence"),
    [
        (
            "Revenue for 2023 was not 4.2 billion dollars",
            "Revenue for 2023 wasn't 4.2 billion dollars.",
        ),
        (
            "The drug lowered blood pressure in trials",
            "In trials, the drug lowered blood pressure.",
        ),
        # a negation elsewhere in the sentence, away from the shared words, is not the claim's
        (
            "Rainfall doubled across the basin in spring",
            "Rainfall doubled across the basin in spring, as nobody had expected.",
        ),
    ],
)
def test_polarity_that_agrees_is_not_flagged(claim: str, evidence: str) -> None:
    assert_no_flip(claim, evidence)


@pytest.mark.parametrize(
    ("claim", "evidence"),
    [
        ("The daily dose is 500 g of paracetamol", "The daily dose is 500 mg of paracetamol."),
        ("The trail is 12 km long", "The trail is 12 m long."),
        ("The tank holds 40 l of water", "The tank holds 40 ml of water."),
        ("Sales reached 4.2 million units", "Sales reached 4.2 billion units."),
        ("Turnout rose by 5 percentage points", "Turnout rose by 5% last year."),
        ("Turnout rose by 5%", "Turnout rose by 5 percentage points."),
        ("The delay was 30 s on average", "The delay was 30 min on average."),
    ],
)
def test_units_and_magnitudes(claim: str, evidence: str) -> None:
    assert_flip(claim, evidence, "unit_mismatch")


@pytest.mark.parametrize(
    ("claim", "evidence"),
    [
        ("The daily dose is 500 mg of paracetamol", "The daily dose is 500 mg of paracetamol."),
        ("The dose is 0.5 g per day for adults", "The dose is 500 mg per day for adults."),
        ("Sales reached 4.2 billion units", "Sales reached 4.2 billion units in 2020."),
    ],
)
def test_units_that_agree_are_not_flagged(claim: str, evidence: str) -> None:
    _, flips = verdict_of(claim, evidence)
    assert not any(f.startswith("unit_mismatch") for f in flips), flips


@pytest.mark.parametrize(
    ("claim", "evidence"),
    [
        ("The treaty was signed on February 1, 2026", "The treaty was signed on January 1, 2026."),
        (
            "The treaty was signed on 2026-02-01 in Rome",
            "The treaty was signed on 2026-01-01 in Rome.",
        ),
        ("The treaty was signed on 2 March 2026", "The treaty was signed on 3 March 2026."),
        ("The treaty took effect in May 2026", "The treaty took effect in June 2026."),
        ("The album was released on April 9, 2011", "The album was released on April 10th."),
    ],
)
def test_dates(claim: str, evidence: str) -> None:
    assert_flip(claim, evidence, "date_mismatch")


@pytest.mark.parametrize(
    ("claim", "evidence"),
    [
        ("The treaty was signed on February 1, 2026", "The treaty was signed on 1 February 2026."),
        ("The treaty was signed on February 1, 2026", "The treaty was signed on 2026-02-01."),
        # the evidence writes the day without the year: the page implies it
        ("The album was released on April 9, 2011", "In 2011 the album was released on April 9th."),
        ("The treaty took effect in May 2026", "The treaty took effect on 4 May 2026."),
    ],
)
def test_dates_that_agree_are_not_flagged(claim: str, evidence: str) -> None:
    assert_no_flip(claim, evidence)


@pytest.mark.parametrize(
    ("claim", "evidence"),
    [
        ("Paris is the capital of Germany", "Paris is the capital of France."),
        ("The river flows into the Baltic Sea", "The river flows into the North Sea."),
        ("The prize was awarded to Curie", "The prize was awarded to Becquerel."),
    ],
)
def test_swapped_entities(claim: str, evidence: str) -> None:
    assert_flip(claim, evidence, "entity_swap")


def test_a_missing_name_without_a_rival_is_not_a_swap() -> None:
    # the evidence names nobody in its place: a gap (names_missing), not a swapped entity
    _, flips = verdict_of("Revenue grew strongly in Europe", "Revenue grew strongly there.")
    assert flips == ()


@pytest.mark.parametrize(
    ("claim", "evidence"),
    [
        ("Aspirin increases fever", "Aspirin reduces fever."),
        ("Prices rose sharply in the third quarter", "Prices fell sharply in the third quarter."),
        (
            "The committee approved the merger proposal",
            "The committee rejected the merger proposal.",
        ),
        ("The new policy allows smoking indoors", "The new policy prohibits smoking indoors."),
        ("Exports were higher than imports in 2020", "Exports were lower than imports in 2020."),
    ],
)
def test_antonyms_of_the_predicate(claim: str, evidence: str) -> None:
    assert_flip(claim, evidence, "antonym")


def test_the_same_predicate_is_not_an_antonym() -> None:
    assert_no_flip(
        "Prices rose sharply in the third quarter",
        "Prices rose sharply in the third quarter, then fell.",
    )


def test_a_flip_scales_the_score_like_a_changed_figure() -> None:
    claim, evidence = (
        "Revenue for 2023 was not 4.2 billion dollars",
        "Revenue for 2023 was 4.2 billion dollars.",
    )
    sig = signals(claim, [evidence])
    # coverage 1 (revenu, billion, dollar; the figures are checked apart), phrase 4/5 bigrams
    assert (sig.coverage, sig.phrase) == (1.0, 0.8)
    support = lexical_support(claim, [evidence], "unknown")
    assert support.score == pytest.approx(round(calibrated(0.9) * CONTRADICTION_FACTOR, 4))
    assert (support.verdict, support.confidence) == ("not_supported", "high")


def test_verbatim_claims_skip_the_checks() -> None:
    evidence = "Sales fell. Revenue was not 4 billion dollars. Costs rose."
    assert verbatim("Revenue was not 4 billion dollars .", evidence)
    # a fragment of a sentence is not verbatim: its negation may sit outside it
    assert not verbatim("4 billion dollars", evidence)
    assert contrasts("Revenue was not 4 billion dollars", [evidence], False) == ()


def test_unaligned_evidence_is_not_read_for_polarity() -> None:
    # the evidence shares under half of the claim's words: no sentence states the claim, so
    # nothing is said about its polarity (the lexical score already rates it low)
    assert (
        contrasts("Rainfall never reached the basin last spring", ["The station closed."], False)
        == ()
    )


@pytest.mark.parametrize(
    ("claim", "evidence"),
    [
        ("Berlin is the capital of France", "Paris is the capital of France."),
        ("Profit grew by a third in France", "Revenue grew by a third in France."),
    ],
)
def test_a_swapped_first_word_is_read_against_the_sentence_first_word(
    claim: str, evidence: str
) -> None:
    assert_flip(claim, evidence, "entity_swap")


def test_an_opening_word_is_not_taken_for_a_swapped_name() -> None:
    # "Additionally" is missing from the evidence, whose sentence opens with a function word
    verdict, flips = verdict_of(
        "Additionally, the utility poses economic risks",
        "the utility poses economic risks, analysts said.",
    )
    assert flips == () and verdict != "not_supported"


def test_miles_and_kilometres_are_lengths() -> None:
    assert_flip("The river is 300 km long", "The river is 300 miles long.", "unit_mismatch")


@pytest.mark.parametrize("place", ["The river", "The Río Bravo"])
def test_figures_are_read_in_ascii_and_other_claims(place: str) -> None:
    # an ASCII claim's digits are found by one regex scan, any other claim's by str.isdigit:
    # both must reach the unit and date checks
    assert_flip(f"{place} is 300 km long", f"{place} is 300 miles long.", "unit_mismatch")
    assert_flip(
        f"{place} flooded on 3 May 2021", f"{place} flooded on 4 May 2021.", "date_mismatch"
    )


# General fixes found by the hand-written cases (contrast_cases.jsonl), each with its own test.


@pytest.mark.parametrize(
    ("claim", "evidence"),
    [
        # 2 of 3 content stems (witness, accusation) without the cue "denied": under the gate
        ("The witness denied the accusation", "The witness admitted the accusation."),
        ("The mill no longer grinds flour", "The mill grinds flour."),
        ("The pilot never flew the route", "The pilot flew the route."),
    ],
)
def test_the_claims_own_cue_word_does_not_count_against_its_alignment(
    claim: str, evidence: str
) -> None:
    assert contrasts(claim, [evidence], False) == ("negation_mismatch",)


def test_not_only_is_no_negation() -> None:
    assert not negated("The drug lowers not only blood pressure but also cholesterol")
    assert_no_flip(
        "The drug lowers blood pressure and cholesterol",
        "The drug lowers not only blood pressure but also cholesterol.",
    )


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("The bill did not pass", True),
        ("The bill did not fail to pass", False),
        ("The bill never once failed to pass", False),
        ("A delay is not impossible", False),
        ("She can't deny the charge", False),
        ("The bill failed to pass and did not return", True),  # two negations, no litotes
        ("The bill was not, as far as anyone knows, unable to pass", True),  # too far apart
        ("The bill did not pass and was not without critics", True),  # one pair cancels of three
        ("The bill passed", False),
    ],
)
def test_a_negator_before_a_negative_word_cancels_it(text: str, expected: bool) -> None:
    assert negated(text) is expected


PLAIN = st.sampled_from(
    ["the", "bill", "passed", "senate", "quickly", "after", "vote", "budget", "was", "large"]
)


@given(st.lists(PLAIN, min_size=2, max_size=12), st.data())
def test_negation_counts_cues_and_cancels_only_adjacent_litotes(
    words: list[str], data: st.DataObject
) -> None:
    assert not negated(" ".join(words))
    at = data.draw(st.integers(0, len(words)))
    negator = data.draw(st.sampled_from(["not", "never", "cannot"]))
    once = [*words[:at], negator, *words[at:]]
    assert negated(" ".join(once))
    negative = data.draw(st.sampled_from(["failed to", "impossible", "without", "unable"]))
    twice = [*words[:at], negator, negative, *words[at:]]
    assert not negated(" ".join(twice))


@pytest.mark.parametrize(
    ("claim", "evidence"),
    [
        ("YouTube acquired Google in 2006", "Google acquired YouTube in 2006."),
        ("Chelsea beat Arsenal in the final", "Arsenal beat Chelsea in the final."),
    ],
)
def test_names_swapped_around_the_same_relation_are_an_entity_swap(
    claim: str, evidence: str
) -> None:
    assert_flip(claim, evidence, "entity_swap")


@pytest.mark.parametrize(
    ("claim", "evidence"),
    [
        # a passive reverses the names around other words
        ("Google acquired YouTube in 2006", "YouTube was acquired by Google in 2006."),
        # a list: only function words between the names
        ("Smith and Jones founded the firm", "Jones and Smith founded the firm."),
    ],
)
def test_names_in_another_order_around_other_words_are_no_swap(claim: str, evidence: str) -> None:
    _, flips = verdict_of(claim, evidence)
    assert flips == ()


@pytest.mark.parametrize(
    ("claim", "evidence"),
    [
        ("Exports climbed in the spring", "Exports dropped in the spring."),
        ("The city permits street markets", "The city bans street markets."),
        ("The jury found him guilty of theft", "The jury found him innocent of theft."),
        ("The country ran a surplus last year", "The country ran a deficit last year."),
        ("Sales slowed in the autumn", "Sales accelerated in the autumn."),
        ("The older bridge is the lighter one", "The older bridge is the heavier one."),
    ],
)
def test_more_opposites(claim: str, evidence: str) -> None:
    assert_flip(claim, evidence, "antonym")


@pytest.mark.parametrize(
    ("claim", "evidence", "again"),
    [
        ("The dose is 1.5 g a day", "The dose is 1,500 mg a day.", {"1.5"}),
        ("The flight lasted 90 minutes", "The flight lasted 1.5 hours.", {"90"}),
        ("The dose is 1.5 g a day", "The dose is 1,600 mg a day.", set()),
        ("The dose is 1.5 g a day", "The dose is 1.5 km a day.", set()),  # another kind
        ("It began on 2024-03-01", "It began on 1 March 2024.", {"03"}),
        ("It began on 2024-03-01", "It began on 1 April 2024.", set()),
    ],
)
def test_restated_figures(claim: str, evidence: str, again: set[str]) -> None:
    assert restated(claim, [evidence]) == again


@given(st.integers(1, 10**6), st.sampled_from([("km", "m", 1000), ("g", "mg", 1000)]))
def test_a_quantity_in_a_smaller_unit_is_restated_only_when_equal(
    n: int, units: tuple[str, str, int]
) -> None:
    big, small, factor = units
    claim = f"The load is {n} {big}"
    assert restated(claim, [f"The load is {n * factor:,} {small}."]) == {str(n)}
    # a tenth of the larger unit more: another quantity (equality is up to float rounding only)
    assert restated(claim, [f"The load is {n * factor + factor // 10:,} {small}."]) == set()


def test_a_figure_restated_in_another_unit_is_not_missing() -> None:
    assert_no_flip("The trail is 2 km long", "The trail is 2,000 m long.")
    support = lexical_support("The trail is 2 km long", ["The trail is 2,500 m long."], "unknown")
    assert support.verdict == "not_supported" and "number_missing:2" in support.reasons


def test_an_iso_month_named_in_the_evidence_hides_no_other_figure() -> None:
    # the month 03 is restated as "March"; the changed count 3 -> 5 is still missing
    support = lexical_support(
        "On 2024-03-01 the firm sold 3 plants", ["On 1 March 2024 the firm sold 5 plants."], "x"
    )
    assert "number_missing:3" in support.reasons and "number_missing:03" not in support.reasons


@pytest.mark.parametrize(
    ("claim", "value", "expected"),
    [
        ("The policy starts on 1 March 2024", "2024-03-15", "2024-03-01"),
        ("The policy starts on 1 March 2024", "2024-03-01", None),
        ("The policy starts in March 2024", "2024-03-15", None),  # a month holds its days
        ("The policy starts on 1 March 2024", "gold", None),
        ("The policy starts on 1 March 2024", 20240301, None),
    ],
)
def test_a_json_date_value_against_the_claim(claim: str, value: object, expected: str) -> None:
    assert value_date_mismatch(claim, value) == expected
