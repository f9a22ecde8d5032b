"""Every decision of a replay judged by an evaluator: the preferred move, the values, the loss.

For each :class:`arena.analysis.decisions.Decision` the evaluator works only from what the seat
knew (its tiles as dealt and drawn, the public record, the counts: the reference's
``knowledge_from_state`` keeps nothing else of the state) and a seed derived from the analysis seed,
the hand and the event, so a decision's judgement depends on nothing else: not on the other
hands, not on the other decisions, not on the order they are analysed in. Where the evaluator
can solve the position with every tile known (its ``exact``), the double-dummy values of the
played move and of the best are recorded too.

The values are the evaluator's, in hand points for the seat that moves (docs/analysis.md).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

from arena.analysis.decisions import Decision, MatchSetting, decisions, setting_of
from arena.analysis.equivalent import merge_equivalent
from arena.analysis.record import ANALYSIS_VERSION, Analysis, ExactValues, MoveAnalysis
from arena.analysis.summary import DEFAULT_THRESHOLDS, seats_accuracy
from arena.games.api import GameState, Move, derive_seed
from arena.replay import Replay
from arena.wire import move_to_wire

#: What the values of an analysis count (the section's ``unit``).
UNIT = "hand points"

#: The analysis seed when none is given: the same analysis of the same replay every time.
DEFAULT_SEED = 0


class Evaluator(Protocol):
    """What the analyzer asks of an evaluator (:mod:`arena.analysis.evaluator` builds one from
    a reference bot's name)."""

    @property
    def name(self) -> str:
        """The settings as ``--bot`` names them (``ref:strong:samples=32``)."""
        ...

    def evaluate(
        self, setting: MatchSetting, state: GameState, seat: int, seed: int
    ) -> list[tuple[Move, float]]:
        """Every legal move of ``seat`` (to move in ``state``) with its estimated value for the
        seat, best first, from what the seat knows of ``state`` alone (its own tiles and draws,
        the public record: the reference's ``knowledge_from_state``), ``seed`` for the
        samples."""
        ...

    def exact(self, setting: MatchSetting, state: GameState, seat: int) -> float | None:
        """The perfect-information value of ``state`` for ``seat``, or ``None`` when the
        position is too large to solve."""
        ...


def analyze_replay(replay: Replay, evaluator: Evaluator, seed: int = DEFAULT_SEED) -> Analysis:
    """The analysis of every decision of ``replay``.

    Raises:
        arena.replay_walk.ReplayMismatch: the replay does not verify.
    """
    setting = setting_of(replay)
    moves = [analyze_decision(setting, d, evaluator, seed) for d in decisions(replay)]
    return make_analysis(replay.players, evaluator.name, seed, moves)


def make_analysis(players: int, bot: str, seed: int, moves: Sequence[MoveAnalysis]) -> Analysis:
    """The section from its decisions (the seats' summaries computed)."""
    return Analysis(
        version=ANALYSIS_VERSION,
        bot=bot,
        seed=seed,
        unit=UNIT,
        thresholds=DEFAULT_THRESHOLDS,
        moves=list(moves),
        seats=seats_accuracy(players, moves, DEFAULT_THRESHOLDS),
    )


def decision_seed(seed: int, hand: int, event: int) -> int:
    """The seed of one decision's samples."""
    return derive_seed(seed, "analyze", hand, event)


def analyze_decision(
    setting: MatchSetting, decision: Decision, evaluator: Evaluator, seed: int
) -> MoveAnalysis:
    """One decision judged: the evaluator works from what the seat knew only; the double-dummy
    values (when the evaluator can solve them) use the whole state."""
    view = decision.view
    if len(view.legal) == 1:  # a forced move: nothing to judge, no value computed
        wire = move_to_wire(decision.played)
        return MoveAnalysis(
            hand=decision.hand,
            event=decision.event,
            seat=decision.seat,
            played=wire,
            best=wire,
            played_value=0.0,
            best_value=0.0,
            loss=0.0,
            choices=1,
        )
    valued = evaluator.evaluate(
        setting, decision.state, decision.seat, decision_seed(seed, decision.hand, decision.event)
    )
    if {move for move, _value in valued} != set(view.legal):
        raise RuntimeError(
            f"hand {decision.hand}, event {decision.event}: the evaluator valued "
            f"{sorted(str(m) for m, _v in valued)}, not the legal moves "
            f"{sorted(map(str, view.legal))}"
        )
    # Mirror-image moves (a tile on either of two equal ends) are one move, valued as one.
    valued = merge_equivalent(decision.state, decision.seat, valued)
    values = dict(valued)
    best, best_value = valued[0]
    played_value = values[decision.played]
    if decision.played == best or played_value >= best_value:
        best, best_value = decision.played, played_value  # a tie goes to the move played
    return MoveAnalysis(
        hand=decision.hand,
        event=decision.event,
        seat=decision.seat,
        played=move_to_wire(decision.played),
        best=move_to_wire(best),
        played_value=round(played_value, 3),
        best_value=round(best_value, 3),
        # From the rounded values, so the record's loss is its best minus its played exactly.
        loss=round(round(best_value, 3) - round(played_value, 3), 3),
        choices=len(view.legal),
        exact=exact_values(setting, decision, evaluator),
    )


def exact_values(
    setting: MatchSetting, decision: Decision, evaluator: Evaluator
) -> ExactValues | None:
    """The double-dummy values of ``decision``: each legal move's position solved with every
    tile known; ``None`` when any of them is too large for the evaluator."""
    state = decision.state
    if (
        evaluator.exact(setting, state, decision.seat) is None
    ):  # one failed search, not one per move
        return None
    solved: list[tuple[Move, float]] = []
    for move in state.legal_moves():
        value = evaluator.exact(setting, state.apply(move), decision.seat)
        if value is None:
            return None
        solved.append((move, value))
    played = dict(solved)[decision.played]
    best_move, best = max(solved, key=lambda item: item[1])  # the first best in legal order
    return ExactValues(
        played=round(played, 3), best=round(best, 3), best_move=move_to_wire(best_move)
    )
