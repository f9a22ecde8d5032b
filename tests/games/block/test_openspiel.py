"""Block against OpenSpiel's ``python_block_dominoes``: the same games, move by move.

Each game is dealt by our engine (``block.deal``); OpenSpiel's fourteen chance nodes are set to
the same deal (its first seven chance outcomes go to player 0, the next seven to player 1, and
its deck order is our ``ALL_TILES`` order, so a chance outcome is our tile index). Then a random
legal move of ours is played in both engines, and at every step they must agree on:

- the player to move: ours, or the other seat when ours can only ``PASS`` (OpenSpiel skips a
  player who cannot play: there the skipped seat must have no legal action in OpenSpiel either,
  and our ``PASS`` is applied to ours alone);
- the legal moves, as sets of ``(tile, matched value)``: ours map ``play(tile, end, out)`` to
  ``(tile, value of that end)`` (``None`` for the lead), so two ends of equal value give one
  pair, as OpenSpiel lists one action;
- the end of the game (both over at the same step), and then the returns: OpenSpiel's
  zero-sum ``returns()`` are ``[award[0] - award[1], award[1] - award[0]]`` of our outcome.
"""

from __future__ import annotations

import random
import time
import warnings
from typing import Any

import pytest

from arena.games import block
from arena.games.api import PASS, Deal, HandEnd, HandOutcome, Move
from arena.games.tiles import TILE_INDEX, Tile

with warnings.catch_warnings():
    # pyspiel and its numpy may warn on import; pytest turns warnings into errors.
    warnings.simplefilter("ignore")
    try:
        import pyspiel
        from open_spiel.python.games import block_dominoes  # registers the Python game
    except ImportError as error:
        pytest.skip(
            f"open-spiel is not installed ({error}): pip install -e '.[test]'",
            allow_module_level=True,
        )

GAMES = 10_000

#: OpenSpiel action id -> (tile, matched value or None for the lead); the same for both players.
_OS_ACTION: dict[int, tuple[Tile, int | None]] = {
    i: ((int(a.tile[0]), int(a.tile[1])), None if a.edge is None else int(a.edge))
    for i, a in enumerate(block_dominoes._ACTIONS)
}
#: (player, tile, matched value) -> OpenSpiel action id.
_OS_ID: dict[tuple[int, Tile, int | None], int] = {
    (a.player, pair[0], pair[1]): i
    for (i, pair), a in zip(_OS_ACTION.items(), block_dominoes._ACTIONS, strict=True)
}


def _pair(move: Move, ends: dict[str, int]) -> tuple[Tile, int | None]:
    """Our play as OpenSpiel sees it: the tile and the value of the end it covers."""
    assert move.tile is not None
    return move.tile, None if move.end is None else ends[move.end]


def _os_state(game: Any, dealt: Deal) -> Any:
    """OpenSpiel's state after its chance nodes dealt ``dealt``'s two hands."""
    state = game.new_initial_state()
    for hand in dealt.hands:
        for tile in hand:
            assert state.is_chance_node()
            state.apply_action(TILE_INDEX[tile])
    assert not state.is_chance_node()
    return state


def _play_both(game: Any, seed: int, rng: random.Random) -> tuple[int, HandOutcome]:
    """Play one random game in both engines, comparing every step; our passes and outcome."""
    rules = block.BlockRules()
    dealt = block.deal(rules, 2, seed)
    ours = block.start_hand(rules, 2, dealt)
    theirs = _os_state(game, dealt)
    assert sorted(map(tuple, theirs.hands[0])) == [tuple(map(float, t)) for t in dealt.hands[0]]
    passes = 0
    while True:
        outcome = ours.outcome()
        if outcome is not None:
            assert theirs.is_terminal(), f"seed {seed}: only ours is over"
            award = outcome.award
            assert theirs.returns() == [award[0] - award[1], award[1] - award[0]], seed
            return passes, outcome
        assert not theirs.is_terminal(), f"seed {seed}: only OpenSpiel's is over"
        legal = ours.legal_moves()
        seat = ours.to_move
        assert seat is not None
        if legal == (PASS,):
            # Skipped: OpenSpiel has the other seat to move already, and nothing for this one.
            assert theirs.current_player() == 1 - seat, seed
            assert theirs.get_legal_actions(seat) == [], seed
            ours = ours.apply(PASS)
            passes += 1
            continue
        assert theirs.current_player() == seat, seed
        ends = dict(ours.ends)
        expected = {_OS_ACTION[a] for a in theirs.legal_actions()}
        assert {_pair(m, ends) for m in legal} == expected, seed
        move = rng.choice(legal)
        tile, value = _pair(move, ends)
        theirs.apply_action(_OS_ID[seat, tile, value])
        ours = ours.apply(move)


def test_block_plays_like_openspiel_in_10000_random_games() -> None:
    """10,000 random games agree with OpenSpiel on the mover, legal moves and returns."""
    game = pyspiel.load_game("python_block_dominoes")
    rng = random.Random(2026)
    start = time.perf_counter()
    passes = blocks = draws = 0
    for seed in range(GAMES):
        skipped, outcome = _play_both(game, seed, rng)
        passes += skipped
        blocks += outcome.kind is HandEnd.BLOCK
        draws += len(outcome.winners) == 2
    elapsed = time.perf_counter() - start
    # The games reached every kind of position the comparison is about.
    assert passes > 0
    assert blocks > 0
    assert draws > 0
    print(
        f"{GAMES} games compared, {elapsed:.1f} s: {passes} passes, {blocks} blocks, {draws} draws"
    )
