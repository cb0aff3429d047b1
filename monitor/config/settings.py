"""The one settings object: the only place ragmon reads the environment.

Precedence (highest first): explicit overrides (CLI flags), environment variables `RAGMON_*`
(plus the conventional `OPENAI_BASE_URL` / `OPENAI_API_KEY`), the YAML file named by
`RAGMON_CONFIG_FILE` (or `--config`), then the defaults below. Secrets are `SecretStr` so they
never show up in reprs, logs or error messages.

The fields, each with its env var, are grouped by concern in base classes: settings_stream.py
(Kafka, worker, checks, audit) and settings_review.py (evidence page, judge, human labels,
Grafana and alerts). `Settings` joins them, validates and reads the sources.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import yaml
from pydantic import AliasChoices, SecretStr, ValidationInfo, field_validator
from pydantic_settings import (
    BaseSettings,
    PydanticBaseSettingsSource,
    SettingsConfigDict,
)

from monitor.config import cpus
from monitor.config.envcheck import env_name
from monitor.config.errors import ConfigError
from monitor.config.options import CheckOptions
from monitor.config.settings_review import (
    EvidenceFields,
    GrafanaFields,
    HumanLabelFields,
    JudgeFields,
)
from monitor.config.settings_stream import AuditFields, CheckFields, KafkaFields, WorkerFields

_CONFIG_FILE_ENV = "RAGMON_CONFIG_FILE"


class _YamlSource(PydanticBaseSettingsSource):
    """Reads the optional YAML config file; unknown keys are rejected by the model."""

    def __init__(self, settings_cls: type[BaseSettings], path: str | None) -> None:
        super().__init__(settings_cls)
        self._data: dict[str, Any] = {}
        if path:
            try:
                loaded = yaml.safe_load(Path(path).read_text(encoding="utf-8"))
            except OSError as exc:
                raise ConfigError(f"cannot read config file {path}: {exc.strerror}") from exc
            except yaml.YAMLError as exc:
                raise ConfigError(f"config file {path} is not valid YAML: {exc}") from exc
            if loaded is None:
                loaded = {}
            if not isinstance(loaded, dict):
                raise ConfigError(f"config file {path} must hold a mapping at the top level")
            self._data = loaded

    def get_field_value(self, field: Any, field_name: str) -> tuple[Any, str, bool]:
        return self._data.get(field_name), field_name, False

    def __call__(self) -> dict[str, Any]:
        return dict(self._data)


# pydantic orders the fields from the last base to the first: listed last-first, they keep the
# order of the sections (Kafka first, Grafana last).
class Settings(
    GrafanaFields,
    HumanLabelFields,
    JudgeFields,
    EvidenceFields,
    AuditFields,
    CheckFields,
    WorkerFields,
    KafkaFields,
    BaseSettings,
):
    """Every field's env var is `RAGMON_<FIELD NAME IN UPPER CASE>` unless noted."""

    model_config = SettingsConfigDict(
        env_prefix="RAGMON_", frozen=True, extra="forbid", populate_by_name=True
    )

    @field_validator("bootstrap_servers")
    @classmethod
    def _host_port_list(cls, value: str) -> str:
        for server in value.split(","):
            if not server.strip():
                continue  # "a:1,,b:2" and a trailing comma are forgiven; an empty list is not
            problem = server_problem(server.strip())
            if problem:
                raise ValueError(f"malformed server {server.strip()!r}: {problem}")
        return value

    @field_validator("evidence_token", "review_token", mode="before")
    @classmethod
    def _web_token(cls, value: Any) -> Any:
        # An empty variable (compose's `${RAGMON_EVIDENCE_TOKEN:-}`) means unset; a short one is
        # refused rather than guessed at.
        raw = value.get_secret_value() if isinstance(value, SecretStr) else value
        if raw is None or (isinstance(raw, str) and not raw.strip()):
            return None
        if len(str(raw).strip()) < 16:
            raise ValueError("a web token needs at least 16 characters (openssl rand -hex 32)")
        return SecretStr(str(raw).strip())

    @field_validator("judge_concurrency", "judge_timeout_seconds", mode="before")
    @classmethod
    def _auto_judge(cls, value: Any) -> Any:
        if isinstance(value, str) and value.strip().lower() in ("auto", ""):
            return None
        return value

    @field_validator("check_processes", mode="before")
    @classmethod
    def _auto_check_processes(cls, value: Any) -> Any:
        if isinstance(value, str) and value.strip().lower() == "auto":
            return 2 if usable_cpus() >= 2 else 0
        return value

    @field_validator("check_help", mode="before")
    @classmethod
    def _auto_check_help(cls, value: Any, info: ValidationInfo) -> Any:
        if isinstance(value, str) and value.strip().lower() == "auto":
            # Help fills a core the check processes leave idle; where they and the worker
            # already have more processes than cores, it only stalls the worker's loop
            processes = info.data.get("check_processes")
            return isinstance(processes, int) and 0 < processes < usable_cpus()
        return value

    @classmethod
    def settings_customise_sources(
        cls,
        settings_cls: type[BaseSettings],
        init_settings: PydanticBaseSettingsSource,
        env_settings: PydanticBaseSettingsSource,
        dotenv_settings: PydanticBaseSettingsSource,
        file_secret_settings: PydanticBaseSettingsSource,
    ) -> tuple[PydanticBaseSettingsSource, ...]:
        path = os.environ.get(_CONFIG_FILE_ENV) or _pending_config_file
        return (init_settings, env_settings, _YamlSource(settings_cls, path))

    @property
    def app_allowlist(self) -> tuple[str, ...]:
        return tuple(a.strip() for a in self.apps.split(",") if a.strip())

    def topic(self, name: str) -> str:
        return f"{self.topic_prefix}{name}"

    def check_options(self) -> CheckOptions:
        return CheckOptions(
            max_event_bytes=self.max_event_bytes,
            input_format=self.input_format,
            max_citations=self.max_citations,
            max_span_chars=self.max_span_chars,
            check_values=self.check_values,
            value_window_chars=self.value_window_chars,
            numeric_rel_tolerance=self.numeric_rel_tolerance,
            min_claim_words=self.min_claim_words,
            max_grounded_claims=self.max_grounded_claims,
            answer_claim_weight=self.answer_claim_weight,
        )


