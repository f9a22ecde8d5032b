"""Fives rules, one behaviour per test, with exact legal moves and scores (docs/rules.md 2.1-2.12
and its worked examples).

Every expected value here was worked out by hand from docs/rules.md 2.1-2.12, not copied from the
engine; the comments show the arithmetic. Seat 0 is "A", seat 1 is "B". Moves are written in a
short notation, ``"2-6 e2"`` = tile 2-6 on the east end with 2 outward (``w``/``e``/``n``/``s``).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence

import pytest

from arena.games import registry
from arena.games.api import DRAW, PASS, Deal, HandEnd, IllegalMoveError, Move, PublicEvent, play
from arena.games.fives import (
    FIVES,
    TARGET,
    FivesRules,
    FivesState,
    ScoreEvent,
    deal,
    parse_rules,
    rules_dict,
    start_hand,
)
from arena.games.match import Match, MatchLength
from arena.games.tiles import ALL_TILES, Tile, make_tile

DEFAULT = FivesRules()
FLAG_OFF = FivesRules(spinner_sides_first=False)
FEWER_PIPS = FivesRules(block_winner="fewer_pips")
_ENDS = {"w": "west", "e": "east", "n": "north", "s": "south"}


def dealt(
    hands: Sequence[Iterable[Tile]],
    stock_top: Iterable[Tile] = (),
    *,
    rules: FivesRules = DEFAULT,
    scores: tuple[int, int] | None = None,
) -> FivesState:
    """Start a hand from explicit hands; the stock is ``stock_top`` then the rest, canonical."""
    hand_lists = [tuple(make_tile(*t) for t in h) for h in hands]
    top = [make_tile(*t) for t in stock_top]
    used = {t for h in hand_lists for t in h} | set(top)
    stock = (*top, *(t for t in ALL_TILES if t not in used))
    return start_hand(rules, 2, Deal(tuple(hand_lists), stock), scores)


def tiles(text: str) -> list[Tile]:
    """Tiles written ``"1-5 1-1 0-5"``, in that order."""
    return [make_tile(int(t[0]), int(t[2])) for t in text.split()]


def moves(text: str) -> list[Move]:
    """Moves in the short notation: ``"2-6 e2, draw, pass"``."""
    result = []
    for item in (part.strip() for part in text.split(",")):
        if item in ("draw", "pass"):
            result.append(DRAW if item == "draw" else PASS)
            continue
        found = re.fullmatch(r"(\d)-(\d) ([wens])(\d)", item)
        assert found, item
        a, b, end, out = found.groups()
        result.append(play(make_tile(int(a), int(b)), _ENDS[end], int(out)))
    return result


def line(state: FivesState, text: str) -> FivesState:
    """Apply the moves of ``text`` in order (each must be legal)."""
    for move in moves(text):
        state = state.apply(move)
    return state


def legal(state: FivesState) -> set[Move]:
    """The legal moves as a set (their order is not part of these tests)."""
    moves_ = state.legal_moves()
    assert len(moves_) == len(set(moves_))
    return set(moves_)


def illegal(state: FivesState, move: Move) -> None:
    """``move`` is refused with IllegalMoveError naming it."""
    with pytest.raises(IllegalMoveError) as info:
        state.apply(move)
    assert info.value.move == move


def all_tiles(state: FivesState) -> list[Tile]:
    """Hands + stock + table, sorted."""
    held = [t for s in range(2) for t in state.hand_tiles(s)]
    return sorted(held + list(state.boneyard_tiles()) + list(state.placed_tiles()))


# -- deals used below ---------------------------------------------------------------------------

#: B leads 6-6 (the spinner); A's 1-6 and B's 4-6 cover its sides, then 3-6 north and 2-6 south.
SIX = (
    [(1, 6), (3, 6), (0, 0), (0, 1), (1, 1), (1, 2), (0, 2)],
    [(6, 6), (4, 6), (2, 6), (0, 3), (0, 4), (1, 3), (1, 4)],
)
#: rules.md 2.6's example: A leads 5-5; B and A build the east arm 5-1, 1-3, 3-5; A then holds 0-5.
FIVE = (
    [(5, 5), (1, 3), (0, 5), (0, 1), (0, 2), (1, 2), (2, 4)],
    [(1, 5), (3, 5), (0, 3), (0, 4), (1, 4), (2, 3), (3, 4)],
)
#: The deal of docs/rules.md 2.11's example: A leads 2-2; B plays 2-6 east, A 2-3 west, B 2-4 north.
TWO = (
    [(2, 2), (2, 3), (0, 1), (0, 3), (0, 5), (1, 3), (1, 5)],
    [(2, 6), (2, 4), (0, 6), (1, 4), (1, 6), (3, 4), (4, 5)],
)
#: A leads 5-5; later 4-4 and 1-1 are laid as ordinary doubles at the ends.
DOUBLES = (
    [(5, 5), (4, 5), (1, 1), (0, 2), (0, 3), (2, 3), (3, 6)],
    [(1, 5), (4, 4), (0, 1), (0, 4), (1, 2), (2, 4), (3, 4)],
)
#: No double dealt: A leads 3-6; B has no 3 or 6 and draws 6-6 (stock top), the first double.
LATE = (
    [(3, 6), (1, 6), (2, 6), (0, 3), (1, 3), (2, 3), (3, 4)],
    [(0, 1), (0, 2), (0, 4), (1, 2), (1, 4), (2, 4), (0, 5)],
)
#: No double dealt (5-6, 4-6 in the stock): A leads 3-6 and goes out on its sixth play.
DOMINO = (
    [(3, 6), (2, 5), (0, 1), (1, 4), (2, 4), (4, 5), (3, 5)],
    [(2, 6), (0, 3), (1, 5), (1, 2), (3, 4), (0, 5), (1, 6)],
)
DOMINO_LINE = (
    "2-6 e2, 2-5 e5, 0-3 w0, 0-1 w1, 1-5 e1, 1-4 w4, 1-2 e2, 2-4 e4, 3-4 w3, 4-5 e5, 0-5 e0, 3-5 w5"
)
#: B leads 6-6; A has no 6 at all; the stock top is 1-2 (no play) then 3-6 (a play).
DRAWING = (
    [(0, 1), (0, 2), (0, 3), (0, 4), (1, 3), (1, 4), (2, 3)],
    [(6, 6), (0, 5), (1, 5), (2, 5), (3, 5), (4, 5), (5, 5)],
)
#: B holds all seven 6s and leads 6-6; A and the stock hold no 6: A draws all 14, then passes.
STUCK = (
    [(0, 1), (0, 2), (0, 3), (0, 4), (0, 5), (1, 2), (1, 3)],
    [(6, 6), (0, 6), (1, 6), (2, 6), (3, 6), (4, 6), (5, 6)],
)

# Block lines (found by random play, every result below checked by hand). Each gives the
# hands, the whole stock top first, and the line after the automatic opening.

#: L1: B leads 6-6; every play goes west, so the spinner's east side (6) stays open and the
#: north and south ends never open. All seven 6s end on the table; B draws the last tile.
L1 = (
    (
        tiles("0-6 1-2 2-3 2-4 3-3 3-4 3-6"),
        tiles("0-1 0-3 1-3 1-6 4-5 5-5 6-6"),
    ),
    tiles("1-5 1-1 0-5 2-6 4-6 0-4 4-4 5-6 3-5 0-0 2-5 2-2 1-4 0-2"),
    # Counts: 6-6 12; 0-6 w 0+12; 0-3 w 3+12 = 15 (B 15); 3-6 w 18; 1-6 w 13; 1-2 w 14;
    # 2-6 w 18; 4-6 w 16; 4-5 w 17; 5-6 w 18. Ends west 6, east 6 (the spinner's side).
    "0-6 w0, 0-3 w3, 3-6 w6, 1-6 w1, 1-2 w2, draw, draw, draw, draw, 2-6 w6, draw, 4-6 w4,"
    " 4-5 w5, draw, draw, draw, 5-6 w6, draw, draw, draw, draw, draw, draw",
)
#: L2: B leads 4-4; 8 tiles left in each hand; A placed the last tile (2-4).
L2 = (
    (
        tiles("0-1 0-4 1-4 2-3 3-5 4-5 5-6"),
        tiles("0-2 1-5 2-2 2-5 3-3 3-4 4-4"),
    ),
    tiles("1-2 2-6 1-1 4-6 0-5 3-6 1-6 6-6 0-0 5-5 2-4 0-6 0-3 1-3"),
    # Counts: 4-4 8; 4-5 w 13; 1-5 w 9; 1-4 w 12; 3-4 e 4+3 = 7 (both sides covered);
    # 2-3 e 6; 0-2 e 4; 0-4 e 8; 4-6 e 4+6 = 10 (B 10); 5-6 e 9; 2-5 e 6; 2-4 e 8.
    "4-5 w5, 1-5 w1, 1-4 w4, 3-4 e3, 2-3 e2, 0-2 e0, 0-4 e4, draw, draw, draw, draw, 4-6 e6,"
    " 5-6 e5, 2-5 e2, draw, draw, draw, draw, draw, draw, draw, 2-4 e4, draw, draw, draw",
)
#: L3: A leads 5-5; pips 19 each, 5 tiles each, B placed the last tile (4-4).
L3 = (
    (
        tiles("1-1 1-2 1-5 2-4 3-5 3-6 5-5"),
        tiles("0-2 0-3 1-3 1-4 1-6 2-5 3-4"),
    ),
    tiles("4-5 0-4 2-2 4-6 0-0 0-5 3-3 6-6 5-6 2-6 4-4 0-6 0-1 2-3"),
    # Counts: 5-5 10 (A 10); 2-5 e 12; 1-5 w 3; 1-4 w 6; 3-5 s 9; 3-4 w 8; 3-6 s 11; 1-3 w 9;
    # 1-1 w 2+2+6 = 10 (A 20); 1-6 w 14; 2-4 e 16; 4-5 e 17; 4-6 w 4+5+6 = 15 (A 35);
    # 0-5 e 4+0+6 = 10 (B 10); 0-4 e 14; 6-6 s 4+4+12 = 20 (B 30); 5-6 s 13; 4-4 e 17.
    "2-5 e2, 1-5 w1, 1-4 w4, 3-5 s3, 3-4 w3, 3-6 s6, 1-3 w1, 1-1 w1, 1-6 w6, 2-4 e4, draw,"
    " 4-5 e5, draw, draw, draw, 4-6 w4, draw, draw, 0-5 e0, 0-4 e4, draw, draw, 6-6 s6, draw,"
    " 5-6 s5, draw, draw, 4-4 e4, draw, draw, draw",
)
#: L4: A leads 4-4; pips 22 each, A 6 tiles, B 5; A's last play counts 30 over four arms.
L4 = (
    (
        tiles("0-0 1-6 2-2 2-3 3-5 4-4 4-5"),
        tiles("0-2 0-6 1-5 2-5 2-6 3-4 3-6"),
    ),
    tiles("0-5 3-3 0-1 2-4 1-3 4-6 6-6 0-4 0-3 5-6 1-2 5-5 1-4 1-1"),
    # Counts: 4-4 8; 3-4 w 11; 3-5 w 13; 2-5 w 10 (B 10); 2-3 w 11; 3-6 w 14; 1-6 w 9;
    # 1-5 w 13; 4-5 e 5+5 = 10 (A 10); 0-5 e 5 (B 15); 0-0 e 5 (A 15); 0-6 e 11; 2-4 s 13;
    # 2-6 s 17; 4-6 n 23; 6-6 e 5+12+6+6 = 29; then 5-6 w 6+12+6+6 = 30 (A 45).
    "3-4 w3, 3-5 w5, 2-5 w2, 2-3 w3, 3-6 w6, 1-6 w1, 1-5 w5, 4-5 e5, draw, 0-5 e0, 0-0 e0,"
    " 0-6 e6, draw, draw, draw, 2-4 s2, 2-6 s6, draw, draw, 4-6 n6, draw, 6-6 e6, draw, draw,"
    " draw, 5-6 w6, draw, draw, draw, draw",
)
#: L5: B leads 6-6; B empties the stock, is stuck and passes; A's 1-1 then blocks the hand.
L5 = (
    (
        tiles("1-2 1-3 1-6 3-4 4-4 4-6 5-6"),
        tiles("0-0 0-2 1-4 1-5 2-5 3-5 6-6"),
    ),
    tiles("3-6 4-5 0-5 0-6 1-1 2-3 5-5 0-1 2-2 2-4 0-3 2-6 0-4 3-3"),
    # Counts: 6-6 12; 4-6 e 16; 1-4 e 13; 1-6 e 18; 3-6 e 15 (B 15); 1-3 e 13; 1-5 e 17;
    # 5-6 e 18; 0-6 e 12; 0-1 e 13; 2-6 w 2+1 = 3; 1-2 w 2; (B passes) 1-1 e 1+2 = 3.
    "4-6 e4, 1-4 e1, 1-6 e6, draw, 3-6 e3, 1-3 e1, 1-5 e5, 5-6 e6, draw, draw, draw, 0-6 e0,"
    " draw, draw, draw, draw, 0-1 e1, draw, draw, draw, draw, 2-6 w2, 1-2 w1, draw, draw",
)


def block_line(
    case: tuple[tuple[list[Tile], list[Tile]], list[Tile], str],
    rules: FivesRules = DEFAULT,
    scores: tuple[int, int] | None = None,
) -> FivesState:
    """Play one of the block lines above under ``rules`` from ``scores``."""
    hands, stock, text = case
    assert len(stock) == 14
    return line(dealt(hands, stock, rules=rules, scores=scores), text)


# -- the worked Fives cases (docs/rules.md examples) -----------------------------------------------


def test_spec_ends_are_positions_west_side_scores_5_east_end_scores_10() -> None:
    """Spinner 5-5 with east arm 5-1, 1-3, 3-5: 5-0 on the west side scores 5, on the east 10."""
    state = line(dealt(FIVE), "1-5 e1, 1-3 e3, 3-5 e5")
    # A scored the lone 5-5 (10); B's 3-5 made spinner 10 + east 5 = 15.
    assert state.scores == (10, 15)
    assert state.open_ends == (("west", 5), ("east", 5))
    assert legal(state) == set(moves("0-5 w0, 0-5 e0"))
    west = line(state, "0-5 w0")  # both sides covered: west 0 + east 5
    assert (west.count, west.scores) == (5, (15, 15))
    east = line(state, "0-5 e0")  # west side open: spinner 10 + east 0
    assert (east.count, east.scores) == (10, (20, 15))


def test_spec_covered_spinner_counts_nothing_then_north_end_counts() -> None:
    """Spinner 2-2 with 2-6 east and 2-3 west counts 9; then 2-4 on the north end counts 13."""
    state = line(dealt(TWO), "2-6 e6, 2-3 w3")
    assert state.count == 3 + 6
    state = line(state, "2-4 n4")
    assert state.count == 3 + 6 + 4


def test_spec_player_at_95_counting_10_wins_the_match_at_once() -> None:
    """B at 95 plays 2-6 east for a count of 10 (spinner 4 + 6): the hand and match end."""
    state = line(dealt(TWO, scores=(0, 95)), "2-6 e6")
    outcome = state.outcome()
    assert outcome is not None
    assert outcome.kind is HandEnd.TARGET
    assert (outcome.winners, outcome.award, outcome.scores) == ((1,), (0, 0), (0, 105))
    assert state.to_move is None
    assert state.legal_moves() == ()


def test_spec_tiles_are_conserved_along_a_line_with_draws() -> None:
    """Hands + stock + table hold the 28 tiles exactly once at every step of a line."""
    hands, stock, text = L4
    state = dealt(hands, stock)
    assert all_tiles(state) == list(ALL_TILES)
    for move in moves(text):
        state = state.apply(move)
        assert all_tiles(state) == list(ALL_TILES)


# -- opening (docs/rules.md 2.2) -------------------------------------------------------------------


def test_highest_double_leads_and_is_placed_automatically() -> None:
    """B's 6-6 outranks A's 1-1 and 0-0: it is laid at once and A is to move."""
    state = dealt(SIX)
    assert state.leader == 1
    assert state.to_move == 0
    assert state.history() == ((1, play((6, 6), None, 6), None),)
    assert state.layout() == ((6, 6),)
    assert state.hand_tiles(1) == ((0, 3), (0, 4), (1, 3), (1, 4), (2, 6), (4, 6))


def test_lone_spinner_offers_only_its_sides_by_default() -> None:
    """With 6-6 alone, north and south are closed: A's 1-6 and 3-6 go west or east."""
    state = dealt(SIX)
    assert state.open_ends == (("west", 6), ("east", 6))
    assert legal(state) == set(moves("1-6 w1, 3-6 w3, 1-6 e1, 3-6 e3"))


