"""The analyzer's values on constructed endgames whose answers are known, and what they
depend on: only what the seat saw, and (in fixed-budget mode) nothing else."""

from __future__ import annotations

from arena.analysis.analyzer import analyze_decision
from arena.analysis.equivalent import merge_equivalent
from arena.analysis.evaluator import make_evaluator
from arena.analysis.record import ExactValues
from arena.games.api import PASS, GameState
from arena.games.scenario import lead, put
from tests.analysis.positions import (
    BLOCK_LINE,
    PLAY_BLANK,
    PLAY_DOUBLE,
    block_deal,
    block_endgame,
    block_setting,
    decision,
    wire,
)

#: A small fixed budget: quick and deterministic.
EVALUATOR = make_evaluator("ref:search:samples=24")


def test_the_double_dummy_values_of_the_block_endgame_are_exact() -> None:
    """Seat 0 holds 0-3 and 2-2 (ends 3 and 2), seat 1 holds 0-5: 2-2 first makes seat 1 pass
    and seat 0 goes out, scoring 0-5's 5 pips; 0-3 first lets seat 1 go out with 0-5 on the
    blank, scoring 2-2's 4 pips, so the double-dummy values are +5 and -4."""
    judged = analyze_decision(block_setting(), decision(block_endgame(), PLAY_BLANK), EVALUATOR, 0)
    assert judged.exact == ExactValues(played=-4.0, best=5.0, best_move=wire(PLAY_DOUBLE))
    assert judged.choices == 2


def test_the_evaluator_prefers_the_double_and_charges_the_blank_a_loss() -> None:
    """From seat 0's own information the double is preferred too; playing 0-3 is a loss."""
    judged = analyze_decision(block_setting(), decision(block_endgame(), PLAY_BLANK), EVALUATOR, 0)
    assert judged.played == wire(PLAY_BLANK)
    assert judged.best == wire(PLAY_DOUBLE)
    assert judged.best_value > judged.played_value
    assert judged.loss == round(judged.best_value - judged.played_value, 3)


def test_the_preferred_move_played_loses_nothing() -> None:
    """Playing the double: best is the move played, loss 0, double-dummy played = best = +5."""
    judged = analyze_decision(block_setting(), decision(block_endgame(), PLAY_DOUBLE), EVALUATOR, 0)
    assert judged.best == judged.played == wire(PLAY_DOUBLE)
    assert judged.loss == 0.0
    assert judged.exact is not None
    assert (judged.exact.played, judged.exact.best) == (5.0, 5.0)


class _NoEvaluation:
    """An evaluator that must not be asked (a forced move needs no evaluation)."""

    name = "none"

    def evaluate(self, *args: object) -> list[object]:
        raise AssertionError("a forced move was evaluated")

    def exact(self, *args: object) -> float | None:
        raise AssertionError("a forced move was solved")


def test_a_forced_move_is_recorded_with_no_value_and_no_loss() -> None:
    """Seat 0's pass (its only legal move, after eight moves) is one choice, loss 0, and the
    evaluator is not asked."""
    setting = block_setting()
    state: GameState = setting.game.start_hand(setting.rules, 2, block_deal())
    for move in BLOCK_LINE[:8]:
        state = state.apply(move)
    assert state.legal_moves() == (PASS,)
    judged = analyze_decision(setting, decision(state, PASS, 9), _NoEvaluation(), 0)
    assert (judged.choices, judged.loss) == (1, 0.0)
    assert judged.played == judged.best == wire(PASS)
    assert judged.exact is None


def test_the_preference_depends_only_on_what_the_seat_saw() -> None:
    """Seat 1 holding 4-5 instead of 0-5 (0-5 out of play) changes nothing seat 0 saw: its
    preferred move and both values are the same, while the double-dummy values, which see
    every tile, change (with 4-5 seat 1 can never play: both moves win 9)."""
    other = block_deal(other="0-1 1-2 1-5 3-6 4-4 4-5 5-6", out=BLOCK_OUT_SWAPPED)
    first = analyze_decision(block_setting(), decision(block_endgame(), PLAY_BLANK), EVALUATOR, 0)
    second = analyze_decision(
        block_setting(), decision(block_endgame(other), PLAY_BLANK), EVALUATOR, 0
    )
    assert block_endgame(other).view(0) == block_endgame().view(0)
    assert (second.best, second.played_value, second.best_value, second.loss) == (
        first.best,
        first.played_value,
        first.best_value,
        first.loss,
    )
    assert second.exact == ExactValues(played=9.0, best=9.0, best_move=wire(PLAY_BLANK))


BLOCK_OUT_SWAPPED = "2-5 2-6 1-6 2-4 5-5 3-4 0-5 1-3 0-4 0-0 2-3 3-5 0-2 1-1"


def test_a_fixed_budget_gives_the_same_judgement_every_time_and_the_seed_is_used() -> None:
    """The same decision, budget and seed: equal records."""
    one = analyze_decision(block_setting(), decision(block_endgame(), PLAY_BLANK), EVALUATOR, 7)
    two = analyze_decision(block_setting(), decision(block_endgame(), PLAY_BLANK), EVALUATOR, 7)
    assert one == two


def _after_double_lead() -> GameState:
    """Seat 0 led 6-6: both ends show 6, and seat 1 may put 3-6 or 5-6 on either."""
    setting = block_setting()
    state: GameState = setting.game.start_hand(setting.rules, 2, block_deal())
    return state.apply(lead("6-6"))


def test_a_tile_on_either_of_two_equal_ends_is_one_move_valued_as_one() -> None:
    """The two mirror images of a play get the mean of their estimates; different tiles keep
    their own."""
    state = _after_double_lead()
    valued = [
        (put("3-6", "left", 3), 1.0),
        (put("5-6", "left", 5), 0.5),
        (put("3-6", "right", 3), 3.0),
        (put("5-6", "right", 5), -0.5),
    ]
    assert merge_equivalent(state, 1, valued) == [
        (put("3-6", "left", 3), 2.0),
        (put("3-6", "right", 3), 2.0),
        (put("5-6", "left", 5), 0.0),
        (put("5-6", "right", 5), 0.0),
    ]


def test_playing_the_mirror_of_the_preferred_move_loses_nothing() -> None:
    """Whichever end seat 1 puts a tile on, the other end's twin is never preferred to it."""
    state = _after_double_lead()
    for end in ("left", "right"):
        for tile, out in (("3-6", 3), ("5-6", 5)):
            judged = analyze_decision(
                block_setting(), decision(state, put(tile, end, out), 2), EVALUATOR, 0
            )
            twin = put(tile, "right" if end == "left" else "left", out)
            assert judged.best != wire(twin)
