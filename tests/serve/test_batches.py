"""The stream's batches: every up-to-date client of ``/events`` is written the same bytes
once per batch, a client that came between two cuts is given the rest of that batch first,
and the batches never hold more than the ring."""

from __future__ import annotations

from collections import deque
from typing import Any

import pytest
import trio
import trio.testing

from arena.live_events import LiveEvent
from arena.replay import read_replay
from arena.serve.app import SEND_TIMEOUT_S, App
from arena.serve.hub import BATCH_S, Batch, BehindError, Hub
from tests.serve.test_follow import GOLDEN, live_events

EVENTS = live_events(read_replay(GOLDEN / "matador-2p-hands.replay.json"))


def _feed(hub: Hub, events: list[LiveEvent], match: int = 1) -> None:
    for event in events:
        hub.feed(match, event, at=1000.0)


def _text(hub: Hub, first: int, last: int) -> bytes:
    """The SSE text of events ``first`` to ``last``, one by one."""
    return b"".join(p.sse(hub.token) for p in hub.ring if first <= p.seq <= last)


def _two_batches() -> tuple[Hub, Batch, Batch]:
    """A hub fed 10 events, cut, fed 15 more, cut again: the hub and its two batches."""
    hub = Hub()
    _feed(hub, EVENTS[:10])
    first = hub.cut()
    _feed(hub, EVENTS[10:25])
    second = hub.cut()
    assert first is not None
    assert second is not None
    return hub, first, second


def test_a_cut_makes_the_new_events_one_batch_of_their_text() -> None:
    """A cut holds every event published since the last one, its text theirs in order; with
    nothing new there is no batch."""
    hub, first, second = _two_batches()
    assert (first.first, first.last, second.first, second.last) == (1, 10, 11, 25)
    assert first.sse(hub.token) == _text(hub, 1, 10)
    assert second.sse(hub.token) == _text(hub, 11, 25)
    assert hub.cut() is None
    assert hub.batched == hub.seq == 25


def test_up_to_date_clients_are_given_the_batch_itself() -> None:
    """A cursor at the end of a batch gets the next batches' own bytes objects: the same for
    every client, made once."""
    hub, first, second = _two_batches()
    parts, cursor = hub.stream_since(10)
    again, _ = hub.stream_since(10)
    assert cursor == 25
    assert len(parts) == 1
    assert parts[0] is again[0] is second.sse(hub.token)
    both, _ = hub.stream_since(0)
    assert both[0] is first.sse(hub.token)
    assert both[1] is second.sse(hub.token)


def test_events_not_cut_yet_wait_for_the_next_batch() -> None:
    """Events published since the last cut are not given to anyone until they are cut."""
    hub = Hub()
    _feed(hub, EVENTS[:10])
    assert hub.stream_since(0) == ([], 0)
    hub.cut()
    assert hub.stream_since(10) == ([], 10)


def test_a_client_between_two_cuts_gets_the_rest_of_its_batch_then_whole_batches() -> None:
    """A cursor inside a batch (a client that connected or resumed between two cuts) is
    given that batch's later events one by one, then the following batches as they are."""
    hub = Hub()
    _feed(hub, EVENTS[:10])
    hub.cut()
    _feed(hub, EVENTS[10:25])
    hub.cut()
    _feed(hub, EVENTS[25:30])
    third = hub.cut()
    assert third is not None
    parts, cursor = hub.stream_since(4)
    assert cursor == 30
    assert b"".join(parts) == _text(hub, 5, 30)
    assert parts[-1] is third.sse(hub.token)


def test_batches_never_hold_more_than_the_ring() -> None:
    """A batch whose oldest events left the ring is let go; a cursor older than the ring is
    behind (the client is dropped)."""
    hub = Hub()
    hub.ring = deque(maxlen=8)
    for start in range(0, len(EVENTS), 3):
        _feed(hub, EVENTS[start : start + 3])
        hub.cut()
    assert len(hub.ring) == 8
    assert all(b.first >= hub.ring[0].seq for b in hub.batches)
    assert sum(len(b.events) for b in hub.batches) <= 8
    with pytest.raises(BehindError):
        hub.stream_since(1)
    parts, cursor = hub.stream_since(hub.ring[0].seq - 1)
    assert cursor == hub.seq
    assert b"".join(parts) == _text(hub, hub.ring[0].seq, hub.seq)


