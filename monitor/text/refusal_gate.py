"""The cheap looks that spare most sentences the refusal patterns of monitor/text/abstention.py.

`may_refuse` says, once per answer, whether any of its sentences could be a refusal (no negation
of any language: none can); `_worth_a_look` says it per sentence before the patterns run. This
module owns the negation and topic word sets and the gate regex those looks use.
"""

from __future__ import annotations

import re

# a cheap look before the patterns run: most sentences of most answers hold no negation, and
# an English refusal always names what is lacking or who cannot answer (word-set look-ups,
# not a regex scan: the check runs on every uncited claim)
_TOPIC_WORDS = frozenset(
    [
        "passage",
        "passages",
        "context",
        "document",
        "documents",
        "doc",
        "docs",
        "text",
        "texts",
        "article",
        "articles",
        "source",
        "sources",
        "excerpt",
        "excerpts",
        "snippet",
        "snippets",
        "results",
        "reference",
        "references",
        "information",
        "info",
        "data",
        "content",
        "review",
        "reviews",
        "answer",
        "answered",
        "question",
        "determine",
        "determined",
        "i",
        "we",
        "unable",
        "mention",
        "mentioned",
        "specified",
        "stated",
        "indicated",
        "disclosed",
        "detailed",
        "clarified",
        "enough",
        "sufficient",
        "insufficient",
        "limited",
        "difficult",
        "hard",
        "say",
        "tell",
        "details",
        "specifics",
        "pasaje",
        "pasajes",
        "documentos",
        "texto",
        "textos",
        "contexto",
        "fuente",
        "fuentes",
        "articulo",
        "datos",
        "informacion",
        "responder",
        "passaggi",
        "testo",
        "testi",
        "documenti",
        "fonti",
        "dati",
        "informazioni",
        "rispondere",
        "trechos",
        "passagens",
        "fontes",
        "dados",
        "tekst",
        "teksten",
        "bron",
        "bronnen",
        "gegevens",
        "informatie",
    ]
)
# negations of the other languages written in plain ASCII: the patterns decide on their own
_OTHER_NEGATIONS = frozenset(
    [
        "ne",
        "pas",
        "aucune",
        "aucun",
        "non",
        "nessuna",
        "nessun",
        "ningun",
        "ninguna",
        "nenhum",
        "nenhuma",
        "nicht",
        "kein",
        "keine",
        "keinen",
        "keiner",
        "keine",
        "niet",
        "geen",
        "onvoldoende",
    ]
)
_ASCII_WORD_RE = re.compile(r"[a-z]+")
_OTHER_NEGATIONS_RE = re.compile(r"\b(?:" + "|".join(sorted(_OTHER_NEGATIONS)) + r")\b")


def _anchored(word: str, at: int, tail: str = "") -> str:
    """`word` as a whole word, the regex opening with its letter at `at` (the letters before it
    and the word boundary checked by a look-behind once the rest has matched)."""
    return rf"{word[at:]}(?<=\b{word}){tail}\b"


# One scan of the lowered sentence for a whole negation word: an English one (it ends with an
# empty group, so `m.lastindex` is set) or another language's (no group). Every alternative
# opens with a literal letter, most often a rarer one of its word, so the engine skips in C to
# the few positions holding such a letter; a `\b` opening each word made it try the boundary and
# the words at every position (~2.6x slower). The words are whole and no two overlap, so the
# first match is the leftmost negation word, as with `\b` first
# (tests/unit/monitor/text/test_refusal_gate.py).
_ENGLISH_ANCHORED = [
    *(_anchored(w, 0) for w in ("no", "not", "none", "beyond")),
    _anchored("cannot", 2),
    _anchored("unable", 1),
    _anchored("lack", 3, "s?"),
    _anchored("insufficient", 1),
    _anchored("limited", 2),
    _anchored("impossible", 1),
    _anchored("outside", 1),
    _anchored("sorry", 4),
    _anchored("difficult", 2),
    _anchored("hard", 3),
    r"n['’]t\b",
]
_OTHER_ANCHORED = [
    *(_anchored(w, 0) for w in sorted(_OTHER_NEGATIONS - {"aucun", "aucune", "onvoldoende"})),
    _anchored("aucun", 2, "e?"),
    _anchored("onvoldoende", 1),
]
_GATE_RE = re.compile("|".join([*(p + "()" for p in _ENGLISH_ANCHORED), *_OTHER_ANCHORED]))


# parts of every negation word above, found by plain substring search (C, no regex): a text
# holding none of them holds no negation (" no" also covers not, none, nothing, non)
_NEGATION_PARTS = (
    " no",
    "n't",
    "n’t",
    "cannot",
    "unable",
    "lack",
    "insufficient",
    "limited",
    "beyond",
    "outside",
    "sorry",
    "difficult",
    "hard",
    "impossible",
    " ne ",
    " pas",
    "aucun",
    "nessun",
    "ningun",
    "nenhum",
    "nicht",
    "kein",
    "niet",
    "geen",
    "onvoldoende",
)


def _negation_part(low: str) -> bool:
    # map: the parts looked up in C, not by a generator (the pure core's look per claim)
    return any(map(low.__contains__, _NEGATION_PARTS))


# The same look as one regex scan, for a sentence (`_worth_a_look`): true exactly when
# `_negation_part` is. Every alternative opens with a literal letter, most often a rare one of
# the part, the rest of the part checked by a look-behind, so the engine skips in C to the few
# positions holding such a letter; the 25 substring searches cost more on the ~3/4 of the
# sentences that hold none of the parts (tests/unit/monitor/text/test_refusal_gate.py).
_NEGATION_PART_RE = re.compile(
    r"n(?:o(?<= no)|'t|’t|not(?<=cannot)|able(?<=unable)|sufficient(?<=insufficient)|e (?<= ne )"
    r"|essun|ingun|enhum|icht|iet|voldoende(?<=onvoldoende))"
    r"|k(?:(?<=lack)|ein)|mited(?<=limited)|mpossible(?<=impossible)|beyond|utside(?<=outside)"
    r"|y(?<=sorry)|fficult(?<=difficult)|hard|pas(?<= pas)|ucun(?<=aucun)|geen"
)


def may_refuse(text: str) -> bool:
    """Cheap and never wrong one way: False only when `text` holds no negation of any language
    (and is plain ASCII), so no sentence of it can be a refusal. Checked once on a whole answer,
    it spares the closer look at each of its sentences."""
    return not text.isascii() or _negation_part(" " + text.lower())


def _worth_a_look(text: str) -> bool:
    if not text.isascii():
        return True  # other scripts and accented languages: the patterns decide
    low = " " + text.lower()
    if _NEGATION_PART_RE.search(low) is None:
        return False
    m = _GATE_RE.search(low)
    if m is None:
        return False
    if m.lastindex is None:
        return True  # a negation of another language: the patterns decide
    if not _TOPIC_WORDS.isdisjoint(_ASCII_WORD_RE.findall(low)):
        return True
    return _OTHER_NEGATIONS_RE.search(low, m.end()) is not None
