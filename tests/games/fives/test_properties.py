"""Invariants of Fives over random legal playouts, for every combination of the rule flags.

Each example draws the flags, a deal seed, a seed for the move choices and the match scores
the hand starts from (below the target, so some hands end on it), then plays a whole hand
choosing uniformly among the legal moves. The rules of docs/rules.md are written out again here
from the public view (layout, arms, spinner), independently of the engine's incremental
bookkeeping.
"""

from __future__ import annotations

import random
from itertools import pairwise
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from arena.games.api import DRAW, PASS, HandEnd, IllegalMoveError, Move, SeatView, play
from arena.games.fives import (
    FIVES,
    POSITIONS,
    TARGET,
    FivesRules,
    FivesState,
    ScoreEvent,
    deal,
    start_hand,
)
from arena.games.match import MAX_HANDS, MatchLength, start_match
from arena.games.tiles import ALL_TILES, Tile, highest, make_tile

#: A hand has at most 28 plays and 14 draws, and at most one pass between two plays.
MAX_MOVES = 100

RULES = st.builds(
    FivesRules,
    spinner_sides_first=st.booleans(),
    block_winner=st.sampled_from(["more_points", "fewer_pips"]),
)
SEEDS = st.integers(min_value=0, max_value=2**63 - 1)
SCORES = st.tuples(st.integers(0, TARGET - 1), st.integers(0, TARGET - 1))

PROPERTY = settings(max_examples=200, deadline=None)

#: Every play move that can be written, whether or not it is ever legal (the opening included).
EVERY_PLAY: tuple[Move, ...] = tuple(
    play(tile, end, out)
    for tile in ALL_TILES
    for end in (None, *POSITIONS)
    for out in sorted(set(tile))
)


def playout(
    rules: FivesRules, seed: int, choices: int, scores: tuple[int, int] = (0, 0)
) -> list[FivesState]:
    """Every state of one hand, from the deal to the end, choosing moves with ``choices``."""
    rng = random.Random(choices)
    state = start_hand(rules, 2, deal(rules, 2, seed), scores)
    states = [state]
    while state.outcome() is None:
        assert len(states) <= MAX_MOVES, "the hand does not end"
        state = state.apply(rng.choice(state.legal_moves()))
        states.append(state)
    return states


def pips(tiles: tuple[Tile, ...]) -> int:
    """Pips of some tiles (a double counts both halves)."""
    return sum(a + b for a, b in tiles)


def spec_ends(view: SeatView, rules: FivesRules) -> tuple[tuple[str, int], ...]:
    """rules.md 2.3-2.4 from the view: the line's two ends, then the spinner's arms once open."""
    line = view.layout
    ends = [("west", line[0][0]), ("east", line[-1][1])]
    k = view.spinner
    if k is not None:
        both_covered = 0 < k < len(line) - 1
        if both_covered or not rules.spinner_sides_first:
            value = line[k][0]
            for name, arm in view.arms:
                ends.append((name, arm[-1][1] if arm else value))
    return tuple(ends)


def _end_tile_count(tile: tuple[int, int]) -> int:
    """What an end tile counts, its outward half second: a double both halves."""
    return 2 * tile[1] if tile[0] == tile[1] else tile[1]


def spec_count(view: SeatView) -> int:
    """docs/rules.md 2.5 from the view's line, spinner index and arms."""
    line = view.layout
    k = view.spinner
    if k is None:
        if len(line) == 1:
            return sum(line[0])  # a lone opening tile counts its pips once
        return _end_tile_count(line[-1]) + _end_tile_count(line[0][::-1])
    total = 0
    west_covered, east_covered = k > 0, k < len(line) - 1
    if not (west_covered and east_covered):
        total += 2 * line[k][0]  # the spinner counts 2d while a side is open
    if west_covered:
        total += _end_tile_count(line[0][::-1])
    if east_covered:
        total += _end_tile_count(line[-1])
    for _name, arm in view.arms:
        if arm:
            total += _end_tile_count(arm[-1])
    return total


def can_play(hand: tuple[Tile, ...], ends: tuple[tuple[str, int], ...]) -> bool:
    """Whether any tile of ``hand`` matches any open end."""
    return any(v in t for t in hand for _p, v in ends)


