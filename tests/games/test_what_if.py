"""HandState.with_hand and last_actions: what search over hidden information asks of a state."""

from __future__ import annotations

from arena.games.registry import GAMES
from arena.games.tiles import TILE_BIT


def test_with_hand_is_a_copy_with_that_hand_and_its_own_legal_moves() -> None:
    """The copy holds the new hand and lists its moves; the original is unchanged."""
    for plugin in GAMES.values():
        rules = plugin.parse_rules({})
        state = plugin.start_hand(rules, 2, plugin.deal(rules, 2, 3))
        seat = state.to_move
        assert seat is not None
        before = (state.hands, state.legal_moves())  # type: ignore[attr-defined]
        tile = next(t for t in state.boneyard_tiles())  # type: ignore[attr-defined]
        copy = state.with_hand(seat, TILE_BIT[tile])  # type: ignore[attr-defined]
        assert copy.view(seat).hand == (tile,)
        assert all(m.tile in (None, tile) for m in copy.legal_moves())
        assert (state.hands, state.legal_moves()) == before  # type: ignore[attr-defined]


def test_last_actions_are_the_newest_first() -> None:
    """After a few moves, the newest actions come first, at most as many as asked."""
    plugin = GAMES["matador"]
    rules = plugin.parse_rules({})
    state = plugin.start_hand(rules, 2, plugin.deal(rules, 2, 1))
    played = []
    for _ in range(4):
        move = state.legal_moves()[0]
        played.append((state.to_move, move))
        state = state.apply(move)
    assert state.last_actions(3) == tuple(reversed(played))[:3]  # type: ignore[attr-defined]
    assert state.last_actions(10) == tuple(reversed(played))  # type: ignore[attr-defined]
