"""Messages a worker took but will not finish: handed back to Kafka instead of waited for.

An agent that acks a message only when its slow work is done (the judge agent acks a request
when the LLM has answered, so a killed worker's queued requests are read again by the next
owner) holds unacked messages for seconds to minutes. Faust (faust-streaming 0.15.3) waits
for every unacked message before a rebalance or a stop goes on (`App._consumer_wait_empty`,
with no deadline), which would hold a rebalance for the whole backlog of a slow judge.

`on_wait_empty(app, release)` runs `release(consumer)` just before that wait. The callback
gives up what its agent will not finish: it drops that work and removes the messages from
the consumer's unacked set without acking them. As long as the agent acks in offset order
(agents/judging/acks.py: Faust itself would commit past one missing offset), the commit stops
at the first of them and the next owner of the partition reads them again: at-least-once, like
the checks.

It reaches into Faust's private `_consumer_wait_empty` and `_unacked_messages`, so it is
installed only on the Faust version agents.kafka.faust_fixes checks for.

Shown by: tests/agents/judging/test_runner_acks.py (the hand-back before Faust's wait) and
tests/integration/test_rates_stream.py::test_the_estimate_survives_a_killed_worker (a worker
killed with judge requests queued: the next owner judges every one of them; with acks on
intake the survivor's window stays short of labels and the test fails).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from agents.kafka.faust_fixes import check_version

Release = Callable[[Any], None]


def on_wait_empty(app: Any, release: Release) -> None:
    """Run `release(consumer)` before each wait for unacked messages (rebalance and stop)."""
    check_version()
    hooks: list[Release] | None = getattr(app, "_ragmon_release_hooks", None)
    if hooks is None:
        hooks = []
        app._ragmon_release_hooks = hooks
        original = app._consumer_wait_empty

        async def wait_empty(consumer: Any, logger: Any) -> None:
            for hook in list(hooks):
                hook(consumer)
            await original(consumer, logger)

        app._consumer_wait_empty = wait_empty
    hooks.append(release)


def forget(consumer: Any, messages: Iterable[Any]) -> None:
    """Remove `messages` from what `consumer` waits for, without acking them."""
    unacked = consumer._unacked_messages
    for message in messages:
        unacked.discard(message)