def test_lone_spinner_offers_four_ends_with_the_flag_off() -> None:
    """With spinner_sides_first off, 6-6 alone has four open ends: eight plays for A."""
    state = dealt(SIX, rules=FLAG_OFF)
    assert state.open_ends == (("west", 6), ("east", 6), ("north", 6), ("south", 6))
    assert legal(state) == set(
        moves("1-6 w1, 3-6 w3, 1-6 e1, 3-6 e3, 1-6 n1, 3-6 n3, 1-6 s1, 3-6 s3")
    )


def test_highest_double_in_the_stock_does_not_make_a_leader() -> None:
    """Only dealt hands count: A's 2-2 beats B's 1-1 while 6-6 lies in the stock."""
    state = dealt(
        [
            [(2, 2), (0, 1), (0, 2), (0, 3), (1, 2), (1, 3), (2, 3)],
            [(1, 1), (0, 4), (1, 4), (2, 4), (3, 4), (0, 5), (1, 5)],
        ]
    )
    assert (state.leader, state.to_move, state.layout()) == (0, 1, ((2, 2),))
    assert (state.count, state.scores) == (4, (0, 0))


def test_without_doubles_the_highest_tile_leads_low_west_high_east() -> None:
    """No double dealt: 3-6 (9 pips, high 6) outranks 4-5 and leads as west 3, east 6."""
    state = dealt(DOMINO)
    assert state.leader == 0
    assert state.open_ends == (("west", 3), ("east", 6))
    assert state.layout() == ((3, 6),)
    assert (state.count, state.scores, state.scoring) == (9, (0, 0), ())


