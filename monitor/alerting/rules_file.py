"""Alert rules as written: the rules file (YAML, defaults in rules_default.yaml beside this
module) and durations ("90s", "5m", "1h") read from it and written back for Prometheus.

Every mistake in a rules file is a ConfigError naming the rule and the key, at load time.
"""

from __future__ import annotations

import re
from pathlib import Path

import yaml

from monitor.alerting.alert_rules import FIGURES, SEVERITIES, AlertRule, Op, level_for
from monitor.config.errors import ConfigError
from monitor.estimation.ppi import LEVEL

DEFAULT_RULES_FILE = Path(__file__).with_name("rules_default.yaml")

_NAME = re.compile(r"^[a-z][a-z0-9_]{0,62}$")
_DURATION = re.compile(r"^(\d+(?:\.\d+)?)(ms|s|m|h|d)?$")
_UNIT_SECONDS = {"ms": 0.001, "s": 1.0, "m": 60.0, "h": 3600.0, "d": 86400.0}
_RULE_KEYS = frozenset(
    {"name", "figure", "below", "above", "resolve_at", "window", "min_events", "for",
     "severity", "apps", "summary", "min_judged", "no_data", "level", "false_pages_per_week",
     "keep_firing_for"}
)  # fmt: skip


def parse_duration(value: object, what: str) -> float:
    """Seconds from `90`, `90s`, `5m`, `1h`, `250ms`; ConfigError otherwise."""
    if isinstance(value, bool):
        raise ConfigError(f"{what}: expected a duration like 5m, got {value!r}")
    if isinstance(value, int | float):
        seconds = float(value)
    else:
        match = _DURATION.match(str(value).strip())
        if not match:
            raise ConfigError(f"{what}: expected a duration like 30s, 5m or 1h, got {value!r}")
        seconds = float(match.group(1)) * _UNIT_SECONDS[match.group(2) or "s"]
    if seconds < 0:
        raise ConfigError(f"{what}: duration must not be negative")
    return seconds


def format_duration(seconds: float) -> str:
    """The shortest Prometheus duration for whole seconds: 300 → "5m", 90 → "90s"."""
    whole = round(seconds)
    for unit, size in (("d", 86400), ("h", 3600), ("m", 60)):
        if whole and whole % size == 0:
            return f"{whole // size}{unit}"
    return f"{whole}s"


def load_rules(path: str | Path | None = None) -> tuple[AlertRule, ...]:
    """Rules from a YAML file; the built-in defaults when `path` is empty."""
    source = Path(path) if path else DEFAULT_RULES_FILE
    try:
        text = source.read_text(encoding="utf-8")
    except OSError as exc:
        raise ConfigError(f"cannot read rules file {source}: {exc.strerror}") from exc
    return parse_rules(text, str(source))


def parse_rules(text: str, origin: str = "<rules>") -> tuple[AlertRule, ...]:
    try:
        doc = yaml.safe_load(text)
    except yaml.YAMLError as exc:
        raise ConfigError(f"{origin} is not valid YAML: {exc}") from exc
    if not isinstance(doc, dict) or not isinstance(doc.get("rules"), list):
        raise ConfigError(f"{origin}: expected a mapping with a `rules` list")
    unknown = set(doc) - {"defaults", "rules"}
    if unknown:
        raise ConfigError(f"{origin}: unknown top-level keys {sorted(unknown)}")
    defaults = doc.get("defaults") or {}
    if not isinstance(defaults, dict):
        raise ConfigError(f"{origin}: `defaults` must be a mapping")
    rules = tuple(
        _rule(_merged(defaults, raw) if isinstance(raw, dict) else raw, f"{origin} rule {i + 1}")
        for i, raw in enumerate(doc["rules"])
    )
    names = [r.name for r in rules]
    dupes = sorted({n for n in names if names.count(n) > 1})
    if dupes:
        raise ConfigError(f"{origin}: duplicate rule names {dupes}")
    return rules


_EITHER = ("level", "false_pages_per_week")


def _merged(defaults: dict[str, object], raw: dict[str, object]) -> dict[str, object]:
    """A rule's keys over the defaults; a rule's own `level` replaces a default
    `false_pages_per_week` and the other way round (they say the same thing twice)."""
    if any(key in raw for key in _EITHER):
        defaults = {k: v for k, v in defaults.items() if k not in _EITHER}
    return {**defaults, **raw}


