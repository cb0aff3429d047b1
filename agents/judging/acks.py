"""Acks of `judge-requests` messages in offset order, each once the judge is done with it.

The judge finishes requests out of order (several calls in flight; a request dropped on a full
queue is done at once). Faust (faust-streaming 0.15.3) commits the highest run of acked offsets
and lets one missing offset through: with C in flight and C+1 acked it commits C+2, and on a
partition never committed it skips the check altogether. An ack out of order could therefore
commit past a request still in flight, which a killed worker would then lose. So a message is
acked only when it and every earlier message this worker took from its partition are done:
Faust only ever sees acks in offset order.

Before a rebalance or a stop (agents.kafka.handback) the unfinished messages are handed back:
forgotten here and in the consumer's unacked set, never acked, so the commit stops at the first
of them and the next owner reads them again. A request that finishes after that is not acked.
"""

from __future__ import annotations

from collections import OrderedDict
from typing import Any

import structlog

from agents.kafka import handback

log = structlog.get_logger("ragmon.judge")


class InOrderAcks:
    """Outstanding messages per partition, in the order the agent took them (offset order)."""

    def __init__(self) -> None:
        # partition → offset → [event, done]; a dict keeps insertion (= offset) order
        self._open: dict[Any, OrderedDict[int, list[Any]]] = {}

    def __len__(self) -> int:
        return sum(len(q) for q in self._open.values())

    def take(self, event: Any) -> Any:
        """Track `event`; returns the callback that marks it done."""
        message = event.message
        tp, offset = message.tp, message.offset
        entry = [event, False]
        self._open.setdefault(tp, OrderedDict())[offset] = entry

        def done() -> None:
            queue = self._open.get(tp)
            if queue is None or queue.get(offset) is not entry:
                return  # handed back meanwhile: the next owner's, never acked here
            entry[1] = True
            while queue:
                first = next(iter(queue.values()))
                if not first[1]:
                    break  # an earlier request is not done: the acks wait for it
                queue.popitem(last=False)
                try:
                    first[0].ack()
                except Exception:  # an ack that fails must not stop the judge's workers
                    log.exception("judge request ack failed")

        return done

    def release(self, consumer: Any) -> int:
        """Hand every outstanding message back (never acked); returns how many."""
        messages = [e[0].message for q in self._open.values() for e in q.values()]
        self._open.clear()
        if messages:
            handback.forget(consumer, messages)
        return len(messages)
