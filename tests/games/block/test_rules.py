"""Block rules, one behaviour per test, with exact legal-move sets and scores; then invariants
over random playouts (hypothesis).

Every expected value here was worked out by hand from the rules in :mod:`arena.games.block`'s
docstring (OpenSpiel's ``python_block_dominoes``), not copied from the engine. Ends are written
(left, right); ``play(tile, end, out)`` names the outward half.
"""

from __future__ import annotations

import random
import re
from collections.abc import Iterable, Sequence
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from arena.games.api import PASS, Deal, HandEnd, IllegalMoveError, Move, PublicEvent, play
from arena.games.block import (
    BLOCK,
    HAND_SIZE,
    LEFT,
    RIGHT,
    BlockRules,
    BlockState,
    deal,
    parse_rules,
    rules_dict,
    start_hand,
)
from arena.games.tiles import ALL_TILES, Tile, make_tile, mask_of
from tests.games.positions import view_tiles

L = LEFT
R = RIGHT
RULES = BlockRules()

#: Seat 0 has no 3, 4, 5 and no 6 but the 6-6 it leads; seat 1 has the 3s, 4s and 5s.
HANDS_A = (
    [(6, 6), (0, 1), (1, 1), (2, 2), (0, 2), (1, 2), (0, 0)],
    [(3, 6), (5, 6), (2, 5), (3, 3), (4, 4), (4, 5), (3, 4)],
)
#: Every tile with a 0 but the 0-0 is out of play: leading the 0-0 blocks the hand at once.
HANDS_B = (
    [(0, 0), (1, 1), (2, 2), (3, 3), (1, 2), (1, 3), (2, 3)],
    [(4, 4), (5, 5), (6, 6), (4, 5), (4, 6), (5, 6), (1, 4)],
)


def dealt(
    hands: Sequence[Iterable[Tile]],
    scores: tuple[int, ...] | None = None,
    retired: frozenset[int] = frozenset(),
) -> BlockState:
    """A hand started by the engine from explicit hands; every other tile is out of play."""
    lists = [[make_tile(*t) for t in h] for h in hands]
    used = {t for h in lists for t in h}
    rest = tuple(t for t in ALL_TILES if t not in used)
    return start_hand(RULES, 2, Deal(tuple(tuple(h) for h in lists), rest), scores, retired)


def line(state: BlockState, *moves: Move) -> BlockState:
    """Apply ``moves`` in order (each must be legal)."""
    for move in moves:
        state = state.apply(move)
    return state


def position(
    *,
    ends: tuple[int, int],
    hands: tuple[Iterable[Tile], Iterable[Tile]],
    to_move: int = 0,
    scores: tuple[int, ...] | None = None,
) -> BlockState:
    """A synthetic mid-hand position (test-only shortcut): a real hand's copy with its ends,
    hands and mover overwritten. Its history is empty, so its layout is too; the tiles in
    neither hand count as on the table or out of play."""
    state = dealt(HANDS_A, scores)._clone()
    state.hands = tuple(mask_of(make_tile(*t) for t in h) for h in hands)
    state.left, state.right = ends
    state.to_move = to_move
    state._legal = None
    return state


def _raises_exactly(message: str) -> Any:
    return pytest.raises(ValueError, match=f"^{re.escape(message)}$")


def _returns(state: BlockState) -> list[int]:
    """OpenSpiel's zero-sum returns of a finished hand, from our award."""
    outcome = state.outcome()
    assert outcome is not None
    a0, a1 = outcome.award
    return [a0 - a1, a1 - a0]


# -- the deal and the lead -----------------------------------------------------------------------


def test_a_deal_gives_seven_tiles_each_and_fourteen_out_of_play() -> None:
    """deal() hands seven sorted tiles to each seat; the other fourteen are out of play."""
    d = deal(RULES, 2, 7)
    assert [len(h) for h in d.hands] == [HAND_SIZE, HAND_SIZE]
    assert all(list(h) == sorted(h) for h in d.hands)
    assert len(d.boneyard) == 14
    assert sorted((*d.hands[0], *d.hands[1], *d.boneyard)) == list(ALL_TILES)
    assert deal(RULES, 2, 7) == d
    assert deal(RULES, 2, 8) != d


