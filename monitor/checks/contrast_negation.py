"""Negation for monitor/checks/contrast.py: is a text, or the aligned stretch of an evidence
sentence, negated, litotes ("did not fail to") aside.

This module owns the litotes and cue-word patterns, `negated`, the lead-in rule of the aligned
region (`_negated_region`) and the claim's content stems with its own cue words left out.
"""

from __future__ import annotations

import re

from monitor.checks.contrast_sentences import _Sentence
from monitor.text.negation import NEGATION_LOWER_RE, NEGATION_RE
from monitor.text.words import STEMS, STOPWORDS, wordset

# Litotes: a plain negator right before (one word between at most) a word that is itself
# negative cancels it: "did not fail to", "never once failed to", "not impossible", "can't deny"
_NEGATIVE_WORD = re.compile(
    r"(?:den(?:y|ies|ied|ying)|fail(?:s|ed|ing)?\s+to|lack(?:s|ed|ing)?|without|unable"
    r"|unlikely|impossible|absent)$",
    re.I,
)
_NEGATOR = re.compile(r"(?:not|never|no|cannot|n['’]t)$", re.I)
_ONE_WORD_AT_MOST = re.compile(r"\W*(?:\w+\W+)?")
# Negation cues that are content words: the claim's own cue is what the evidence differs by, so
# it is left out of the share of the claim an evidence sentence must hold to be compared
_CUE_WORDS = wordset(
    "never none nobody nothing unable deny denies denied denying fail fails failed failing "
    "lack lacks lacked lacking unlikely impossible hardly rarely seldom absent"
)
_NEGATION_HINT = re.compile(
    r"\b(?:no|ne|cannot|without|un|den|fail|lack|impossible|hardly|rarely|seldom|absent)|n['’]t",
    re.I,
)
# the same look for a lower-cased ASCII text, case-sensitive (about twice as fast as re.I)
_ASCII_NEGATION_HINT_PLAIN = (
    r"\b(?:no|ne|cannot|without|un|den|fail|lack|impossible|hardly|rarely|seldom|absent)|n't"
)
# ... and written so that every alternative opens with a literal letter, the word boundary put
# in a look-behind after it: a pattern opening with \b gives sre no first character to scan
# for, so it ran the whole program at every position (~36k instructions a claim); with a set of
# first letters it skips ahead in C to the few positions that hold one. Each word is anchored on
# a rarer letter of it where one serves ("lack" on its k, "absent" and "impossible" on their b,
# "hardly" and "rarely" on their y), and the letters that follow the anchor are matched before
# the look-behind, so most anchors fail on one character compare (~14k instructions a claim).
# The same strings match as the plain pattern (\w, \b Unicode-aware in both; look-behinds
# looking at the very text, not a slice), tests/unit/monitor/checks/test_contrast_negation.py.
_ASCII_NEGATION_HINT = re.compile(
    r"n(?:[oe](?<!\wn[oe])|'t|not(?<=\bcannot))"
    r"|un(?<!\wun)|den(?<!\wden)|without(?<!\wwithout)|fail(?<!\wfail)"
    r"|b(?:sent(?<=\babsent)|le(?<=\bimpossible))|k(?<=\black)|y(?<=\bhardly|\brarely)"
    r"|m(?<=\bseldom)"
)
LEAD_IN_WORDS = 3  # words before the first shared word that may still negate it ("did not X")


def may_negate(text: str, lowered: str | None = None) -> bool:
    """A cheap look before `negated`: False when `text` holds no negation cue at all (every
    cue `negated` reads starts with one of these word beginnings). `lowered`: text.lower(),
    for an ASCII text (its cues are then looked up case-sensitively: for ASCII, lower-casing
    maps only A-Z and leaves word boundaries where they were)."""
    if lowered is not None:
        return _ASCII_NEGATION_HINT.search(lowered) is not None
    return _NEGATION_HINT.search(text) is not None


