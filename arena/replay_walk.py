"""Walk a replay through the engine, event by event, checking it as it goes.

The one traversal of a replay: ``arena verify`` runs it to the end, the viewers turn its steps
into pictures. Nothing here decides a rule: every position comes from applying the recorded
events through the same match layer and engine the referee used, and every recorded fact (deal,
leader, legality, awards, result) is compared with what they compute. The first difference
raises :class:`ReplayMismatch`, naming the hand and event.
"""

from __future__ import annotations

import enum
from collections.abc import Iterator
from dataclasses import dataclass

from arena.games.api import HandOutcome, IllegalMoveError, Move
from arena.games.match import Match, hand_leader, start_match
from arena.games.tiles import Tile
from arena.policy import substitute_move
from arena.replay import (
    Action,
    HandEvent,
    HandOutcomeRecord,
    HandRecord,
    Replay,
    Restart,
    ResultRecord,
    Retirement,
)
from arena.replay_settings import ReplaySettingsError, match_settings
from arena.wire import move_from_wire, move_to_wire


class ReplayMismatch(ValueError):
    """The replay disagrees with the engine; the message names the first discrepancy."""


class WalkKind(enum.Enum):
    """What a step of the walk is."""

    HAND_START = "hand_start"  #: a hand was dealt (``match`` as dealt)
    MOVE = "move"  #: a recorded move was applied
    RETIRE = "retire"  #: a seat was retired (during a hand, or after one ended)
    RESTART = "restart"  #: a seat's bot crashed and was started again (the match unchanged)
    HAND_END = "hand_end"  #: a hand ended (``match`` still shows the finished hand)
    MATCH_END = "match_end"  #: the match is over (``match.result`` is set)


@dataclass(frozen=True, slots=True)
class WalkStep:
    """One step of the walk: the match after the event, and the event.

    Attributes:
        kind: what happened.
        hand_number: the hand it belongs to (``None`` for the match end).
        match: the match after the event.
        seat: who moved, was retired, or leads (``HAND_START``: the seat to lead, or in a game
            with an automatic opening the seat whose tile the opening laid).
        move: for ``MOVE``, the engine move; ``action`` is its replay record.
        drawn: for a draw, the tile drawn.
        retirement: for ``RETIRE``, its replay record.
        restart: for ``RESTART``, its replay record.
        outcome: for ``HAND_END``, the engine's outcome of the hand.
    """

    kind: WalkKind
    hand_number: int | None
    match: Match
    seat: int | None = None
    move: Move | None = None
    action: Action | None = None
    drawn: Tile | None = None
    retirement: Retirement | None = None
    restart: Restart | None = None
    outcome: HandOutcome | None = None


def start_of(replay: Replay) -> Match:
    """The match as it stood before hand 1, seats that failed at start-up retired."""
    return _start(replay)[0]


def _start(replay: Replay) -> tuple[Match, bool]:
    """:func:`start_of`, and whether the game's hands open automatically (its plugin says)."""
    try:
        settings = match_settings(replay)
    except ReplaySettingsError as error:
        raise ReplayMismatch(f"the replay's settings are invalid: {error}") from None
    try:
        match = start_match(
            settings.game, settings.rules, replay.players, replay.seed, settings.length
        )
    except ValueError as error:  # rules that do not fit this number of players, say
        raise ReplayMismatch(f"the replay's settings are invalid: {error}") from None
    startup = [
        s.seat for s in replay.seats if s.failure is not None and s.failure.phase == "startup"
    ]
    return match.retire(*startup), settings.game.automatic_opening


def walk_replay(replay: Replay) -> Iterator[WalkStep]:
    """Yield every step of ``replay`` in order, checking each against the engine.

    Raises:
        ReplayMismatch: at the first discrepancy.
    """
    follower = ReplayFollower(replay)
    for record in replay.hands:
        yield follower.hand_start(record)
        for event in record.events:
            yield follower.event(event)
        ended = follower.hand_end(record.outcome)
        yield from ended
        for retirement in record.retired_after if ended else ():
            yield follower.event(retirement)
    yield follower.match_end(replay.result, len(replay.hands))