def spec_legal(state: FivesState) -> set[Move]:
    """docs/rules.md 2.3, 2.7, 2.8 written out again from the view and the hand."""
    seat = state.to_move
    if seat is None:
        return set()
    view = state.view(seat)
    ends = spec_ends(view, state.rules)
    plays = {
        play(t, name, t[0] + t[1] - value) for name, value in ends for t in view.hand if value in t
    }
    if plays:
        return plays
    return {DRAW} if view.boneyard_size else {PASS}


def every_tile(state: FivesState) -> list[Tile]:
    """Hands + stock + everything placed (line and arms, read from a view), sorted."""
    view = state.view(0)
    placed = [make_tile(*t) for t in view.layout]
    placed += [make_tile(*t) for _name, arm in view.arms for t in arm]
    held = [t for s in range(2) for t in state.hand_tiles(s)]
    return sorted(held + list(state.boneyard_tiles()) + placed)


def snapshot(state: FivesState) -> dict[str, Any]:
    """Every slot, after filling the memo slots so only real changes show."""
    state.legal_moves()
    state.outcome()
    return {name: getattr(state, name) for name in FivesState.__slots__}


@PROPERTY
@given(RULES, SEEDS, SEEDS)
def test_tiles_are_conserved(rules: FivesRules, seed: int, choices: int) -> None:
    """Hands + stock + layout and arms hold each of the 28 tiles exactly once in every state."""
    for state in playout(rules, seed, choices):
        assert every_tile(state) == list(ALL_TILES)


@PROPERTY
@given(RULES, SEEDS, SEEDS, SCORES)
def test_playout_is_determined_by_rules_seed_and_choices(
    rules: FivesRules, seed: int, choices: int, scores: tuple[int, int]
) -> None:
    """The same rules, deal seed, scores and move choices give the same history and outcome."""
    first = playout(rules, seed, choices, scores)[-1]
    second = playout(rules, seed, choices, scores)[-1]
    assert first.history() == second.history()
    assert first.scoring == second.scoring
    assert first.outcome() == second.outcome()


@PROPERTY
@given(RULES, SEEDS, SEEDS)
def test_every_state_gives_back_its_deal(rules: FivesRules, seed: int, choices: int) -> None:
    """state.deal() is the deal the hand started from, at every point of the hand."""
    dealt = deal(rules, 2, seed)
    for state in playout(rules, seed, choices):
        assert state.deal() == dealt


@PROPERTY
@given(RULES, SEEDS, SEEDS)
def test_every_listed_move_applies_and_no_other_does(
    rules: FivesRules, seed: int, choices: int
) -> None:
    """Each legal move applies; every other move (all of them at one state) is refused."""
    rng = random.Random(choices ^ 0x5EED)
    states = playout(rules, seed, choices)
    everything_at = rng.randrange(len(states))
    for i, state in enumerate(states):
        legal = set(state.legal_moves())
        for move in legal:
            state.apply(move)
        others = [m for m in (*EVERY_PLAY, DRAW, PASS) if m not in legal]
        sample = others if i == everything_at else rng.sample(others, 10)
        sample += [m for m in (DRAW, PASS) if m not in legal]
        for move in sample:
            with pytest.raises(IllegalMoveError) as info:
                state.apply(move)
            assert info.value.move == move


@PROPERTY
@given(RULES, SEEDS, SEEDS, SCORES)
def test_opening_and_legal_moves_are_exactly_the_specs(
    rules: FivesRules, seed: int, choices: int, scores: tuple[int, int]
) -> None:
    """The opening follows rules.md 2.2 and every legal-move list matches rules.md 2.3-2.8."""
    states = playout(rules, seed, choices, scores)
    dealt = deal(rules, 2, seed)
    best = highest(t for h in dealt.hands for t in h)  # doubles outrank every non-double
    leader = 0 if best in dealt.hands[0] else 1
    first = states[0]
    assert first.history()[0] == (leader, play(best, None, best[1]), None)
    assert first.view(0).layout == (best,)
    if first.outcome() is None:
        assert first.to_move == 1 - leader
    for state in states:
        legal = state.legal_moves()
        assert len(legal) == len(set(legal))
        assert set(legal) == spec_legal(state)
        if legal == (PASS,):  # a pass only while the other seat can play
            other = 1 - (state.to_move or 0)
            assert can_play(state.hand_tiles(other), state.open_ends)