def test_opening_non_double_scores_its_pip_total() -> None:
    """A lone 4-6 counts 4 + 6 = 10: the leader scores 10 before anybody moves."""
    state = dealt(
        [
            [(4, 6), (0, 1), (0, 2), (1, 2), (0, 3), (1, 3), (2, 3)],
            [(0, 4), (1, 4), (2, 4), (3, 4), (0, 5), (1, 5), (2, 5)],
        ]
    )
    assert (state.leader, state.count, state.scores) == (0, 10, (10, 0))
    assert state.scoring == (ScoreEvent(0, 10, "count"),)


def test_opening_double_counts_both_halves_and_scores() -> None:
    """A lone 5-5 counts 10: A scores 10 at the opening."""
    state = dealt(FIVE)
    assert (state.count, state.scores) == (10, (10, 0))


def test_opening_double_blank_scores_nothing() -> None:
    """The only double dealt is 0-0: it leads (any double beats 2-5), counts 0 and scores 0."""
    state = dealt(
        [
            [(0, 0), (0, 1), (0, 2), (1, 2), (0, 3), (1, 3), (2, 3)],
            [(0, 4), (1, 4), (2, 4), (3, 4), (0, 5), (1, 5), (2, 5)],
        ]
    )
    assert (state.leader, state.count, state.scores, state.scoring) == (0, 0, (0, 0), ())
    assert state.open_ends == (("west", 0), ("east", 0))


