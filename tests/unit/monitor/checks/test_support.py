"""The cheap support tier: rules, lexical signals, bands, and detection on the standard mix."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from monitor.check import check_event
from monitor.checks.support import assess_claim, calibrated, lexical_support, signals
from monitor.config.options import CheckOptions
from monitor.inputs.decode import decode_event
from monitor.records.models import AnswerEvent, Citation, CitationResult, Claim, Rejection

OPTIONS = CheckOptions()
EVENT = AnswerEvent(event_id="e", answer="")


def cited(text: str, *evidence: str, status: str = "valid") -> tuple[Claim, list[CitationResult]]:
    """A claim `text [1]` citing each evidence text once (markers after the text)."""
    answer = text + "".join(f" [{i + 1}]" for i in range(len(evidence))) + "."
    results = []
    for i, ev in enumerate(evidence):
        pos = answer.index(f"[{i + 1}]")
        cite = Citation(i, f"[{i + 1}]", "numeric", pos, pos + 3, number=i + 1)
        error = None if status == "valid" else "index_out_of_range"
        results.append(CitationResult(cite, status, error=error, cited_text=ev))  # type: ignore[arg-type]
    claim = Claim(0, answer, 0, len(answer), citation_indexes=tuple(range(len(evidence))))
    return claim, results


def test_uncited_claim_is_not_supported_by_rule() -> None:
    claim = Claim(0, "Revenue grew by five percent.", 0, 29)
    support = assess_claim(claim, [], EVENT, OPTIONS)
    assert (support.verdict, support.score, support.tier, support.reasons) == (
        "not_supported",
        0.0,
        "rules",
        ("uncited",),
    )


def test_only_invalid_citations_are_not_support() -> None:
    claim, results = cited("Revenue grew by five percent", "Revenue grew", status="invalid")
    support = assess_claim(claim, results, EVENT, OPTIONS)
    assert (support.verdict, support.score, support.tier) == ("not_supported", 0.0, "rules")
    assert support.reasons == ("invalid_citations", "citation_error:index_out_of_range")


def test_verbatim_evidence_is_supported_with_high_confidence() -> None:
    claim, results = cited(
        "Revenue grew by 5% in 2020 across Europe",
        "Intro. Revenue grew by 5% in 2020 across Europe. Costs fell.",
    )
    support = assess_claim(claim, results, EVENT, OPTIONS)
    assert (support.verdict, support.score, support.confidence, support.tier) == (
        "supported",
        1.0,
        "high",
        "lexical",
    )


def test_hand_computed_partial_overlap() -> None:
    # terms: revenu 1, grew 1, strong 1, europ 2 (a name); evidence has revenu, grew, strong:
    # coverage = 3/5; bigrams revenu-grew, grew-strong found, strong-europ not: phrase = 2/3;
    # base = (0.6 + 2/3) / 2 = 0.6333, calibrated 0.5 + 0.5 * (0.6333 - 0.25) / 0.75 = 0.7556;
    # one name missing: - 0.1 (the evidence names no other place: a gap, not a swapped entity)
    support = lexical_support(
        "Revenue grew strongly in Europe", ["Revenue grew strongly there."], "unknown"
    )
    assert support.score == pytest.approx(0.6556, abs=1e-4)
    assert (support.verdict, support.confidence) == ("partially_supported", "medium")
    assert "names_missing=1" in support.reasons
    weak = lexical_support("Revenue grew strongly in Europe", ["Revenue fell in Asia."], "unknown")
    # coverage 1/5, no bigram: base 0.1, calibrated 0.5 * 0.1 / 0.25 = 0.2, minus 0.1
    assert weak.score == pytest.approx(0.1)
    assert (weak.verdict, weak.confidence) == ("not_supported", "high")


def test_calibration_maps_the_binary_base_to_one_half() -> None:
    assert [calibrated(b) for b in (0.0, 0.125, 0.25, 0.625, 1.0)] == pytest.approx(
        [0.0, 0.25, 0.5, 0.75, 1.0]
    )


def test_missing_names_subtract_and_never_go_below_zero() -> None:
    evidence = ["Revenue grew strongly."]
    one = lexical_support("Revenue grew strongly in Europe", evidence, "unknown").score
    two = lexical_support("Revenue grew strongly in Europe and Asia", evidence, "unknown").score
    # coverage 3/5 then 3/7 (names weigh double); phrase 2/3 then 2/4
    assert one == pytest.approx(0.5 + 0.5 * ((0.6 + 2 / 3) / 2 - 0.25) / 0.75 - 0.1, abs=1e-4)
    assert two == pytest.approx(0.5 + 0.5 * ((3 / 7 + 0.5) / 2 - 0.25) / 0.75 - 0.2, abs=1e-4)
    none = lexical_support("Paris Berlin Rome Madrid", ["Oslo."], "unknown")
    assert none.score == 0.0


def test_a_changed_figure_is_not_supported_whatever_the_wording() -> None:
    claim, results = cited(
        "Revenue grew by 7% in 2020 across Europe",
        "Revenue grew by 5% in 2020 across Europe.",
    )
    support = assess_claim(claim, results, EVENT, OPTIONS)
    assert (support.verdict, support.confidence) == ("not_supported", "high")
    # every term found, bigrams grew-7 and 7-2020 not: phrase 3/5, base 0.8, calibrated
    # 0.5 + 0.5 * 0.55 / 0.75 = 0.8667, scaled by 0.35
    assert support.score == pytest.approx(0.3033, abs=1e-4)
    assert "number_missing:7" in support.reasons
    # the scale keeps the order: a changed figure in a rewritten sentence scores lower still
    worse = lexical_support(
        "Costs fell by 7% in Asia", ["Revenue grew by 5% in Europe."], "unknown"
    )
    assert worse.verdict == "not_supported" and worse.score < support.score


def test_rounded_figures_and_spelled_numbers_are_not_missing() -> None:
    sig = signals(
        "About 41% of the 5.7 million residents own two cars",
        ["Some 41.3% of 5,669,000 residents own two cars."],
    )
    assert sig.missing_numbers == ()
    assert signals("Two sites closed in 2019", ["2 sites closed in 2019."]).missing_numbers == ()


def test_coverage_and_phrase_count_the_whole_evidence() -> None:
    # a window of a few sentences ranked human labels worse than the whole evidence (see the
    # module docstring), so words far apart still count
    far = ". ".join(["Filler words about nothing much at all today"] * 20)
    sig = signals("Revenue grew while costs fell", [f"Revenue grew. {far}. Costs fell."])
    assert (sig.coverage, sig.phrase) == (1.0, pytest.approx(2 / 3))  # grew-cost is not there


def test_content_free_claim_without_figures_is_unverifiable() -> None:
    support = lexical_support("It is so", ["Anything at all."], "unknown")
    assert (support.verdict, support.score) == ("unverifiable", 0.5)


def test_extractive_code_claim_with_every_symbol_and_figure_present() -> None:
    code = 'def alpha_revenue_3(value):\n    """Docs."""\n    return value * 42'
    claim, results = cited("The `alpha_revenue_3` function multiplies its input by 42", code)
    claim = Claim(0, claim.text, 0, len(claim.text), claim.citation_indexes, kind="extractive")
    support = assess_claim(claim, results, EVENT, OPTIONS)
    assert support.verdict == "supported"
    assert "identifiers_found" in support.reasons
    changed = lexical_support(
        "The `alpha_revenue_3` function multiplies its input by 43", [code], "extractive"
    )
    assert changed.verdict == "not_supported"
    missing = lexical_support(
        "The `beta_revenue_3` function multiplies its input by 42", [code], "extractive"
    )
    assert missing.score <= 0.35 and "identifier_missing:beta_revenue_3" in missing.reasons


def test_json_path_value_stated_in_the_claim_is_supported_by_rule() -> None:
    answer = "The premium recorded for quote is 1,234 [quote.premium]."
    pos = answer.index("[")
    cite = Citation(0, "[quote.premium]", "json_path", pos, len(answer) - 1, path="quote.premium")
    result = CitationResult(cite, "valid", cited_text="quote.premium = 1234", value=1234)
    claim = Claim(0, answer, 0, len(answer), (0,))
    support = assess_claim(claim, [result], EVENT, OPTIONS)
    assert (support.verdict, support.score, support.tier) == ("supported", 1.0, "rules")


def test_abstractive_middle_band_is_unverifiable() -> None:
    evidence = ["The service stores tokens and checks nonce values on each request."]
    # coverage 4/5, no bigram in common: base 0.4, calibrated 0.6
    plain = lexical_support(
        "The service checks tokens for staleness on every request", evidence, "unknown"
    )
    purpose = lexical_support(
        "The service checks tokens for staleness on every request", evidence, "abstractive"
    )
    assert plain.verdict == "partially_supported" and plain.score == pytest.approx(0.6)
    assert purpose.verdict == "unverifiable" and purpose.score == plain.score


WORDS = st.sampled_from(
    [
        "revenue",
        "grew",
        "fell",
        "costs",
        "Europe",
        "margin",
        "2020",
        "5%",
        "the",
        "in",
        "by",
        "quarter",
    ]
)


@settings(max_examples=150, deadline=None)
@given(
    st.lists(WORDS, min_size=1, max_size=10).map(" ".join),
    st.lists(WORDS, max_size=15).map(" ".join),
    st.lists(WORDS, max_size=15).map(" ".join),
)
def test_more_evidence_never_lowers_the_score(claim: str, first: str, extra: str) -> None:
    one = lexical_support(claim, [first], "unknown")
    two = lexical_support(claim, [first, extra], "unknown")
    assert 0.0 <= one.score <= 1.0 and 0.0 <= two.score <= 1.0
    if two.score < one.score:
        # only when the added evidence says the opposite: the words now align, and the
        # sentence they align with flips the claim (docs/contrast.md)
        flips = [r for r in two.reasons if r not in one.reasons and r.startswith(CONTRAST_REASONS)]
        assert flips, (one, two)


#: the contrast checks' reasons (monitor/checks/contrast*.py): a meaning flip lowers a score
CONTRAST_REASONS = ("antonym:", "negation_mismatch", "unit_mismatch:", "date_mismatch:",
                    "entity_swap:", "role_swap", "value_mismatch")  # fmt: skip


def test_more_evidence_may_lower_the_score_only_by_a_flip() -> None:
    # found by Hypothesis: the extra passage holds every word of the claim, with "grew" for "fell"
    claim = "the the revenue fell margin margin"
    first, extra = (
        "fell in fell in grew 2020",
        "the 2020 margin margin Europe in margin revenue quarter grew",
    )
    one = lexical_support(claim, [first], "unknown")
    two = lexical_support(claim, [first, extra], "unknown")
    assert two.score < one.score and "antonym:fell/grew" in two.reasons


def _event(raw: dict[str, Any]) -> AnswerEvent:
    event = decode_event(json.dumps(raw), OPTIONS)
    assert not isinstance(event, Rejection)
    return event


def test_standard_mix_detection_rates(mix_300: list[dict[str, Any]]) -> None:
    """Fabricated and bad-citation claims come out not_supported; faithful ones do not."""
    faithful = fabricated = faithful_not = fabricated_not = 0
    for raw in mix_300:
        expected = raw["metadata"]["expect"]["claims"]
        verdict = check_event(_event(raw), OPTIONS)
        assert len(verdict.claims) == len(expected), raw["event_id"]
        for want, got in zip(expected, verdict.claims, strict=True):
            if want["supported"] is True:
                faithful += 1
                faithful_not += got.support.verdict == "not_supported"
            elif want["supported"] is False:
                fabricated += 1
                fabricated_not += got.support.verdict == "not_supported"
            else:
                # uncited: the mix copies them from a document, so the context supports them
                assert got.support.reasons[0] == "uncited"
                assert got.support.verdict != "not_supported", got
                if raw["metadata"]["format"] in ("span", "numeric", "segments"):
                    assert got.support.reasons == ("uncited", "verbatim_in_context")
    assert fabricated > 300 and faithful > 800
    assert fabricated_not / fabricated >= 0.90
    assert faithful_not / faithful <= 0.05
