"""Opposite words for the antonym check of monitor/checks/contrast.py: a claim whose predicate the
evidence sentence replaces by its opposite ("rose" / "fell") says the contrary of the evidence.

The list is closed and hand-made: a pair is listed when both words are common predicates and
neither has a common unrelated sense ("close", "left", "fire" and "hard" are left out), so that
an opposite in the aligned sentence is one. docs/contrast.md says what it misses.
"""

from __future__ import annotations

# Opposites in the same relation; every form of a word of one side against every form of the
# other. Forms are listed, not stemmed: "rose" and "fell" have no common stem with their verbs.
# Verbs of change in one direction against every verb of the other ("grew" / "declined").
_UP = (
    "increase increases increased increasing",
    "rise rises rose risen rising",
    "grow grows grew grown growing",
    "climb climbs climbed climbing",
    "expand expands expanded expanding",
)
_DOWN = (
    "decrease decreases decreased decreasing",
    "reduce reduces reduced reducing",
    "fall falls fell fallen falling",
    "decline declines declined declining",
    "drop drops dropped dropping",
    "shrink shrinks shrank shrunk shrinking",
)
_ANTONYM_PAIRS: tuple[tuple[str, str], ...] = (
    *((up, down) for up in _UP for down in _DOWN),
    ("increase increases increased increasing", "lower lowers lowered lowering"),
    ("raise raises raised raising", "lower lowers lowered lowering"),
    ("gain gains gained gaining", "lose loses lost losing"),
    ("win wins won winning", "lose loses lost losing"),
    ("higher highest", "lower lowest"),
    ("more", "less fewer"),
    ("larger largest bigger biggest", "smaller smallest"),
    ("maximum", "minimum"),
    ("above", "below"),
    ("before", "after"),
    ("earlier", "later"),
    ("accept accepts accepted accepting", "reject rejects rejected rejecting"),
    ("approve approves approved approving", "reject rejects rejected rejecting"),
    ("allow allows allowed allowing", "prohibit prohibits prohibited prohibiting"),
    ("allow allows allowed allowing", "forbid forbids forbade forbidden forbidding"),
    ("allow allows allowed allowing", "ban bans banned banning"),
    ("permit permits permitted permitting", "prohibit prohibits prohibited prohibiting"),
    ("permit permits permitted permitting", "forbid forbids forbade forbidden forbidding"),
    ("permit permits permitted permitting", "ban bans banned banning"),
    ("support supports supported supporting", "oppose opposes opposed opposing"),
    ("agree agrees agreed agreeing", "disagree disagrees disagreed disagreeing"),
    ("appear appears appeared appearing", "disappear disappears disappeared disappearing"),
    ("buy buys bought buying", "sell sells sold selling"),
    ("import imports imported importing", "export exports exported exporting"),
    ("guilty convicted", "innocent acquitted"),
    ("convict convicts", "acquit acquits"),
    ("victory", "defeat"),
    ("surplus", "deficit"),
    ("majority", "minority"),
    ("overestimate overestimates overestimated", "underestimate underestimates underestimated"),
    ("mandatory compulsory", "optional voluntary"),
    ("temporary", "permanent"),
    ("internal", "external"),
    ("upper", "lower"),
    ("strong stronger strongest", "weak weaker weakest"),
    ("fast faster fastest", "slow slower slowest"),
    ("accelerate accelerates accelerated accelerating", "slow slows slowed slowing"),
    ("accelerate accelerates accelerated accelerating", "decelerate decelerates decelerated"),
    ("heavy heavier heaviest", "light lighter lightest"),
    ("rich richer richest", "poor poorer poorest"),
    ("easy easier easiest", "difficult"),
    ("safe safer safest", "unsafe dangerous"),
    ("include includes included including", "exclude excludes excluded excluding"),
    ("positive", "negative"),
    ("success successful succeeded", "failure unsuccessful"),
    ("improve improves improved improving", "worsen worsens worsened worsening"),
    ("strengthen strengthens strengthened", "weaken weakens weakened"),
    ("benefit benefits benefited beneficial", "harm harms harmed harmful"),
    ("legal", "illegal"),
    ("true", "false"),
    ("alive", "dead"),
    ("north northern", "south southern"),
    ("east eastern", "west western"),
    ("inhibit inhibits inhibited", "stimulate stimulates stimulated"),
    ("activate activates activated", "inhibit inhibits inhibited"),
    ("largest", "smallest"),
    ("oldest", "youngest newest"),
    ("first", "last"),
)
OPPOSITES: dict[str, frozenset[str]] = {}
for _a, _b in _ANTONYM_PAIRS:
    for _x, _y in ((_a, _b), (_b, _a)):
        for _w in _x.split():
            OPPOSITES[_w] = OPPOSITES.get(_w, frozenset()) | frozenset(_y.split())