def test_opening_is_not_a_move_anybody_can_make() -> None:
    """The automatic opening is history, never a legal move: applying it again is refused."""
    state = dealt(SIX)
    illegal(state, play((6, 6), None, 6))
    illegal(state, play((1, 6), None, 6))


def test_opening_that_reaches_the_target_ends_the_hand_at_once() -> None:
    """A at 95 leads 5-5 (10): the hand is over before anybody moves, with no award."""
    state = dealt(FIVE, scores=(95, 0))
    outcome = state.outcome()
    assert outcome is not None
    assert (outcome.kind, outcome.winners, outcome.award) == (HandEnd.TARGET, (0,), (0, 0))
    assert outcome.scores == (105, 0)
    assert state.legal_moves() == ()


# -- matching and the spinner (docs/rules.md 2.3-2.5) ----------------------------------------------


def test_spinner_ends_stay_closed_while_one_side_is_open() -> None:
    """After A's 1-6 west, 6-6 still has its east side open: B may play only west or east."""
    state = line(dealt(SIX), "1-6 w1")
    assert state.count == 1 + 12  # the spinner counts 12 while a side is open
    assert state.open_ends == (("west", 1), ("east", 6))
    assert legal(state) == set(moves("1-3 w3, 1-4 w4, 2-6 e2, 4-6 e4"))


def test_covering_both_sides_opens_north_and_south_and_scores_the_line_ends() -> None:
    """B's 4-6 east covers the spinner: count west 1 + east 4 = 5, B scores 5, arms open."""
    state = line(dealt(SIX), "1-6 w1, 4-6 e4")
    assert (state.count, state.scores) == (5, (0, 5))
    assert state.open_ends == (("west", 1), ("east", 4), ("north", 6), ("south", 6))
    assert legal(state) == set(moves("0-1 w0, 1-1 w1, 1-2 w2, 3-6 n3, 3-6 s3"))


def test_count_with_three_arms() -> None:
    """A's 3-6 north: west 1 + east 4 + north 3 = 8, the empty south end counts nothing."""
    state = line(dealt(SIX), "1-6 w1, 4-6 e4, 3-6 n3")
    assert (state.count, state.scores) == (8, (0, 5))
    assert legal(state) == set(moves("1-3 w3, 1-4 w4, 0-4 e0, 1-4 e1, 0-3 n0, 1-3 n1, 2-6 s2"))