class ReplayFollower:
    """The walk of a replay as it is recorded, one record at a time, with the same checks.

    :func:`walk_replay` drives it over a whole replay; a live watcher (``arena.serve``) drives
    it as a match's events arrive. ``header`` gives the settings, the seed and the seats'
    start-up failures (its hands and result are not read). Each method returns the step (or
    steps) of what it was given.
    """

    def __init__(self, header: Replay) -> None:
        self.match, self._automatic = _start(header)
        self._seed = header.seed
        self._record: HandRecord | None = None
        self._led = False
        self._index = 0
        self._ended = False  # the current hand ended: a retirement now is one after its end

    def hand_start(self, record: HandRecord) -> WalkStep:
        """A hand was dealt (its record's deal and leader are checked; its events not read)."""
        step = _hand_start(self.match, record, self._seed, self._automatic)
        self._record, self._led, self._index, self._ended = record, self._automatic, 0, False
        return step

    def event(self, event: HandEvent) -> WalkStep:
        """One recorded event of the current hand, or a retirement after its end."""
        record = self._record
        if record is None:
            raise ReplayMismatch("an event is recorded before the first hand")
        number = record.hand_number
        if self._ended:
            if not isinstance(event, Retirement):
                raise ReplayMismatch(f"hand {number}: an event is recorded after its end")
            step = _retire(self.match, event, number, f"hand {number}, after its end")
        else:
            self._index += 1
            where = f"hand {number}, event {self._index}"
            if isinstance(event, Action):
                if not self._led and event.seat != record.leader:
                    raise ReplayMismatch(
                        f"{where}: leader recorded as seat {record.leader}, "
                        f"but seat {event.seat} led"
                    )
                self._led = True
                step = _move(self.match, event, where, self._seed)
            elif isinstance(event, Restart):
                step = _restart(self.match, event, number, where)
            else:
                step = _retire(self.match, event, number, where)
        self.match = step.match
        return step

    def hand_end(self, outcome: HandOutcomeRecord | None) -> list[WalkStep]:
        """The current hand's recorded outcome (``None``: forfeited during it): its step, or
        none for a forfeited hand."""
        assert self._record is not None
        recorded = _hand_end(self.match, outcome, f"hand {self._record.hand_number}")
        self._ended = True
        if recorded is None:
            return []
        step = WalkStep(WalkKind.HAND_END, self._record.hand_number, self.match, outcome=recorded)
        self.match = self.match.next_hand()
        return [step]

    def match_end(self, result: ResultRecord, hands: int) -> WalkStep:
        """The recorded result, after ``hands`` hands."""
        if not self.match.over:
            raise ReplayMismatch(f"the replay stops after {hands} hands but the match was not over")
        _check_result(self.match, result)
        return WalkStep(WalkKind.MATCH_END, None, self.match)


def _hand_start(match: Match, record: HandRecord, seed: int, automatic: bool) -> WalkStep:
    where = f"hand {record.hand_number}"
    if match.over:
        raise ReplayMismatch(f"{where} is recorded, but the match was already over")
    if record.hand_number != match.hand_number:
        raise ReplayMismatch(f"{where} is recorded where hand {match.hand_number} was due")
    deal = match.hand.deal()
    dealt = ([list(h) for h in deal.hands], list(deal.boneyard))
    if dealt != (record.deal.hands, list(record.deal.boneyard)):
        raise ReplayMismatch(f"{where}: the recorded deal is not the one seed {seed} gives")
    hand = match.hand
    if automatic:  # the seat of the automatic opening is the leader
        leader = hand_leader(hand)
        if leader != record.leader:
            raise ReplayMismatch(
                f"{where}: leader recorded as seat {record.leader}, but seat {leader} opened"
            )
        return WalkStep(WalkKind.HAND_START, record.hand_number, match, seat=leader)
    return WalkStep(WalkKind.HAND_START, record.hand_number, match, seat=hand.to_move)


