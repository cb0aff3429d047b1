"""Human labels of claims: the record on the `labels` topic, its key, and the rows `ragmon label
import` reads. Pure.

One record per (event, claim), keyed `event_id:claim_index` on a compacted topic, so the topic
keeps the latest label of each claim. A label given by claim text only (an import that does not
know ragmon's claim split) is keyed `event_id:text:<digest>` until a worker that has the
checked answer resolves it to an index. Every record says who or what gave it (`source`:
canary, import, review; `reviewer`) and when (`labelled_at`, epoch seconds). Once the judge has
judged the same claim, a worker adds its verdict (`judge`: verdict, model, app, judged_at) under
the same key: the pair the judge's sensitivity and specificity are measured on.
"""

from __future__ import annotations

import csv
import hashlib
import io
import json
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field, replace
from typing import Any

from monitor.config.errors import InputError
from monitor.records.jsonl import json_lines

#: the grades a person can give a claim; `abstain` is "can't tell" and calibrates nothing
LABELS: tuple[str, ...] = ("supported", "partially_supported", "not_supported", "abstain")
ALIASES: dict[str, str] = {"can't tell": "abstain", "cant_tell": "abstain", "unsure": "abstain"}
SOURCES: tuple[str, ...] = ("canary", "import", "review")
#: what an import row may name its columns
COLUMNS: tuple[str, ...] = ("event_id", "claim_index", "claim_text", "label", "reviewer")
MAX_TEXT = 2_000  # characters of claim text kept in a label


@dataclass(frozen=True, slots=True)
class JudgeSide:
    """The judge's verdict on the labelled claim."""

    verdict: str
    model: str
    judged_at: float
    app: str = ""


@dataclass(frozen=True, slots=True)
class HumanLabel:
    event_id: str
    label: str
    source: str
    labelled_at: float
    claim_index: int | None = None
    claim_text: str | None = None
    reviewer: str | None = None
    app: str | None = None
    judge: JudgeSide | None = field(default=None)

    def key(self) -> str:
        if self.claim_index is not None:
            return f"{self.event_id}:{self.claim_index}"
        digest = hashlib.sha256((self.claim_text or "").strip().encode("utf-8")).hexdigest()[:16]
        return f"{self.event_id}:text:{digest}"

    def with_judge(self, judge: JudgeSide | None) -> HumanLabel:
        return replace(self, judge=judge)

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "event_id": self.event_id,
            "claim_index": self.claim_index,
            "claim_text": self.claim_text,
            "label": self.label,
            "source": self.source,
            "reviewer": self.reviewer,
            "labelled_at": self.labelled_at,
            "app": self.app,
        }
        if self.judge is not None:
            j = self.judge
            out["judge"] = {
                "verdict": j.verdict,
                "model": j.model,
                "judged_at": j.judged_at,
                "app": j.app,
            }
        return out


def normal_label(raw: object, where: str) -> str:
    text = "" if raw is None else str(raw).strip().lower()
    label = ALIASES.get(text, text.replace(" ", "_"))
    if label not in LABELS:
        raise InputError(f"{where}: unknown label {raw!r} (one of {', '.join(LABELS)})")
    return label


def label_from(
    row: Mapping[str, Any],
    where: str,
    source: str,
    labelled_at: float,
    reviewer: str | None = None,
) -> HumanLabel:
    """A label from one import row (or a decoded topic record, which carries its own source and
    time); InputError naming `where` when a field is missing or wrong."""
    event_id = str(row.get("event_id") or "").strip()
    if not event_id:
        raise InputError(f"{where}: no event_id")
    index = _index(row.get("claim_index", row.get("index")), where)
    text = row.get("claim_text", row.get("text"))
    text = str(text).strip()[:MAX_TEXT] if text not in (None, "") else None
    if index is None and text is None:
        raise InputError(f"{where}: needs claim_index or claim_text")
    src = str(row.get("source") or source)
    if src not in SOURCES:
        raise InputError(f"{where}: unknown source {src!r}")
    who = row.get("reviewer") or reviewer
    at = row.get("labelled_at", labelled_at)
    try:
        at = float(at)
    except (TypeError, ValueError):
        raise InputError(f"{where}: labelled_at must be epoch seconds") from None
    app = row.get("app")
    return HumanLabel(
        event_id=event_id,
        label=normal_label(row.get("label"), where),
        source=src,
        labelled_at=at,
        claim_index=index,
        claim_text=text,
        reviewer=None if who in (None, "") else str(who)[:200],
        app=None if app in (None, "") else str(app),
        judge=_judge(row.get("judge")),
    )


