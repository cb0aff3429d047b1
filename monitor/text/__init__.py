"""Text primitives: words and stems, sentences, numbers, units, dates, the negation cue and the
opposites list. No notion of a claim or a citation here.

Imports records/ only.
"""