@PROPERTY
@given(RULES, SEEDS, SEEDS)
def test_ends_and_count_follow_the_layout(rules: FivesRules, seed: int, choices: int) -> None:
    """Every view's open ends and count are rules.md 2.4-2.5 applied to its line, spinner, arms."""
    for state in playout(rules, seed, choices):
        view = state.view(0)
        assert view.ends == spec_ends(view, rules)
        assert view.end_count == spec_count(view) == state.count


@PROPERTY
@given(RULES, SEEDS, SEEDS, SCORES)
def test_scoring_events_account_for_every_point(
    rules: FivesRules, seed: int, choices: int, scores: tuple[int, int]
) -> None:
    """A play scores its count exactly when it is a positive multiple of 5; events sum to scores."""
    states = playout(rules, seed, choices, scores)
    expected: list[ScoreEvent] = []
    first = states[0]
    if first.count % 5 == 0 and first.count:
        expected.append(ScoreEvent(first.leader, first.count, "count"))
    assert list(first.scoring) == expected
    for before, after in pairwise(states):
        seat, move, _drawn = after.history()[-1]
        new = list(after.scoring[len(before.scoring) :])
        assert after.scoring[: len(before.scoring)] == before.scoring
        if move.kind == "play" and after.count % 5 == 0 and after.count:
            assert new[:1] == [ScoreEvent(seat, after.count, "count")]
            new = new[1:]
        assert all(e.reason != "count" for e in new)
        if after.outcome() is None:
            assert new == []
    last = states[-1]
    for seat in range(2):
        gained = sum(e.points for e in last.scoring if e.seat == seat)
        assert last.scores[seat] == scores[seat] + gained
    outcome = last.outcome()
    assert outcome is not None
    assert outcome.scores == last.scores


@PROPERTY
@given(RULES, SEEDS, SEEDS, SCORES)
def test_hand_ends_with_a_valid_outcome(
    rules: FivesRules, seed: int, choices: int, scores: tuple[int, int]
) -> None:
    """Every hand ends within the bound, by rules.md 2.8-2.11, with the award the rules give."""
    states = playout(rules, seed, choices, scores)
    last = states[-1]
    outcome = last.outcome()
    assert outcome is not None
    assert len(states) - 1 < MAX_MOVES
    hands = (last.hand_tiles(0), last.hand_tiles(1))
    assert outcome.pips == (pips(hands[0]), pips(hands[1]))
    (winner,) = outcome.winners
    loser = 1 - winner
    before = tuple(s - a for s, a in zip(outcome.scores, outcome.award, strict=True))
    assert outcome.award[loser] == 0
    for state in states[:-1]:
        assert max(state.scores) < TARGET
    if outcome.kind is HandEnd.TARGET:
        assert outcome.award == (0, 0)
        assert last.scoring[-1].reason == "count"
        assert last.scoring[-1].seat == winner
        assert outcome.scores[winner] >= TARGET > outcome.scores[loser]
        return
    assert max(before) < TARGET
    if outcome.kind is HandEnd.DOMINO:
        seat, move, _drawn = last.history()[-1]
        assert (seat, move.kind, hands[winner]) == (winner, "play", ())
        assert outcome.award[winner] == outcome.pips[loser] // 5 * 5
        assert last.scoring[-1] == ScoreEvent(winner, outcome.award[winner], "domino")
        return
    assert outcome.kind is HandEnd.BLOCK
    assert last.boneyard_size == 0
    assert not can_play(hands[0], last.open_ends)
    assert not can_play(hands[1], last.open_ends)
    assert last.history()[-1][1] != PASS

    def key(seat: int) -> tuple[int, int, bool]:
        first = before[seat] if rules.block_winner == "more_points" else -outcome.pips[seat]
        return (first, -len(hands[seat]), seat == last.last_placer)

    assert key(winner) > key(loser)
    assert outcome.award[winner] == outcome.pips[loser] - outcome.pips[winner]
    if rules.block_winner == "fewer_pips":
        assert outcome.award[winner] >= 0
    assert last.scoring[-1] == ScoreEvent(winner, outcome.award[winner], "block")


