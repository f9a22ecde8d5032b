"""Matador rules, one behaviour per test, with exact legal-move sets (docs/rules.md 1.1-1.15 and
its worked examples).

Every expected value here was worked out by hand from docs/rules.md, not copied from the engine.
Ends are written (left, right); ``play(tile, end, out)`` names the outward half.
"""

from __future__ import annotations

import pytest

from arena.games.api import (
    DRAW,
    PASS,
    HandEnd,
    HandOutcome,
    play,
)
from arena.games.matador import MatadorRules
from arena.games.tiles import ALL_TILES, Tile
from tests.games.matador.cases import (
    HANDS_A,
    HANDS_V,
    L,
    R,
    all_tiles_once,
    illegal,
)
from tests.games.positions import (
    dealt,
    ends_of,
    legal_set,
    line,
    position,
)

# -- the worked Matador cases (docs/rules.md examples) ---------------------------------------------

CASE_ONE_PLAYS = {
    play((3, 4), R, 3),
    play((3, 4), R, 4),
    play((3, 4), L, 3),
    play((3, 4), L, 4),
    play((0, 0), L, 0),
    play((0, 0), R, 0),
}


def test_spec_case_matadors_on_blank_and_three_ends_with_draw() -> None:
    """Ends (0, 3), hand 4-3 0-0 5-5: six matador plays and DRAW (every play is a matador)."""
    state = position(ends=(0, 3), hand=[(4, 3), (0, 0), (5, 5)], boneyard=[(1, 1)])
    assert legal_set(state) == CASE_ONE_PLAYS | {DRAW}


def test_spec_case_matadors_on_blank_and_three_ends_boneyard_closed() -> None:
    """The same position with the boneyard closed: the six matador plays, no DRAW, no PASS."""
    state = position(ends=(0, 3), hand=[(4, 3), (0, 0), (5, 5)])
    assert legal_set(state) == CASE_ONE_PLAYS


def test_spec_case_doubles_in_line_and_no_draw() -> None:
    """Ends (1, 4), hand 6-6 3-3 4-4: 6-6 on the 1-end, 3-3 on the 4-end, and DRAW is illegal."""
    state = position(ends=(1, 4), hand=[(6, 6), (3, 3), (4, 4)], boneyard=[(1, 1), (2, 2)])
    assert legal_set(state) == {play((6, 6), L, 6), play((3, 3), R, 3)}


def test_spec_case_blank_tiles_only_go_blank_outward() -> None:
    """Ends (0, 5), hand 2-0 5-0 1-1: only 2-0 on the 5-end, blank outward; then both ends are 0."""
    state = position(ends=(0, 5), hand=[(2, 0), (5, 0), (1, 1)], boneyard=[(3, 3)])
    assert legal_set(state) == {play((0, 2), R, 0)}
    assert ends_of(state.apply(play((0, 2), R, 0))) == (0, 0)


def test_spec_case_drawn_playable_tile_stops_drawing_but_any_play_is_allowed() -> None:
    """After drawing a playable 4-4 there is no DRAW, and the matador held before may be played."""
    state = position(ends=(2, 3), hand=[(6, 1), (1, 1)], boneyard=[(4, 4), (5, 5), (6, 6)])
    matador = {play((1, 6), L, 1), play((1, 6), L, 6), play((1, 6), R, 1), play((1, 6), R, 6)}
    assert legal_set(state) == matador | {DRAW}
    after = state.apply(DRAW)
    assert after.to_move == 0
    assert legal_set(after) == matador | {play((4, 4), R, 4)}
    assert ends_of(after.apply(play((1, 6), L, 6))) == (6, 3)
    assert ends_of(after.apply(play((4, 4), R, 4))) == (2, 4)


def test_spec_case_three_players_block_on_the_third_pass() -> None:
    """With three players nobody able to move, two passes go on and the third blocks the hand."""
    state = position(ends=(0, 0), hand=[(1, 2)], players=3, other_hands={1: [(3, 5)], 2: [(4, 4)]})
    state = line(state, PASS, PASS)
    assert state.outcome() is None
    assert state.to_move == 2
    blocked = state.apply(PASS)
    outcome = blocked.outcome()
    assert outcome is not None
    assert outcome.kind is HandEnd.BLOCK


