"""The fields of the Kafka connection, the worker, the checks and the audit trail: base classes
of the one frozen `Settings` (monitor/config/settings.py), which reads them from the environment.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field, SecretStr


class KafkaFields(BaseModel):
    """The broker, its security, the topics and the consumer group."""

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
    #: RAGMON_PRODUCER_BATCH_BYTES: the most bytes of records the worker's producer puts in one
    #: batch per partition (Faust's producer_max_batch_size; its own default: 16,384). The
    #: producer (aiokafka) holds one open batch per partition and makes the next record wait
    #: until a full one has been sent, a broker round trip: at 16 KiB an audit record of ~3.7 kB
    #: waits every fourth. Must fit the broker's and the topics' message.max.bytes (Kafka's
    #: default: 1 MiB). docs/guarantees.md, session 19, has the figures.
    producer_batch_bytes: int = Field(default=262_144, ge=16_384, le=1_000_000)
    #: RAGMON_DATA_DIR: Faust table/state directory.
    data_dir: str = "/tmp/ragmon-data"


class WorkerFields(BaseModel):
    """The worker process: its web server, check processes, batches, apps, windows, logs."""

    # --- worker ------------------------------------------------------------------------------
    #: RAGMON_METRICS_HOST: address the /metrics endpoint binds to.
    metrics_host: str = "127.0.0.1"
    #: RAGMON_METRICS_PORT: port of the worker's web server (/metrics).
    metrics_port: int = Field(default=6066, ge=0, le=65535)
    #: RAGMON_CONCURRENCY: parallel instances of the check agent per partition set.
    concurrency: int = Field(default=1, ge=1)
    #: RAGMON_CHECK_PROCESSES: processes that run the checks beside the worker's own, on other
    #: cores (0 = in the worker process: one core, ~0.45 of a bare Faust agent's rate). "auto"
    #: (the default): 2 when this process may run on two or more CPUs (affinity mask and cgroup
    #: CPU quota), else 0: an answer's checks cost about twice the worker's own work on it, so
    #: two check processes keep pace with one worker; on two CPUs the three share the cores
    #: (measured on two: 0.93-0.94 of a pass-through against 0.74 with one). See docs/guarantees.md.
    check_processes: int = Field(default="auto", ge=0, le=64, validate_default=True)
    #: RAGMON_CHECK_HELP: when the check processes fall behind (two batches each out and one
    #: more), the worker checks the next batch itself instead of waiting for theirs (its spare
    #: CPU; an answer that crashes the checker then crashes the worker). "auto" (the default):
    #: on when the worker and its check processes leave a usable CPU idle (one check process on
    #: two CPUs), off when they already outnumber the CPUs (two on two: measured, helping there
    #: only stalls the worker).
    check_help: bool = Field(default="auto", validate_default=True)
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


class CheckFields(BaseModel):
    """The cheap checks' limits (CheckOptions)."""

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


class AuditFields(BaseModel):
    """What the audit trail and the dead letters keep."""

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
    #: RAGMON_AUDIT_PASSAGES: how a record at RAGMON_AUDIT_TEXT=all keeps each cited passage.
    #: reference: its place only (document id and the character `span` of the passage in the
    #: document); the evidence page cuts the passage and its context out of the answer the
    #: record's `source` points to, while the answers topic still holds it (~2 kB less per
    #: audited answer). copy: the passage (up to RAGMON_AUDIT_CITED_TEXT_CHARS) and its context
    #: in the record itself, readable without the answers topic (the only form before this
    #: setting existed).
    audit_passages: Literal["reference", "copy"] = "reference"
    #: RAGMON_AUDIT_ANSWER_CHARS: longest answer kept whole; a longer one keeps its claims only.
    audit_answer_chars: int = Field(default=4_000, ge=0)
    #: RAGMON_REDACT: comma-separated regexes (or "email", "phone") redacted in audit texts.
    redact: str = ""
    #: RAGMON_DLQ_MAX_VALUE_BYTES: original bytes kept in a dead letter (larger: truncated,
    #: with size and sha256 of the whole); keeps DLQ records under Kafka's 1 MB default.
    dlq_max_value_bytes: int = Field(default=524_288, ge=0)