def test_seat_0_leads_any_tile_of_its_hand() -> None:
    """Seat 0 leads; each of its tiles is a lead, high half out, in tile order."""
    state = dealt(HANDS_A)
    assert state.to_move == 0
    assert state.ends == ()
    expected = [(0, 0), (0, 1), (0, 2), (1, 1), (1, 2), (2, 2), (6, 6)]
    assert state.legal_moves() == tuple(play(t, None, t[1]) for t in expected)


def test_seat_0_leads_even_without_a_double() -> None:
    """Seat 0 leads whatever it holds (no highest-double rule); seat 1 waits."""
    hands = (
        [(0, 1), (0, 2), (0, 3), (1, 2), (1, 3), (2, 3), (0, 4)],
        [(6, 6), (5, 5), (4, 4), (3, 3), (2, 2), (1, 1), (0, 0)],
    )
    state = dealt(hands)
    assert state.to_move == 0
    assert len(state.legal_moves()) == 7
    assert state.view(1).legal == ()


def test_the_lead_opens_both_ends() -> None:
    """After the lead of 2-5 the ends are 2 (left) and 5 (right)."""
    hands = (
        [(2, 5), (0, 1), (0, 2), (1, 2), (1, 3), (2, 3), (0, 4)],
        [(6, 6), (5, 5), (4, 4), (3, 3), (2, 2), (1, 1), (0, 0)],
    )
    state = line(dealt(hands), play((2, 5), None, 5))
    assert state.ends == ((L, 2), (R, 5))
    assert state.layout() == ((2, 5),)
    assert state.to_move == 1


# -- legal moves ---------------------------------------------------------------------------------


def test_two_ends_of_equal_value_give_a_move_per_end() -> None:
    """On 6|6 each tile with a 6 can go on either end: left plays first, then right."""
    state = line(dealt(HANDS_A), play((6, 6), None, 6))
    assert state.legal_moves() == (
        play((3, 6), L, 3),
        play((5, 6), L, 5),
        play((3, 6), R, 3),
        play((5, 6), R, 5),
    )


def test_a_tile_joins_an_end_by_a_matching_half() -> None:
    """On 3|6: 3-3 and 3-4 go left (3 and 4 out), 5-6 goes right (5 out); nothing else."""
    state = line(dealt(HANDS_A), play((6, 6), None, 6), play((3, 6), L, 3), PASS)
    assert state.ends == ((L, 3), (R, 6))
    assert state.legal_moves() == (play((3, 3), L, 3), play((3, 4), L, 4), play((5, 6), R, 5))


def test_a_tile_matching_both_ends_has_a_move_on_each() -> None:
    """On 2|5 the 2-5 goes left with 5 out or right with 2 out; a double only where it matches."""
    state = position(ends=(2, 5), hands=([(2, 5), (5, 5), (1, 3)], [(6, 6)]))
    assert state.legal_moves() == (play((2, 5), L, 5), play((2, 5), R, 2), play((5, 5), R, 5))


def test_a_play_moves_the_end_to_the_outer_half() -> None:
    """3-4 played on the left 3 makes the left end 4 and extends the chain leftwards."""
    state = line(dealt(HANDS_A), play((6, 6), None, 6), play((3, 6), L, 3), PASS)
    state = state.apply(play((3, 4), L, 4))
    assert state.ends == ((L, 4), (R, 6))
    assert state.layout() == ((4, 3), (3, 6), (6, 6))


def test_an_illegal_move_is_refused_naming_the_ends_and_the_legal_moves() -> None:
    """PASS while a play exists, or a tile on a wrong end, is an IllegalMoveError."""
    state = line(dealt(HANDS_A), play((6, 6), None, 6))
    legal = "3-6 on left, 3 out; 5-6 on left, 5 out; 3-6 on right, 3 out; 5-6 on right, 5 out"
    for move in (PASS, play((3, 3), L, 3), play((3, 6), L, 6), play((6, 6), None, 6)):
        with pytest.raises(IllegalMoveError) as info:
            state.apply(move)
        assert str(info.value) == (
            f"illegal move {move}: open ends left=6, right=6; legal moves: {legal}"
        )