def test_count_with_four_arms_scores() -> None:
    """B's 2-6 south: 1 + 4 + 3 + 2 = 10, so B scores 10 more."""
    state = line(dealt(SIX), "1-6 w1, 4-6 e4, 3-6 n3, 2-6 s2")
    assert (state.count, state.scores) == (10, (0, 15))
    assert state.scoring == (ScoreEvent(1, 5, "count"), ScoreEvent(1, 10, "count"))


def test_later_spinner_has_the_side_it_was_played_on_covered() -> None:
    """B draws 6-6 and lays it east of 3-6: count 3 + 12 = 15; north and south stay closed."""
    state = dealt(LATE, [(6, 6)])
    assert legal(state) == {DRAW}
    state = state.apply(DRAW)
    assert legal(state) == set(moves("6-6 e6"))
    state = line(state, "6-6 e6")
    assert (state.count, state.scores) == (15, (0, 15))
    assert state.open_ends == (("west", 3), ("east", 6))
    assert legal(state) == set(moves("0-3 w0, 1-3 w1, 2-3 w2, 3-4 w4, 1-6 e1, 2-6 e2"))


def test_covering_a_later_spinners_outer_side_opens_its_arms() -> None:
    """A's 2-6 east of the 6-6 spinner: count 3 + 2 = 5, A scores 5, north and south open."""
    state = line(dealt(LATE, [(6, 6)]), "draw, 6-6 e6, 2-6 e2")
    assert (state.count, state.scores) == (5, (5, 15))
    assert state.open_ends == (("west", 3), ("east", 2), ("north", 6), ("south", 6))


def test_later_spinner_with_the_flag_off_opens_its_arms_at_once() -> None:
    """Flag off: after 6-6 east, A may also play 1-6 or 2-6 north or south."""
    state = line(dealt(LATE, [(6, 6)], rules=FLAG_OFF), "draw, 6-6 e6")
    assert legal(state) == set(
        moves("0-3 w0, 1-3 w1, 2-3 w2, 3-4 w4, 1-6 e1, 2-6 e2, 1-6 n1, 2-6 n2, 1-6 s1, 2-6 s2")
    )


def test_spinner_with_an_open_side_counts_both_halves_beside_an_arm() -> None:
    """Flag off: 1-6 north while the spinner's east side is open: 3 + 12 + 1 = 16."""
    state = line(dealt(LATE, [(6, 6)], rules=FLAG_OFF), "draw, 6-6 e6, 1-6 n1")
    assert (state.count, state.scores) == (16, (0, 15))


def test_ordinary_double_at_an_end_counts_both_halves() -> None:
    """B's 4-4 on the east 4 (after 1-5 west, 4-5 east): 1 + 8 = 9, not 5, so no score."""
    state = line(dealt(DOUBLES), "1-5 w1, 4-5 e4")
    assert (state.count, state.scores) == (5, (15, 0))  # 10 for the opening, 5 for 4-5
    assert legal(state) == set(moves("0-1 w0, 1-2 w2, 0-4 e0, 2-4 e2, 3-4 e3, 4-4 e4"))
    state = line(state, "4-4 e4")
    assert (state.count, state.scores) == (9, (15, 0))


def test_ordinary_doubles_at_both_ends_both_count_double() -> None:
    """A's 1-1 west then: 2 + 8 = 10, A scores 10 (an ordinary double is not a spinner)."""
    state = line(dealt(DOUBLES), "1-5 w1, 4-5 e4, 4-4 e4")
    assert legal(state) == set(moves("1-1 w1"))
    state = line(state, "1-1 w1")
    assert (state.count, state.scores) == (10, (25, 0))
    assert state.open_ends == (("west", 1), ("east", 4), ("north", 5), ("south", 5))


def test_four_arms_with_a_double_at_the_east_end_count_30() -> None:
    """L4: 5-6 west makes west 6 + east 6-6 (12) + north 6 + south 6 = 30 for A."""
    hands, stock, text = L4
    played = moves(text)
    last_play = max(i for i, m in enumerate(played) if m.kind == "play")
    state = dealt(hands, stock)
    for move in played[:last_play]:
        state = state.apply(move)
    assert (state.count, state.scores) == (29, (15, 15))
    state = state.apply(played[last_play])
    assert (state.count, state.scores) == (30, (45, 15))


def test_a_tile_matching_two_ends_is_listed_on_each() -> None:
    """5-5 lead: B's 1-5 is one move west and one east, each named by its position."""
    state = dealt(DOUBLES)
    assert state.legal_moves() == tuple(moves("1-5 w1, 1-5 e1"))


def test_a_tile_that_does_not_match_the_end_is_refused() -> None:
    """A's 0-2 on the 6-6 spinner and 1-6 with 6 outward (6 touching 6 needs 1 out) are refused."""
    state = dealt(SIX)
    illegal(state, play((0, 2), "west", 2))
    illegal(state, play((1, 6), "west", 6))
    illegal(state, play((1, 6), "north", 1))


# -- drawing and passing (docs/rules.md 2.7, 2.8) --------------------------------------------------


def test_player_without_a_play_may_only_draw() -> None:
    """A has no 6 on the 6-6 spinner: DRAW is the one legal move, PASS is refused."""
    state = dealt(DRAWING, [(1, 2), (3, 6)])
    assert state.legal_moves() == (DRAW,)
    illegal(state, PASS)