def test_spec_case_three_players_play_between_passes_resets_the_count() -> None:
    """Pass, play, pass, pass is no block for three players; the third pass after the play is."""
    state = position(
        ends=(1, 1),
        hand=[(2, 2)],
        players=3,
        other_hands={1: [(6, 6), (3, 3)], 2: [(4, 4)]},
    )
    state = state.apply(PASS)
    assert legal_set(state) == {play((6, 6), L, 6), play((6, 6), R, 6)}
    state = line(state, play((6, 6), L, 6), PASS, PASS)
    assert state.outcome() is None
    assert state.to_move == 1
    blocked = state.apply(PASS)
    assert blocked.outcome() == HandOutcome(
        kind=HandEnd.BLOCK, winners=(0,), award=(14, 0, 0), scores=(14, 0, 0), pips=(4, 6, 8)
    )


def test_spec_case_tiles_are_conserved_along_a_real_line() -> None:
    """Hands + boneyard + layout hold the 28 tiles after every move of a scripted line."""
    state = dealt(HANDS_V, boneyard=[(1, 4)])
    moves = [play((6, 6), None, 6), DRAW, play((1, 4), L, 4), play((1, 1), R, 1)]
    assert all_tiles_once(state) == list(ALL_TILES)
    for move in moves:
        state = state.apply(move)
        assert all_tiles_once(state) == list(ALL_TILES)


# -- blank ends ------------------------------------------------------------------------------------


def test_blank_ends_accept_no_ordinary_tile() -> None:
    """On ends (0, 0), boneyard closed, a hand of ordinary tiles (blanks included) must pass."""
    state = position(ends=(0, 0), hand=[(1, 2), (3, 3), (0, 5), (0, 6)])
    assert legal_set(state) == {PASS}


def test_blank_end_accepts_every_matador_with_both_outs() -> None:
    """On ends (0, 0) each seven-matador has two outs per end and 0-0 one: fourteen plays."""
    state = position(ends=(0, 0), hand=[(0, 0), (1, 6), (2, 5), (3, 4)])
    expected = {play((0, 0), L, 0), play((0, 0), R, 0)}
    for low, high in [(1, 6), (2, 5), (3, 4)]:
        for end in (L, R):
            expected |= {play((low, high), end, low), play((low, high), end, high)}
    assert len(expected) == 14
    assert legal_set(state) == expected


def test_non_matador_with_a_blank_only_goes_blank_outward() -> None:
    """0-4 goes on a 3-end and 0-1 on a 6-end, each with the blank outward."""
    state = position(ends=(3, 6), hand=[(0, 4), (1, 0)], boneyard=[(2, 2)])
    assert legal_set(state) == {play((0, 4), L, 0), play((0, 1), R, 0)}


def test_blank_outward_play_closes_that_end_to_ordinary_tiles() -> None:
    """After 0-4 goes on the 3-end, the new blank end takes none of the next seat's tiles."""
    state = position(
        ends=(3, 6), hand=[(0, 4), (5, 5)], other_hands={1: [(1, 1), (0, 3)]}, boneyard=[]
    )
    after = state.apply(play((0, 4), L, 0))
    assert ends_of(after) == (0, 6)
    assert legal_set(after) == {play((1, 1), R, 1)}


# -- doubles ---------------------------------------------------------------------------------------


def test_double_goes_on_the_end_that_sums_to_seven_and_the_end_keeps_its_value() -> None:
    """5-5 goes on a 2-end and 2-2 on a 5-end; after 5-5 the left end is 5."""
    state = position(ends=(2, 5), hand=[(5, 5), (2, 2)])
    assert legal_set(state) == {play((5, 5), L, 5), play((2, 2), R, 2)}
    assert ends_of(state.apply(play((5, 5), L, 5))) == (5, 5)


