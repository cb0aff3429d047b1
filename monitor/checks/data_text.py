"""Structured `data` as evidence in words: what a sentence about a record can be compared with.

A JSON record says `{"attributes": {"RestaurantsReservations": false, "WiFi": "free"}}`; an
answer says "the restaurant does not take reservations but offers free WiFi". The record is
rendered one leaf per line so that the words can meet:

- keys split into words: camelCase and PascalCase humps ("RestaurantsReservations" →
  "restaurants reservations"), snake_case, kebab-case, dotted paths; a key whose humps are
  short ("WiFi" → "wi fi") keeps its fused form too ("wifi");
- each leaf carries its parents' words ("business parking garage"), list indexes left out; a list
  of plain values is one line ("categories: Bars, Nightlife");
- booleans and null are read as affirmed, negated or unknown attributes: "outdoor seating: yes",
  "outdoor seating: no" (a negation cue, so "does not offer outdoor seating" agrees with it and
  "offers outdoor seating" contradicts it, contrast.py), "music: unknown";
- a number under a key whose last word is a unit keeps that unit beside it ("business stars:
  4.0 stars", "distance km: 12 km").

Lines are "words: value"; a line is a passage of its own (the evidence index splits passages at
line breaks), so a value is read together with its key, never with a neighbour's.
"""

from __future__ import annotations

import json
import re
from functools import lru_cache
from typing import Any

from monitor.text.units import is_unit

MAX_DATA_LINES = 2_000  # leaves of `data` rendered as context
MAX_DEPTH = 32

# humps: "RestaurantsTakeOut" → Restaurants Take Out; "HTTPServer" → HTTP Server; "v2Api" → v2 Api
_HUMP_RE = re.compile(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+|\d+")
_SEPARATORS_RE = re.compile(r"[\s_\-.:/]+")
# count nouns that work as units after a number in a record's key ("review_count_stars")
_COUNT_UNITS = frozenset(
    [
        "stars",
        "star",
        "points",
        "reviews",
        "votes",
        "ratings",
        "usd",
        "eur",
        "gbp",
        "dollars",
        "euros",
        "pounds",
        "years",
        "months",
        "weeks",
        "days",
        "nights",
        "people",
        "persons",
        "seats",
        "rooms",
        "beds",
    ]
)
YES, NO, UNKNOWN = "yes", "no", "unknown"


@lru_cache(maxsize=4096)
def _key_words(key: str) -> tuple[str, ...]:
    return tuple(_split_key(key))


def key_words(key: str) -> list[str]:
    """A key as lower-case words (memoised: the keys of a stream's records repeat)."""
    return list(_key_words(key))


def _split_key(key: str) -> list[str]:
    """A key as lower-case words: camelCase humps, snake_case, kebab-case and dotted parts
    split; the fused form kept as well when a hump is one or two letters ("WiFi")."""
    out: list[str] = []
    for part in _SEPARATORS_RE.split(key):
        if not part:
            continue
        humps = _HUMP_RE.findall(part)
        if not humps:
            out.append(part.lower())
            continue
        out.extend(h.lower() for h in humps)
        if len(humps) > 1 and any(len(h) <= 2 and not h.isdigit() for h in humps):
            out.append(part.lower())  # "WiFi": "wi fi" and "wifi"
    return out


def _scalar(value: Any) -> str:
    if value is True:
        return YES
    if value is False:
        return NO
    if value is None:
        return UNKNOWN
    if isinstance(value, str):
        return " ".join(value.split())
    if isinstance(value, int | float):
        return str(value)  # json.dumps per leaf cost more than the rest of the grounding
    return json.dumps(value, default=str)


def _with_unit(words: list[str], value: Any, shown: str) -> str:
    if isinstance(value, bool) or not isinstance(value, int | float) or not words:
        return shown
    last = words[-1]
    return f"{shown} {last}" if last in _COUNT_UNITS or is_unit(last) else shown


def _plain(value: Any) -> bool:
    return not isinstance(value, dict | list)


Leaf = tuple[str, Any, str, int]  # key words, value, value as shown, number of its parent object


def _walk(
    node: Any, path: list[str], parent: int, depth: int, out: list[Leaf], objects: list[int]
) -> None:
    if depth > MAX_DEPTH or len(out) >= MAX_DATA_LINES:
        return
    if isinstance(node, dict):
        # objects are numbered in walk order (1, 2, ...), not by id(): the leaves are then a
        # function of the value alone, so equal data can share them (data_context.py)
        objects[0] += 1
        me = objects[0]
        for key, value in node.items():
            _walk(value, [*path, *_key_words(str(key))], me, depth + 1, out, objects)
    elif isinstance(node, list):
        if node and all(_plain(v) for v in node) and not all(v is None for v in node):
            shown = ", ".join(_scalar(v) for v in node if v is not None)
            out.append((" ".join(path), node, shown, parent))
            return
        for value in node:
            _walk(value, path, parent, depth + 1, out, objects)
    else:
        out.append((" ".join(path), node, _with_unit(path, node, _scalar(node)), parent))


def data_lines(data: Any) -> list[Leaf]:
    """(key words, value, value as shown, parent) of every leaf of `data` (a list of plain
    values is one leaf), in order, at most MAX_DATA_LINES. Leaves of one object share their
    `parent` (the object's number in walk order, from 1; 0 for a top-level list): a value's
    siblings are its record."""
    out: list[Leaf] = []
    _walk(data, [], 0, 0, out, [0])
    return out


def line(leaf: Leaf) -> str:
    words, _, shown, _ = leaf
    return f"{words}: {shown}" if words else shown


def render_lines(lines: list[Leaf]) -> str:
    return "\n".join(map(line, lines))


def render_data(data: Any) -> str:
    """`data` as lines a claim can be compared with: "quote premium: 300", "wifi: free",
    "outdoor seating: no"."""
    return render_lines(data_lines(data))