def _scope(query: bytes = b"") -> dict[str, Any]:
    return {
        "type": "http",
        "method": "GET",
        "path": "/events",
        "raw_path": b"/events",
        "query_string": query,
        "headers": [],
    }


async def _never() -> dict[str, Any]:
    await trio.sleep_forever()
    raise AssertionError("unreachable")


def test_every_client_is_written_one_chunk_per_batch_the_same_bytes() -> None:
    """Two ``/events`` clients are each written one chunk per batch, the batch's own bytes
    object; a client that connects between two cuts gets the rest of that batch first."""
    hub = Hub()
    app = App(hub, None)
    bodies: list[list[bytes]] = [[], [], []]

    def recorder(index: int) -> Any:
        async def send(message: dict[str, Any]) -> None:
            if message["type"] == "http.response.body":
                bodies[index].append(message["body"])

        return send

    async def main() -> None:
        async with trio.open_nursery() as nursery:
            for index in (0, 1):
                nursery.start_soon(app, _scope(), _never, recorder(index))
            await trio.testing.wait_all_tasks_blocked()
            _feed(hub, EVENTS[:10])
            hub.cut()
            await trio.testing.wait_all_tasks_blocked()
            _feed(hub, EVENTS[10:20])
            nursery.start_soon(app, _scope(), _never, recorder(2))  # between two cuts
            await trio.testing.wait_all_tasks_blocked()
            _feed(hub, EVENTS[20:30])
            hub.cut()
            await trio.testing.wait_all_tasks_blocked()
            nursery.cancel_scope.cancel()

    trio.run(main)
    first, second = hub.batches
    assert [len(b) for b in bodies] == [3, 3, 2]  # ``retry:``, then one write per batch
    assert bodies[0][1] is bodies[1][1] is first.sse(hub.token)
    assert bodies[0][2] is bodies[1][2] is second.sse(hub.token)
    assert bodies[2][1] == _text(hub, 21, 30)  # connected after event 20
    assert hub.writes == 5


def test_the_server_cuts_a_batch_every_twentieth_of_a_second() -> None:
    """Events fed at once are batched within :data:`BATCH_S`, a twentieth of a second."""
    assert BATCH_S == 0.05
    hub = Hub()
    cut_at: list[float] = []

    async def main() -> None:
        async with trio.open_nursery() as nursery:
            nursery.start_soon(hub.cut_batches)
            await trio.sleep(0.01)
            _feed(hub, EVENTS[:5])
            await hub.wait(0)
            cut_at.append(trio.current_time())
            nursery.cancel_scope.cancel()

    trio.run(main, clock=trio.testing.MockClock(autojump_threshold=0))
    assert cut_at == [pytest.approx(0.05)]
    assert hub.batched == 5


def test_a_dropped_client_is_no_longer_counted_as_served_once_it_is_counted_dropped() -> None:
    """The moment ``/api/stats`` counts a stalled client as dropped it no longer counts it
    among the clients served (CI once read ``dropped`` 1 with both clients still counted),
    and a client is counted once however its stream ends."""
    hub = Hub()
    app = App(hub, None)
    seen: list[tuple[int, int]] = []  # (clients, dropped) while the stream winds down

    async def stalls(message: dict[str, Any]) -> None:
        if message["type"] == "http.response.body":
            await trio.sleep(SEND_TIMEOUT_S + 1)  # the write went through too late

    async def receive() -> dict[str, Any]:
        try:
            await trio.sleep_forever()
        finally:
            seen.append((app.clients, hub.dropped))
        raise AssertionError("unreachable")

    async def reads(message: dict[str, Any]) -> None:
        pass

    async def main() -> None:
        async with trio.open_nursery() as nursery:
            nursery.start_soon(app, _scope(), _never, reads)
            nursery.start_soon(app, _scope(), receive, stalls)
            await trio.testing.wait_all_tasks_blocked()
            await trio.sleep(SEND_TIMEOUT_S + 2)
            seen.append((app.clients, hub.dropped))
            nursery.cancel_scope.cancel()
        seen.append((app.clients, hub.dropped))

    trio.run(main, clock=trio.testing.MockClock(autojump_threshold=0))
    assert seen == [(1, 1), (1, 1), (0, 1)]