# -- skipping a player who cannot play -----------------------------------------------------------


def test_a_player_who_cannot_play_passes_and_the_other_moves_again() -> None:
    """Seat 0 has no 3 or 6 on 3|6: PASS is its only move, then seat 1 plays again."""
    state = line(dealt(HANDS_A), play((6, 6), None, 6), play((3, 6), L, 3))
    assert state.to_move == 0
    assert state.legal_moves() == (PASS,)
    after = state.apply(PASS)
    assert after.to_move == 1
    assert after.outcome() is None
    assert after.view(0).passes == (1, 0)
    assert after.view(1).history[-1] == PublicEvent(0, PASS)


def test_a_player_is_skipped_as_often_as_it_cannot_play() -> None:
    """Seat 0 passes twice in a row of seat 1's plays, then plays on 3|2."""
    state = line(
        dealt(HANDS_A),
        play((6, 6), None, 6),
        play((3, 6), L, 3),
        PASS,
        play((5, 6), R, 5),
    )
    assert state.ends == ((L, 3), (R, 5))
    assert state.legal_moves() == (PASS,)
    state = line(state, PASS, play((2, 5), R, 2))
    assert state.to_move == 0
    assert state.legal_moves() == (play((0, 2), R, 0), play((1, 2), R, 1), play((2, 2), R, 2))
    assert state.view(1).passes == (2, 0)


# -- the end of a hand ---------------------------------------------------------------------------


def test_a_hand_is_blocked_at_once_when_neither_can_play() -> None:
    """Leading 0-0 with every other 0 out of play ends the hand: no passes, a block."""
    state = dealt(HANDS_B).apply(play((0, 0), None, 0))
    outcome = state.outcome()
    assert outcome is not None
    assert state.to_move is None
    assert state.legal_moves() == ()
    assert outcome.kind is HandEnd.BLOCK
    assert outcome.pips == (24, 65)
    assert outcome.winners == (0,)
    assert outcome.award == (65, 0)
    assert _returns(state) == [65, -65]


def test_a_block_with_equal_pips_scores_nothing() -> None:
    """0-1 on 0|5 leaves 1|5; 2-2 against 0-4 is four pips each: a drawn block, 0 each."""
    state = position(ends=(0, 5), hands=([(0, 1), (2, 2)], [(0, 4)]), scores=(3, 9))
    state = state.apply(play((0, 1), L, 1))
    outcome = state.outcome()
    assert outcome is not None
    assert outcome.kind is HandEnd.BLOCK
    assert outcome.pips == (4, 4)
    assert outcome.winners == (0, 1)
    assert outcome.award == (0, 0)
    assert outcome.scores == (3, 9)
    assert _returns(state) == [0, 0]


def test_going_out_wins_the_pips_left_in_the_other_hand() -> None:
    """Seat 1 plays its last tile: it scores the 17 pips seat 0 holds, and the hand is over."""
    state = position(ends=(2, 3), hands=([(6, 6), (1, 4)], [(3, 5)]), to_move=1, scores=(10, 20))
    state = state.apply(play((3, 5), R, 5))
    outcome = state.outcome()
    assert outcome is not None
    assert outcome.kind is HandEnd.DOMINO
    assert outcome.winners == (1,)
    assert outcome.pips == (17, 0)
    assert outcome.award == (0, 17)
    assert outcome.scores == (10, 37)
    assert state.scores == (10, 20)
    assert _returns(state) == [-17, 17]


def test_going_out_against_a_lone_double_blank_is_a_draw() -> None:
    """Out against 0-0: zero pips each, so nobody wins and nobody scores (as OpenSpiel)."""
    state = position(ends=(2, 3), hands=([(2, 4)], [(0, 0)]))
    state = state.apply(play((2, 4), L, 4))
    outcome = state.outcome()
    assert outcome is not None
    assert outcome.kind is HandEnd.DOMINO
    assert outcome.winners == (0, 1)
    assert outcome.award == (0, 0)


