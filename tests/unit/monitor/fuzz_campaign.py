"""Seeded input generator for the large fuzz campaign of the decoder and citation parser.

`campaign_input(seed, i)` is a pure function of its arguments, so a failure at input i of a
million-input run is rebuilt in isolation. Kinds of input (by share):

- grammar (45%): a schema-valid event whose answer is glued from citation-shaped fragments of
  every format, half-formed ones and prose brackets, with random documents, data and segments;
- byte mutations (25%) of a grammar event: flips, deletions, duplications, truncation, and
  insertions of hostile tokens (NaN, duplicate keys, invalid UTF-8, deep nesting, huge numbers);
- structure mutations (20%): a field of a grammar event replaced by a value of the wrong type,
  or the whole record replaced by a non-object;
- raw bytes (10%).
"""

from __future__ import annotations

import json
import random
from typing import Any

FRAGMENTS = (
    "[1]", "[2, 3]", "[1-3]", "[1][2]", "[0]", "[99]", "[-1]", "[1,,2]", "[3-1]", "[1-]",
    "[a.pdf:1:0-5]", "[a.pdf:2:3-1]", "[a.pdf:1:0-5,7-9]", "[a.pdf:0:1-2]", "[a.pdf:1:5-5]",
    '[a.pdf:1:0-4 | excerpt: "alpha"]', '[a.pdf:1:0-4 | excerpt: "', "[a.pdf:1:", "[a.pdf::]",
    "[src/x.py:1-2]", "[src/x.py:9-1]", "[src/x.py:0-0]", "[nope.md:1-2]", "[b:1:2-3]",
    "[quote.premium]", "[items.0.price]", "[items.9.price]", "[quote.]", "[.x]", "[a..b]",
    "[sic]", "[citation needed]", "[text](http://x)", "[1](http://x)", "[1]: http://x\n",
    "a[i]", "arr[0]", "word[1]", "x[1].y", "\\[1]", "`[1]`", "```\n[2]\n```", "```",
    "[", "]", "[]", "[ ]", ":", "-", ",", "|", '"', "“", "”", "excerpt:", " ", ". ", "\n",
    "1,200", "$2.5M", "2020-2021", "e.g.", "Dr.", "3.14", "?", "# Header\n", "- item\n",
    "\u00e9", "e\u0301", "\U0001f600", "\t", "\u00a0", "\u200b", "\r\n",
)  # fmt: skip
DOC_IDS = ("1", "2", "3", "a.pdf", "src/x.py", "b", "report.pdf", "")
HOSTILE = (
    b"NaN", b"Infinity", b"-Infinity", b'"answer": 1, ', b'"event_id": "dup", ', b"\xff\xfe",
    b"\xc3", b"\xed\xa0\x80", b"\\ud800", b"\\u0000", b"\x00", b"\xef\xbb\xbf", b"[" * 64,
    b"{" * 64, b"9" * 5000, b"1e400", b"-0", b"true", b"null", b'"\\', b"\\", b"]", b"}",
)  # fmt: skip
WRONG_VALUES: tuple[Any, ...] = (
    None, True, 0, -1, 2**70, 1.5, "", "x", [], [1], {}, {"a": [None]}, [[[[]]]],
)  # fmt: skip
FIELDS = ("event_id", "answer", "app", "documents", "data", "segments", "gold", "timestamp")


def _text(rng: random.Random, max_len: int) -> str:
    n = rng.randrange(max_len + 1)
    return "".join(
        chr(rng.choice((rng.randrange(32, 127), rng.randrange(0x3000)))) for _ in range(n)
    )


def _answer(rng: random.Random) -> str:
    parts = []
    for _ in range(rng.randrange(40)):
        if rng.random() < 0.75:
            parts.append(rng.choice(FRAGMENTS))
        elif rng.random() < 0.5:
            a, b = rng.randrange(-2, 60), rng.randrange(-2, 60)
            parts.append(f"[{rng.choice(DOC_IDS)}:{rng.randrange(-1, 4)}:{a}-{b}]")
        else:
            parts.append(_text(rng, 8))
    return "".join(parts)


def _event(rng: random.Random) -> dict[str, Any]:
    event: dict[str, Any] = {"event_id": _text(rng, 6) or "e", "answer": _answer(rng)}
    docs = []
    for _ in range(rng.randrange(4)):
        doc: dict[str, Any] = {"id": rng.choice(DOC_IDS[:-1])}
        if rng.random() < 0.7:
            doc["text"] = _text(rng, 60) if rng.random() < 0.5 else _answer(rng)
        if rng.random() < 0.3:
            doc["pages"] = [_text(rng, 30) for _ in range(rng.randrange(3))]
        docs.append(doc)
    event["documents"] = docs
    if rng.random() < 0.3:
        price = rng.choice((9.99, 1200, "1,200", -3, 0.0, 10**30))
        event["data"] = {"quote": {"premium": price}, "items": [{"price": price}]}
    if rng.random() < 0.15:
        event["segments"] = [
            {"text": _answer(rng), "citations": [rng.choice((*DOC_IDS, 1, 7, -1))]}
            for _ in range(rng.randrange(3))
        ]
    if rng.random() < 0.1:
        event["gold"] = {
            "citation_spans": [{"doc_id": "a.pdf", "start": rng.randrange(9), "end": 5}]
        }
    if rng.random() < 0.2:
        event["app"] = rng.choice(("support-bot", "x y", "", "a" * 65))
    return event


def _dumps(rng: random.Random, obj: Any) -> bytes:
    return json.dumps(obj, ensure_ascii=rng.random() < 0.5).encode("utf-8", "surrogatepass")


def _mutate_bytes(rng: random.Random, raw: bytes) -> bytes:
    data = bytearray(raw)
    for _ in range(rng.randrange(1, 4)):
        op = rng.randrange(5)
        pos = rng.randrange(len(data) + 1)
        if op == 0 and data:
            data[min(pos, len(data) - 1)] ^= 1 << rng.randrange(8)
        elif op == 1:
            del data[pos : pos + rng.randrange(1, 16)]
        elif op == 2:
            data[pos:pos] = data[pos : pos + rng.randrange(1, 32)]
        elif op == 3:
            del data[pos:]
        else:
            data[pos:pos] = rng.choice(HOSTILE)
    return bytes(data)


def campaign_input(seed: int, i: int) -> bytes:
    rng = random.Random(seed * 1_000_003 + i)
    kind = rng.random()
    if kind < 0.10:
        return rng.randbytes(rng.randrange(200))
    event = _event(rng)
    if kind < 0.55:
        return _dumps(rng, event)
    if kind < 0.80:
        return _mutate_bytes(rng, _dumps(rng, event))
    if kind < 0.82:
        return _dumps(rng, rng.choice(WRONG_VALUES))  # not an object at all
    event[rng.choice(FIELDS)] = rng.choice(WRONG_VALUES)
    return _dumps(rng, event)
