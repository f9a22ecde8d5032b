"""The live viewer data: a match followed event by event shows what its replay's page shows,
and the public view hides every hand."""

from __future__ import annotations

from pathlib import Path

import msgspec
import pytest

from arena.games.match import EndReason
from arena.live_events import HandBegan, HandOver, LiveEvent, MatchBegan, MatchOver, Played
from arena.replay import Replay, ResultRecord, read_replay
from arena.serve.follow import LiveMatch
from arena.view.html import viewer_data

GOLDEN = Path(__file__).parent.parent / "data" / "golden"
REPLAYS = sorted(GOLDEN.glob("*.replay.json"))


def live_events(replay: Replay) -> list[LiveEvent]:
    """The live events the referee sent while it played ``replay``'s match."""
    seats = [
        msgspec.structs.replace(
            s, failure=s.failure if s.failure and s.failure.phase == "startup" else None
        )
        for s in replay.seats
    ]
    placeholder = ResultRecord([0] * replay.players, None, EndReason.HANDS, [])
    header = msgspec.structs.replace(replay, hands=[], seats=seats, result=placeholder)
    events: list[LiveEvent] = [MatchBegan(header)]
    for hand in replay.hands:
        events.append(
            HandBegan(msgspec.structs.replace(hand, events=[], outcome=None, retired_after=[]))
        )
        events += [Played(e) for e in hand.events]
        events.append(HandOver(hand.hand_number, hand.outcome))
        events += [Played(e) for e in hand.retired_after]
    events.append(MatchOver(replay.result, replay.seats, replay.duration_s))
    return events


@pytest.mark.parametrize("path", REPLAYS, ids=lambda p: p.name.split(".")[0])
def test_revealed_steps_are_the_replays(path: Path) -> None:
    """Followed event by event, a match's revealed steps are its replay page's steps."""
    replay = read_replay(path)
    live = LiveMatch(live_events(replay)[0])  # type: ignore[arg-type]
    for event in live_events(replay)[1:]:
        live.feed(event)
    assert live.step_data(0, reveal=True) == viewer_data(replay)["steps"]


@pytest.mark.parametrize("path", REPLAYS, ids=lambda p: p.name.split(".")[0])
def test_public_steps_hide_every_hand_until_it_ends(path: Path) -> None:
    """The public view shows no tile of a hand but at a hand's end, no drawn tile, no debug
    note, no stderr."""
    replay = read_replay(path)
    events = live_events(replay)
    live = LiveMatch(events[0])  # type: ignore[arg-type]
    for event in events[1:]:
        live.feed(event)
    for item in live.step_data(0, reveal=False):
        board = item["board"]
        if board is not None and item["kind"] not in ("hand_end", "match_end"):
            assert all(tile is None for hand in board["hands"] for tile in hand)
        assert item.get("drawn") is None
        assert item.get("debug") is None
        assert "public_headline" not in item
    data = live.viewer_data(reveal=False)
    assert all(seat["stderr_tail"] == "" for seat in data["seats"])