def test_double_is_never_wild() -> None:
    """1-1 and 2-2 do not go on ends 1 and 2 (no value matching), so the player passes."""
    state = position(ends=(1, 2), hand=[(1, 1), (2, 2), (3, 3)])
    assert legal_set(state) == {PASS}


def test_double_blank_is_a_matador_on_any_end_with_one_out() -> None:
    """0-0 goes on ends 3 and 5, blank outward, and DRAW stays legal (only a matador plays)."""
    state = position(ends=(3, 5), hand=[(0, 0)], boneyard=[(6, 6)])
    assert legal_set(state) == {play((0, 0), L, 0), play((0, 0), R, 0), DRAW}
    assert ends_of(state.apply(play((0, 0), R, 0))) == (3, 0)


# -- matadors --------------------------------------------------------------------------------------


@pytest.mark.parametrize("tile", [(1, 6), (2, 5), (3, 4)])
@pytest.mark.parametrize("ends", [(0, 0), (2, 4), (3, 3), (6, 1)])
def test_seven_matador_lists_both_outs_on_every_end(tile: Tile, ends: tuple[int, int]) -> None:
    """6-1, 5-2 and 4-3 go on any end with either half outward: four plays."""
    state = position(ends=ends, hand=[tile])
    low, high = tile
    assert legal_set(state) == {
        play(tile, L, low),
        play(tile, L, high),
        play(tile, R, low),
        play(tile, R, high),
    }


def test_matador_out_becomes_the_new_end_value() -> None:
    """6-1 on the right with 1 out makes the right end 1; with 6 out it makes it 6."""
    state = position(ends=(2, 4), hand=[(1, 6), (5, 5)])
    assert ends_of(state.apply(play((1, 6), R, 1))) == (2, 1)
    assert ends_of(state.apply(play((1, 6), R, 6))) == (2, 6)
    assert ends_of(state.apply(play((1, 6), L, 1))) == (1, 4)


def test_matador_with_an_out_that_is_not_a_half_isillegal() -> None:
    """4-3 with 5 outward is not a move."""
    state = position(ends=(2, 4), hand=[(3, 4), (5, 5)])
    illegal(state, play((3, 4), L, 5))


def test_move_with_a_non_canonical_tile_isillegal() -> None:
    """Moves carry canonical tiles: (4, 3) is not how 3-4 is written."""
    state = position(ends=(2, 4), hand=[(3, 4), (5, 5)])
    illegal(state, play((4, 3), L, 4))  # type: ignore[arg-type]


def test_tile_not_in_hand_isillegal() -> None:
    """A playable tile the player does not hold cannot be played."""
    state = position(ends=(1, 4), hand=[(6, 6)], other_hands={1: [(3, 3)]})
    illegal(state, play((3, 3), R, 3))


def test_ordinary_tile_has_one_orientation_per_end() -> None:
    """2-4 goes on a 5-end only with 4 out and on a 3-end only with 2 out."""
    state = position(ends=(5, 3), hand=[(2, 4)])
    assert legal_set(state) == {play((2, 4), L, 4), play((2, 4), R, 2)}


# -- two ends of equal value -----------------------------------------------------------------------


def test_two_ends_of_equal_value_are_listed_separately() -> None:
    """On ends (4, 4), 3-3 and 0-3 are each listed on the left and on the right."""
    state = position(ends=(4, 4), hand=[(3, 3), (0, 3)])
    assert legal_set(state) == {
        play((3, 3), L, 3),
        play((3, 3), R, 3),
        play((0, 3), L, 0),
        play((0, 3), R, 0),
    }


def test_double_lead_gives_two_ends_listed_separately() -> None:
    """After a 6-6 lead the next seat may put 1-3 on the left or on the right, 3 out."""
    state = dealt(HANDS_A).apply(play((6, 6), None, 6))
    assert ends_of(state) == (6, 6)
    assert legal_set(state) == {play((1, 3), L, 3), play((1, 3), R, 3)}


# -- the lead --------------------------------------------------------------------------------------