def _move(match: Match, event: Action, where: str, seed: int) -> WalkStep:
    hand = match.hand
    if hand.outcome() is not None:
        raise ReplayMismatch(f"{where}: a move is recorded after the hand was over")
    if event.seat != hand.to_move:
        raise ReplayMismatch(
            f"{where}: seat {event.seat} moved, but seat {hand.to_move} was to move"
        )
    if event.strike is not None:
        if not event.auto or event.request_id is None or event.seat in match.retired:
            raise ReplayMismatch(
                f"{where}: a strike must be an automatic move of a seat in play, with the "
                "request it answers"
            )
    elif event.auto and event.seat not in match.retired:
        raise ReplayMismatch(
            f"{where}: an automatic move for seat {event.seat}, which was not retired"
        )
    try:
        move = move_from_wire(event.move)
    except ValueError as error:
        raise ReplayMismatch(f"{where}: unreadable move: {error}") from None
    if event.strike is not None:
        assert event.request_id is not None
        expected = substitute_move(seed, event.request_id, hand.legal_moves())
        if move != expected:
            raise ReplayMismatch(
                f"{where}: the move played for struck seat {event.seat} is {move}, but the "
                f"referee's seeded choice for request {event.request_id} is {expected}"
            )
    if move_to_wire(move) != event.move:
        raise ReplayMismatch(f"{where}: the move is not written in its canonical form")
    before = set(hand.view(event.seat).hand)
    try:
        after = match.apply(move)
    except IllegalMoveError as error:
        raise ReplayMismatch(f"{where}: seat {event.seat}: {error}") from None
    drawn = None
    if move.kind == "draw":
        drawn = next(t for t in after.hand.view(event.seat).hand if t not in before)
    return WalkStep(
        WalkKind.MOVE,
        match.hand_number,
        after,
        seat=event.seat,
        move=move,
        action=event,
        drawn=drawn,
    )


def _restart(match: Match, event: Restart, hand_number: int, where: str) -> WalkStep:
    if not 0 <= event.seat < match.players:
        raise ReplayMismatch(f"{where}: no seat {event.seat}")
    if event.seat in match.retired:
        raise ReplayMismatch(f"{where}: seat {event.seat} was restarted after it was retired")
    return WalkStep(WalkKind.RESTART, hand_number, match, seat=event.seat, restart=event)


def _retire(match: Match, event: Retirement, hand_number: int, where: str) -> WalkStep:
    if not 0 <= event.seat < match.players:
        raise ReplayMismatch(f"{where}: no seat {event.seat}")
    if event.seat in match.retired:
        raise ReplayMismatch(f"{where}: seat {event.seat} was retired already")
    return WalkStep(
        WalkKind.RETIRE,
        hand_number,
        match.retire(event.seat),
        seat=event.seat,
        retirement=event,
    )


def _hand_end(match: Match, recorded: HandOutcomeRecord | None, where: str) -> HandOutcome | None:
    outcome = match.hand.outcome()
    if recorded is None:
        if not match.over:
            raise ReplayMismatch(f"{where}: recorded as stopped, but the match was not forfeited")
        return None
    if outcome is None:
        raise ReplayMismatch(f"{where}: recorded as finished, but the hand is not over")
    computed = {
        "kind": outcome.kind.value,
        "winners": list(outcome.winners),
        "award": list(outcome.award),
        "scores": list(outcome.scores),
        "pips": list(outcome.pips),
    }
    for name, value in computed.items():
        if getattr(recorded, name) != value:
            raise ReplayMismatch(
                f"{where}: {name} recorded as {getattr(recorded, name)}, the engine says {value}"
            )
    return outcome


def _check_result(match: Match, recorded: ResultRecord) -> None:
    result = match.result
    assert result is not None
    computed = {
        "scores": list(result.scores),
        "winner": result.winner,
        "reason": result.reason,
        "ranking": list(result.ranking),
    }
    for name, value in computed.items():
        if getattr(recorded, name) != value:
            raise ReplayMismatch(
                f"match result: {name} recorded as {getattr(recorded, name)}, "
                f"the engine says {value}"
            )