def test_unplayable_drawn_tile_means_drawing_again() -> None:
    """A draws 1-2, which does not fit either 6: A draws again, still A's turn."""
    state = line(dealt(DRAWING, [(1, 2), (3, 6)]), "draw")
    assert (state.to_move, state.legal_moves()) == (0, (DRAW,))
    assert (1, 2) in state.hand_tiles(0)


def test_playable_drawn_tile_must_be_played_and_draw_is_refused() -> None:
    """A's second draw is 3-6: its two plays are the only legal moves; DRAW is refused."""
    state = line(dealt(DRAWING, [(1, 2), (3, 6)]), "draw, draw")
    assert legal(state) == set(moves("3-6 w3, 3-6 e3"))
    illegal(state, DRAW)
    assert state.boneyard_size == 12


def test_player_with_a_play_may_not_draw() -> None:
    """A holds 1-6 and 3-6 for the 6-6 spinner: DRAW and PASS are refused."""
    state = dealt(SIX)
    illegal(state, DRAW)
    illegal(state, PASS)


def test_stuck_player_draws_the_whole_stock_then_passes() -> None:
    """A draws all 14 non-6 tiles in turn, then passes because B can still play."""
    state = dealt(STUCK)
    for _ in range(14):
        assert state.legal_moves() == (DRAW,)
        state = state.apply(DRAW)
    assert (state.boneyard_size, len(state.hand_tiles(0))) == (0, 21)
    assert state.legal_moves() == (PASS,)
    illegal(state, DRAW)
    state = state.apply(PASS)
    assert (state.to_move, state.outcome()) == (1, None)
    assert len(state.legal_moves()) == 12  # 0-6..5-6, each west or east
    assert state.view(0).passes == (1, 0)


def test_draws_are_public_but_the_drawn_tiles_are_not() -> None:
    """B's view after A's two draws shows two DRAW events and the counts, not the tiles."""
    state = line(dealt(DRAWING, [(1, 2), (3, 6)]), "draw, draw")
    view = state.view(1)
    assert view.history == (
        PublicEvent(1, play((6, 6), None, 6)),
        PublicEvent(0, DRAW),
        PublicEvent(0, DRAW),
    )
    assert (view.draws, view.hand_counts, view.boneyard_size) == ((2, 0), (9, 6), 12)
    assert not {(1, 2), (3, 6)} & set(view.hand)


# -- block (docs/rules.md 2.8, 2.10) ---------------------------------------------------------------


def test_block_after_the_last_draw_records_no_pass() -> None:
    """L1: B draws the last tile, nobody can play a 6: block at once, no PASS in the history."""
    state = block_line(L1)
    outcome = state.outcome()
    assert outcome is not None
    assert outcome.kind is HandEnd.BLOCK
    assert state.history()[-1] == (1, DRAW, (0, 2))
    assert all(m != PASS for _s, m, _d in state.history())
    assert state.legal_moves() == ()


def test_block_more_points_winner_can_score_a_negative_award() -> None:
    """L1: B has more points (15 to 0) but 54 pips to A's 36: B wins and scores 36 - 54."""
    outcome = block_line(L1).outcome()
    assert outcome is not None
    assert (outcome.winners, outcome.pips) == ((1,), (36, 54))
    assert (outcome.award, outcome.scores) == ((0, -18), (0, -3))


def test_block_fewer_pips_winner_scores_the_difference() -> None:
    """L1 under fewer_pips: A's 36 pips beat B's 54; A scores 54 - 36 = 18."""
    outcome = block_line(L1, FEWER_PIPS).outcome()
    assert outcome is not None
    assert (outcome.winners, outcome.award, outcome.scores) == ((0,), (18, 0), (18, 15))


def test_block_equal_points_fewer_tiles_wins() -> None:
    """L1 from 15-0: 15 all after B's count; A's 6 tiles beat B's 12, A scores 54 - 36."""
    outcome = block_line(L1, scores=(15, 0)).outcome()
    assert outcome is not None
    assert (outcome.winners, outcome.award, outcome.scores) == ((0,), (18, 0), (33, 15))


def test_block_more_points_winner_with_fewer_pips_scores_positive() -> None:
    """L2: B (10 points to 0) wins the block with 36 pips to A's 52 and scores 16."""
    outcome = block_line(L2).outcome()
    assert outcome is not None
    assert (outcome.winners, outcome.pips) == ((1,), (52, 36))
    assert (outcome.award, outcome.scores) == ((0, 16), (0, 26))


def test_block_equal_points_and_tiles_last_placer_wins() -> None:
    """L2 from 10-0: 10 all, 8 tiles each; A placed the last tile and wins, 36 - 52 = -16."""
    state = block_line(L2, scores=(10, 0))
    assert state.last_placer == 0
    outcome = state.outcome()
    assert outcome is not None
    assert (outcome.winners, outcome.award, outcome.scores) == ((0,), (-16, 0), (-6, 10))
    assert state.scoring[-1] == ScoreEvent(0, -16, "block")


def test_block_fewer_pips_equal_pips_fewer_tiles_wins() -> None:
    """L4 under fewer_pips: 22 pips each; B's 5 tiles beat A's 6; the award is 0."""
    outcome = block_line(L4, FEWER_PIPS).outcome()
    assert outcome is not None
    assert (outcome.kind, outcome.pips) == (HandEnd.BLOCK, (22, 22))
    assert (outcome.winners, outcome.award, outcome.scores) == ((1,), (0, 0), (45, 15))


