"""The negation cue: the one pattern that says a sentence denies rather than affirms.

It lives here, below citations/ and checks/, because both read it: a json-path citation's
boolean value (citations/values.py) and the contrast and grounding checks.
"""

from __future__ import annotations

import re

# "not only ... but also" adds, it does not negate; "whether or not" / "commission or not"
# names an alternative; "not clear / not certain / not known" hedges (the hedge is read apart,
# monitor/checks/contrast.py), none of them denies the predicate. "failed -- to", "failure to".
_HEDGED = r"(?:clear|certain|sure|known|immediately\s+(?:clear|known))\b"
# (all lower case, no escape of an upper-case letter: NEGATION_LOWER_RE below is this very text)
_NEGATION = (
    rf"\b(?:not(?<!\bor\snot)(?!\s+only\b|\s+{_HEDGED})|never|no|none|nobody|nothing|neither|nor"
    r"|cannot|without|unable|den(?:y|ies|ied|ying)|fail(?:s|ed|ing|ures?)?(?:\s*(?:--|[,—–])\s*|\s+)to"
    r"|lack(?:s|ed|ing)?|unlikely|impossible|hardly|rarely|seldom|absent)\b"
    rf"|n['’]t\b(?!\s+{_HEDGED})"
)
NEGATION_RE = re.compile(_NEGATION, re.I)
# The same cues for `text.lower()` of an ASCII text, case-sensitive: lower-casing ASCII maps only
# A-Z (same offsets, same word boundaries), and without re.I the engine skips every alternative
# whose first letter differs instead of trying each (contrast_negation.negated: ~2.7x faster)
NEGATION_LOWER_RE = re.compile(_NEGATION)
