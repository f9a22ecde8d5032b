"""Re-run a replay through the engine and check every deal, move, award and the result.

The verifier decides nothing by itself: it replays the recorded events through the same match
layer and engine the referee used, and compares what they compute with what the file says.
"""

from __future__ import annotations

from dataclasses import dataclass

from arena.games.match import Match, MatchLength, start_match
from arena.games.registry import get_game
from arena.replay import Action, Replay
from arena.wire import move_from_wire, move_to_wire


@dataclass(frozen=True)
class VerifyReport:
    """The verdict: ``ok``, what was checked, and the first discrepancy (``error``) if any."""

    ok: bool
    checked: str
    error: str | None = None


class _Mismatch(Exception):
    pass


def verify_replay(replay: Replay) -> VerifyReport:
    """Check ``replay`` against the engine; the report names the first discrepancy."""
    hands = moves = 0
    try:
        try:
            game = get_game(replay.game)
            rules = game.parse_rules(dict(replay.rules))
            length = MatchLength(target=replay.match.target, hands=replay.match.hands)
            match = start_match(game, rules, replay.players, replay.seed, length)
        except ValueError as error:
            raise _Mismatch(f"the replay's settings are invalid: {error}") from None
        if len(replay.seats) != replay.players:
            raise _Mismatch(f"{len(replay.seats)} seats recorded for {replay.players} players")
        startup_failures = [
            s.seat for s in replay.seats if s.failure is not None and s.failure.phase == "startup"
        ]
        match = match.retire(*startup_failures)
        for record in replay.hands:
            where = f"hand {record.hand_number}"
            if match.over:
                raise _Mismatch(f"{where} is recorded, but the match was already over")
            if record.hand_number != match.hand_number:
                raise _Mismatch(f"{where} is recorded where hand {match.hand_number} was due")
            deal = match.hand.deal()
            if [list(h) for h in deal.hands] != record.deal.hands or list(deal.boneyard) != list(
                record.deal.boneyard
            ):
                raise _Mismatch(
                    f"{where}: the recorded deal is not the one seed {replay.seed} gives"
                )
            if record.leader != match.hand.to_move:
                raise _Mismatch(
                    f"{where}: leader recorded as seat {record.leader}, "
                    f"the rules make seat {match.hand.to_move} lead"
                )
            for index, event in enumerate(record.events, start=1):
                if isinstance(event, Action):
                    match = _check_action(match, event, f"{where}, event {index}")
                    moves += 1
                else:
                    match = match.retire(event.seat)
            match = _check_hand_end(match, record.outcome, where)
            hands += 1
        if not match.over:
            raise _Mismatch(f"the replay stops after hand {hands} but the match was not over")
        _check_result(match, replay)
    except _Mismatch as mismatch:
        return VerifyReport(False, f"{hands} hands, {moves} moves checked", str(mismatch))
    return VerifyReport(
        True, f"{hands} hands, {moves} moves, scores {list(replay.result.scores)} verified"
    )


def _check_action(match: Match, event: Action, where: str) -> Match:
    hand = match.hand
    if hand.outcome() is not None:
        raise _Mismatch(f"{where}: a move is recorded after the hand was over")
    if event.seat != hand.to_move:
        raise _Mismatch(f"{where}: seat {event.seat} moved, but seat {hand.to_move} was to move")
    try:
        move = move_from_wire(event.move)
    except ValueError as error:
        raise _Mismatch(f"{where}: unreadable move: {error}") from None
    legal = hand.legal_moves()
    if move not in legal:
        shown = "; ".join(str(m) for m in legal)
        raise _Mismatch(
            f"{where}: seat {event.seat} played {move}, which is illegal (legal: {shown})"
        )
    if event.auto and event.seat not in match.retired:
        raise _Mismatch(f"{where}: an automatic move for seat {event.seat}, which was not retired")
    if move_to_wire(move) != event.move:
        raise _Mismatch(f"{where}: the move is not written in its canonical form")
    return match.apply(move)


def _check_hand_end(match: Match, recorded: object, where: str) -> Match:
    outcome = match.hand.outcome()
    if recorded is None:
        if not match.over:
            raise _Mismatch(f"{where}: recorded as stopped, but the match was not forfeited")
        return match
    if outcome is None:
        raise _Mismatch(f"{where}: recorded as finished, but the hand is not over")
    computed = {
        "kind": outcome.kind.value,
        "winners": list(outcome.winners),
        "award": list(outcome.award),
        "scores": list(outcome.scores),
        "pips": list(outcome.pips),
    }
    for name, value in computed.items():
        if getattr(recorded, name) != value:
            raise _Mismatch(
                f"{where}: {name} recorded as {getattr(recorded, name)}, the engine says {value}"
            )
    return match.next_hand()


def _check_result(match: Match, replay: Replay) -> None:
    result = match.result
    assert result is not None
    recorded = replay.result
    computed = {
        "scores": list(result.scores),
        "winner": result.winner,
        "reason": result.reason,
        "ranking": list(result.ranking),
    }
    for name, value in computed.items():
        if getattr(recorded, name) != value:
            raise _Mismatch(
                f"match result: {name} recorded as {getattr(recorded, name)}, "
                f"the engine says {value}"
            )
