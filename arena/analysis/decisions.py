"""A replay as its seats' decisions: each move a bot chose, with the position it chose it in.

Built from the one walk of a replay (:mod:`arena.replay_walk`), so the replay is checked as it
is read (a replay that does not verify raises :class:`arena.replay_walk.ReplayMismatch`), and
every position is the engine's own. A :class:`Decision` holds the whole state before the move
(for the double-dummy value only) and the seat's view of it (``state.view(seat)``: exactly the
``request`` the referee sent, what the seat knew and nothing more), from which the evaluator
works. Automatic moves (a retired seat's pass, the referee's move for a struck bot) are no
decision of a bot and are left out.

Pure: no I/O.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from arena.games.api import GameState, Move, SeatView
from arena.games.plugin import GamePlugin
from arena.replay import Action, Replay
from arena.replay_settings import ReplaySettingsError, match_settings
from arena.replay_walk import ReplayMismatch, WalkKind, walk_replay


@dataclass(frozen=True, slots=True)
class Decision:
    """One move a bot chose.

    Attributes:
        hand: the hand's number.
        event: the event's index in the hand's ``events``, from 1.
        seat: the seat that moved.
        state: the hand before the move, every tile known (the double-dummy value's input;
            never the evaluator's).
        view: what the seat knew then (its request's view).
        played: the move it played.
        action: the replay's record of it.
    """

    hand: int
    event: int
    seat: int
    state: GameState
    view: SeatView
    played: Move
    action: Action


@dataclass(frozen=True, slots=True)
class MatchSetting:
    """What a decision's evaluation needs beyond the view: the game, its rules, the players."""

    game: GamePlugin
    rules: Any
    players: int


def decisions(replay: Replay) -> Iterator[Decision]:
    """Every decision of ``replay``, in order.

    Raises:
        arena.replay_walk.ReplayMismatch: at the first fact the engine disagrees with.
    """
    numbers = {id(e): i for h in replay.hands for i, e in enumerate(h.events, start=1)}
    before: GameState | None = None
    for step in walk_replay(replay):
        if step.kind is WalkKind.MOVE:
            action = step.action
            assert action is not None
            assert step.move is not None
            assert step.seat is not None
            assert before is not None
            assert step.hand_number is not None
            if not action.auto:
                yield Decision(
                    hand=step.hand_number,
                    event=numbers[id(action)],
                    seat=step.seat,
                    state=before,
                    view=before.view(step.seat),
                    played=step.move,
                    action=action,
                )
        before = step.match.hand


def setting_of(replay: Replay) -> MatchSetting:
    """The game, rules and players of ``replay`` (its settings checked first).

    Raises:
        arena.replay_walk.ReplayMismatch: settings that do not fit.
    """
    try:
        settings = match_settings(replay)
    except ReplaySettingsError as error:
        raise ReplayMismatch(f"the replay's settings are invalid: {error}") from None
    return MatchSetting(settings.game, settings.rules, replay.players)
