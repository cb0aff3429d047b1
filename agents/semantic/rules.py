"""The frozen decision rules of the semantic signal (positive iff w·x + bias >= 0).

Fitted once, by `ragmon eval EXPERTQA-DEV --labels ... --semantic --semantic-fit --split-seed 0`
on the seed-0 half of ExpertQA dev (class-balanced logistic regressions, partial labels left
out), before any figure of the other half or of WiCE was looked at, and never re-tuned per data
set: every other split is scored with these numbers. docs/semantic.md has the run.
"""

from __future__ import annotations

SOURCE = "fitted on the seed-0 half of ExpertQA dev"
#: [w_cosine, bias]: positive iff cosine >= 0.642
COSINE: tuple[float, ...] = (3.805056606960895, -2.44271716361703)
#: [w_cheap_score, w_cosine, bias]: positive iff 0.523 cheap + 3.586 cosine >= 2.582
COMBINED: tuple[float, ...] = (0.5225482541885943, 3.5864818701623795, -2.581768305904016)