def test_block_fewer_pips_equal_pips_and_tiles_last_placer_wins() -> None:
    """L3 under fewer_pips: 19 pips and 5 tiles each; B laid the last tile (4-4) and wins."""
    state = block_line(L3, FEWER_PIPS)
    outcome = state.outcome()
    assert outcome is not None
    assert (outcome.pips, outcome.winners, outcome.award) == ((19, 19), (1,), (0, 0))
    assert outcome.scores == (35, 30)


def test_block_more_points_ignores_pips() -> None:
    """L3 under more_points: A's 35 points beat B's 30, whatever the (equal) pips."""
    outcome = block_line(L3).outcome()
    assert outcome is not None
    assert (outcome.winners, outcome.scores) == ((0,), (35, 30))


def test_pass_then_a_play_that_blocks_the_hand() -> None:
    """L5: B is stuck with the stock empty and passes; A's 1-1 leaves nobody a play: block."""
    hands, stock, text = L5
    state = line(dealt(hands, stock), text)
    assert (state.to_move, state.legal_moves()) == (1, (PASS,))
    state = line(state, "pass")
    assert legal(state) == set(moves("1-1 w1, 1-1 e1"))
    state = line(state, "1-1 e1")
    outcome = state.outcome()
    assert outcome is not None
    assert state.history()[-1] == (0, play((1, 1), "east", 1), None)
    # B has more points (15 to 0): it wins with 54 pips to A's 30.
    assert (outcome.kind, outcome.winners, outcome.pips) == (HandEnd.BLOCK, (1,), (30, 54))
    assert (outcome.award, outcome.scores) == ((0, -24), (0, -9))


# -- domino and the match target (docs/rules.md 2.9, 2.11) -----------------------------------------


def test_last_tile_scores_its_count_then_the_domino_award() -> None:
    """A's last tile 3-5 west makes 5 + 0 = 5, then B's 1-6 (7 pips) gives a domino award of 5."""
    state = line(dealt(DOMINO), DOMINO_LINE)
    outcome = state.outcome()
    assert outcome is not None
    assert (outcome.kind, outcome.winners, outcome.pips) == (HandEnd.DOMINO, (0,), (0, 7))
    assert (outcome.award, outcome.scores) == ((5, 0), (15, 10))
    assert state.scoring == (
        ScoreEvent(1, 5, "count"),
        ScoreEvent(1, 5, "count"),
        ScoreEvent(0, 5, "count"),
        ScoreEvent(0, 5, "count"),
        ScoreEvent(0, 5, "domino"),
    )


def test_count_reaching_the_target_wins_before_the_domino_award() -> None:
    """From 90: A's count 5 at 1-4 (95) and 5 at the last tile (100) end it, no domino award."""
    state = line(dealt(DOMINO, scores=(90, 0)), DOMINO_LINE)
    outcome = state.outcome()
    assert outcome is not None
    assert (outcome.kind, outcome.winners, outcome.award) == (HandEnd.TARGET, (0,), (0, 0))
    assert outcome.scores == (100, 10)
    assert state.scoring[-1] == ScoreEvent(0, 5, "count")


def test_below_the_target_the_count_and_the_domino_award_both_score() -> None:
    """From 85: the last count brings A to 95, then the domino award 5 to 100."""
    outcome = line(dealt(DOMINO, scores=(85, 0)), DOMINO_LINE).outcome()
    assert outcome is not None
    assert (outcome.kind, outcome.award, outcome.scores) == (HandEnd.DOMINO, (5, 0), (100, 10))


def test_target_hand_ends_a_match_played_for_a_number_of_hands() -> None:
    """A TARGET hand ends the match at once with reason "target", even in a 3-hand match."""
    hand = dealt(TWO, scores=(0, 95))
    match = Match(FIVES, DEFAULT, 2, 7, MatchLength(target=None, hands=3), 1, hand, (0, 95))
    match = match.apply(moves("2-6 e6")[0]).next_hand()
    assert match.result is not None
    assert (match.result.reason, match.result.winner, match.result.scores) == (
        "target",
        1,
        (0, 105),
    )


def test_domino_reaching_100_ends_a_match_to_100() -> None:
    """From 85 the domino award brings A to exactly 100: the match to 100 ends after the hand."""
    hand = dealt(DOMINO, scores=(85, 0))
    match = Match(FIVES, DEFAULT, 2, 7, MatchLength(target=TARGET), 1, hand, (85, 0))
    for move in moves(DOMINO_LINE):
        match = match.apply(move)
    match = match.next_hand()
    assert match.result is not None
    assert (match.result.reason, match.result.winner, match.result.scores) == (
        "target",
        0,
        (100, 10),
    )


# -- views ----------------------------------------------------------------------------------------


def test_view_shows_the_cross_the_count_and_every_score() -> None:
    """After the four-arm line, A sees the line, both arms, the spinner, count and events."""
    view = line(dealt(SIX), "1-6 w1, 4-6 e4, 3-6 n3, 2-6 s2").view(0)
    assert view.layout == ((1, 6), (6, 6), (6, 4))
    assert view.spinner == 1
    assert view.arms == (("north", ((6, 3),)), ("south", ((6, 2),)))
    assert view.ends == (("west", 1), ("east", 4), ("north", 3), ("south", 2))
    assert view.end_count == 10
    assert view.scoring == ((1, 5, "count"), (1, 10, "count"))
    assert view.scores == (0, 15)
    # A is to move: its plays, listed west, east, north, south, each end in tile order.
    assert view.to_move == 0
    assert view.legal == tuple(moves("0-1 w0, 1-1 w1, 1-2 w2, 0-2 s0, 1-2 s1"))