def _index(raw: object, where: str) -> int | None:
    if raw is None or raw == "":
        return None
    try:
        index = int(str(raw))
    except ValueError:
        raise InputError(f"{where}: claim_index must be an integer, got {raw!r}") from None
    if index < 0:
        raise InputError(f"{where}: claim_index must be >= 0")
    return index


def _judge(raw: object) -> JudgeSide | None:
    if not isinstance(raw, Mapping) or not raw.get("verdict"):
        return None
    return JudgeSide(
        verdict=str(raw["verdict"]),
        model=str(raw.get("model") or ""),
        judged_at=float(raw.get("judged_at") or 0.0),
        app=str(raw.get("app") or ""),
    )


def read_rows(text: str, name: str) -> Iterator[tuple[str, dict[str, Any]]]:
    """(where, row) of an import file: JSONL (one object a line) or CSV with a header row
    naming COLUMNS (`claim_index` or `claim_text`, `reviewer` optional). The format is the
    file's: a first non-blank character `{` is JSONL."""
    stripped = text.lstrip()
    if stripped.startswith("{"):
        for where, row in json_lines(text.splitlines(), name):
            if not isinstance(row, dict):
                raise InputError(f"{where}: not a JSON object")
            yield where, row
        return
    reader = csv.DictReader(io.StringIO(text))
    header = [h.strip() for h in reader.fieldnames or []]
    if "event_id" not in header or "label" not in header:
        raise InputError(
            f"{name}: CSV needs a header with event_id and label ({', '.join(COLUMNS)})"
        )
    for n, row in enumerate(reader, 2):
        yield f"{name}:{n}", {k.strip(): v for k, v in row.items() if k is not None}


def parse_import(
    text: str, name: str, labelled_at: float, reviewer: str | None = None
) -> list[HumanLabel]:
    """Every row of an import file as a label (source `import`); the first bad row stops it."""
    return [
        label_from(row, where, "import", labelled_at, reviewer)
        for where, row in read_rows(text, name)
    ]


def decode(value: bytes | None) -> HumanLabel | None:
    """A `labels` topic record; None for anything else (a tombstone, a foreign record)."""
    if not value:
        return None
    try:
        row = json.loads(value)
        if not isinstance(row, dict):
            return None
        return label_from(row, "labels", str(row.get("source") or ""), 0.0)
    except (ValueError, InputError):
        return None


def encode(label: HumanLabel) -> tuple[bytes, bytes]:
    """(key, value) of the topic record."""
    return label.key().encode("utf-8"), json.dumps(
        label.to_dict(), ensure_ascii=False, separators=(",", ":")
    ).encode("utf-8")


def export_csv(labels: Iterable[HumanLabel]) -> str:
    out = io.StringIO()
    cols = (*COLUMNS, "source", "labelled_at", "app", "judge_verdict", "judge_model")
    w = csv.writer(out)
    w.writerow(cols)
    for lab in labels:
        d = lab.to_dict()
        j = d.get("judge") or {}
        w.writerow([*(d.get(c) for c in cols[:-2]), j.get("verdict"), j.get("model")])
    return out.getvalue()


def canary_labels(
    event_id: str,
    gold_claims: Iterable[Mapping[str, Any]],
    claim_texts: list[str],
    labelled_at: float,
    app: str | None = None,
) -> list[HumanLabel]:
    """Labels of a canary's per-claim gold (`gold.claims: [{index | text, label}]`), source
    `canary`; a claim named by text is resolved to its index when one checked claim has that
    text (whitespace and case aside), else kept by text. Malformed entries are skipped: a
    canary's gold is producer data, not an import to reject whole."""
    norm = [" ".join(t.split()).lower() for t in claim_texts]
    out = []
    for entry in gold_claims:
        row = dict(entry)
        text = row.get("text")
        if row.get("index") is None and isinstance(text, str):
            key = " ".join(text.split()).lower()
            if norm.count(key) == 1:
                row["index"] = norm.index(key)
        row.update(event_id=event_id, app=app)
        row.pop("source", None)
        try:
            out.append(label_from(row, "gold.claims", "canary", labelled_at))
        except InputError:
            continue
    return out