def test_lead_any_lists_every_hand_tile_once_with_the_high_half_out() -> None:
    """The leader (6-6) may lead any of its five tiles, each once, high half out."""
    state = dealt(HANDS_A)
    assert state.to_move == 0
    assert legal_set(state) == {
        play((6, 6), None, 6),
        play((0, 1), None, 1),
        play((2, 3), None, 3),
        play((1, 4), None, 4),
        play((0, 5), None, 5),
    }


def test_lead_highest_double_allows_only_the_leading_double() -> None:
    """With lead=highest_double the only move is 6-6."""
    state = dealt(HANDS_A, rules=MatadorRules(lead="highest_double"))
    assert state.legal_moves() == (play((6, 6), None, 6),)


def test_lead_highest_double_without_a_double_is_the_highest_ranked_tile() -> None:
    """No double dealt: 6-3 outranks 5-4, so its holder leads and 6-3 is the only move."""
    hands = (
        [(4, 5), (0, 1), (0, 2), (1, 2), (0, 3)],
        [(3, 6), (0, 4), (1, 3), (1, 4), (2, 3)],
    )
    state = dealt(hands, rules=MatadorRules(lead="highest_double"))
    assert state.to_move == 1
    assert state.legal_moves() == (play((3, 6), None, 6),)


def test_leader_is_the_holder_of_the_highest_double() -> None:
    """5-5 beats 4-4 and the non-double 6-5 for the lead, among three players."""
    hands = (
        [(4, 4), (5, 6), (0, 1), (1, 2), (2, 3)],
        [(0, 2), (0, 3), (1, 3), (1, 4), (0, 4)],
        [(5, 5), (0, 5), (1, 5), (2, 4), (3, 5)],
    )
    assert dealt(hands).to_move == 2


def test_leader_ignores_the_boneyard() -> None:
    """Only 0-0 is dealt among the doubles: its holder leads though 6-6 is in the boneyard."""
    hands = (
        [(5, 6), (4, 6), (3, 6), (4, 5), (2, 6)],
        [(3, 5), (1, 6), (2, 5), (3, 4), (0, 6)],
        [(0, 0), (0, 1), (0, 2), (1, 2), (0, 3)],
    )
    state = dealt(hands, boneyard=[(6, 6)], rules=MatadorRules(lead="highest_double"))
    assert state.to_move == 2
    assert state.legal_moves() == (play((0, 0), None, 0),)


def test_lead_is_placed_low_half_left_high_half_right() -> None:
    """Leading 2-3 opens a left end 2 and a right end 3, and the turn passes on."""
    state = dealt(HANDS_A).apply(play((2, 3), None, 3))
    assert ends_of(state) == (2, 3)
    assert state.layout() == ((2, 3),)
    assert state.to_move == 1


def test_no_draw_or_pass_on_the_lead() -> None:
    """DRAW and PASS are illegal on the lead though the boneyard is full."""
    state = dealt(HANDS_A)
    assert all(m.kind == "play" and m.end is None for m in state.legal_moves())
    illegal(state, DRAW)
    illegal(state, PASS)


def test_lead_has_no_mirror_image_and_no_end() -> None:
    """2-3 led with 2 out, or led onto an end, is not a move."""
    state = dealt(HANDS_A)
    illegal(state, play((2, 3), None, 2))
    illegal(state, play((2, 3), L, 3))


# -- drawing ---------------------------------------------------------------------------------------


@pytest.mark.parametrize("policy", ["matador_only", "never", "always"])
def test_draw_is_the_only_move_when_nothing_plays(policy: str) -> None:
    """With no play and a boneyard, DRAW is the only legal move under every draw policy."""
    rules = MatadorRules(draw_when_playable=policy)  # type: ignore[arg-type]
    state = position(ends=(1, 1), hand=[(5, 5)], boneyard=[(2, 2)], rules=rules)
    assert legal_set(state) == {DRAW}


def test_draw_when_playable_never_forbids_drawing_with_only_a_matador() -> None:
    """draw_when_playable=never: a matador play rules DRAW out."""
    rules = MatadorRules(draw_when_playable="never")
    state = position(ends=(0, 3), hand=[(3, 4), (5, 5)], boneyard=[(1, 1)], rules=rules)
    assert legal_set(state) == {
        play((3, 4), L, 3),
        play((3, 4), L, 4),
        play((3, 4), R, 3),
        play((3, 4), R, 4),
    }


