"""The cheap tier's confident mistakes (issue 16), one category at a time: each flip is
not_supported with a reason naming it, and the faithful twin of each case stays supported."""

from __future__ import annotations

import pytest

from monitor.contrast import contrasts, verbatim
from monitor.support import CONTRADICTION_FACTOR, calibrated, lexical_support, signals


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