# -- rules, players, deals -----------------------------------------------------------------------


def test_block_has_no_rule_flags() -> None:
    """The rules are empty data: {} parses, rules_dict is {}, any flag is refused by name."""
    assert parse_rules({}) == BlockRules()
    assert rules_dict(BlockRules()) == {}
    with _raises_exactly("unknown block rule(s) hand_size, lead; block has no rule flags"):
        parse_rules({"lead": "any", "hand_size": 7})


def test_the_game_object_is_for_two_players() -> None:
    """BLOCK is named block, for exactly two players, with no target of its own."""
    assert (BLOCK.name, BLOCK.min_players, BLOCK.max_players) == ("block", 2, 2)
    assert BLOCK.match_target is None
    assert isinstance(BLOCK.start_hand(RULES, 2, BLOCK.deal(RULES, 2, 1)), BlockState)


@pytest.mark.parametrize("players", [1, 3, 4])
def test_other_player_counts_are_refused(players: int) -> None:
    """Block is for two players: deal and start_hand say so."""
    with _raises_exactly(f"block is for 2 players, not {players}"):
        deal(RULES, players, 1)
    with _raises_exactly(f"block is for 2 players, not {players}"):
        start_hand(RULES, players, deal(RULES, 2, 1))


def test_a_deal_of_the_wrong_size_is_refused() -> None:
    """A hand of six tiles, or a tile given twice, is not a Block deal."""
    short = Deal((ALL_TILES[:6], ALL_TILES[6:13]), ALL_TILES[13:])
    with _raises_exactly("seat 0 was dealt 6 tiles; block hands hold 7"):
        start_hand(RULES, 2, short)
    twice = Deal((ALL_TILES[:7], ALL_TILES[:7]), ALL_TILES[14:])
    with _raises_exactly("a deal must hold each of the 28 tiles exactly once"):
        start_hand(RULES, 2, twice)


# -- views ---------------------------------------------------------------------------------------


def test_a_view_shows_own_tiles_counts_and_the_public_record() -> None:
    """Seat 1's view after 6-6 and its 3-6: its hand, counts, 14 out of play, no draws."""
    state = line(dealt(HANDS_A, scores=(5, 6)), play((6, 6), None, 6), play((3, 6), L, 3))
    view = state.view(1)
    assert view.hand == ((2, 5), (3, 3), (3, 4), (4, 4), (4, 5), (5, 6))
    assert view.hand_counts == (6, 6)
    assert view.boneyard_size == 14
    assert view.layout == ((3, 6), (6, 6))
    assert view.ends == ((L, 3), (R, 6))
    assert view.scores == (5, 6)
    assert view.history == (
        PublicEvent(0, play((6, 6), None, 6)),
        PublicEvent(1, play((3, 6), L, 3)),
    )
    assert view.legal == ()
    assert view.draws == (0, 0)
    assert view.passes == (0, 0)
    assert view.retired == ()
    assert state.view(0).legal == (PASS,)


# -- retirement ----------------------------------------------------------------------------------


def test_a_leader_retired_before_leading_hands_the_lead_over() -> None:
    """Seat 0 retires before its lead: seat 1 leads any of its tiles."""
    state = dealt(HANDS_A).retire(0)
    assert state.to_move == 1
    assert state.leader == 1
    assert state.legal_moves() == tuple(play(t, None, t[1]) for t in sorted(HANDS_A[1]))


def test_a_retired_seat_passes_and_the_other_plays_on() -> None:
    """Retired seat 1 has only PASS even with a play in hand; seat 0 plays out and wins."""
    state = position(ends=(1, 6), hands=([(1, 2), (2, 3)], [(5, 6)]), to_move=1).retire(1)
    assert state.legal_moves() == (PASS,)
    state = line(state, PASS, play((1, 2), L, 2))
    assert (state.to_move, state.legal_moves()) == (1, (PASS,))
    state = line(state, PASS, play((2, 3), L, 3))
    outcome = state.outcome()
    assert outcome is not None
    assert outcome.kind is HandEnd.DOMINO
    assert outcome.award == (11, 0)
    assert state.view(0).retired == (1,)


