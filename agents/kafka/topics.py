"""The topics ragmon reads and writes: names and partition counts from settings, creation.

Every topic is created up front (with the admin API, so it works with SASL/SSL too) instead of
relying on broker auto-creation, which real clusters usually disable.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import structlog
from aiokafka.admin import AIOKafkaAdminClient, NewTopic

from monitor.config.settings import Settings

log = structlog.get_logger("ragmon.topics")

#: Roles of ragmon's topics; names default to the role, under the settings' prefix.
ROLES: tuple[str, ...] = (
    *("answers", "scores", "judge-requests", "verdicts", "audit", "dlq"),
    "labels",  # human labels of claims, keyed event_id:claim_index (monitor/records/labels.py)
)

#: topic configs by role: `labels` keeps the latest label of each claim (compacted)
TOPIC_CONFIGS: dict[str, dict[str, str]] = {"labels": {"cleanup.policy": "compact"}}

_TOPIC_ALREADY_EXISTS = 36


@dataclass(frozen=True)
class TopicSpec:
    role: str
    name: str
    partitions: int


def topic_specs(settings: Settings) -> dict[str, TopicSpec]:
    """Role → spec. `answers_topic` names the input; `topic_names` overrides any role."""
    unknown = (set(settings.topic_names) | set(settings.topic_partitions)) - set(ROLES)
    if unknown:
        from monitor.config.errors import ConfigError

        raise ConfigError(
            f"unknown topic role(s) {sorted(unknown)}; known roles: {', '.join(ROLES)}"
        )
    specs: dict[str, TopicSpec] = {}
    for role in ROLES:
        base = settings.answers_topic if role == "answers" else role
        name = settings.topic(settings.topic_names.get(role, base))
        partitions = settings.topic_partitions.get(role, settings.partitions)
        specs[role] = TopicSpec(role, name, partitions)
    return specs


async def ensure_topics(
    settings: Settings, client_kwargs: dict[str, Any], specs: dict[str, TopicSpec] | None = None
) -> dict[str, TopicSpec]:
    """Create missing topics; returns the specs with the partition counts the broker reports
    (an existing topic keeps its own count, which the tables must follow)."""
    specs = specs or topic_specs(settings)
    admin = AIOKafkaAdminClient(**client_kwargs)
    await admin.start()
    try:
        existing = set(await admin.list_topics())
        missing = [s for s in specs.values() if s.name not in existing]
        if missing:
            response = await admin.create_topics(
                [
                    NewTopic(
                        s.name,
                        s.partitions,
                        settings.replicas,
                        topic_configs=TOPIC_CONFIGS.get(s.role, {}),
                    )
                    for s in missing
                ]
            )
            for name, code, message in _topic_errors(response):
                if code not in (0, _TOPIC_ALREADY_EXISTS):
                    from monitor.config.errors import ConfigError

                    raise ConfigError(f"cannot create topic {name}: {message or code}")
            log.info("topics created", topics=[s.name for s in missing])
        described = await admin.describe_topics([s.name for s in specs.values()])
    finally:
        await admin.close()
    counts = {
        d["topic"]: len(d.get("partitions") or [])
        for d in described
        if isinstance(d, dict) and not d.get("error_code")
    }
    return {
        role: TopicSpec(role, spec.name, counts.get(spec.name) or spec.partitions)
        for role, spec in specs.items()
    }


def _topic_errors(response: Any) -> list[tuple[str, int, str | None]]:
    out: list[tuple[str, int, str | None]] = []
    for entry in getattr(response, "topic_errors", []):
        name, code = entry[0], entry[1]
        message = entry[2] if len(entry) > 2 else None
        out.append((name, code, message))
    return out
