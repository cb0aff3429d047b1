"""JSON bytes for the records the worker publishes (audit, scores, dead letters).

Most answers of a stream are audited, and encoding their ~2 KB verdict records with the standard
library cost ~19 µs each, 4-5% of an answer's whole path through the worker; orjson does it in
~3 µs. orjson cannot encode everything the standard library can (lone surrogates, which JSON
input may carry in escapes, and integers beyond 64 bits, which a span end may be), so such a
value falls back to `monitor.output.verdict_io.dumps_line` (compact separators, non-ASCII kept,
escapes only when UTF-8 cannot carry a string).

Both give the same JSON value for every value the worker publishes. They differ on a float that
is not finite: orjson writes `null` (valid JSON), the standard library `NaN` (not JSON). The
records hold no such floats; the difference is stated so nobody relies on either.
"""

from __future__ import annotations

from typing import Any

from monitor.output.verdict_io import dumps_line

try:
    import orjson
except ImportError:  # pragma: no cover - orjson is a dependency; the fallback keeps tools working
    orjson = None  # type: ignore[assignment]


def _stdlib(record: dict[str, Any]) -> bytes:
    return dumps_line(record).encode("utf-8")


if orjson is not None:
    _fast = orjson.dumps
    _FastError: type[Exception] = orjson.JSONEncodeError

    def dumps(record: dict[str, Any]) -> bytes:
        """`record` as compact UTF-8 JSON."""
        try:
            return _fast(record)
        except _FastError:
            return _stdlib(record)

else:  # pragma: no cover
    dumps = _stdlib