def negated(text: str, start: int = 0, end: int | None = None) -> bool:
    """`text[start:end]` holds a negation cue that no litotes cancels ("did not fail to")."""
    stop = len(text) if end is None else end
    if text.isascii():  # the whole text lowered: a cue's boundaries may lie before `start`
        cues = list(NEGATION_LOWER_RE.finditer(text.lower(), start, stop))
    else:
        cues = list(NEGATION_RE.finditer(text, start, stop))
    if not cues:
        return False
    if len(cues) == 1:
        return True
    left = len(cues)
    i = 0
    while i + 1 < len(cues):
        a, b = cues[i], cues[i + 1]
        gap = _ONE_WORD_AT_MOST.fullmatch(text, a.end(), b.start())
        if gap and _NEGATOR.match(a.group(0)) and _NEGATIVE_WORD.match(b.group(0)):
            left -= 2
            i += 2
        else:
            i += 1
    return left > 0


# a lead-in does not reach across these: a cue before a colon, a dash or a bracket belongs to
# another clause ("... was never disputed: The University is under investigation")
_LEAD_IN_STOP = re.compile(r"[:;()\[\]—–]|--|\.(?=[A-Z])")


def _negated_region(sentence: _Sentence, hits: list[int]) -> bool:
    first = max(0, hits[0] - LEAD_IN_WORDS)
    start = sentence.spans[first][0]
    if first < hits[0]:
        lead = sentence.text[start : sentence.spans[hits[0]][0]]
        stops = list(_LEAD_IN_STOP.finditer(lead))
        if stops:
            start += stops[-1].end()
    end = sentence.spans[hits[-1]][1]
    # the cue may follow the last shared word's auxiliary: "X was not" ... keep one word more
    if hits[-1] + 1 < len(sentence.spans):
        end = sentence.spans[hits[-1] + 1][1]
    if not negated(sentence.text, start, end):
        return False
    return _negates_shared(sentence, hits, start, end)


# "not X but Y", "no longer X; instead Y": a contrastive negation denies X and affirms Y. The
# cue's scope ends at the contrasting word; "nothing but Y" (only Y) denies nothing of Y
_CONTRAST = re.compile(r"\b(?:but|instead|rather)\b", re.I)


def _negates_shared(sentence: _Sentence, hits: list[int], start: int, end: int) -> bool:
    """The negated stretch `start:end` (`negated` holds) read clause by clause, cut where a
    contrasting word closes a cue's scope. A clause so closed negates the claim when a shared
    word follows its cue inside it and is not affirmed again after it ("did not cut jobs but
    froze hiring" negates "cut jobs", not "froze hiring"; "did not sail at noon but at dawn"
    negates "sail at noon", not "sail at dawn"); the last clause is read as before."""
    text = sentence.text
    cut = start
    for contrast in _CONTRAST.finditer(text, start, end):
        clause_end = contrast.start()
        cue = NEGATION_RE.search(text, cut, clause_end)
        if cue is not None and negated(text, cut, clause_end):
            denied = {
                sentence.stems[i] for i in hits if cue.end() <= sentence.spans[i][0] < clause_end
            }
            denied -= {sentence.stems[i] for i in hits if sentence.spans[i][0] >= clause_end}
            if denied:
                return True  # "did not cut jobs but ..." against "cut jobs"
        cut = contrast.end()
    return cut == start or negated(text, cut, end)


def cue_free(tokens: list[str]) -> bool:
    """No token is left out of `_content_stems` for the claim's negation: its stems are then
    the same negated or not, and whether it is negated need be read only when compared."""
    return _CUE_WORDS.isdisjoint(tokens) and "longer" not in tokens


def _content_stems(tokens: list[str], claim_negated: bool) -> set[str]:
    """The claim's content stems to align on; its negation cue words (and the "longer" of "no
    longer") are left out when it is negated: the un-negated evidence cannot hold them."""
    if not claim_negated:
        # STEMS maps every stopword to "": one C pass, then "" dropped
        found = set(map(STEMS.__getitem__, tokens))
        found.discard("")
        return found
    out = set()
    for i, t in enumerate(tokens):
        if t in STOPWORDS or t in _CUE_WORDS or (t == "longer" and tokens[i - 1 : i] == ["no"]):
            continue
        out.add(STEMS[t])
    return out - {""}