def test_draw_when_playable_always_allows_drawing_with_an_ordinary_play() -> None:
    """draw_when_playable=always: DRAW stands beside the ordinary 6-6 play."""
    rules = MatadorRules(draw_when_playable="always")
    state = position(ends=(1, 4), hand=[(6, 6)], boneyard=[(1, 1)], rules=rules)
    assert legal_set(state) == {play((6, 6), L, 6), DRAW}


def test_draw_when_playable_always_still_respects_the_reserve() -> None:
    """draw_when_playable=always with reserve 2 and two tiles left: only the play."""
    rules = MatadorRules(draw_when_playable="always", reserve=2)
    state = position(ends=(1, 4), hand=[(6, 6)], boneyard=[(1, 1), (2, 2)], rules=rules)
    assert legal_set(state) == {play((6, 6), L, 6)}


def test_reserve_two_keeps_the_last_two_tiles_undrawn() -> None:
    """reserve=2: DRAW with three tiles left, then PASS with two left and nothing playable."""
    rules = MatadorRules(reserve=2)
    state = position(ends=(1, 1), hand=[(5, 5)], boneyard=[(2, 2), (3, 3), (4, 4)], rules=rules)
    assert legal_set(state) == {DRAW}
    after = state.apply(DRAW)
    assert after.boneyard_size == 2
    assert after.hand_tiles(0) == ((2, 2), (5, 5))
    assert legal_set(after) == {PASS}


def test_reserve_two_forbids_drawing_for_a_matador_holder() -> None:
    """reserve=2 with two tiles left: the matador must be played, no DRAW."""
    rules = MatadorRules(reserve=2)
    state = position(ends=(0, 3), hand=[(0, 0)], boneyard=[(1, 1), (2, 2)], rules=rules)
    assert legal_set(state) == {play((0, 0), L, 0), play((0, 0), R, 0)}


def test_reserve_zero_allows_drawing_the_last_tile() -> None:
    """reserve=0: the last boneyard tile can be drawn; then the boneyard is closed: PASS."""
    state = position(ends=(1, 1), hand=[(5, 5)], boneyard=[(2, 2)])
    assert legal_set(state) == {DRAW}
    after = state.apply(DRAW)
    assert after.boneyard_size == 0
    assert legal_set(after) == {PASS}


def test_until_playable_draws_again_while_nothing_is_playable() -> None:
    """The player draws 2-2 and 3-3 (unplayable) and keeps the turn; 6-6 ends the drawing."""
    state = position(ends=(1, 1), hand=[(5, 5)], boneyard=[(2, 2), (3, 3), (6, 6), (4, 4)])
    state = state.apply(DRAW)
    assert (state.to_move, legal_set(state)) == (0, {DRAW})
    state = state.apply(DRAW)
    assert (state.to_move, legal_set(state)) == (0, {DRAW})
    state = state.apply(DRAW)
    assert state.to_move == 0
    assert legal_set(state) == {play((6, 6), L, 6), play((6, 6), R, 6)}


def test_until_playable_drawn_matador_allows_another_draw() -> None:
    """Drawing 6-1 under matador_only leaves DRAW legal beside the four 6-1 plays."""
    state = position(ends=(1, 1), hand=[(5, 5)], boneyard=[(1, 6), (4, 4)])
    state = state.apply(DRAW)
    assert legal_set(state) == {
        play((1, 6), L, 1),
        play((1, 6), L, 6),
        play((1, 6), R, 1),
        play((1, 6), R, 6),
        DRAW,
    }


def test_draw_is_public_but_the_turn_stays() -> None:
    """A DRAW moves the top tile to the drawer's hand and the same seat acts again."""
    state = position(ends=(1, 1), hand=[(5, 5)], players=3, boneyard=[(2, 2), (3, 3)])
    after = state.apply(DRAW)
    assert after.to_move == 0
    assert after.hand_tiles(0) == ((2, 2), (5, 5))
    assert after.boneyard_tiles() == ((3, 3),)


