"""Judge-request acks go to Faust in offset order per partition, whatever order the judge
finishes in (Faust would commit past one missing offset), and never for a message handed back."""

from __future__ import annotations

from typing import Any

from agents.judging.acks import InOrderAcks


class Message:
    def __init__(self, tp: str, offset: int) -> None:
        self.tp, self.offset = tp, offset


class Event:
    def __init__(self, tp: str, offset: int, acked: list[tuple[str, int]]) -> None:
        self.message = Message(tp, offset)
        self._acked = acked

    def ack(self) -> bool:
        self._acked.append((self.message.tp, self.message.offset))
        return True


class Consumer:
    def __init__(self, unacked: set[Any]) -> None:
        self._unacked_messages = unacked


def test_acks_wait_for_every_earlier_offset_of_the_partition() -> None:
    acked: list[tuple[str, int]] = []
    acks = InOrderAcks()
    done = {o: acks.take(Event("p0", o, acked)) for o in (5, 6, 7)}
    other = acks.take(Event("p1", 0, acked))
    done[6]()  # finished first, but 5 is still in flight: Faust must not see 6 yet
    assert acked == []
    other()  # another partition does not wait for p0
    assert acked == [("p1", 0)]
    done[5]()
    assert acked == [("p1", 0), ("p0", 5), ("p0", 6)]
    done[7]()
    done[7]()  # a second call acks nothing more
    assert acked == [("p1", 0), ("p0", 5), ("p0", 6), ("p0", 7)]
    assert len(acks) == 0


def test_handed_back_messages_are_forgotten_and_never_acked() -> None:
    acked: list[tuple[str, int]] = []
    acks = InOrderAcks()
    events = [Event("p0", o, acked) for o in (1, 2)]
    done = [acks.take(e) for e in events]
    foreign = object()
    consumer = Consumer({*(e.message for e in events), foreign})
    assert acks.release(consumer) == 2
    assert consumer._unacked_messages == {foreign}
    done[0]()
    done[1]()  # finished after the hand-back: the next owner's
    assert acked == [] and len(acks) == 0
    later = acks.take(Event("p0", 3, acked))  # the partition came back: acks start afresh
    later()
    assert acked == [("p0", 3)]


def test_a_failing_ack_is_logged_not_raised() -> None:
    class Broken(Event):
        def ack(self) -> bool:
            raise RuntimeError("consumer gone")

    acked: list[tuple[str, int]] = []
    acks = InOrderAcks()
    first = acks.take(Broken("p0", 1, acked))
    second = acks.take(Event("p0", 2, acked))
    first()
    second()
    assert acked == [("p0", 2)]  # the queue moved on past the failed one
