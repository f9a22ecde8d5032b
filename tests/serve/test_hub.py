"""The hub: the events a followed match publishes, their numbering and resumption, and the
ring that bounds what a slow client can hold back."""

from __future__ import annotations

import json
from collections import deque
from pathlib import Path

import pytest

from arena.replay import Action, read_replay
from arena.serve.hub import BehindError, Hub
from tests.serve.test_follow import GOLDEN, live_events

REPLAY = GOLDEN / "matador-2p-hands.replay.json"


def fed_hub(path: Path = REPLAY) -> Hub:
    hub = Hub()
    for event in live_events(read_replay(path)):
        hub.feed(7, event, at=1000.0)
    return hub


def test_a_followed_match_publishes_its_moves_and_its_end() -> None:
    """One ``move`` event per move with its seat and time, hands' starts and ends, and the
    match's end; the last ``step`` is the number of the match's viewer steps."""
    replay = read_replay(REPLAY)
    hub = fed_hub()
    kinds = [p.kind for p in hub.ring]
    moves = [e for h in replay.hands for e in h.events if isinstance(e, Action)]
    assert kinds.count("move") == len(moves) == hub.moves
    assert kinds[0] == "match_started"
    assert kinds[-1] == "match_finished"
    assert kinds.count("hand_started") == kinds.count("hand_ended") == len(replay.hands)
    first = next(p for p in hub.ring if p.kind == "move")
    assert first.payload["seat"] == moves[0].seat
    assert first.payload["time"] == 1000.0
    assert "hand" in first.payload
    live = hub.match(7)
    assert live is not None
    assert hub.ring[-1].payload["step"] == len(live.steps)
    assert hub.state()["finished"][0]["scores"] == replay.result.scores


def test_an_event_is_one_sse_event_with_its_id() -> None:
    """Each event is ``id: TOKEN-N``, ``event: KIND`` and one ``data:`` line of JSON."""
    hub = fed_hub()
    item = hub.ring[1]
    lines = item.sse(hub.token).decode().split("\n")
    assert lines[0] == f"id: {hub.token}-{item.seq}"
    assert lines[1] == f"event: {item.kind}"
    assert json.loads(lines[2].removeprefix("data: "))["event"] == item.kind
    assert lines[3:] == ["", ""]


def test_last_event_id_resumes_after_it_or_says_reset() -> None:
    """An id of this run resumes after it; another run's, or a bad one, cannot (``None``)."""
    hub = fed_hub()
    assert hub.resume_from(f"{hub.token}-5") == 5
    assert [p.seq for p in hub.since(5)][:2] == [6, 7]
    assert hub.resume_from(None) == hub.seq
    assert hub.resume_from("0000dead-5") is None
    assert hub.resume_from(f"{hub.token}-x") is None
    assert hub.resume_from(f"{hub.token}-{hub.seq + 1}") is None


def test_a_client_behind_the_ring_is_behind() -> None:
    """A cursor older than the ring's oldest event cannot be served: the client is dropped."""
    hub = Hub()
    hub.ring = deque(maxlen=5)
    for event in live_events(read_replay(REPLAY)):
        hub.feed(1, event)
    assert len(hub.ring) == 5
    with pytest.raises(BehindError):
        hub.since(1)
    assert hub.resume_from(f"{hub.token}-1") is None
    assert len(hub.since(hub.seq - 2)) == 2