def _rule(raw: object, where: str) -> AlertRule:
    if not isinstance(raw, dict):
        raise ConfigError(f"{where}: expected a mapping")
    unknown = set(raw) - _RULE_KEYS
    if unknown:
        raise ConfigError(f"{where}: unknown keys {sorted(unknown)}")
    name = str(raw.get("name", ""))
    if not _NAME.match(name):
        raise ConfigError(f"{where}: name must match {_NAME.pattern}, got {name!r}")
    where = f"rule {name}"
    figure = raw.get("figure")
    if figure not in FIGURES:
        raise ConfigError(f"{where}: figure must be one of {', '.join(FIGURES)}")
    if ("below" in raw) == ("above" in raw):
        raise ConfigError(f"{where}: give exactly one of `below` or `above`")
    op: Op = "below" if "below" in raw else "above"
    threshold = _unit_float(raw[op], f"{where}: {op}")
    resolve = _unit_float(raw.get("resolve_at", threshold), f"{where}: resolve_at")
    if (op == "below" and resolve < threshold) or (op == "above" and resolve > threshold):
        side = "at or above" if op == "below" else "at or below"
        raise ConfigError(f"{where}: resolve_at must be {side} the threshold {threshold}")
    window = parse_duration(raw.get("window", 300), f"{where}: window")
    if window < 1:
        raise ConfigError(f"{where}: window must be at least 1s")
    min_events = raw.get("min_events", 20)
    if isinstance(min_events, bool) or not isinstance(min_events, int) or min_events < 1:
        raise ConfigError(f"{where}: min_events must be a positive integer")
    min_judged = raw.get("min_judged", 30)
    if isinstance(min_judged, bool) or not isinstance(min_judged, int) or min_judged < 2:
        raise ConfigError(f"{where}: min_judged must be an integer of at least 2")
    severity = str(raw.get("severity", "warning"))
    if severity not in SEVERITIES:
        raise ConfigError(f"{where}: severity must be one of {', '.join(SEVERITIES)}")
    no_data = str(raw.get("no_data", "resolve"))
    if no_data not in ("resolve", "hold"):
        raise ConfigError(f"{where}: no_data must be resolve or hold")
    level = _level(raw, window, where)
    keep = parse_duration(raw.get("keep_firing_for", 0), f"{where}: keep_firing_for")
    apps = raw.get("apps") or []
    if not isinstance(apps, list) or not all(isinstance(a, str) and a for a in apps):
        raise ConfigError(f"{where}: apps must be a list of app names")
    return AlertRule(
        name=name,
        figure=str(figure),
        op=op,
        threshold=threshold,
        resolve_threshold=resolve,
        window_seconds=window,
        min_events=min_events,
        for_seconds=parse_duration(raw.get("for", 120), f"{where}: for"),
        severity=severity,
        apps=tuple(apps),
        summary=str(raw.get("summary", "")),
        min_judged=min_judged,
        no_data=no_data,
        level=level,
        keep_firing_for=keep,
    )


def _level(raw: dict[str, object], window: float, where: str) -> float:
    """`level` as given, or from `false_pages_per_week` (level_for); a rule gives at most one
    (a default of the other from `defaults` gives way to it: the rule's own key wins)."""
    level, budget = raw.get("level"), raw.get("false_pages_per_week")
    if level is not None and budget is not None:
        raise ConfigError(f"{where}: give `level` or `false_pages_per_week`, not both")
    if budget is not None:
        if isinstance(budget, bool) or not isinstance(budget, int | float) or budget <= 0:
            raise ConfigError(f"{where}: false_pages_per_week must be a positive number")
        level = level_for(float(budget), window)
        if level <= 0.5:
            raise ConfigError(
                f"{where}: false_pages_per_week {budget} is too large: the level would be 50% or less"
            )
        return level
    if level is None:
        return LEVEL
    if isinstance(level, bool) or not isinstance(level, int | float) or not 0.5 < level < 1:
        raise ConfigError(f"{where}: level must be a number between 0.5 and 1, got {level!r}")
    return float(level)


def _unit_float(value: object, what: str) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise ConfigError(f"{what}: expected a number, got {value!r}")
    if not 0.0 <= float(value) <= 1.0:
        raise ConfigError(f"{what}: ratios are between 0 and 1, got {value}")
    return float(value)