ONE_THEN_PASS = MatadorRules(draw_mode="one_then_pass")


def test_one_then_pass_allows_one_draw_then_only_pass() -> None:
    """one_then_pass: after one unplayable draw PASS is the only move, the boneyard still open."""
    state = position(ends=(1, 1), hand=[(5, 5)], boneyard=[(2, 2), (3, 3)], rules=ONE_THEN_PASS)
    assert legal_set(state) == {DRAW}
    after = state.apply(DRAW)
    assert legal_set(after) == {PASS}
    assert after.apply(PASS).to_move == 1


def test_one_then_pass_plays_a_matador_held_before_the_draw() -> None:
    """one_then_pass: after the draw, the 0-0 held before must be played (no DRAW, no PASS)."""
    state = position(
        ends=(1, 1), hand=[(5, 5), (0, 0)], boneyard=[(2, 2), (3, 3)], rules=ONE_THEN_PASS
    )
    double_blank = {play((0, 0), L, 0), play((0, 0), R, 0)}
    assert legal_set(state) == double_blank | {DRAW}
    assert legal_set(state.apply(DRAW)) == double_blank


def test_one_then_pass_drawn_playable_tile_is_played() -> None:
    """one_then_pass: a playable drawn 6-6 gives its two plays and nothing else."""
    state = position(ends=(1, 1), hand=[(5, 5)], boneyard=[(6, 6), (3, 3)], rules=ONE_THEN_PASS)
    assert legal_set(state.apply(DRAW)) == {play((6, 6), L, 6), play((6, 6), R, 6)}


def test_one_then_pass_allows_a_draw_again_on_the_next_turn() -> None:
    """one_then_pass limits one DRAW per turn, not per hand."""
    state = position(
        ends=(1, 1),
        hand=[(5, 5)],
        other_hands={1: [(4, 4)]},
        boneyard=[(2, 2), (3, 3), (0, 1)],
        rules=ONE_THEN_PASS,
    )
    state = line(state, DRAW, PASS, DRAW, PASS)
    assert state.to_move == 0
    assert legal_set(state) == {DRAW}


# -- passing ---------------------------------------------------------------------------------------


def test_pass_is_illegal_with_a_play() -> None:
    """A player with a legal play never passes."""
    state = position(ends=(1, 4), hand=[(6, 6)])
    assert legal_set(state) == {play((6, 6), L, 6)}
    illegal(state, PASS)


def test_pass_is_illegal_while_drawing_is_possible() -> None:
    """With no play and an open boneyard the player draws instead of passing."""
    state = position(ends=(1, 1), hand=[(5, 5)], boneyard=[(2, 2)])
    illegal(state, PASS)


def test_closed_boneyard_forces_the_only_matador_play() -> None:
    """With the boneyard closed and only 5-2 playable, 5-2 must be played: no PASS."""
    state = position(ends=(1, 1), hand=[(5, 5), (2, 5)])
    assert legal_set(state) == {
        play((2, 5), L, 2),
        play((2, 5), L, 5),
        play((2, 5), R, 2),
        play((2, 5), R, 5),
    }


def test_pass_hands_the_turn_on_in_seat_order() -> None:
    """After seat 2 of three passes, seat 0 is to move."""
    state = position(
        ends=(0, 0), hand=[(1, 2)], players=3, to_move=2, other_hands={0: [(3, 5)], 1: [(4, 4)]}
    )
    assert state.apply(PASS).to_move == 0


# -- blocks ----------------------------------------------------------------------------------------


def test_two_players_block_on_the_second_pass() -> None:
    """Two players who cannot move: the first pass goes on, the second blocks; 1-2 wins 8."""
    state = position(ends=(0, 0), hand=[(1, 2)], other_hands={1: [(3, 5)]})
    once = state.apply(PASS)
    assert once.outcome() is None
    assert once.apply(PASS).outcome() == HandOutcome(
        kind=HandEnd.BLOCK, winners=(0,), award=(8, 0), scores=(8, 0), pips=(3, 8)
    )


