"""The LLM judge client: what is asked of the judge and what is remembered.

Claims go in batches (at most MAX_BATCH pairs a call, batches of one call concurrent), each pair's
verdict cached by prompt version, model, claim and evidence; a verdict below the confidence
threshold is asked again of the escalation model. Whole answers (seed 004) are judged one call
each. How one call is made (budget, retries, structured-output forms, the down cool-down) is
monitor.judge.call's part; this class adds the judging to it.
"""

from __future__ import annotations

import asyncio
import random
import time
from collections.abc import Awaitable, Callable, Sequence
from typing import Any

import openai

from monitor.judge import formats
from monitor.judge.cache import TTLCache, cache_key
from monitor.judge.call import CallFailed, JudgeCaller
from monitor.judge.config import JudgeConfig, JudgeObserver
from monitor.judge.outcome import AnswerOutcome, PairOutcome
from monitor.judge.prompt import (
    ANSWER_PROMPT_VERSION,
    MAX_BATCH,
    Pair,
    build_answer_prompt,
    build_batch_prompt,
    estimate_pairs_tokens,
    estimate_tokens,
    reply_token_cap,
)
from monitor.judge.schema import AnswerVerdict, parse_answer_reply, parse_batch_reply
from monitor.sampling.policy import Budget

__all__ = ["AnswerOutcome", "JudgeClient", "PairOutcome"]


class JudgeClient(JudgeCaller):
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
        super().__init__(
            config,
            observer=observer,
            budget=budget,
            client=client,
            clock=clock,
            sleep=sleep,
            rng=rng,
        )
        self.cache: TTLCache[Any] = cache or TTLCache(config.cache_size, config.cache_ttl)

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
        # version 2's key for a pair without a quote; with one, the quote and its version too
        return cache_key(pair.version, model, *pair.texts)

    async def _batch(
        self, model: str, pairs: Sequence[Pair], keys: dict[int, str], indexes: list[int]
    ) -> list[PairOutcome]:
        chunk = [pairs[i] for i in indexes]
        if self.down:  # the outcome _attempts would give, without a prompt nobody sends
            self.observer.call(model, "judge_down")
            return [PairOutcome("judge_down", model=model)] * len(chunk)
        prompt = build_batch_prompt(chunk)
        try:
            verdicts = await self.logical_call(
                model,
                prompt.as_list(),
                lambda text: parse_batch_reply(text, prompt.claim_ids, prompt.instructions),
                estimate_pairs_tokens(chunk),
                lambda form: formats.batch_schema(form, prompt.claim_ids),
                ("judge_batch", reply_token_cap(len(chunk), self.config.max_output_tokens)),
            )
        except CallFailed as exc:
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
            verdict = await self.logical_call(
                model,
                prompt.as_list(),
                lambda text: parse_answer_reply(text, prompt.instructions),
                estimate,
                formats.answer_schema,
                ("judge_answer", reply_token_cap(2, self.config.max_output_tokens)),
            )
        except CallFailed as exc:
            return AnswerOutcome(exc.reason, None, model)
        self.cache.put(key, verdict)
        return AnswerOutcome("ok", verdict, model)
