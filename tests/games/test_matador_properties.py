"""Invariants of Matador over random legal playouts, for every combination of the rule flags.

Each example draws the flags, the number of players, a deal seed and a seed for the move
choices, then plays a whole hand choosing uniformly among the legal moves.
"""

from __future__ import annotations

import random
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from arena.games.api import DRAW, PASS, HandEnd, IllegalMoveError, Move, play
from arena.games.matador import (
    LEFT,
    MATADOR_TILES,
    RIGHT,
    MatadorRules,
    MatadorState,
    deal,
    start_hand,
)
from arena.games.tiles import ALL_TILES, Tile, make_tile
from tests.games.positions import view_tiles

#: A hand has at most 28 plays and 18 draws, and at most n - 1 passes between two of those.
MAX_MOVES = 200

# On a failure hypothesis imports libcst to write a patch file, and libcst triggers a
# DeprecationWarning that filterwarnings=error would turn into an INTERNALERROR hiding the
# falsifying example.
pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning:libcst")

RULES = st.builds(
    MatadorRules,
    hand_size=st.sampled_from([5, 7, "9-n"]),
    lead=st.sampled_from(["any", "highest_double"]),
    draw_when_playable=st.sampled_from(["matador_only", "never", "always"]),
    reserve=st.sampled_from([0, 2]),
    draw_mode=st.sampled_from(["until_playable", "one_then_pass"]),
)
PLAYERS = st.integers(min_value=2, max_value=4)
SEEDS = st.integers(min_value=0, max_value=2**63 - 1)

PROPERTY = settings(max_examples=200, deadline=None)

#: Every play move that can be written, whether or not it is ever legal.
EVERY_PLAY: tuple[Move, ...] = tuple(
    play(tile, end, out)
    for tile in ALL_TILES
    for end in (None, LEFT, RIGHT)
    for out in sorted(set(tile))
)


def playout(rules: MatadorRules, players: int, seed: int, choices: int) -> list[MatadorState]:
    """Every state of one hand, from the deal to the end, choosing moves with ``choices``."""
    rng = random.Random(choices)
    state = start_hand(rules, players, deal(rules, players, seed))
    states = [state]
    while state.outcome() is None:
        assert len(states) <= MAX_MOVES, "the hand does not end"
        state = state.apply(rng.choice(state.legal_moves()))
        states.append(state)
    return states


def _every_tile(state: MatadorState) -> list[Tile]:
    held = [t for s in range(state.players) for t in state.hand_tiles(s)]
    laid = [make_tile(*t) for t in state.layout()]
    return sorted(held + list(state.boneyard_tiles()) + laid)


def _snapshot(state: MatadorState) -> dict[str, Any]:
    # legal_moves() and outcome() only fill memo slots; call them first so they compare equal.
    state.legal_moves()
    state.outcome()
    return {name: getattr(state, name) for name in MatadorState.__slots__}


@PROPERTY
@given(RULES, PLAYERS, SEEDS, SEEDS)
def test_tiles_are_conserved(rules: MatadorRules, players: int, seed: int, choices: int) -> None:
    """Hands + boneyard + layout hold each of the 28 tiles exactly once in every state."""
    for state in playout(rules, players, seed, choices):
        assert _every_tile(state) == list(ALL_TILES)


@PROPERTY
@given(RULES, PLAYERS, SEEDS, SEEDS)
def test_playout_is_determined_by_rules_seed_and_choices(
    rules: MatadorRules, players: int, seed: int, choices: int
) -> None:
    """The same rules, deal seed and move choices give the same history and outcome."""
    first = playout(rules, players, seed, choices)[-1]
    second = playout(rules, players, seed, choices)[-1]
    assert first.history() == second.history()
    assert first.outcome() == second.outcome()


@PROPERTY
@given(RULES, PLAYERS, SEEDS, SEEDS)
def test_every_state_gives_back_its_deal(
    rules: MatadorRules, players: int, seed: int, choices: int
) -> None:
    """state.deal() is the deal the hand started from, at every point of the hand."""
    dealt = deal(rules, players, seed)
    for state in playout(rules, players, seed, choices):
        assert state.deal() == dealt


