"""The one settings object: the only place ragmon reads the environment.

Precedence (highest first): explicit overrides (CLI flags), environment variables `RAGMON_*`
(plus the conventional `OPENAI_BASE_URL` / `OPENAI_API_KEY`), the YAML file named by
`RAGMON_CONFIG_FILE` (or `--config`), then the defaults below. Secrets are `SecretStr` so they
never show up in reprs, logs or error messages.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any, Literal

import yaml
from pydantic import AliasChoices, Field, SecretStr, field_validator
from pydantic_settings import (
    BaseSettings,
    PydanticBaseSettingsSource,
    SettingsConfigDict,
)

from monitor.config import cpus
from monitor.config.envcheck import env_name
from monitor.config.errors import ConfigError
from monitor.config.options import CheckOptions

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


class Settings(BaseSettings):
    """Every field's env var is `RAGMON_<FIELD NAME IN UPPER CASE>` unless noted."""

    model_config = SettingsConfigDict(
        env_prefix="RAGMON_", frozen=True, extra="forbid", populate_by_name=True
    )

    # --- Kafka -------------------------------------------------------------------------------
    #: RAGMON_BOOTSTRAP_SERVERS: comma-separated host:port list (`kafka://` prefix optional).
    bootstrap_servers: str = "127.0.0.1:9092"
    #: RAGMON_SECURITY_PROTOCOL: PLAINTEXT, SSL, SASL_PLAINTEXT or SASL_SSL.
    security_protocol: Literal["PLAINTEXT", "SSL", "SASL_PLAINTEXT", "SASL_SSL"] = "PLAINTEXT"
    #: RAGMON_SASL_MECHANISM: PLAIN, SCRAM-SHA-256 or SCRAM-SHA-512.
    sasl_mechanism: Literal["PLAIN", "SCRAM-SHA-256", "SCRAM-SHA-512"] = "PLAIN"
    #: RAGMON_SASL_USERNAME
    sasl_username: str | None = None
    #: RAGMON_SASL_PASSWORD (secret)
    sasl_password: SecretStr | None = None
    #: RAGMON_SSL_CAFILE / RAGMON_SSL_CERTFILE / RAGMON_SSL_KEYFILE: PEM files for TLS.
    ssl_cafile: str | None = None
    ssl_certfile: str | None = None
    ssl_keyfile: str | None = None
    #: RAGMON_APP_ID: Faust app id = Kafka consumer group.
    app_id: str = "ragmon"
    #: RAGMON_TOPIC_PREFIX: prefix of every topic name.
    topic_prefix: str = "ragmon."
    #: RAGMON_ANSWERS_TOPIC: the input topic (without prefix).
    answers_topic: str = "answers"
    #: RAGMON_PARTITIONS: partitions of topics ragmon creates.
    partitions: int = Field(default=4, ge=1)
    #: RAGMON_REPLICAS: replication factor of topics ragmon creates.
    replicas: int = Field(default=1, ge=1)
    #: RAGMON_TOPIC_NAMES: JSON object overriding topic names (without prefix) by role:
    #: answers, scores, judge-requests, verdicts, audit, dlq.
    topic_names: dict[str, str] = Field(default_factory=dict)
    #: RAGMON_TOPIC_PARTITIONS: JSON object overriding partition counts by role.
    topic_partitions: dict[str, int] = Field(default_factory=dict)
    #: RAGMON_BROKER_SESSION_TIMEOUT: seconds; small values suit the embedded broker.
    broker_session_timeout: float = 60.0
    #: RAGMON_BROKER_HEARTBEAT_INTERVAL: seconds.
    broker_heartbeat_interval: float = 3.0
    #: RAGMON_BROKER_REBALANCE_TIMEOUT: seconds.
    broker_rebalance_timeout: float = 60.0
    #: RAGMON_FETCH_MAX_WAIT_MS: the longest a worker's fetch waits for data on the broker.
    #: Kafka answers as soon as data arrives, so this only paces idle partitions; a broker that
    #: answers at the end of the wait (tansu) adds it to every record's lag. Faust's own: 1500.
    fetch_max_wait_ms: int = Field(default=500, ge=1, le=60_000)
    #: RAGMON_DATA_DIR: Faust table/state directory.
    data_dir: str = "/tmp/ragmon-data"

    # --- worker ------------------------------------------------------------------------------
    #: RAGMON_METRICS_HOST: address the /metrics endpoint binds to.
    metrics_host: str = "127.0.0.1"
    #: RAGMON_METRICS_PORT: port of the worker's web server (/metrics).
    metrics_port: int = Field(default=6066, ge=0, le=65535)
    #: RAGMON_CONCURRENCY: parallel instances of the check agent per partition set.
    concurrency: int = Field(default=1, ge=1)
    #: RAGMON_CHECK_PROCESSES: processes that run the checks beside the worker's own, on other
    #: cores (0 = in the worker process: one core, ~0.6 of a bare Faust agent's rate; 1: ~0.9 on
    #: two cores; on a single core 0 is as fast). "auto" (the default): 1 when this process may
    #: run on two or more CPUs (affinity mask and cgroup CPU quota), else 0. See docs/guarantees.md.
    check_processes: int = Field(default="auto", ge=0, le=64, validate_default=True)
    #: RAGMON_CHECK_BATCH_SIZE: answers the check agent takes at a time (outputs are published
    #: per batch: one score record per app, metrics updated once).
    check_batch_size: int = Field(default=256, ge=1)
    #: RAGMON_CHECK_BATCH_SECONDS: longest wait for a batch to fill (adds at most this to lag).
    check_batch_seconds: float = Field(default=0.1, gt=0)
    #: RAGMON_APPS: comma-separated allow-list of app label values; others become "other".
    apps: str = ""
    #: RAGMON_MAX_APPS: with an empty allow-list, the first N apps seen are admitted.
    max_apps: int = Field(default=20, ge=1)
    #: RAGMON_WINDOW_SECONDS: size of the rolling window of the ratio gauges.
    window_seconds: float = Field(default=300.0, gt=0)
    #: RAGMON_WINDOW_STEP_SECONDS: hop of the rolling window.
    window_step_seconds: float = Field(default=60.0, gt=0)
    #: RAGMON_DEDUP_HORIZON_SECONDS: how long a seen event_id suppresses redeliveries.
    dedup_horizon_seconds: float = Field(default=3600.0, ge=0)
    #: RAGMON_DEDUP_MAX_IDS: bound of the in-memory event-id set of each check agent.
    dedup_max_ids: int = Field(default=500_000, ge=1)
    #: RAGMON_LOG_LEVEL
    log_level: str = "INFO"
    #: RAGMON_LOG_FORMAT: auto (JSON unless a terminal), json or console.
    log_format: Literal["auto", "json", "console"] = "auto"

    # --- checks (CheckOptions) ---------------------------------------------------------------
    #: RAGMON_MAX_EVENT_BYTES: larger events are rejected as too_large.
    max_event_bytes: int = Field(default=2_000_000, ge=1)
    #: RAGMON_INPUT_FORMAT: what a record without a `format` key is (docs/inputs.md): auto (the
    #: default: an answer event, answer-event.schema.json) or the envelope format a topic holds
    #: when its producers leave the key out (answer-envelope.schema.json). A `format` key wins.
    input_format: Literal[
        "auto",
        "anthropic.messages",
        "openai.responses",
        "openai.chat",
        "cohere.chat.v2",
        "gemini.generate_content",
        "llamaindex.response",
        "langchain.retrieval",
    ] = "auto"
    #: RAGMON_MAX_CITATIONS: citations per answer beyond this are capped.
    max_citations: int = Field(default=1_000, ge=1)
    #: RAGMON_MAX_SPAN_CHARS: longer spans are span_too_long.
    max_span_chars: int = Field(default=10_000, ge=1)
    #: RAGMON_CHECK_VALUES: check JSON-path values against the answer text.
    check_values: bool = True
    #: RAGMON_VALUE_WINDOW_CHARS
    value_window_chars: int = Field(default=200, ge=1)
    #: RAGMON_NUMERIC_REL_TOLERANCE
    numeric_rel_tolerance: float = Field(default=0.01, ge=0)
    #: RAGMON_MIN_CLAIM_WORDS: an uncited sentence with fewer words is a fragment, not a claim
    #: (a sentence that carries a citation is always a claim).
    min_claim_words: int = Field(default=4, ge=1)
    #: RAGMON_MAX_GROUNDED_CLAIMS: uncited claims per answer checked against all of the event's
    #: documents; later ones are undecided (unverifiable, reason over_cap), as are claims past
    #: the citation cap.
    max_grounded_claims: int = Field(default=1_000, ge=0)
    #: RAGMON_ANSWER_CLAIM_WEIGHT: the most claims one answer weighs in the windowed support,
    #: hallucination and coverage rates and in ragmon_claim_counts_total (its counts are scaled
    #: down in proportion); 0 = every claim weighs one. An answer of 20,000 sentences then moves
    #: its app's window like one of 10 claims.
    answer_claim_weight: int = Field(default=10, ge=0)

    # --- audit -------------------------------------------------------------------------------
    #: RAGMON_AUDIT_SAMPLE_RATE: share of healthy answers written to the audit trail.
    audit_sample_rate: float = Field(default=0.01, ge=0, le=1)
    #: RAGMON_AUDIT_LOG: file for audit JSON lines ("-" = stdout, empty = off).
    audit_log: str = ""
    #: RAGMON_AUDIT_TEXT: the free text audit records keep. all: the question, the answer (or,
    #: past RAGMON_AUDIT_ANSWER_CHARS, each claim's sentence), claim sentences, cited passages
    #: with context; claims: claim sentences only; none: no free text (ids, codes, offsets,
    #: verdicts, scores; judge records without reasoning).
    audit_text: Literal["all", "claims", "none"] = "all"
    #: RAGMON_AUDIT_CITED_TEXT_CHARS: cited passage kept per citation (with RAGMON_AUDIT_TEXT=all).
    audit_cited_text_chars: int = Field(default=1_000, ge=0)
    #: RAGMON_AUDIT_CONTEXT_CHARS: document text kept on either side of a cited span.
    audit_context_chars: int = Field(default=160, ge=0)
    #: RAGMON_AUDIT_ANSWER_CHARS: longest answer kept whole; a longer one keeps its claims only.
    audit_answer_chars: int = Field(default=4_000, ge=0)
    #: RAGMON_REDACT: comma-separated regexes (or "email", "phone") redacted in audit texts.
    redact: str = ""
    #: RAGMON_DLQ_MAX_VALUE_BYTES: original bytes kept in a dead letter (larger: truncated,
    #: with size and sha256 of the whole); keeps DLQ records under Kafka's 1 MB default.
    dlq_max_value_bytes: int = Field(default=524_288, ge=0)

    # --- evidence page and links ---------------------------------------------------------------
    #: RAGMON_PUBLIC_URL: the worker's web server as on-call engineers reach it (behind a proxy,
    #: a load balancer); alert links point there. Empty: http://RAGMON_METRICS_HOST:PORT.
    public_url: str = ""
    #: RAGMON_RUNBOOK_URL: where you host docs/runbook.md; alerts link to `<url>#<rule>` (empty:
    #: the worker's /evidence/runbook/<rule>).
    runbook_url: str = ""
    #: RAGMON_EVIDENCE_MAX_RECORDS: audit records one evidence request keeps at most (the newest;
    #: the page says so when a range holds more), ~7.6 kB each while the request runs (its bytes
    #: and a slim parse): 10,000 ≈ 76 MB. Nothing is kept between requests.
    evidence_max_records: int = Field(default=10_000, ge=100)
    #: RAGMON_EVIDENCE_MAX_HOURS: longest time range one evidence request reads.
    evidence_max_hours: float = Field(default=24.0, gt=0)
    #: RAGMON_EVIDENCE_ANSWERS: answers the page shows (the top of the ranking).
    evidence_answers: int = Field(default=20, ge=1, le=500)
    #: RAGMON_EVIDENCE: on (default) or off. Off: the worker serves no /evidence routes (the
    #: answers' text stays in the audit topic; `ragmon audit` still reads it).
    evidence: bool = True
    #: RAGMON_EVIDENCE_TOKEN (secret, at least 16 characters, e.g. `openssl rand -hex 32`): the
    #: bearer token of /evidence and its JSON, or the login it derives a cookie from
    #: (docs/evidence-access.md). Needed when RAGMON_METRICS_HOST is not a loopback address (the
    #: worker refuses to start without it); when set, needed on loopback too. /metrics stays open.
    evidence_token: SecretStr | None = None
    #: RAGMON_REVIEW_TOKEN (secret, at least 16 characters): the reviewers' token (human labels
    #: on the evidence page). It also reads the page; RAGMON_EVIDENCE_TOKEN only reads. Both set
    #: to one value: one token does both.
    review_token: SecretStr | None = None

    # --- judge -------------------------------------------------------------------------------
    #: RAGMON_JUDGE_ENABLED
    judge_enabled: bool = False
    #: OPENAI_BASE_URL or RAGMON_OPENAI_BASE_URL
    openai_base_url: str | None = Field(
        default=None, validation_alias=AliasChoices("openai_base_url", "OPENAI_BASE_URL")
    )
    #: OPENAI_API_KEY or RAGMON_OPENAI_API_KEY (secret)
    openai_api_key: SecretStr | None = Field(
        default=None, validation_alias=AliasChoices("openai_api_key", "OPENAI_API_KEY")
    )
    #: RAGMON_JUDGE_MODEL
    judge_model: str = "gpt-4o-mini"
    #: RAGMON_ESCALATION_MODEL: low-confidence verdicts are asked again of it (empty: never).
    #: Left unset with a local or private-network OPENAI_BASE_URL, there is none: gpt-4o is hosted.
    escalation_model: str = "gpt-4o"
    #: RAGMON_JUDGE_SAMPLE_RATE: base share of answers sent to the judge.
    judge_sample_rate: float = Field(default=0.05, ge=0, le=1)
    #: RAGMON_JUDGE_OVERSAMPLE_RATE: share of answers with unverifiable/failing claims sent.
    judge_oversample_rate: float = Field(default=0.5, ge=0, le=1)
    #: RAGMON_JUDGE_CALLS_PER_MINUTE: hard budget.
    judge_calls_per_minute: int = Field(default=60, ge=0)
    #: RAGMON_JUDGE_TOKENS_PER_HOUR: hard budget.
    judge_tokens_per_hour: int = Field(default=200_000, ge=0)
    #: RAGMON_JUDGE_CONCURRENCY: parallel LLM calls per worker. "auto" (the default): 1 for a
    #: server on this machine or a private network (one slot: a second call only queues and
    #: times out), 4 for a hosted API (monitor.judge.config).
    judge_concurrency: int | None = Field(default=None, ge=1)
    #: RAGMON_JUDGE_QUEUE_SIZE: bound of the in-worker judge queue.
    judge_queue_size: int = Field(default=100, ge=1)
    #: RAGMON_SEMANTIC_ENABLED: the judge agent also scores the claims it judges with the
    #: sentence-embedding model (the `[semantic]` extra) and records its opinion beside the
    #: judge's verdict; never on the check path (docs/semantic.md).
    semantic_enabled: bool = False
    #: RAGMON_JUDGE_TIMEOUT_SECONDS: per attempt. "auto" (the default): 120 for a local or
    #: private-network server (a CPU takes tens of seconds per call), 30 for a hosted API.
    judge_timeout_seconds: float | None = Field(default=None, gt=0)
    #: RAGMON_JUDGE_BATCH_SIZE: claim/evidence pairs per judge call (seed 001 §5.3: 5).
    judge_batch_size: int = Field(default=5, ge=1, le=20)
    #: RAGMON_JUDGE_CONFIDENCE_THRESHOLD: verdicts below (low=0.4, medium=0.7, high=0.9) escalate.
    judge_confidence_threshold: float = Field(default=0.7, ge=0, le=1)
    #: RAGMON_JUDGE_MAX_RETRIES: retries of a call answered 429 or 5xx.
    judge_max_retries: int = Field(default=3, ge=0, le=10)
    #: RAGMON_JUDGE_BACKOFF_SECONDS / RAGMON_JUDGE_BACKOFF_MAX_SECONDS: exponential backoff.
    judge_backoff_seconds: float = Field(default=0.5, ge=0)
    judge_backoff_max_seconds: float = Field(default=30.0, ge=0)
    #: RAGMON_JUDGE_DOWN_COOLDOWN_SECONDS: after a refused connection, calls fail fast this long.
    judge_down_cooldown_seconds: float = Field(default=30.0, ge=0)
    #: RAGMON_JUDGE_CACHE_SIZE / RAGMON_JUDGE_CACHE_TTL_SECONDS
    judge_cache_size: int = Field(default=10_000, ge=0)
    judge_cache_ttl_seconds: float = Field(default=86_400.0, gt=0)
    #: RAGMON_JUDGE_RESPONSE_FORMAT: how the reply's schema is asked for (docs/judge.md):
    #: auto (the default: tries the forms in turn, keeps the first the server accepts), openai
    #: (hosted OpenAI), json_schema (llama-server, vLLM, LM Studio, Ollama /v1),
    #: json_object_schema (llama-cpp-python), ollama (native /api/chat), json_object, none.
    judge_response_format: Literal[
        "auto", "openai", "json_schema", "json_object_schema", "ollama", "json_object", "none"
    ] = "auto"
    #: RAGMON_JUDGE_MAX_EVIDENCE_CHARS: evidence per claim sent to the judge.
    judge_max_evidence_chars: int = Field(default=6_000, ge=200)
    #: RAGMON_JUDGE_MAX_OUTPUT_TOKENS: ceiling of `max_tokens`; each call asks for what its
    #: bounded reply can need (~40 + 210 per pair), so a server never generates long past it.
    judge_max_output_tokens: int = Field(default=1_000, ge=64)
    #: RAGMON_JUDGE_PRICES: JSON {"model": [usd per 1M input tokens, usd per 1M output tokens]}.
    judge_prices: dict[str, tuple[float, float]] = Field(
        default_factory=lambda: {"gpt-4o-mini": (0.15, 0.60), "gpt-4o": (2.50, 10.00)}
    )

    # --- Human labels: the judge measured, the rates on the human scale (docs/estimation.md) --
    #: RAGMON_CALIBRATION_HORIZON_SECONDS: calibration pairs (a human label and the judge's
    #: verdict on one claim) count while the judge's verdict is younger than this (7 days).
    #: Longer than the window: judges drift slowly, windows are short; `judge_drift` checks it.
    calibration_horizon_seconds: float = Field(default=7 * 86_400.0, gt=0)
    #: RAGMON_CALIBRATION_MIN_LABELS: human labels of each class (positive and negative for
    #: the rate) before the human-scale figures replace the judge's scale (30).
    calibration_min_labels: int = Field(default=30, ge=1)
    #: RAGMON_JUDGED_CLAIMS_KEPT: judged claims a worker remembers to pair a late human label
    #: with the judge's verdict (in memory, newest kept).
    judged_claims_kept: int = Field(default=100_000, ge=0)
    # --- Grafana / alerts --------------------------------------------------------------------
    #: RAGMON_GRAFANA_URL: e.g. http://127.0.0.1:3000 (empty: alerts go to the log).
    grafana_url: str | None = None
    #: RAGMON_GRAFANA_TOKEN (secret): service-account token.
    grafana_token: SecretStr | None = None
    #: RAGMON_GRAFANA_ORG_ID
    grafana_org_id: int = 1
    #: RAGMON_GRAFANA_FOLDER: folder title for dashboards and alert rules.
    grafana_folder: str = "ragmon"
    #: RAGMON_RULES_FILE: YAML alert rules; empty = built-in defaults.
    rules_file: str | None = None
    #: RAGMON_EVAL_DIR: the folder of labelled dev sets `ragmon eval --alerts` draws claims from
    #: when given none (empty = ../shared/eval/dev).
    eval_dir: str | None = None
    #: RAGMON_GRAFANA_TIMEOUT_SECONDS: per HTTP call; a slow Grafana never blocks the stream.
    grafana_timeout_seconds: float = Field(default=5.0, gt=0)
    #: RAGMON_GRAFANA_DATASOURCE_UID: the Prometheus data source the alert rules query.
    grafana_datasource_uid: str = "ragmon-prometheus"
    #: RAGMON_GRAFANA_QUEUE_SIZE: pending notifications kept while Grafana is down.
    grafana_queue_size: int = Field(default=100, ge=1)

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
            return 1 if usable_cpus() >= 2 else 0
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
