"""One logical call to the LLM judge over any OpenAI-compatible endpoint (the `openai` client).

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

What is asked (claims in batches, answers) and what is cached is monitor.judge.client's part.
"""

from __future__ import annotations

import asyncio
import random
import time
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

import openai
from openai.types.chat import ChatCompletion

from monitor.config.errors import JudgeError
from monitor.judge import formats
from monitor.judge.config import JudgeConfig, JudgeObserver, NullObserver
from monitor.judge.retry import backoff_delay, parse_retry_after
from monitor.judge.schema import ReplyInvalid
from monitor.judge.wire import finish_usage, read_completion, server_error_text
from monitor.sampling.policy import Budget

T = TypeVar("T")
# Temperature of the attempt after an unusable reply. At the configured 0.0 a server returns the
# identical reply to the identical request (measured: every SmolLM2 retry repeated its error).
RETRY_TEMPERATURE = 0.7
# The schema of one call, built for the form in use (forms differ in what they can enforce).
SchemaFor = Callable[[str], dict[str, Any]]


class CallFailed(JudgeError):
    def __init__(self, reason: str) -> None:
        super().__init__(f"judge call failed: {reason}", reason=reason)


class JudgeCaller:
    """The judge's connection: budget, retries, the structured-output form in use, the down
    cool-down and the outcome of every logical call (`logical_call`)."""

    def __init__(
        self,
        config: JudgeConfig,
        *,
        observer: JudgeObserver | None = None,
        budget: Budget | None = None,
        client: openai.AsyncOpenAI | None = None,
        clock: Callable[[], float] = time.monotonic,
        sleep: Callable[[float], Awaitable[None]] = asyncio.sleep,
        rng: Callable[[], float] = random.random,
    ) -> None:
        self.config = config
        self.observer: JudgeObserver = observer or NullObserver()
        self.budget = budget
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

    async def logical_call(
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
                raise CallFailed(refused)
        try:
            result = await self._attempts(model, messages, parse, schema_for, name_cap, spent)
        except CallFailed as exc:
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
            raise CallFailed("judge_down")
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
                    raise CallFailed("unverifiable") from None
                self.observer.retry(model, "timeout")
                continue
            except openai.APIConnectionError as exc:
                self._down_until = self._clock() + self.config.down_cooldown
                where = self.config.base_url or "https://api.openai.com/v1"
                self._report(model, "judge_down", f"cannot reach {where}: {exc}")
                raise CallFailed("judge_down") from None
            except openai.APIStatusError as exc:
                self.observer.attempt(model, self._clock() - start, 0, 0, 0.0)
                status = exc.status_code
                detail = server_error_text(status, exc.body, _text_of(exc), secrets)
                if status not in (401, 403, 404, 429) and formats.names_format(detail):
                    if self._switch_form(model, tried, detail):
                        self.observer.retry(model, "format_switch")
                        continue
                    self._report(model, "format_rejected", detail)
                    raise CallFailed("format_rejected") from None
                if status != 429 and status < 500:
                    self._report(model, "client_error", detail)
                    raise CallFailed("client_error") from None
                reason = "rate_limited" if status == 429 else "server_error"
                wait = parse_retry_after(dict(exc.response.headers), time.time())
                delay = backoff_delay(
                    retries, self.config.backoff, self.config.backoff_max, wait, self._rng
                )
                if retries >= self.config.max_retries or delay is None:
                    self._report(model, reason, detail)
                    raise CallFailed(reason) from None
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
                    raise CallFailed("judge_error") from None
                self.observer.retry(model, "invalid_reply")


def _text_of(exc: openai.APIStatusError) -> str | None:
    try:
        return exc.response.text
    except Exception:  # a streamed or closed response has no text to give
        return None