@PROPERTY
@given(RULES, PLAYERS, SEEDS, SEEDS)
def test_every_listed_move_applies_and_no_other_does(
    rules: MatadorRules, players: int, seed: int, choices: int
) -> None:
    """Each legal move applies; DRAW, PASS and a sample of other plays raise IllegalMoveError."""
    rng = random.Random(choices ^ 0x5EED)
    for state in playout(rules, players, seed, choices):
        legal = set(state.legal_moves())
        for move in legal:
            state.apply(move)
        others = [m for m in EVERY_PLAY if m not in legal]
        sample = rng.sample(others, 8) + [m for m in (DRAW, PASS) if m not in legal]
        for move in sample:
            with pytest.raises(IllegalMoveError) as info:
                state.apply(move)
            assert info.value.move == move


@PROPERTY
@given(RULES, PLAYERS, SEEDS, SEEDS)
def test_every_play_is_allowed_by_the_spec(
    rules: MatadorRules, players: int, seed: int, choices: int
) -> None:
    """Each listed play uses a held tile and follows SPEC 1.5-1.8 for its end."""
    for state in playout(rules, players, seed, choices):
        seat = state.to_move
        ends = dict(state.ends)
        for move in state.legal_moves():
            if move.kind != "play":
                continue
            assert seat is not None
            assert move.tile is not None
            assert move.out is not None
            assert move.tile in state.hand_tiles(seat)
            low, high = move.tile
            assert move.out in (low, high)
            if move.end is None:
                assert not ends
                assert move.out == high
            elif move.tile not in MATADOR_TILES:
                touching = low + high - move.out
                assert touching + ends[move.end] == 7


@PROPERTY
@given(RULES, PLAYERS, SEEDS, SEEDS)
def test_hand_ends_with_a_valid_outcome(
    rules: MatadorRules, players: int, seed: int, choices: int
) -> None:
    """Every hand ends within the bound, and its outcome follows SPEC 1.11-1.13."""
    states = playout(rules, players, seed, choices)
    last = states[-1]
    outcome = last.outcome()
    assert outcome is not None
    assert len(states) - 1 < MAX_MOVES
    pips = tuple(sum(a + b for a, b in last.hand_tiles(s)) for s in range(players))
    assert outcome.pips == pips
    assert outcome.winners
    assert list(outcome.winners) == sorted(set(outcome.winners))
    if len(outcome.winners) == 1:
        (winner,) = outcome.winners
        expected = [0] * players
        expected[winner] = sum(pips) - pips[winner]
        assert list(outcome.award) == expected
    else:
        assert outcome.award == (0,) * players
    assert outcome.scores == tuple(s + a for s, a in zip(last.scores, outcome.award, strict=True))
    history = last.history()
    if outcome.kind is HandEnd.DOMINO:
        seat, move, _drawn = history[-1]
        assert move.kind == "play"
        assert outcome.winners == (seat,)
        assert pips[seat] == 0
        assert last.hand_tiles(seat) == ()
    else:
        assert outcome.kind is HandEnd.BLOCK
        assert [m for _s, m, _d in history[-players:]] == [PASS] * players
        assert outcome.winners == tuple(s for s in range(players) if pips[s] == min(pips))


@PROPERTY
@given(RULES, PLAYERS, SEEDS, SEEDS)
def test_apply_never_mutates_its_input(
    rules: MatadorRules, players: int, seed: int, choices: int
) -> None:
    """Every slot of a state is unchanged after applying each of its legal moves."""
    for state in playout(rules, players, seed, choices):
        before = _snapshot(state)
        for move in state.legal_moves():
            state.apply(move)
        assert _snapshot(state) == before


@PROPERTY
@given(RULES, PLAYERS, SEEDS, SEEDS)
def test_legal_moves_are_never_empty_before_the_end(
    rules: MatadorRules, players: int, seed: int, choices: int
) -> None:
    """A seat is to move and has a legal move until the outcome, and none after it."""
    for state in playout(rules, players, seed, choices):
        if state.outcome() is None:
            assert state.to_move is not None
            assert state.legal_moves()
        else:
            assert state.to_move is None
            assert state.legal_moves() == ()


@PROPERTY
@given(RULES, PLAYERS, SEEDS, SEEDS)
def test_a_view_never_leaks(rules: MatadorRules, players: int, seed: int, choices: int) -> None:
    """A seat's view holds its own tiles and played ones, never another hand's or the boneyard's."""
    for state in playout(rules, players, seed, choices):
        laid = {make_tile(*t) for t in state.layout()}
        for seat in range(players):
            view = state.view(seat)
            assert view.hand == state.hand_tiles(seat)
            assert view_tiles(view) <= laid | set(view.hand)
            assert view.hand_counts == tuple(len(state.hand_tiles(s)) for s in range(players))
            assert view.boneyard_size == len(state.boneyard_tiles())
            assert view.legal == (state.legal_moves() if state.to_move == seat else ())