def test_a_retired_seat_cannot_win_a_block() -> None:
    """Seat 1 retires when only it could play: a block that seat 0 wins with more pips."""
    state = position(ends=(0, 0), hands=([(6, 6)], [(1, 2)]))
    assert state.legal_moves() == (PASS,)
    state = state.retire(1)
    outcome = state.outcome()
    assert outcome is not None
    assert state.to_move is None
    assert outcome.kind is HandEnd.BLOCK
    assert outcome.pips == (12, 3)
    assert outcome.winners == (0,)
    assert outcome.award == (3, 0)


def test_retiring_after_a_lead_that_blocks_the_other_ends_the_hand() -> None:
    """After 6-6 seat 0 has no 6; seat 1 retires: nobody in play can play, a block."""
    state = line(dealt(HANDS_A), play((6, 6), None, 6)).retire(1)
    outcome = state.outcome()
    assert outcome is not None
    assert outcome.kind is HandEnd.BLOCK
    assert outcome.pips == (12, 57)
    assert outcome.award == (57, 0)


def test_retiring_both_seats_ends_the_hand_with_no_winner_and_no_award() -> None:
    """Both seats retired (a match forfeited by both): the hand is a block, drawn, 0 each."""
    state = dealt(HANDS_A).retire(0).retire(1)
    outcome = state.outcome()
    assert outcome is not None
    assert outcome.kind is HandEnd.BLOCK
    assert outcome.winners == (0, 1)
    assert outcome.award == (0, 0)


# -- invariants over random playouts -------------------------------------------------------------

SEEDS = st.integers(min_value=0, max_value=2**63 - 1)
PROPERTY = settings(max_examples=200, deadline=None)


def playout(seed: int, choices: int) -> list[BlockState]:
    """Every state of one hand, from the deal to the end, choosing moves with ``choices``."""
    rng = random.Random(choices)
    state = start_hand(RULES, 2, deal(RULES, 2, seed))
    states = [state]
    while state.outcome() is None:
        assert len(states) <= 40, "the hand does not end"
        state = state.apply(rng.choice(state.legal_moves()))
        states.append(state)
    return states


def _can_play(state: BlockState, seat: int) -> bool:
    hand = state.hand_tiles(seat)
    return bool(hand) and (not state.ends or any(v in t for _e, v in state.ends for t in hand))


def spec_legal(state: BlockState) -> set[Move]:
    """The rules written out again, independently of the engine's tables."""
    seat = state.to_move
    if seat is None:
        return set()
    hand = state.hand_tiles(seat)
    if not state.ends:
        return {play(t, None, t[1]) for t in hand}
    plays = {play(t, end, sum(t) - v) for end, v in state.ends for t in hand if v in t}
    return plays or {PASS}


def _snapshot(state: BlockState) -> dict[str, Any]:
    # legal_moves() and outcome() only fill memo slots; call them first so they compare equal.
    state.legal_moves()
    state.outcome()
    return {name: getattr(state, name) for name in BlockState.__slots__}


@PROPERTY
@given(SEEDS, SEEDS)
def test_tiles_are_conserved(seed: int, choices: int) -> None:
    """Hands, layout and the fourteen out of play hold each of the 28 tiles once, always."""
    for state in playout(seed, choices):
        held = [t for s in (0, 1) for t in state.hand_tiles(s)]
        laid = [make_tile(*t) for t in state.layout()]
        assert sorted(held + laid + list(state.boneyard_tiles())) == list(ALL_TILES)
        assert len(state.boneyard_tiles()) == 14


@PROPERTY
@given(SEEDS, SEEDS)
def test_playout_is_determined_by_the_seeds(seed: int, choices: int) -> None:
    """The same deal seed and move choices give the same history, outcome and deal."""
    first = playout(seed, choices)[-1]
    second = playout(seed, choices)[-1]
    assert first.history() == second.history()
    assert first.outcome() == second.outcome()
    assert first.deal() == second.deal() == deal(RULES, 2, seed)


