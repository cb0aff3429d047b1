"""What the text between one pair of brackets means: which citation format, or none.

Grammar (content is stripped; numbers are plain ASCII digits):
  numeric   N | N-M | list of those separated by ","   e.g. 3 / 1, 2 / 1-3 (en dash accepted)
  span      REF:PAGE:S-E[,S-E...]                       e.g. annual_report.pdf:5:1234-1289
  line      REF:A-B | REF:A                             e.g. src/auth.py:10-25
  extended  span or line, then `| excerpt: "..."`
  json path ident(.ident|.int)+ when the event carries `data`, or a top-level key of `data`;
            without `data`, a path that can only be one (lower-case first key of 2+ letters,
            every key 2+ characters, the last not a file extension or domain: `quote.premium`,
            `items.0.price`; not `example.com`, `config.yaml`, `Fig.1`, `v1.2`, `e.g`), which
            then fails as path_not_found instead of passing for prose
  footnote  ^N                                          e.g. [^1]: resolves like [1]
A span REF may be anything with a letter in it (the three-part shape is distinctive enough); a
line REF must look like a file (has "/" or an extension with a letter) or be a document id, so
`[John 3:16]` or `[10:30]` stay prose. A bracket whose REF looks like a file but whose location
does not parse is a malformed citation rather than prose.
"""

from __future__ import annotations

import re

from monitor.records.models import CitationFormat
from monitor.records.record import record
from monitor.text.words import wordset

MAX_RANGE = 100  # longest numeric range [a-b] expanded; longer ones are malformed

_NUM_PART = re.compile(r"(\d{1,9})(?:\s*[-–]\s*(\d{1,9}))?")
_RANGE = re.compile(r"(\d{1,18})\s*-\s*(\d{1,18})")
_LINES = re.compile(r"(\d{1,18})(?:\s*-\s*(\d{1,18}))?")
_PAGE = re.compile(r"\d{1,9}")
_EXT = re.compile(r"\.[A-Za-z0-9]*[A-Za-z][A-Za-z0-9]*$")
_EXCERPT = re.compile(r"\s*excerpt\s*:\s*([\"“'])(.*)([\"”'])\s*", re.S)
_IDENT = r"[A-Za-z_][A-Za-z0-9_-]*"
_JSON_PATH = re.compile(rf"{_IDENT}(?:\.(?:{_IDENT}|\d+))+")
_DATALESS_PATH = re.compile(r"[a-z][a-z_]+[A-Za-z0-9_]*(?:\.(?:[A-Za-z_][A-Za-z0-9_]+|\d+))+")
# last keys that make a dotted word a file name or a host, not a path into data
_NOT_LAST_KEYS = wordset(
    "com org net edu gov io ai co uk de fr info dev app html htm php asp aspx pdf doc docx txt md "
    "rst csv tsv json yaml yml xml toml ini cfg py js ts tsx jsx java go rs rb c h cpp hpp cs sh "
    "sql png jpg jpeg gif svg zip gz tar log exe dll so"
)


@record
class Parsed:
    """One bracket's meaning; a numeric list or multi-span becomes one Citation per entry."""

    format: CitationFormat  # span | line | numeric | json_path
    doc_ref: str | None = None
    page: int | None = None
    ranges: tuple[tuple[int, int], ...] = ()
    numbers: tuple[int, ...] = ()
    path: str | None = None
    excerpt: str | None = None
    malformed: str | None = None


def looks_like_file(ref: str, doc_ids: frozenset[str]) -> bool:
    if not ref or ref != ref.strip() or ref[0] in "\"'“‘":
        return False
    return ref in doc_ids or "/" in ref or _EXT.search(ref) is not None


def _numeric(s: str) -> Parsed | None:
    if len(s) <= 9 and s.isdecimal():  # the usual [3]; isdecimal is exactly what \d matches
        return Parsed("numeric", None, None, (), (int(s),))
    return _numeric_list(s)


def _numeric_list(s: str) -> Parsed | None:
    numbers: list[int] = []
    for part in s.split(","):
        m = _NUM_PART.fullmatch(part.strip())
        if m is None:
            return None
        a = int(m.group(1))
        if m.group(2) is None:
            numbers.append(a)
            continue
        b = int(m.group(2))
        if b < a:
            return Parsed("numeric", malformed=f"numeric range {a}-{b} runs backwards")
        if b - a + 1 > MAX_RANGE:
            return Parsed("numeric", malformed=f"numeric range {a}-{b} longer than {MAX_RANGE}")
        numbers.extend(range(a, b + 1))
    return Parsed("numeric", None, None, (), tuple(numbers))


