"""A remote match's live events (`arena.cluster.live`): batched on the worker, decoded on the
coordinator into exactly the events a local worker forwards, in order, the match's end in the
last batch; the interval widens for a large cluster."""

from __future__ import annotations

import sys
import zlib

import pytest
import trio

from arena.cluster.live import LiveBatches, batch_interval, events_of, play_live
from arena.games.matador import MATADOR, MatadorRules
from arena.games.match import MatchLength
from arena.live_events import HandBegan, HandOver, MatchBegan, MatchOver, Played
from arena.referee.clock import TimeLimits
from arena.referee.match import MatchConfig, play_match
from arena.replay import Action, Replay
from arena.tournament.jobs import encode_events
from tests.helpers import REPO

RANDOM = f"{sys.executable} {REPO / 'sample_bots' / 'random_bot.py'}"
GREEDY = f"{sys.executable} {REPO / 'sample_bots' / 'greedy.py'}"


def _config() -> MatchConfig:
    return MatchConfig(
        game=MATADOR,
        rules=MatadorRules(),
        players=2,
        seed=11,
        length=MatchLength(target=None, hands=2),
        time=TimeLimits(move_ms=2000),
    )


def test_a_live_match_sends_its_replay_as_events_in_batches() -> None:
    """The batches' events, in order and for the job's table, are the match's: its header,
    each hand's start and every recorded event as the replay holds them, each hand's end, the
    result last; the replay is the one `play_match` makes; more than one batch was sent."""
    sent: list[bytes] = []
    batches = LiveBatches(table=5, send=sent.append, every_s=0.02)
    replay = trio.run(play_live, _config(), [GREEDY, RANDOM], batches)

    events = [e for batch in sent for e in events_of(batch)]
    assert {e.table for e in events} == {5}
    kinds = [type(e.event) for e in events]
    assert kinds[0] is MatchBegan
    assert kinds[-1] is MatchOver
    assert kinds.count(HandBegan) == kinds.count(HandOver) == len(replay.hands) == 2
    played = [e.event.event for e in events if isinstance(e.event, Played)]
    assert played == [event for hand in replay.hands for event in hand.events]
    over = events[-1].event
    assert isinstance(over, MatchOver)
    assert (over.result, over.seats) == (replay.result, replay.seats)
    assert isinstance(events_of(sent[-1])[-1].event, MatchOver)
    assert len(sent) > 1
    assert batches.outbox == []
    alone = trio.run(play_match, _config(), [GREEDY, RANDOM])
    assert _moves(replay) == _moves(alone)


def _moves(replay: Replay) -> list[list[object]]:
    return [[e.move for e in h.events if isinstance(e, Action)] for h in replay.hands]


def test_an_error_of_the_referee_is_raised_as_itself() -> None:
    """What `play_match` raises reaches the task as it is (the task reports it as the match's
    error), not inside an exception group."""
    batches = LiveBatches(table=0, send=lambda _data: None, every_s=0.01)
    with pytest.raises(ValueError, match="1 bots for 2 players"):
        trio.run(play_live, _config(), [RANDOM], batches)


def test_nothing_is_sent_for_an_empty_outbox() -> None:
    sent: list[bytes] = []
    LiveBatches(table=0, send=sent.append, every_s=1.0).flush()
    assert sent == []


def test_a_batch_that_is_not_one_is_left_out_line_by_line() -> None:
    """Nonsense never stops a run: a batch that does not decompress gives nothing; a line that
    is not a live event is skipped and the others kept."""
    sample: list[bytes] = []
    batches = LiveBatches(table=3, send=sample.append, every_s=1.0)
    trio.run(play_live, _config(), [RANDOM, RANDOM], batches)
    lines = zlib.decompress(sample[0]).splitlines()
    mixed = zlib.compress(b"\n".join([lines[0], b"{not json", b'{"tag": "started", "table": 3}']))
    assert [type(e.event) for e in events_of(mixed)] == [MatchBegan]
    assert events_of(b"not compressed") == []
    assert events_of(zlib.compress(encode_events([]))) == []


@pytest.mark.parametrize(
    ("capacity", "seconds"), [(1, 0.1), (40, 0.1), (100, 0.25), (1000, 2.5), (8000, 20.0)]
)
def test_the_interval_widens_with_the_matches_at_once(capacity: int, seconds: float) -> None:
    assert batch_interval(capacity) == seconds