@PROPERTY
@given(SEEDS, SEEDS)
def test_legal_moves_are_exactly_the_rules(seed: int, choices: int) -> None:
    """Every legal-move list matches the rules written out again, without duplicates."""
    for state in playout(seed, choices):
        legal = state.legal_moves()
        assert len(legal) == len(set(legal))
        assert set(legal) == spec_legal(state)
        if legal == (PASS,):
            assert state.to_move is not None
            assert _can_play(state, 1 - state.to_move)


@PROPERTY
@given(SEEDS, SEEDS)
def test_a_hand_ends_exactly_when_one_goes_out_or_neither_can_play(seed: int, choices: int) -> None:
    """No state before the last is over; the last has an empty hand or nobody able to play."""
    states = playout(seed, choices)
    for state in states[:-1]:
        assert _can_play(state, 0) or _can_play(state, 1)
        assert state.to_move is not None
    last = states[-1]
    outcome = last.outcome()
    assert outcome is not None
    assert last.to_move is None
    pips = tuple(sum(map(sum, last.hand_tiles(s))) for s in (0, 1))
    assert outcome.pips == pips
    seat, move, _drawn = last.history()[-1]
    assert move.kind == "play"
    if outcome.kind is HandEnd.DOMINO:
        assert last.hand_tiles(seat) == ()
    else:
        assert outcome.kind is HandEnd.BLOCK
        assert not _can_play(last, 0)
        assert not _can_play(last, 1)
    if pips[0] == pips[1]:
        assert (outcome.winners, outcome.award) == ((0, 1), (0, 0))
    else:
        winner = 0 if pips[0] < pips[1] else 1
        assert outcome.winners == (winner,)
        assert outcome.award[winner] == pips[1 - winner]
        assert outcome.award[1 - winner] == 0


@PROPERTY
@given(SEEDS, SEEDS)
def test_apply_never_mutates_its_input(seed: int, choices: int) -> None:
    """Every slot of a state is unchanged after applying each of its legal moves."""
    for state in playout(seed, choices):
        before = _snapshot(state)
        for move in state.legal_moves():
            state.apply(move)
        assert _snapshot(state) == before


@PROPERTY
@given(SEEDS, SEEDS)
def test_a_view_hides_the_other_hand(seed: int, choices: int) -> None:
    """A seat's view names its own tiles and played ones, never the other hand's or the rest."""
    for state in playout(seed, choices):
        laid = {make_tile(*t) for t in state.layout()}
        for seat in (0, 1):
            view = state.view(seat)
            assert view.hand == state.hand_tiles(seat)
            assert view_tiles(view) <= laid | set(view.hand)
            assert view.hand_counts == (len(state.hand_tiles(0)), len(state.hand_tiles(1)))
            assert view.legal == (state.legal_moves() if state.to_move == seat else ())


@PROPERTY
@given(SEEDS, SEEDS, SEEDS)
def test_views_are_the_same_however_often_they_are_asked_for(
    seed: int, choices: int, looks: int
) -> None:
    """A view is the same whether earlier states were viewed (memoised record) or not, and the
    layout is the chain the history builds."""
    states = playout(seed, choices)
    rng = random.Random(looks)
    for state in states:
        if rng.random() < 0.5:
            state.view(rng.randrange(2))
    fresh = playout(seed, choices)
    for seen, unseen in zip(states, fresh, strict=True):
        assert seen.view(0) == unseen.view(0)
        assert seen.view(1) == unseen.view(1)
    chain: list[tuple[int, int]] = []
    for _seat, move, _drawn in fresh[-1].history():
        if move.tile is None or move.out is None:
            continue
        a, b = move.tile
        if move.end is None:
            chain = [(a, b)]
        elif move.end == LEFT:
            chain.insert(0, (move.out, a + b - move.out))
        else:
            chain.append((a + b - move.out, move.out))
    assert fresh[-1].layout() == tuple(chain)
    ends = fresh[-1].ends
    assert ends == ((L, chain[0][0]), (R, chain[-1][1]))
    passes = [
        sum(1 for s, m, _d in fresh[-1].history() if s == seat and m == PASS) for seat in (0, 1)
    ]
    assert list(fresh[-1].view(0).passes) == passes