def _colons(s: str) -> int:
    return s.count(":") - s.count("://")


def _span(head: str, doc_ids: frozenset[str]) -> Parsed | None:
    """REF:PAGE:RANGES, or a malformed span when REF looks like a file; None when it is prose."""
    parts = head.rsplit(":", 2)
    ref = parts[0].strip()
    ref_ok = ref in doc_ids or (any(map(str.isalpha, ref)) and "[" not in ref)
    if len(parts) == 3 and ref_ok:
        page_s, ranges_s = parts[1].strip(), parts[2]
        ranges: list[tuple[int, int]] = []
        for part in ranges_s.split(","):
            m = _RANGE.fullmatch(part.strip())
            if m is None:
                break
            ranges.append((int(m.group(1)), int(m.group(2))))
        else:
            if _PAGE.fullmatch(page_s):
                # positional (format, doc_ref, page, ranges): keywords cost a third more
                return Parsed("span", ref, int(page_s), tuple(ranges))
    if looks_like_file(ref, doc_ids):
        return Parsed("span", doc_ref=ref, malformed=f"span location {head[len(parts[0]) :]!r}")
    return None


def _line(head: str, doc_ids: frozenset[str]) -> Parsed | None:
    ref_raw, loc = head.rsplit(":", 1)
    ref = ref_raw.strip()
    if not looks_like_file(ref, doc_ids):
        return None
    m = _LINES.fullmatch(loc.strip())
    if m is None:
        return Parsed("line", doc_ref=ref, malformed=f"line location {loc!r}")
    a = int(m.group(1))
    b = a if m.group(2) is None else int(m.group(2))
    return Parsed("line", ref, None, ((a, b),))


def _file(head: str, tail: str | None, doc_ids: frozenset[str]) -> Parsed | None:
    colons = _colons(head)
    if colons >= 2:
        parsed = _span(head, doc_ids)
    elif colons == 1:
        parsed = _line(head, doc_ids)
    elif tail is not None and looks_like_file(head, doc_ids):
        parsed = Parsed("span", doc_ref=head, malformed="no location before the excerpt")
    else:
        parsed = None
    if parsed is None or tail is None or parsed.malformed:
        return parsed
    m = _EXCERPT.fullmatch(tail)
    if m is None:
        return Parsed(parsed.format, doc_ref=parsed.doc_ref, malformed=f"bad excerpt {tail!r}")
    return Parsed(
        parsed.format,
        doc_ref=parsed.doc_ref,
        page=parsed.page,
        ranges=parsed.ranges,
        excerpt=m.group(2),
    )


def _dataless_path(s: str) -> bool:
    return _DATALESS_PATH.fullmatch(s) is not None and s.rsplit(".", 1)[1] not in _NOT_LAST_KEYS


def classify(
    content: str,
    *,
    doc_ids: frozenset[str],
    json_paths: bool,
    glued: bool,
    data_keys: frozenset[str] = frozenset(),
    dataless_paths: bool = False,
) -> Parsed | None:
    """Parse bracket content; None means ordinary prose or code.

    `glued` (the bracket follows an identifier character, as in `a[i]`) keeps numeric and json
    paths out, but not file citations (`grew[report.pdf:2:10-50]`) or footnotes (`fever[^1]`).
    `json_paths` is False when the event has no data or the bracket is a markdown link text;
    `data_keys` are the top-level keys of the event's data; `dataless_paths` is True when the
    event has no data and the bracket is not link text.
    """
    return classify_bracket(content, doc_ids, json_paths, glued, data_keys, dataless_paths)


def classify_bracket(
    content: str,
    doc_ids: frozenset[str],
    json_paths: bool,
    glued: bool,
    data_keys: frozenset[str],
    dataless_paths: bool,
) -> Parsed | None:
    """`classify` with positional arguments: the per-bracket call of extract.py, where keyword
    passing cost a measurable share of the call."""
    s = content.strip()
    if not s:
        return None
    first = s[0]
    if first == "^" and s[1:].isdigit() and s[1:].isascii() and len(s) <= 10:
        return Parsed("numeric", None, None, (), (int(s[1:]),))  # a markdown footnote
    if first.isdigit() and "|" not in s and ":" not in s:
        return None if glued else _numeric(s)
    head, sep, tail = s.partition("|")
    if ":" in head or sep:
        return _file(head.strip(), tail if sep else None, doc_ids)
    if glued or s in doc_ids:
        return None
    if (json_paths and (s in data_keys or _JSON_PATH.fullmatch(s) is not None)) or (
        dataless_paths and _dataless_path(s)
    ):
        return Parsed("json_path", None, None, (), (), s)
    return None