_pending_config_file: str | None = None


def server_problem(server: str) -> str | None:
    """Why `server` is not a bootstrap server (`host:port`, optionally `kafka://host:port`)."""
    rest = server.removeprefix("kafka://")
    if "://" in rest:
        scheme = rest.split("://", 1)[0]
        return f"{scheme}:// is not a Kafka address; give host:port (kafka:// may prefix it)"
    host, sep, port = rest.rpartition(":")
    if not sep or not host or "/" in rest:
        return "expected host:port"
    if not port.isdigit() or not 0 < int(port) < 65536:
        return f"port {port!r} is not a number from 1 to 65535"
    return None


def known_variables() -> frozenset[str]:
    """Every environment variable a setting reads (RAGMON_* and its conventional aliases)."""
    names = {_CONFIG_FILE_ENV}
    for field, info in Settings.model_fields.items():
        names.add(env_name(field))
        alias = info.validation_alias
        if isinstance(alias, AliasChoices):
            names.update(str(a) for a in alias.choices if str(a).isupper())
    return frozenset(names)


def _problem(loc: tuple[int | str, ...], msg: str) -> str:
    """`RAGMON_PARTITIONS (partitions): ...`: the variable a user sets, then the field name used
    in a YAML file and by flags."""
    field = str(loc[0]) if loc else ""
    where = ".".join(str(p) for p in loc)
    if field in Settings.model_fields:
        return f"{env_name(field)} ({where}): {msg}"
    return f"{where}: {msg}"


def usable_cpus() -> int:
    """CPUs this process may use: its affinity mask (taskset, cpuset) capped by the cgroup CPU
    quota (`docker run --cpus`, a Kubernetes CPU limit), which the mask does not show."""
    return cpus.usable_cpus(cpus.affinity_cpus(), cpus.cgroup_cpu_limit())


def load_settings(config_file: str | None = None, **overrides: Any) -> Settings:
    """Build the settings; raises ConfigError with a readable message on bad values."""
    from pydantic import ValidationError

    global _pending_config_file
    _pending_config_file = config_file
    try:
        return Settings(**{k: v for k, v in overrides.items() if v is not None})
    except ValidationError as exc:
        problems = "; ".join(_problem(err["loc"], err["msg"]) for err in exc.errors())
        raise ConfigError(f"invalid configuration: {problems}") from None
    finally:
        _pending_config_file = None
