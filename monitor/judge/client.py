"""The LLM judge client: any OpenAI-compatible chat endpoint through the `openai` async client.

What it guarantees (seed 001 §10, DESIGN §4.8): 429 and 5xx are retried with exponential backoff
and jitter that honours Retry-After; a timeout is retried once and then the claims are
`unverifiable`; a reply that is not exactly the schema is retried once and then counted as
`judge_error`, never turned into a verdict; a refused connection marks the judge down and calls
fail fast (no network) until the cool-down passes. Every logical call ends in exactly one outcome
reported to the observer; the openai client's own retries are off so these rules are the only ones.
"""

from __future__ import annotations

import asyncio
import random
import time
from collections.abc import Awaitable, Callable, Sequence
from typing import Any, TypeVar

import openai
from openai.types.chat import ChatCompletion

from monitor.errors import JudgeError
from monitor.judge.cache import TTLCache, cache_key
from monitor.judge.config import JudgeConfig, JudgeObserver, NullObserver
from monitor.judge.outcome import AnswerOutcome, PairOutcome
from monitor.judge.prompt import (
    ANSWER_PROMPT_VERSION,
    MAX_BATCH,
    PROMPT_VERSION,
    Pair,
    build_answer_prompt,
    build_batch_prompt,
    estimate_pairs_tokens,
    estimate_tokens,
)
from monitor.judge.retry import backoff_delay, parse_retry_after
from monitor.judge.schema import (
    ANSWER_REPLY_SCHEMA,
    BATCH_REPLY_SCHEMA,
    AnswerVerdict,
    ReplyInvalid,
    parse_answer_reply,
    parse_batch_reply,
    response_format,
)
from monitor.sampling import Budget

T = TypeVar("T")
__all__ = ["AnswerOutcome", "JudgeClient", "PairOutcome"]


class _CallFailed(JudgeError):
    def __init__(self, reason: str) -> None:
        super().__init__(f"judge call failed: {reason}", reason=reason)


