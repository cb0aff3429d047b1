"""Judge configuration, outcome labels and the observer the metrics layer implements. Pure."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Protocol

from monitor.judge.formats import is_local

#: Every value of ragmon_judge_requests_total{outcome}: one per logical call (after retries).
OUTCOMES: tuple[str, ...] = (
    "ok",  # a schema-valid reply
    "unverifiable",  # timed out twice: the claims are recorded as unverifiable
    "judge_error",  # unparseable or off-schema twice: no verdict at all
    "judge_down",  # connection refused / unreachable (and fast failures while it is down)
    "rate_limited",  # 429 after all retries, or a Retry-After beyond the backoff cap
    "server_error",  # 5xx after all retries
    "client_error",  # other 4xx (bad model name, auth): not retried
    "format_rejected",  # the server refused the structured-output form (every form, for auto)
    "budget_calls",  # refused locally: calls-per-minute budget spent
    "budget_tokens",  # refused locally: tokens-per-hour budget spent
)
#: Values of ragmon_judge_retries_total{reason}.
RETRY_REASONS: tuple[str, ...] = (
    "rate_limited",
    "server_error",
    "timeout",
    "invalid_reply",
    "format_switch",  # the server refused a response format; the next form is tried at once
)

#: Defaults that depend on where the model runs (RAGMON_JUDGE_TIMEOUT_SECONDS and
#: RAGMON_JUDGE_CONCURRENCY left at "auto"). A local server (llama.cpp, llama-cpp-python,
#: Ollama, LM Studio on a CPU) usually has one slot and takes tens of seconds per call; a
#: second concurrent call only queues behind the first and times out. A hosted API answers in
#: seconds and serves calls in parallel.
LOCAL_TIMEOUT, LOCAL_CONCURRENCY = 120.0, 1
HOSTED_TIMEOUT, HOSTED_CONCURRENCY = 30.0, 4


@dataclass(frozen=True, slots=True)
class JudgeConfig:
    base_url: str | None = None
    api_key: str | None = field(default=None, repr=False)
    model: str = "gpt-4o-mini"
    escalation_model: str | None = "gpt-4o"
    batch_size: int = 5
    confidence_threshold: float = 0.7
    timeout: float = 20.0
    max_retries: int = 3
    backoff: float = 0.5
    backoff_max: float = 30.0
    down_cooldown: float = 30.0
    response_format: str = "auto"
    max_output_tokens: int = 1_000
    temperature: float = 0.0
    max_in_flight: int = 4
    cache_size: int = 10_000
    cache_ttl: float = 86_400.0
    max_evidence_chars: int = 6_000
    prices: Mapping[str, tuple[float, float]] = field(default_factory=dict)

    @classmethod
    def from_settings(cls, settings: Any) -> JudgeConfig:
        key = settings.openai_api_key
        local = is_local(settings.openai_base_url)
        timeout = settings.judge_timeout_seconds
        concurrency = settings.judge_concurrency
        return cls(
            base_url=settings.openai_base_url,
            api_key=key.get_secret_value() if key is not None else None,
            model=settings.judge_model,
            escalation_model=_escalation(settings, local),
            batch_size=settings.judge_batch_size,
            confidence_threshold=settings.judge_confidence_threshold,
            timeout=timeout or (LOCAL_TIMEOUT if local else HOSTED_TIMEOUT),
            max_retries=settings.judge_max_retries,
            backoff=settings.judge_backoff_seconds,
            backoff_max=settings.judge_backoff_max_seconds,
            down_cooldown=settings.judge_down_cooldown_seconds,
            response_format=settings.judge_response_format,
            max_output_tokens=settings.judge_max_output_tokens,
            max_in_flight=concurrency or (LOCAL_CONCURRENCY if local else HOSTED_CONCURRENCY),
            cache_size=settings.judge_cache_size,
            cache_ttl=settings.judge_cache_ttl_seconds,
            max_evidence_chars=settings.judge_max_evidence_chars,
            prices=dict(settings.judge_prices),
        )

    def cost_usd(self, model: str, tokens_in: int, tokens_out: int) -> float:
        """Estimated cost from the price table (USD per million tokens); unknown models cost 0."""
        price_in, price_out = self.prices.get(model, (0.0, 0.0))
        return (tokens_in * price_in + tokens_out * price_out) / 1_000_000


def _escalation(settings: Any, local: bool) -> str | None:
    """The escalation model; none on a local server unless one was set: the default names a
    hosted model (gpt-4o) that a local server does not serve (Ollama answers 404, llama.cpp
    quietly re-asks the one model it has)."""
    if local and "escalation_model" not in getattr(settings, "model_fields_set", ()):
        return None
    return str(settings.escalation_model) or None


class JudgeObserver(Protocol):
    """Where the client reports what happened; the agents layer maps it onto Prometheus."""

    def call(self, model: str, outcome: str) -> None: ...

    def attempt(
        self, model: str, seconds: float, tokens_in: int, tokens_out: int, cost_usd: float
    ) -> None: ...

    def retry(self, model: str, reason: str) -> None: ...

    def cache(self, hit: bool) -> None: ...

    def invalid(self, model: str, reason: str) -> None:
        """A reply that was not a verdict, by INVALID_REASONS (each attempt)."""

    def problem(self, model: str, what: str, detail: str) -> None:
        """Something an operator must read: the server's error text (secrets removed) with the
        outcome or retry reason it led to, or a change of response format."""


class NullObserver:
    def call(self, model: str, outcome: str) -> None:
        pass

    def attempt(
        self, model: str, seconds: float, tokens_in: int, tokens_out: int, cost_usd: float
    ) -> None:
        pass

    def retry(self, model: str, reason: str) -> None:
        pass

    def cache(self, hit: bool) -> None:
        pass

    def invalid(self, model: str, reason: str) -> None:
        pass

    def problem(self, model: str, what: str, detail: str) -> None:
        pass
