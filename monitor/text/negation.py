"""The negation cue: the one pattern that says a sentence denies rather than affirms.

It lives here, below citations/ and checks/, because both read it: a json-path citation's
boolean value (citations/values.py) and the contrast and grounding checks.
"""

from __future__ import annotations

import re

# "not only ... but also" adds, it does not negate
NEGATION_RE = re.compile(
    r"\b(?:not(?!\s+only\b)|never|no|none|nobody|nothing|neither|nor|cannot|without|unable"
    r"|den(?:y|ies|ied|ying)|fail(?:s|ed|ing)?\s+to|lack(?:s|ed|ing)?|unlikely|impossible"
    r"|hardly|rarely|seldom|absent)\b|n['’]t\b",
    re.I,
)
