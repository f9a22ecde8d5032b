"""What a match tells its watchers while it is played: the live events of one match.

The referee (`arena.referee.match.play_match`) calls an observer with these, in order, when
one is given (``observer=``); without one it builds none of them. They are the replay's own
records as they come into being, so a watcher that follows them holds a growing replay:

- :class:`MatchBegan` once the bots answered ``ready``: the replay's header (no hands yet),
- :class:`HandBegan` per hand: its record with the deal and the leader (no events yet),
- :class:`Played` per recorded event of the hand (a move, a restart, a retirement),
- :class:`HandOver` when the hand's outcome is known (``None``: forfeited during the hand);
  a retirement that follows belongs to the next hand (the replay's ``retired_after``),
- :class:`MatchOver` with the result and the seats' final records.

They carry what the replay carries, hands and the boneyard included: hidden information. A
watcher shows them to people only through the public view (`arena.serve.follow`); no event
ever goes to a bot. Worker processes forward them to the tournament's parent as JSON lines
(`arena.tournament.jobs.JobEvent`), which is why they are msgspec structs.
"""

from __future__ import annotations

from collections.abc import Callable

import msgspec

from arena.replay import HandEvent, HandOutcomeRecord, HandRecord, Replay, ResultRecord, SeatRecord


class MatchBegan(msgspec.Struct, frozen=True, tag="match_start"):
    """The match's header: a replay without hands (its ``result`` is not the result yet)."""

    replay: Replay


class HandBegan(msgspec.Struct, frozen=True, tag="hand_start"):
    """A hand was dealt: its record, with the deal and the leader and no events."""

    hand: HandRecord


class Played(msgspec.Struct, frozen=True, tag="event", gc=False):
    """One event of the current hand, as the replay records it."""

    event: HandEvent


class HandOver(msgspec.Struct, frozen=True, tag="hand_end"):
    """The current hand ended (``outcome`` ``None``: the match was forfeited during it)."""

    hand_number: int
    outcome: HandOutcomeRecord | None


class MatchOver(msgspec.Struct, frozen=True, tag="match_end"):
    """The match is over: its result and every seat's final record."""

    result: ResultRecord
    seats: list[SeatRecord]
    duration_s: float


LiveEvent = MatchBegan | HandBegan | Played | HandOver | MatchOver

#: What the referee calls with each event (it must return at once: it never awaits).
MatchObserver = Callable[[LiveEvent], None]

_ENCODER = msgspec.json.Encoder()
_DECODER = msgspec.json.Decoder(LiveEvent)


def encode_event(event: LiveEvent) -> bytes:
    """An event as JSON (no newline)."""
    return _ENCODER.encode(event)


def decode_event(data: bytes) -> LiveEvent:
    """An event from JSON (raises ``msgspec`` errors on nonsense)."""
    return _DECODER.decode(data)
