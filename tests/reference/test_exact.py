"""The exact endgame: alpha-beta with a transposition table gives the minimax value."""

from __future__ import annotations

import random

from arena.games.api import GameState
from arena.games.registry import get_game
from arena.reference.evaluate import Budget, evaluate_moves, exact_value, gain
from tests.reference.drive import positions


def _minimax(state: GameState, root: GameState, seat: int) -> float:
    """The plain minimax value, no pruning and no table: the reference answer."""
    if state.outcome() is not None:
        return gain(root, state, seat)
    values = [_minimax(state.apply(m), root, seat) for m in state.legal_moves()]
    return max(values) if state.to_move == seat else min(values)


def _endgames(game: str, players: int, tiles: int, count: int) -> list[GameState]:
    """Positions of seeded random hands once at most ``tiles`` tiles are in hands and the
    boneyard together."""
    found = []
    for state, _k in positions(game, players, {}, 40, seed=3):
        view = state.view(0)
        if sum(view.hand_counts) + view.boneyard_size <= tiles:
            found.append(state)
            if len(found) == count:
                break
    return found


def test_exact_value_is_the_minimax_value_in_small_endgames() -> None:
    """On endgames of every game small enough to solve plainly, the two values agree."""
    checked = 0
    for game, players in (("matador", 2), ("matador", 3), ("block", 2), ("fives", 2)):
        for state in _endgames(game, players, 7 if game != "block" else 18, 6):
            seat = state.to_move
            assert seat is not None
            assert exact_value(state, seat) == _minimax(state, state, seat)
            checked += 1
    assert checked >= 12


def test_going_out_with_the_last_tile_is_worth_the_other_hand() -> None:
    """A two-seat position where the seat to move can play its last tile: the exact value is
    the other seat's pips (the award for the domino), the most any line can give."""
    plugin = get_game("matador")
    seen = 0
    for state, k in positions("matador", 2, {}, 40, seed=8):
        if len(k.hand) == 1 and any(m.tile for m in k.legal) and state.view(0).boneyard_size == 0:
            other = 1 - k.seat
            pips = sum(a + b for a, b in state.view(other).hand)
            assert exact_value(state, k.seat) == pips
            seen += 1
    del plugin
    assert seen >= 1


def test_a_determined_endgame_is_valued_exactly() -> None:
    """Two seats, boneyard empty: every legal move gets its exact value, from the seat's own
    knowledge (the other hand is the unseen tiles)."""
    rng = random.Random(1)
    checked = 0
    for state, k in positions("matador", 2, {}, 60, seed=2):
        if not k.determined() or len(k.legal) < 2 or sum(k.hand_counts) > 10:
            continue
        values = evaluate_moves(k, Budget(samples=4), rng)
        assert all(v.exact for v in values)
        expected = {m: exact_value(state.apply(m), k.seat) for m in k.legal}
        assert {v.move: v.value for v in values} == expected
        assert values[0].value == max(expected.values())
        checked += 1
    assert checked >= 3
