"""Names for monitor/checks/contrast.py's entity check: a name of the claim swapped for another
("Paris is the capital of Germany"), or two names in the other order ("YouTube acquired Google").

This module owns the name patterns (`initial_name` for a sentence's first word), the look-up of
a missing first name in the evidence, and the two swap checks `_entity_swap` and `_role_swap`.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence

from monitor.checks.contrast_sentences import _Sentence
from monitor.checks.evidence import index_evidence
from monitor.text.words import STEMS, STOPWORDS, wordset

# Where a capital marks a name: after white space that follows no sentence or clause opener.
# A word that may just open a sentence is capitalised for that reason alone: the text's first
# word, a word after `.:;!?`, a dash, an opening quote or bracket ("Summary: Both ...",
# "(Table 2)"). One definition for the swap checks and `new_names`; written as look-behinds
# that follow the capital they test (matched first: ~3x faster than trying them everywhere)
_NAME_POSITION = r"(?<=\s[A-Z])(?<![.:;!?\"“(\[–—-]\s[A-Z])"
# a capitalised word in a name position (the first word is `initial_name`'s)
_NAME_RE = re.compile(r"([A-Z])" + _NAME_POSITION + r"([a-z]+(?:[-'][A-Za-z]+)*)")


_CALENDAR = wordset(
    "january february march april may june july august september october november december "
    "monday tuesday wednesday thursday friday saturday sunday"
)


def _names(text: str) -> set[str]:
    """Capitalised words in a name position; month and day names are dates, not entities."""
    return {m.group(0).lower() for m in _NAME_RE.finditer(text)} - _CALENDAR


def initial_name(text: str) -> str | None:
    """The first word, lower-cased, when it may be a name: capitalised letters, not a function
    word ("Paris is ...", not "The ..."), not set off by a comma or a colon (an introductory
    word, "Finally, ...", or a label, "Composition: ..."; not the sentence's subject); the
    other names are the capitalised words in a name position after it."""
    head = text.lstrip(" \t\"“'(*_").split(None, 1)
    if not head or head[0].rstrip("\"”')*_").endswith((",", ":")):
        return None
    word = head[0].rstrip(".,;:!?\"”')*_")
    if len(word) < 2 or not word.isalpha() or not word[0].isupper():
        return None
    low = word.lower()
    return None if low in STOPWORDS or low in _CALENDAR else low


def _all_names(text: str) -> set[str]:
    names = _names(text)
    first = initial_name(text)
    if first is not None:
        names.add(first)
    return names


def _initial_missing(claim: str, texts: Sequence[str]) -> bool:
    """The claim's first word may be a name and no evidence text has its stem."""
    first = initial_name(claim)
    if first is None:
        return False
    key = frozenset((STEMS[first],))
    return not any(index_evidence(t).stems_found(key) for t in texts)


def _entity_swap(
    claim: str, claim_tokens: list[str], sentence: _Sentence, lowered: str
) -> str | None:
    text = claim.strip()
    inner = [n for n in _names(text) if n not in lowered]
    first = initial_name(text)
    initial = first if first is not None and first not in lowered else None
    if not inner and initial is None:
        return None
    missing = set(inner) | ({initial} if initial else set())
    others = {STEMS[t] for t in claim_tokens if t not in missing} - {""}
    if others - set(sentence.stems):
        return None  # the sentence does not state the rest of the claim: not a swap, a gap
    mine = set(claim_tokens)
    rival_first = initial_name(sentence.text)
    if inner and any(n not in mine for n in _all_names(sentence.text)):
        return inner[0]
    # the first word may just open the sentence ("Additionally", "Follow this by ..."): its
    # capital says nothing, its place does. It is a swapped entity only for the aligned
    # sentence's own first word in the same place, before the same word ("Berlin is ..." /
    # "Paris is ..."; not "Adjust the angle ..." / "Hold club at ...")
    if (
        initial is not None
        and rival_first is not None
        and rival_first not in mine
        and _same_place(claim_tokens, initial, sentence.tokens, rival_first)
    ):
        return initial
    return None


def _same_place(mine: list[str], first: str, theirs: list[str], rival: str) -> bool:
    """Both texts open with their first word and go on with the same word."""
    return len(theirs) > 1 and theirs[0] == rival and mine[:2] == [first, theirs[1]]


def _role_swap(claim: str, claim_tokens: list[str], sentence: _Sentence) -> str | None:
    """Two names of the claim that the aligned sentence holds in the other order around the same
    words ("YouTube acquired Google" / "Google acquired YouTube"): the same relation with its
    roles swapped. The words between must be the same and hold a content word, so a passive
    ("was acquired by") or a list ("Smith and Jones") is no swap; a symmetric relation
    ("France borders Spain") is read as one (docs/contrast.md)."""
    names = [m.group(0).lower() for m in _NAME_RE.finditer(claim)]
    first = initial_name(claim.strip())
    if first is not None:
        names.insert(0, first)
    if len(names) < 2:
        return None
    theirs = sentence.tokens
    places = []
    for name in dict.fromkeys(names):
        if claim_tokens.count(name) == 1 and theirs.count(name) == 1:
            places.append((claim_tokens.index(name), theirs.index(name), name))
    places.sort()
    for i, (mine_a, theirs_a, a) in enumerate(places):
        for mine_b, theirs_b, b in places[i + 1 :]:
            if theirs_b > theirs_a:
                continue
            between = claim_tokens[mine_a + 1 : mine_b]
            if between == theirs[theirs_b + 1 : theirs_a] and any(
                t not in STOPWORDS for t in between
            ):
                return f"{a}/{b}"
    return None


# --- names an uncited claim brings in (issue 24, point 4) -----------------------------------
# A name is specific content as a figure is: a person, place or organisation that no document
# of the event mentions was brought in from outside it ("Texas Governor" against an article on
# Arizona's governor, "a 4.5-star rating on Google" against data that names no source).
# Candidates: a capitalised word in a name position (_NAME_POSITION: not a word that may just
# open a sentence), with a possessive "'s" cut; not part of a compound ("Bergen-based": a
# hyphen or apostrophe before a letter; before a space it ends the word, as in the swap
# checks' _NAME_RE); not a stopword or a month or day name (dates are checked as dates), not
# a short abbreviation ("Rep.", "Gov.": a title); not in a heading (the claim's opening up to
# a colon, or the whole claim, when each word of four letters or more is capitalised: "Scope
# of Coverage:", "Spicy Rice Pilaf Recipe").
_CANDIDATE_RE = re.compile(r"([A-Z])" + _NAME_POSITION + r"([a-z]+)(?:['’]s)?(?!\w|['’-]\w)(\.?)")
# a run of capitalised words, function words between them: "Bureau of Labor Statistics"
_RUN_RE = re.compile(r"[A-Z][\w'’-]*(?:\s+(?:(?:of|and|for|the|de|du|von|van)\s+)*[A-Z][\w'’-]*)*")
_LONG_WORD_RE = re.compile(r"[A-Za-z][\w'’-]{3,}")
MAX_ABBREVIATION = 4  # "Rep.", "Gov.", "Sept.": a title or a date written short


def _word_start(text: str, at: int) -> bool:
    return at == 0 or not text[at - 1].isalnum()


def _shared_prefix(a: str, b: str) -> int:
    n = 0
    for x, y in zip(a, b, strict=False):
        if x != y:
            break
        n += 1
    return n


def _derived(word: str, texts: Sequence[str]) -> bool:
    """A form of a name the context writes ("Korean" / "Korea", "Canadian" / "Canada",
    "Arizonans" / "Arizona"): a capitalised word of the context that shares at least four
    letters with it and all of the shorter one but its last. (A pattern that opens with its
    literal letters is searched for at C speed: no scan of the context's every word.)"""
    if len(word) < 4:
        return False
    pattern = re.compile(re.escape(word[:4].capitalize()) + "[a-z]*")
    for text in texts:
        for match in pattern.finditer(text):
            known = match.group(0).lower()
            shared = _shared_prefix(word, known)
            if shared >= min(len(word), len(known)) - 1 and _word_start(text, match.start()):
                return True
    return False


def _acronyms(letter: str, texts: Sequence[str]) -> set[str]:
    """The context's acronyms that start with `letter`, lower-cased: "BLS", "NICs", "U.S."."""
    pattern = re.compile(letter.upper() + r"(?:[A-Z]{1,5}(?=s?\b)|\.(?:[A-Z]\.){1,5})")
    return {
        match.group(0).replace(".", "").lower()
        for text in texts
        for match in pattern.finditer(text)
        if _word_start(text, match.start())
    }


def _spells_out(long: str, short: str) -> bool:
    """`short`'s letters occur in `long` in order, starting with its first letter (an
    abbreviation's letters: "ca" in "california", "bls" in "bls" initials)."""
    if not short or not long or short[0] != long[0]:
        return False
    rest = iter(long)
    return all(ch in rest for ch in short)


def _expands(word: str, run: str, texts: Sequence[str]) -> bool:
    """The word, or the run of capitalised words it stands in, is written out for an acronym
    of the context ("California" / "CA", "Bureau of Labor Statistics" / "BLS")."""
    if any(_spells_out(word, a) for a in _acronyms(word[0], texts)):
        return True
    initials = "".join(w[0] for w in run.split() if w[0].isupper() and w.lower() not in STOPWORDS)
    initials = initials.lower()
    if len(initials) < 2:
        return False
    return any(
        _spells_out(initials, a) or _spells_out(a, initials) for a in _acronyms(initials[0], texts)
    )


def _heading(segment: str) -> bool:
    """Every word of four letters or more of `segment` is capitalised: a title or a label."""
    long = _LONG_WORD_RE.findall(segment)
    return bool(long) and all(w[0].isupper() for w in long)


def new_names(claim: str, known: Callable[[str], bool], texts: Sequence[str]) -> list[str]:
    """The names of the claim (lower-cased) that the context never mentions, in order.
    `known(stem)`: some text of the context holds the stem; `texts`: the context's texts.
    Cheap for the usual claim: only a name whose stem no text holds is read further
    (heading, derived form, acronym)."""
    text = claim.strip()
    unknown: list[tuple[int, str]] = []  # (where, name)
    for match in _CANDIDATE_RE.finditer(text):
        word = match.group(1) + match.group(2)
        low = word.lower()
        if low in STOPWORDS or low in _CALENDAR:
            continue
        if match.group(3) and len(word) <= MAX_ABBREVIATION:
            continue
        if not known(STEMS[low]) and all(low != seen for _, seen in unknown):
            unknown.append((match.start(1), low))
    if not unknown:
        return []
    colon = text.find(": ")
    if colon > 0 and _heading(text[:colon]):  # a label: "Scope of Coverage: ADA covers ..."
        unknown = [(at, low) for at, low in unknown if at > colon]
        if _heading(text[colon + 2 :]):
            return []
    elif _heading(text):  # a title: "Spicy Rice Pilaf Recipe"
        return []
    out: list[str] = []
    for at, low in unknown:
        if _derived(low, texts):
            continue
        run = next((r.group(0) for r in _RUN_RE.finditer(text) if r.start() <= at < r.end()), low)
        if not _expands(low, run, texts):
            out.append(low)
    return out
