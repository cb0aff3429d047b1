"""One checked answer's count vector: what it adds to its app's window.

In the order of agents/output/records.COUNT_FIELDS: events, rejected, citations,
valid_citations, claims, cited_claims, decided_claims, supported_claims, unsupported_claims,
judge_calls, judge_errors, the estimation sums (monitor.estimation.window.ESTIMATION_FIELDS),
abstained_answers. Here in the core, not in the shell, so that it is compiled with it
(agents/checking/fastcore.py): it runs for every answer in the check process.
"""

from __future__ import annotations

from collections.abc import Sequence

from monitor.checks.scoring import claim_tally
from monitor.estimation.window import answer_vector, capped_vector
from monitor.records.models import Verdict


def weighted(counts: Sequence[int], cap: int) -> list[int]:
    """An answer's claim counts (claims first, each a subset of the first) scaled so that the
    answer weighs at most `cap` claims: x → round(x * cap / claims). Rounding half up is
    monotone, so the counts stay nested (supported ≤ decided ≤ cited ≤ claims)."""
    total = counts[0] if counts else 0
    if cap <= 0 or total <= cap:
        return list(counts)
    return [(2 * x * cap + total) // (2 * total) for x in counts]


def count_vector(verdict: Verdict, claim_cap: int = 0) -> list[int]:
    """One answer's counts in COUNT_FIELDS order (up to unsupported_claims), as
    monitor.checks.scoring.claim_tally defines them: claims leave out the undecided ones past a cap;
    decided = cited claims that are not `unverifiable`; unsupported (hallucinated) = claims the
    retrieved context does not support (not_supported, cited or uncited) and cited claims with
    no valid citation. With `claim_cap` > 0 an answer weighs at most that many claims
    (RAGMON_ANSWER_CLAIM_WEIGHT): one answer of 20,000 sentences must not be an app's window.
    Last, `abstained_answers`: 1 when every claim of the answer abstains (a refusal)."""
    valid_ids = {r.citation.index for r in verdict.citations if r.valid}
    t = claim_tally(verdict.claims, valid_ids)
    claims = weighted([t.claims, t.cited, t.decided, t.supported, t.hallucinated], claim_cap)
    # then judge calls and errors (0 here), and the estimation sums (monitor.estimation.window)
    if claims[0] < t.claims:  # weighed down: in the estimates too (capped_vector)
        estimation = capped_vector(claims[0], claims[3], claims[4])
    else:
        estimation = answer_vector(verdict)
    abstained = 1 if t.abstaining else 0
    return [1, 0, len(verdict.citations), len(valid_ids), *claims, 0, 0, *estimation, abstained]