@PROPERTY
@given(RULES, SEEDS, SEEDS)
def test_apply_never_mutates_its_input(rules: FivesRules, seed: int, choices: int) -> None:
    """Every slot of a state is unchanged after applying each of its legal moves."""
    for state in playout(rules, seed, choices):
        before = snapshot(state)
        for move in state.legal_moves():
            state.apply(move)
        assert snapshot(state) == before


@PROPERTY
@given(RULES, SEEDS, SEEDS, SCORES)
def test_legal_moves_are_never_empty_before_the_end(
    rules: FivesRules, seed: int, choices: int, scores: tuple[int, int]
) -> None:
    """A seat is to move and has a legal move until the outcome, and none after it."""
    for state in playout(rules, seed, choices, scores):
        if state.outcome() is None:
            assert state.to_move is not None
            assert state.legal_moves()
        else:
            assert state.to_move is None
            assert state.legal_moves() == ()


@PROPERTY
@given(RULES, SEEDS, SEEDS)
def test_a_view_never_leaks(rules: FivesRules, seed: int, choices: int) -> None:
    """A seat's view holds its own tiles and placed ones, never the other hand or the stock."""
    for state in playout(rules, seed, choices):
        placed = set(state.placed_tiles())
        for seat in range(2):
            view = state.view(seat)
            assert view.hand == state.hand_tiles(seat)
            shown = {make_tile(*t) for t in view.layout}
            shown |= {make_tile(*t) for _name, arm in view.arms for t in arm}
            shown |= {e.move.tile for e in view.history if e.move.tile is not None}
            shown |= {m.tile for m in view.legal if m.tile is not None}
            assert shown <= placed | set(view.hand)
            assert all(e.move == DRAW for e in view.history if e.move.kind == "draw")
            assert view.hand_counts == (len(state.hand_tiles(0)), len(state.hand_tiles(1)))
            assert view.boneyard_size == len(state.boneyard_tiles())
            assert view.legal == (state.legal_moves() if state.to_move == seat else ())
            assert view.scoring == state.scoring
            for field in ("seat", "players", "boneyard_size", "end_count"):
                assert type(getattr(view, field)) is int


@settings(max_examples=100, deadline=None)
@given(rules=RULES, seed=SEEDS, choices=SEEDS, looks=SEEDS)
def test_views_are_the_same_however_often_they_are_asked_for(
    rules: FivesRules, seed: int, choices: int, looks: int
) -> None:
    """A view is the same whether earlier states were viewed (memoised record) or not."""
    states = playout(rules, seed, choices)
    rng = random.Random(looks)
    for state in states:
        if rng.random() < 0.5:
            state.view(rng.randrange(2))
    fresh = playout(rules, seed, choices)
    for seen, unseen in zip(states, fresh, strict=True):
        for seat in range(2):
            assert seen.view(seat) == unseen.view(seat)


@settings(max_examples=50, deadline=None)
@given(rules=RULES, seed=SEEDS, choices=SEEDS)
def test_a_random_match_ends_when_a_score_reaches_100(
    rules: FivesRules, seed: int, choices: int
) -> None:
    """A match to 100 ends; a TARGET hand is always its last, and the winner reached 100."""
    rng = random.Random(choices)
    match = start_match(FIVES, rules, 2, seed, MatchLength(target=TARGET))
    while not match.over:
        if match.hand.outcome() is None:
            match = match.apply(rng.choice(match.hand.legal_moves()))
        else:
            match = match.next_hand()
    result = match.result
    assert result is not None
    assert all(o.kind is not HandEnd.TARGET for o in match.outcomes[:-1])
    if match.hand_number < MAX_HANDS:
        assert result.reason == "target"
        assert result.winner is not None
        assert result.scores[result.winner] >= TARGET