def test_four_players_block_on_the_fourth_pass() -> None:
    """Four players: three passes go on, the fourth blocks and 0-1 (1 pip) wins 19."""
    state = position(
        ends=(0, 0),
        hand=[(1, 2)],
        players=4,
        other_hands={1: [(3, 5)], 2: [(4, 4)], 3: [(0, 1)]},
    )
    state = line(state, PASS, PASS, PASS)
    assert state.outcome() is None
    assert state.apply(PASS).outcome() == HandOutcome(
        kind=HandEnd.BLOCK,
        winners=(3,),
        award=(0, 0, 0, 19),
        scores=(0, 0, 0, 19),
        pips=(3, 8, 8, 1),
    )


def test_draw_resets_the_run_of_passes() -> None:
    """one_then_pass: pass, draw, pass is not a block for two players; a further pass is."""
    state = position(
        ends=(1, 1),
        hand=[(5, 5)],
        other_hands={1: [(4, 4)]},
        boneyard=[(2, 2), (0, 1)],
        rules=ONE_THEN_PASS,
    )
    state = line(state, DRAW, PASS, DRAW, PASS)
    assert state.outcome() is None
    assert state.to_move == 0
    assert legal_set(state) == {PASS}
    assert state.apply(PASS).outcome() == HandOutcome(
        kind=HandEnd.BLOCK, winners=(1,), award=(0, 14), scores=(0, 14), pips=(14, 9)
    )


# -- domino and scoring ----------------------------------------------------------------------------


def test_domino_ends_the_hand_at_once() -> None:
    """Playing the last tile ends the hand: no one is to move and nothing more is legal."""
    state = position(
        ends=(3, 3),
        hand=[(2, 5)],
        players=3,
        other_hands={1: [(5, 5), (0, 0)], 2: [(1, 2)]},
        boneyard=[(4, 4)],
    )
    done = state.apply(play((2, 5), L, 5))
    assert done.to_move is None
    assert done.legal_moves() == ()
    assert done.outcome() is not None
    illegal(done, PASS)


def test_domino_winner_scores_all_other_hands_doubles_twice_double_blank_zero() -> None:
    """Domino by seat 0: 5-5 counts 10, 0-0 counts 0, 1-2 counts 3, so seat 0 scores 13."""
    state = position(
        ends=(3, 3),
        hand=[(2, 5)],
        players=3,
        other_hands={1: [(5, 5), (0, 0)], 2: [(1, 2)]},
        boneyard=[(4, 4)],
        scores=(5, 7, 9),
    )
    assert state.apply(play((2, 5), L, 5)).outcome() == HandOutcome(
        kind=HandEnd.DOMINO, winners=(0,), award=(13, 0, 0), scores=(18, 7, 9), pips=(0, 10, 3)
    )


def test_block_winner_has_fewest_pips_and_scores_every_other_hand() -> None:
    """Block with pips 7, 2, 12: seat 1 wins and scores 19 on top of its match score."""
    state = position(
        ends=(0, 0),
        hand=[(1, 2), (2, 2)],
        players=3,
        other_hands={1: [(1, 1)], 2: [(5, 6), (0, 1)]},
        scores=(10, 20, 30),
    )
    assert line(state, PASS, PASS, PASS).outcome() == HandOutcome(
        kind=HandEnd.BLOCK,
        winners=(1,),
        award=(0, 19, 0),
        scores=(10, 39, 30),
        pips=(7, 2, 12),
    )


def test_drawn_block_between_tied_fewest_scores_nobody() -> None:
    """Block with pips 4, 4, 11: seats 0 and 1 tie, both are listed and nobody scores."""
    state = position(
        ends=(0, 0),
        hand=[(1, 3)],
        players=3,
        other_hands={1: [(2, 2)], 2: [(5, 6)]},
        scores=(1, 2, 3),
    )
    assert line(state, PASS, PASS, PASS).outcome() == HandOutcome(
        kind=HandEnd.BLOCK, winners=(0, 1), award=(0, 0, 0), scores=(1, 2, 3), pips=(4, 4, 11)
    )
