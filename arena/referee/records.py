"""The records the match runner (`arena.referee.match`) writes into a replay: a seat's, a hand's
and the replay itself, built from the runner's book-keeping (no trio, no bots)."""

from __future__ import annotations

import datetime
import os
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from arena.games.api import Deal, GameState, HandOutcome
from arena.games.match import hand_leader
from arena.referee.seat import Seat
from arena.replay import (
    REPLAY_FORMAT,
    DealRecord,
    HandEvent,
    HandOutcomeRecord,
    HandRecord,
    Replay,
    Retirement,
    SeatRecord,
    Status,
)
from protocol import messages as m

if TYPE_CHECKING:
    from arena.referee.match import MatchConfig

#: Captured stderr kept in the replay per seat.
REPLAY_STDERR_CHARS = 16384


def replay_record(
    config: MatchConfig,
    seats: Sequence[Seat],
    hands: list[HandRecord],
    started: datetime.datetime,
    duration_s: float,
    result: Any,
) -> Replay:
    """The replay of a match played with ``config`` (started at ``started``, lasting
    ``duration_s``) whose hands so far are ``hands``."""
    return Replay(
        format=REPLAY_FORMAT,
        protocol=m.PROTOCOL_VERSION,
        game=config.game.name,
        rules=config.game.rules_dict(config.rules),
        players=config.players,
        seed=config.seed,
        match=m.MatchLength(target=config.length.target, hands=config.length.hands),
        time=m.TimeControl(
            startup_ms=config.time.startup_ms,
            move_ms=config.time.move_ms,
            bank_ms=config.time.bank_ms,
        ),
        seats=[seat_record(s) for s in seats],
        hands=hands,
        result=result,
        started_at=started.isoformat(timespec="seconds"),
        duration_s=duration_s,
        policy=config.policy,
        sandbox=config.sandbox_settings if config.sandbox is not None else None,
        max_stdout_bytes=config.max_stdout_bytes,
        max_line_bytes=config.max_line_bytes,
        workdir=os.getcwd(),
    )


def hand_record(
    number: int,
    hand: GameState,
    events: list[HandEvent],
    after: list[HandEvent],
    deal: Deal | None = None,
) -> HandRecord:
    """Hand ``number`` as it stands (``hand``), with its events and the retirements recorded
    after it (``after``: those of seats that failed to take its ``hand_end``); ``deal`` is the
    hand's ``deal()`` when the caller has it already."""
    if deal is None:
        deal = hand.deal()
    leader = hand_leader(hand)
    return HandRecord(
        hand_number=number,
        deal=DealRecord(hands=[list(h) for h in deal.hands], boneyard=list(deal.boneyard)),
        leader=leader if leader is not None else -1,
        events=events,
        outcome=outcome_record(hand.outcome()),
        retired_after=[e for e in after if isinstance(e, Retirement)],
    )


def seat_record(seat: Seat) -> SeatRecord:
    """A seat's record: its bot, how it ended, and its stderr (that of processes it ran before a
    restart first, the whole cut to its last `REPLAY_STDERR_CHARS`)."""
    failure = seat.failure
    stderr = "".join(f"{text}[arena: the bot was restarted here]\n" for text in seat.earlier_stderr)
    stderr += seat.stderr
    if len(stderr) > REPLAY_STDERR_CHARS:
        stderr = "[...]\n" + stderr[-REPLAY_STDERR_CHARS:]
    return SeatRecord(
        seat=seat.seat,
        command=seat.command,
        name=seat.name,
        status=failure.status if failure else Status.OK,
        detail=failure.detail if failure else "",
        failure=failure,
        stderr=stderr,
        folder=None if seat.spec.cwd is None else os.path.abspath(seat.spec.cwd),
        arena_name=seat.spec.name,
        strikes=seat.strikes,
        restarts=seat.restarts,
    )


def outcome_record(o: HandOutcome | None) -> HandOutcomeRecord | None:
    """A hand's outcome as the replay records it (``None`` while the hand is not over)."""
    if o is None:
        return None
    scores = list(o.scores)
    return HandOutcomeRecord(o.kind.value, list(o.winners), list(o.award), scores, list(o.pips))
