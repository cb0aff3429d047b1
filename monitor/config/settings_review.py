"""The fields of the evidence page, the judge, the human labels and Grafana with its alerts: base
classes of the one frozen `Settings` (monitor/config/settings.py), which reads them from the
environment.
"""

from __future__ import annotations

from typing import Literal

from pydantic import AliasChoices, BaseModel, Field, SecretStr


class EvidenceFields(BaseModel):
    """The worker's evidence page, its tokens and the links alerts carry."""

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


class JudgeFields(BaseModel):
    """The LLM judge: its server, models, sampling, budgets, calls and cache."""

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


class HumanLabelFields(BaseModel):
    """Human labels measuring the judge; the rates on the human scale."""

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


class GrafanaFields(BaseModel):
    """Grafana, the alert rules and the labelled sets `ragmon eval --alerts` reads."""

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
