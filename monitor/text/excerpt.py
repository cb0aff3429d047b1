"""Does a quoted excerpt match the text it claims to quote? (Shared by the `excerpt:` of v1
citations and the cited text vendor APIs return with theirs.)"""

from __future__ import annotations

from rapidfuzz import fuzz


def excerpt_matches(excerpt: str, cited: str, min_similarity: float) -> bool:
    """Fuzzy: partial_ratio when the excerpt is no longer than the span text (the excerpt may
    quote part of it), plain ratio otherwise (a long excerpt must not match a short span just by
    containing it). A trailing ellipsis marks a cut quote and is ignored."""
    if excerpt in cited:
        return True  # quoted as it is (what the normalised comparison would find too)
    ex = " ".join(excerpt.casefold().split()).removesuffix("...").removesuffix("…").strip()
    text = " ".join(cited.casefold().split())
    if not ex or ex in text:
        return True  # a quote found as it is: what partial_ratio would score 100, for free
    score = fuzz.partial_ratio(ex, text) if len(ex) <= len(text) else fuzz.ratio(ex, text)
    return bool(score / 100 >= min_similarity)