class JudgeClient:
    def __init__(
        self,
        config: JudgeConfig,
        *,
        observer: JudgeObserver | None = None,
        budget: Budget | None = None,
        cache: TTLCache[Any] | None = None,
        client: openai.AsyncOpenAI | None = None,
        clock: Callable[[], float] = time.monotonic,
        sleep: Callable[[float], Awaitable[None]] = asyncio.sleep,
        rng: Callable[[], float] = random.random,
    ) -> None:
        self.config = config
        self.observer: JudgeObserver = observer or NullObserver()
        self.budget = budget
        self.cache: TTLCache[Any] = cache or TTLCache(config.cache_size, config.cache_ttl)
        self._client = client or openai.AsyncOpenAI(
            base_url=config.base_url,
            api_key=config.api_key or "unused",  # local servers ignore it; the SDK needs one
            max_retries=0,
            timeout=config.timeout,
        )
        # The body goes out through the SDK's documented raw `post`: `chat.completions.create`
        # first walks every message and the JSON schema through its TypedDict transform (~1 ms
        # of CPU per call on the loop the check path shares), which plain JSON does not need.
        # Same endpoint, headers, timeout and error classes.
        self._post = self._client.post
        self._clock = clock
        self._sleep = sleep
        self._rng = rng
        self._slots = asyncio.Semaphore(config.max_in_flight)
        self._down_until = 0.0

    async def aclose(self) -> None:
        await self._client.close()

    @property
    def down(self) -> bool:
        return self._clock() < self._down_until

    # --- claims ------------------------------------------------------------------------------

    async def judge(self, pairs: Sequence[Pair]) -> list[PairOutcome]:
        """One outcome per pair, same order; low-confidence verdicts re-asked of the escalation model."""
        results = await self._judge_with(self.config.model, pairs, range(len(pairs)))
        strong = self.config.escalation_model
        if strong and strong != self.config.model:
            low = [
                i
                for i, r in enumerate(results)
                if r.verdict is not None
                and r.verdict.confidence_value < self.config.confidence_threshold
            ]
            if low:
                second = await self._judge_with(strong, pairs, low)
                for i in low:
                    if second[i].verdict is not None:  # a failed escalation keeps the first verdict
                        results[i] = PairOutcome(
                            "ok", second[i].verdict, strong, True, second[i].cached
                        )
        return results

    async def _judge_with(
        self, model: str, pairs: Sequence[Pair], indexes: Sequence[int] | range
    ) -> list[PairOutcome]:
        results = [PairOutcome("skipped")] * len(pairs)
        misses: list[int] = []
        keys: dict[int, str] = {}  # hashed once: the lookup's key is also the store's
        for i in indexes:
            key = keys[i] = self._key(model, pairs[i])
            hit = self.cache.get(key)
            self.observer.cache(hit is not None)
            if hit is not None:
                results[i] = PairOutcome("ok", hit, model, cached=True)
            else:
                misses.append(i)
        size = max(1, min(self.config.batch_size, MAX_BATCH))
        chunks = [misses[k : k + size] for k in range(0, len(misses), size)]
        done: Sequence[list[PairOutcome]]
        if len(chunks) == 1:  # no task to create and schedule for the common single batch
            done = [await self._batch(model, pairs, keys, chunks[0])]
        else:
            done = await asyncio.gather(*(self._batch(model, pairs, keys, c) for c in chunks))
        for chunk, outcomes in zip(chunks, done, strict=True):
            for i, outcome in zip(chunk, outcomes, strict=True):
                results[i] = outcome
        return results

    def _key(self, model: str, pair: Pair) -> str:
        return cache_key(PROMPT_VERSION, model, pair.claim, pair.evidence)

    async def _batch(
        self, model: str, pairs: Sequence[Pair], keys: dict[int, str], indexes: list[int]
    ) -> list[PairOutcome]:
        chunk = [pairs[i] for i in indexes]
        if self.down:  # the outcome _attempts would give, without a prompt nobody sends
            self.observer.call(model, "judge_down")
            return [PairOutcome("judge_down", model=model)] * len(chunk)
        prompt = build_batch_prompt(chunk)
        try:
            verdicts = await self._logical_call(
                model,
                prompt.as_list(),
                lambda text: parse_batch_reply(text, prompt.claim_ids),
                estimate_pairs_tokens(chunk),
                response_format(self.config.response_format, BATCH_REPLY_SCHEMA, "judge_batch"),
            )
        except _CallFailed as exc:
            return [PairOutcome(exc.reason, model=model)] * len(chunk)
        out = []
        for claim_id, i in zip(prompt.claim_ids, indexes, strict=True):
            verdict = verdicts[claim_id]
            self.cache.put(keys[i], verdict)
            out.append(PairOutcome("ok", verdict, model))
        return out

    # --- answers (seed 004) ------------------------------------------------------------------

    async def judge_answer(
        self, question: str | None, answer: str, reference: str
    ) -> AnswerOutcome:
        model = self.config.model
        key = cache_key(ANSWER_PROMPT_VERSION, model, question or "", answer, reference)
        hit = self.cache.get(key)
        self.observer.cache(hit is not None)
        if isinstance(hit, AnswerVerdict):
            return AnswerOutcome("ok", hit, model)
        prompt = build_answer_prompt(question, answer, reference)
        estimate = sum(estimate_tokens(m["content"]) for m in prompt.messages) + 200
        try:
            verdict = await self._logical_call(
                model,
                prompt.as_list(),
                parse_answer_reply,
                estimate,
                response_format(self.config.response_format, ANSWER_REPLY_SCHEMA, "judge_answer"),
            )
        except _CallFailed as exc:
            return AnswerOutcome(exc.reason, None, model)
        self.cache.put(key, verdict)
        return AnswerOutcome("ok", verdict, model)

    # --- one logical call: budget, retries, outcome ------------------------------------------

    async def _logical_call(
        self,
        model: str,
        messages: list[dict[str, Any]],
        parse: Callable[[str | None], T],
        estimate: int,
        fmt: dict[str, Any] | None,
    ) -> T:
        spent = [0]
        if self.budget is not None:
            refused = self.budget.take(1, estimate)
            if refused is not None:
                self.observer.call(model, refused)
                raise _CallFailed(refused)
        try:
            result = await self._attempts(model, messages, parse, fmt, spent)
        except _CallFailed as exc:
            self.observer.call(model, exc.reason)
            raise
        finally:
            if self.budget is not None:
                self.budget.settle_tokens(estimate, spent[0])
        self.observer.call(model, "ok")
        return result

    async def _attempts(
        self,
        model: str,
        messages: list[dict[str, Any]],
        parse: Callable[[str | None], T],
        fmt: dict[str, Any] | None,
        spent: list[int],
    ) -> T:
        if self.down:
            raise _CallFailed("judge_down")
        timeouts = invalid = retries = 0
        kwargs: dict[str, Any] = {
            "model": model,
            "messages": messages,
            "temperature": self.config.temperature,
            "max_tokens": self.config.max_output_tokens,
        }
        if fmt is not None:
            kwargs["response_format"] = fmt
        while True:
            start = self._clock()
            try:
                async with self._slots:
                    reply = await self._post(
                        "/chat/completions", body=kwargs, cast_to=ChatCompletion
                    )
            except openai.APITimeoutError:
                self.observer.attempt(model, self._clock() - start, 0, 0, 0.0)
                timeouts += 1
                if timeouts > 1:
                    raise _CallFailed("unverifiable") from None
                self.observer.retry(model, "timeout")
                continue
            except openai.APIConnectionError:
                self._down_until = self._clock() + self.config.down_cooldown
                raise _CallFailed("judge_down") from None
            except openai.APIStatusError as exc:
                self.observer.attempt(model, self._clock() - start, 0, 0, 0.0)
                status = exc.status_code
                if status != 429 and status < 500:
                    raise _CallFailed("client_error") from None
                reason = "rate_limited" if status == 429 else "server_error"
                wait = parse_retry_after(dict(exc.response.headers), time.time())
                delay = backoff_delay(
                    retries, self.config.backoff, self.config.backoff_max, wait, self._rng
                )
                if retries >= self.config.max_retries or delay is None:
                    raise _CallFailed(reason) from None
                retries += 1
                self.observer.retry(model, reason)
                await self._sleep(delay)
                continue
            except (openai.APIResponseValidationError, ValueError):
                reply = None  # a 200 whose body is not a chat completion
            text, finish, tokens_in, tokens_out = _read(reply, messages)
            spent[0] += tokens_in + tokens_out
            self.observer.attempt(
                model,
                self._clock() - start,
                tokens_in,
                tokens_out,
                self.config.cost_usd(model, tokens_in, tokens_out),
            )
            try:
                if finish == "length":
                    raise ReplyInvalid("reply cut off at max_tokens")
                return parse(text)
            except ReplyInvalid:
                invalid += 1
                if invalid > 1:
                    raise _CallFailed("judge_error") from None
                self.observer.retry(model, "invalid_reply")


def _read(reply: Any, messages: list[dict[str, Any]]) -> tuple[str | None, str | None, int, int]:
    """Content, finish reason and token usage of a completion, tolerating odd servers: usage is
    estimated from the text when the server does not report it."""
    text: str | None = None
    finish: str | None = None
    try:
        choice = reply.choices[0]
        text = choice.message.content
        finish = choice.finish_reason
    except (AttributeError, IndexError, TypeError):
        pass
    usage = getattr(reply, "usage", None)
    tokens_in = getattr(usage, "prompt_tokens", None)
    tokens_out = getattr(usage, "completion_tokens", None)
    if not isinstance(tokens_in, int):
        tokens_in = sum(estimate_tokens(str(m.get("content", ""))) for m in messages)
    if not isinstance(tokens_out, int):
        tokens_out = estimate_tokens(text or "")
    return (text if isinstance(text, str) else None), finish, tokens_in, tokens_out