def test_spinner_index_follows_tiles_laid_west_of_it() -> None:
    """L1 lays every tile west of 6-6: the spinner ends last in the west-east line."""
    view = block_line(L1).view(0)
    assert view.layout[-1] == (6, 6)
    assert view.spinner == len(view.layout) - 1 == 9
    assert view.arms == (("north", ()), ("south", ()))


def test_view_before_any_spinner_has_no_arms() -> None:
    """With 3-6 led and no double yet, a view has no spinner and no arms."""
    view = dealt(DOMINO).view(1)
    assert (view.spinner, view.arms, view.end_count) == (None, (), 9)
    assert view.history == (PublicEvent(0, play((3, 6), None, 6)),)


def test_view_never_shows_the_other_hand_or_the_stock() -> None:
    """No field of A's view mentions a tile of B's hand or of the stock."""
    state = line(dealt(SIX), "1-6 w1, 4-6 e4")
    hidden = set(state.hand_tiles(1)) | set(state.boneyard_tiles())
    view = state.view(0)
    shown = {make_tile(*t) for t in view.layout}
    shown |= {make_tile(*t) for _name, arm in view.arms for t in arm}
    shown |= {e.move.tile for e in view.history if e.move.tile is not None}
    shown |= {m.tile for m in view.legal if m.tile is not None}
    assert not (shown | set(view.hand)) & hidden


# -- retirement ---------------------------------------------------------------------------------


def test_a_retired_seat_only_passes_and_the_other_plays_on() -> None:
    """B retired after A's 1-6 west: B may only pass, and A is to move again."""
    state = line(dealt(SIX), "1-6 w1").retire(1)
    assert state.legal_moves() == (PASS,)
    state = state.apply(PASS)
    assert (state.to_move, state.outcome()) == (0, None)
    assert legal(state) == set(moves("0-1 w0, 1-1 w1, 1-2 w2, 3-6 e3"))


def test_a_retired_seat_cannot_win_the_block() -> None:
    """STUCK with B retired: once A has drawn the stock and is stuck, the hand is A's block."""
    state = dealt(STUCK).retire(1)
    for _ in range(14):
        state = state.apply(DRAW)
    outcome = state.outcome()
    assert outcome is not None
    assert (outcome.kind, outcome.winners) == (HandEnd.BLOCK, (0,))
    # The set holds 8 x 21 = 168 pips; the sixes 0-6..6-6 hold 15 + 6 x 6 + 12 = 63. A holds
    # every other tile (168 - 63 = 105); B the sixes but the led 6-6 (63 - 12 = 51).
    assert outcome.pips == (105, 51)


# -- rules, deal and registry -------------------------------------------------------------------


def test_rules_default_and_parse() -> None:
    """Empty flags give the default rules (docs/rules.md); rules_dict writes every flag back."""
    rules = parse_rules({})
    assert rules == FivesRules(spinner_sides_first=True, block_winner="more_points")
    assert rules_dict(rules) == {"spinner_sides_first": True, "block_winner": "more_points"}
    assert parse_rules(rules_dict(FEWER_PIPS)) == FEWER_PIPS


@pytest.mark.parametrize(
    ("raw", "message"),
    [
        ({"target": 50}, "unknown fives rule(s) target"),
        ({"block_winner": "most_tiles"}, "fives rule block_winner='most_tiles' is not one of"),
        ({"spinner_sides_first": 1}, "fives rule spinner_sides_first=1 is not one of"),
    ],
)
def test_bad_rules_are_refused_with_a_clear_message(raw: dict[str, object], message: str) -> None:
    """Unknown flags and values outside each flag's choices are errors naming them."""
    with pytest.raises(ValueError, match=re.escape(message)):
        parse_rules(raw)


def test_deal_gives_seven_tiles_each_and_fourteen_in_the_stock() -> None:
    """A seeded deal: 7 + 7 + 14 distinct tiles, and the started hand gives it back."""
    dealt_ = deal(DEFAULT, 2, 12345)
    assert [len(h) for h in dealt_.hands] == [7, 7]
    assert len(dealt_.boneyard) == 14
    assert sorted([*dealt_.hands[0], *dealt_.hands[1], *dealt_.boneyard]) == list(ALL_TILES)
    assert start_hand(DEFAULT, 2, dealt_).deal() == dealt_


@pytest.mark.parametrize(
    ("players", "hands", "message"),
    [
        (3, 3, "fives is for 2 players, not 3"),
        (2, 2, "seat 1 was dealt 6 tiles; fives deals 7"),
    ],
)
def test_bad_deals_are_refused(players: int, hands: int, message: str) -> None:
    """Three players, or a hand of six tiles, is an error that says what is wrong."""
    tiles = list(ALL_TILES)
    if hands == 3:
        bad = Deal((tuple(tiles[:7]), tuple(tiles[7:14]), tuple(tiles[14:21])), tuple(tiles[21:]))
    else:
        bad = Deal((tuple(tiles[:7]), tuple(tiles[7:13])), tuple(tiles[13:]))
    with pytest.raises(ValueError, match=re.escape(message)):
        start_hand(DEFAULT, players, bad)


def test_a_deal_with_a_repeated_tile_is_refused() -> None:
    """A deal holding 0-0 twice (and no 6-6) is not the double-six set."""
    tiles = list(ALL_TILES)
    bad = Deal((tuple(tiles[:7]), tuple(tiles[7:14])), (*tiles[14:27], (0, 0)))
    with pytest.raises(ValueError, match="each of the 28 tiles exactly once"):
        start_hand(DEFAULT, 2, bad)


def test_fives_is_registered() -> None:
    """The registry knows the game by name."""
    assert registry.get_game("fives").engine is FIVES
