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
from arena.games.tiles import ALL_TILES, Tile, highest, make_tile
from tests.games.positions import view_tiles

#: A hand has at most 28 plays and 18 draws, and at most n - 1 passes between two of those.
MAX_MOVES = 200


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


def spec_leader(hands: list[tuple[Tile, ...]]) -> tuple[int, Tile]:
    """rules.md 1.4 written out again: the holder of the highest double, else of the top tile."""
    doubles = [t for h in hands for t in h if t[0] == t[1]]
    best = highest(doubles or [t for h in hands for t in h])
    return next(s for s, h in enumerate(hands) if best in h), best


def spec_legal(state: MatadorState) -> set[Move]:
    """docs/rules.md 1.4-1.10 written out again, independently of the engine's tables."""
    seat = state.to_move
    if seat is None:
        return set()
    if seat in state.view(seat).retired:
        return {PASS}
    hand = state.hand_tiles(seat)
    rules = state.rules
    if not state.ends:
        if rules.lead == "highest_double":
            _leader, best = spec_leader([state.hand_tiles(s) for s in range(state.players)])
            return {play(best, None, best[1])}
        return {play(t, None, t[1]) for t in hand}
    plays = set()
    for end, value in state.ends:
        for low, high in hand:
            if (low, high) in MATADOR_TILES:
                outs = {low, high}
            else:
                outs = {out for touch, out in ((low, high), (high, low)) if touch + value == 7}
            plays |= {play((low, high), end, out) for out in outs}
    history = state.history()
    # A draw keeps the turn, so a DRAW as the last event was made by this seat, this turn.
    drew_this_turn = bool(history) and history[-1][1] == DRAW
    only_matadors = all(m.tile in MATADOR_TILES for m in plays)
    may_draw = (
        state.boneyard_size > rules.reserve
        and not (rules.draw_mode == "one_then_pass" and drew_this_turn)
        and (
            not plays
            or rules.draw_when_playable == "always"
            or (rules.draw_when_playable == "matador_only" and only_matadors)
        )
    )
    if may_draw:
        plays.add(DRAW)
    return plays or {PASS}


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
    """Each legal move applies; every other move (all of them at one state) is refused."""
    rng = random.Random(choices ^ 0x5EED)
    states = playout(rules, players, seed, choices)
    # Trying all 147 written plays everywhere is slow: all at one state, a sample elsewhere.
    everything_at = rng.randrange(len(states))
    for i, state in enumerate(states):
        legal = set(state.legal_moves())
        for move in legal:
            state.apply(move)
        others = [m for m in (*EVERY_PLAY, DRAW, PASS) if m not in legal]
        sample = others if i == everything_at else rng.sample(others, 8)
        sample += [m for m in (DRAW, PASS) if m not in legal]
        for move in sample:
            with pytest.raises(IllegalMoveError) as info:
                state.apply(move)
            assert info.value.move == move


@PROPERTY
@given(RULES, PLAYERS, SEEDS, SEEDS)
def test_legal_moves_are_exactly_the_specs(
    rules: MatadorRules, players: int, seed: int, choices: int
) -> None:
    """The leader and every legal-move list match rules.md 1.4-1.10 written out independently."""
    states = playout(rules, players, seed, choices)
    leader, _tile = spec_leader([states[0].hand_tiles(s) for s in range(players)])
    assert states[0].to_move == leader
    for state in states:
        legal = state.legal_moves()
        assert len(legal) == len(set(legal))
        assert set(legal) == spec_legal(state)


@PROPERTY
@given(RULES, PLAYERS, SEEDS, SEEDS)
def test_every_play_is_allowed_by_the_spec(
    rules: MatadorRules, players: int, seed: int, choices: int
) -> None:
    """Each listed play uses a held tile and follows docs/rules.md 1.5-1.8 for its end."""
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
    """Every hand ends within the bound, and its outcome follows docs/rules.md 1.11-1.13."""
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
    for state in states[:-1]:
        assert all(state.hand_tiles(s) for s in range(players))
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
def test_layout_is_a_chain_between_the_open_ends(
    rules: MatadorRules, players: int, seed: int, choices: int
) -> None:
    """The layout's outer halves are the open ends; each ordinary tile's inner half sums to 7."""
    for state in playout(rules, players, seed, choices)[1:]:
        layout = state.layout()
        assert (("left", layout[0][0]), ("right", layout[-1][1])) == state.ends
        lead = sum(1 for _s, m, _d in state.history() if m.kind == "play" and m.end == LEFT)
        for i, (low_side, high_side) in enumerate(layout):
            if make_tile(low_side, high_side) in MATADOR_TILES or i == lead:
                continue
            # Left of the lead a tile touches its right neighbour, right of it its left one.
            touching, neighbour = (
                (high_side, layout[i + 1][0]) if i < lead else (low_side, layout[i - 1][1])
            )
            assert touching + neighbour == 7


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


@settings(max_examples=150, deadline=None)
@given(rules=RULES, players=PLAYERS, seed=SEEDS, choices=SEEDS, looks=SEEDS)
def test_views_are_the_same_however_often_they_are_asked_for(
    rules: MatadorRules, players: int, seed: int, choices: int, looks: int
) -> None:
    """A view is the same whether earlier states were viewed (memoised record) or not."""
    states = playout(rules, players, seed, choices)
    rng = random.Random(looks)
    for state in states:  # view some states along the way, so later ones reuse their record
        if rng.random() < 0.5:
            state.view(rng.randrange(players))
    fresh = playout(rules, players, seed, choices)
    for seen, unseen in zip(states, fresh, strict=True):
        for seat in range(players):
            assert seen.view(seat) == unseen.view(seat)
    last = fresh[-1]
    assert last.layout() == _layout_from_scratch(last)
    assert last.view(0).draws == tuple(
        sum(1 for s, m, _ in last.history() if s == seat and m.kind == "draw")
        for seat in range(players)
    )


def _layout_from_scratch(state: MatadorState) -> tuple[tuple[int, int], ...]:
    """The chain rebuilt from the whole history: lead, then left plays prepended, right appended."""
    chain: list[tuple[int, int]] = []
    for _seat, move, _drawn in state.history():
        if move.kind != "play" or move.tile is None or move.out is None:
            continue
        a, b = move.tile
        if move.end is None:
            chain = [(a, b)]
        elif move.end == "left":
            chain.insert(0, (move.out, a + b - move.out))
        else:
            chain.append((a + b - move.out, move.out))
    return tuple(chain)
