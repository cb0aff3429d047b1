"""The LLM judge client: any OpenAI-compatible chat endpoint through the `openai` async client.

What it guarantees (seed 001 §10, DESIGN §4.8): 429 and 5xx are retried with exponential backoff
and jitter that honours Retry-After; a timeout is retried once and then the claims are
`unverifiable`; a reply that is not exactly the schema is retried once and then counted as
`judge_error`, never turned into a verdict; a refused connection marks the judge down and calls
fail fast (no network) until the cool-down passes. Every logical call ends in exactly one outcome
reported to the observer; the openai client's own retries are off so these rules are the only ones.

A 4xx is the request's fault and is never retried as it is. An error that names the response
format (any status: llama-cpp-python answers an unknown `response_format.type` with a 500) can
never succeed either: with `auto` the next structured-output form (monitor.judge.formats) is
tried at once and kept for later calls; otherwise the call ends as `format_rejected`. Every
failure's server text, secrets removed, goes to the observer and to `problems`.
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
from monitor.judge import formats
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
    reply_token_cap,
)
from monitor.judge.retry import backoff_delay, parse_retry_after
from monitor.judge.schema import (
    AnswerVerdict,
    ReplyInvalid,
    parse_answer_reply,
    parse_batch_reply,
)
from monitor.judge.wire import finish_usage, read_completion, server_error_text
from monitor.sampling import Budget

T = TypeVar("T")
__all__ = ["AnswerOutcome", "JudgeClient", "PairOutcome"]
# Temperature of the attempt after an unusable reply. At the configured 0.0 a server returns the
# identical reply to the identical request (measured: every SmolLM2 retry repeated its error).
RETRY_TEMPERATURE = 0.7
# The schema of one call, built for the form in use (forms differ in what they can enforce).
SchemaFor = Callable[[str], dict[str, Any]]


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
        self._forms = formats.fallbacks(config.response_format, config.base_url)
        self._form_at = 0  # index into _forms: the form that works, once found, for every call
        #: outcome or retry reason → the server's last words about it (for `ragmon eval`)
        self.problems: dict[str, str] = {}

    @property
    def form(self) -> str:
        """The structured-output form sent now (monitor.judge.formats)."""
        return self._forms[self._form_at]

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
                lambda text: parse_batch_reply(text, prompt.claim_ids, prompt.instructions),
                estimate_pairs_tokens(chunk),
                lambda form: formats.batch_schema(form, prompt.claim_ids),
                ("judge_batch", reply_token_cap(len(chunk), self.config.max_output_tokens)),
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
                lambda text: parse_answer_reply(text, prompt.instructions),
                estimate,
                formats.answer_schema,
                ("judge_answer", reply_token_cap(2, self.config.max_output_tokens)),
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
        schema_for: SchemaFor,
        name_cap: tuple[str, int],
    ) -> T:
        spent = [0]
        if self.budget is not None:
            refused = self.budget.take(1, estimate)
            if refused is not None:
                self.observer.call(model, refused)
                raise _CallFailed(refused)
        try:
            result = await self._attempts(model, messages, parse, schema_for, name_cap, spent)
        except _CallFailed as exc:
            self.observer.call(model, exc.reason)
            raise
        finally:
            if self.budget is not None:
                self.budget.settle_tokens(estimate, spent[0])
        self.observer.call(model, "ok")
        return result

    def _report(self, model: str, what: str, detail: str) -> None:
        self.problems[what] = detail
        self.observer.problem(model, what, detail)

    def _switch_form(self, model: str, tried: int, detail: str) -> bool:
        """The server refused form number `tried`: move on to the next one (once, however many
        calls saw the refusal). False when there is none left."""
        if tried != self._form_at:
            return True  # a concurrent call has already moved on
        if self._form_at + 1 >= len(self._forms):
            return False
        self._form_at += 1
        self._report(model, "format_switch", f"{self._forms[tried]} → {self.form}: {detail}")
        return True

    async def _attempts(
        self,
        model: str,
        messages: list[dict[str, Any]],
        parse: Callable[[str | None], T],
        schema_for: SchemaFor,
        name_cap: tuple[str, int],
        spent: list[int],
    ) -> T:
        if self.down:
            raise _CallFailed("judge_down")
        timeouts = invalid = retries = 0
        secrets = (self.config.api_key,)
        while True:
            tried = self._form_at
            form = self._forms[tried]
            name, cap = name_cap
            # the same greedy request gives the same reply: after an unusable one, sample
            temperature = self.config.temperature if not invalid else RETRY_TEMPERATURE
            path, body = formats.request(
                form, model, messages, schema_for(form), name, temperature, cap,
                self.config.base_url,
            )  # fmt: skip
            start = self._clock()
            try:
                async with self._slots:
                    if form == "ollama":
                        raw = await self._post(path, body=body, cast_to=object)
                    else:
                        raw = await self._post(path, body=body, cast_to=ChatCompletion)
            except openai.APITimeoutError:
                self.observer.attempt(model, self._clock() - start, 0, 0, 0.0)
                timeouts += 1
                detail = f"no reply within {self.config.timeout:g} s"
                if timeouts > 1:
                    self._report(model, "unverifiable", detail)
                    raise _CallFailed("unverifiable") from None
                self.observer.retry(model, "timeout")
                continue
            except openai.APIConnectionError as exc:
                self._down_until = self._clock() + self.config.down_cooldown
                where = self.config.base_url or "https://api.openai.com/v1"
                self._report(model, "judge_down", f"cannot reach {where}: {exc}")
                raise _CallFailed("judge_down") from None
            except openai.APIStatusError as exc:
                self.observer.attempt(model, self._clock() - start, 0, 0, 0.0)
                status = exc.status_code
                detail = server_error_text(status, exc.body, _text_of(exc), secrets)
                if status not in (401, 403, 404, 429) and formats.names_format(detail):
                    if self._switch_form(model, tried, detail):
                        self.observer.retry(model, "format_switch")
                        continue
                    self._report(model, "format_rejected", detail)
                    raise _CallFailed("format_rejected") from None
                if status != 429 and status < 500:
                    self._report(model, "client_error", detail)
                    raise _CallFailed("client_error") from None
                reason = "rate_limited" if status == 429 else "server_error"
                wait = parse_retry_after(dict(exc.response.headers), time.time())
                delay = backoff_delay(
                    retries, self.config.backoff, self.config.backoff_max, wait, self._rng
                )
                if retries >= self.config.max_retries or delay is None:
                    self._report(model, reason, detail)
                    raise _CallFailed(reason) from None
                retries += 1
                self.observer.retry(model, reason)
                await self._sleep(delay)
                continue
            except (openai.APIResponseValidationError, ValueError):
                raw = None  # a 200 whose body is not a chat completion
            if form == "ollama":
                text, finish, tin, tout = formats.read_ollama(raw)
                text, finish, tokens_in, tokens_out = finish_usage(
                    text, finish, tin, tout, messages
                )
            else:
                text, finish, tokens_in, tokens_out = read_completion(raw, messages)
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
                    raise ReplyInvalid("reply cut off at max_tokens", "cut_off")
                return parse(text)
            except ReplyInvalid as exc:
                self.observer.invalid(model, exc.kind)
                invalid += 1
                if invalid > 1:
                    self._report(model, "judge_error", f"{exc.kind}: {exc}")
                    raise _CallFailed("judge_error") from None
                self.observer.retry(model, "invalid_reply")


def _text_of(exc: openai.APIStatusError) -> str | None:
    try:
        return exc.response.text
    except Exception:  # a streamed or closed response has no text to give
        return None
