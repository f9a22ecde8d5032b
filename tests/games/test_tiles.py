"""Tiles of the double-six set: rank (docs/rules.md, Tile rank), validation, bit sets, shuffle."""

from __future__ import annotations

import random
import re

import pytest
from hypothesis import given
from hypothesis import strategies as st

from arena.games import tiles as tiles_module
from arena.games.tiles import (
    ALL_TILES,
    FULL_SET,
    TILE_INDEX,
    highest,
    indices_of,
    is_double,
    make_tile,
    mask_of,
    pips_of,
    rank_key,
    shuffled_indices,
    shuffled_set,
    tile_str,
    tiles_of,
)

#: The 28 tiles from the highest rank to the lowest, written out by hand from docs/rules.md.
RANKED = [
    (6, 6), (5, 5), (4, 4), (3, 3), (2, 2), (1, 1), (0, 0),
    (5, 6),
    (4, 6),
    (3, 6), (4, 5),
    (2, 6), (3, 5),
    (1, 6), (2, 5), (3, 4),
    (0, 6), (1, 5), (2, 4),
    (0, 5), (1, 4), (2, 3),
    (0, 4), (1, 3),
    (0, 3), (1, 2),
    (0, 2),
    (0, 1),
]  # fmt: skip


def test_the_set_has_28_distinct_canonical_tiles() -> None:
    """ALL_TILES holds each (low, high) pair with 0 <= low <= high <= 6 exactly once."""
    assert len(ALL_TILES) == 28
    assert set(ALL_TILES) == {(a, b) for a in range(7) for b in range(7) if a <= b}
    assert [TILE_INDEX[t] for t in ALL_TILES] == list(range(28))


def test_doubles_rank_from_six_six_down_to_double_blank() -> None:
    """6-6 > 5-5 > 4-4 > 3-3 > 2-2 > 1-1 > 0-0."""
    doubles = [(d, d) for d in range(6, -1, -1)]
    keys = [rank_key(t) for t in doubles]
    assert keys == sorted(keys, reverse=True)
    assert len(set(keys)) == 7


def test_double_blank_outranks_the_highest_non_double() -> None:
    """Every double, even 0-0, outranks 6-5, the highest non-double."""
    assert rank_key((0, 0)) > rank_key((5, 6))


def test_equal_totals_rank_by_the_higher_half() -> None:
    """6-3 outranks 5-4 (both total nine)."""
    assert rank_key((3, 6)) > rank_key((4, 5))


def test_the_seven_matadors_rank_six_one_then_five_two_then_four_three() -> None:
    """6-1 > 5-2 > 4-3 (all total seven)."""
    assert rank_key((1, 6)) > rank_key((2, 5)) > rank_key((3, 4))


def test_rank_orders_all_28_tiles_as_the_spec_lists_them() -> None:
    """Sorting by rank gives the hand-written order of the rule in docs/rules.md."""
    assert sorted(ALL_TILES, key=rank_key, reverse=True) == RANKED


def test_rank_is_a_strict_total_order() -> None:
    """No two tiles share a rank key."""
    assert len({rank_key(t) for t in ALL_TILES}) == 28


def test_highest_picks_by_rank_not_by_pips() -> None:
    """highest() prefers a double to a bigger non-double, and 6-3 to 5-4."""
    assert highest([(5, 6), (0, 0), (4, 6)]) == (0, 0)
    assert highest([(4, 5), (3, 6), (2, 5)]) == (3, 6)


def test_make_tile_puts_the_low_half_first() -> None:
    """make_tile(4, 3) is the canonical (3, 4)."""
    assert make_tile(4, 3) == (3, 4)
    assert make_tile(3, 4) == (3, 4)
    assert make_tile(6, 6) == (6, 6)


@pytest.mark.parametrize(
    ("a", "b", "message"),
    [
        (7, 1, "a tile half must be an integer from 0 to 6, got 7"),
        (1, -1, "a tile half must be an integer from 0 to 6, got -1"),
        (True, 2, "a tile half must be an integer from 0 to 6, got True"),
        (2.0, 3, "a tile half must be an integer from 0 to 6, got 2.0"),
        ("3", 4, "a tile half must be an integer from 0 to 6, got '3'"),
    ],
)
def test_make_tile_rejects_a_bad_half_naming_it(a: object, b: object, message: str) -> None:
    """A half that is not an integer from 0 to 6 is a ValueError quoting that half."""
    with pytest.raises(ValueError, match=f"^{re.escape(message)}$"):
        make_tile(a, b)  # type: ignore[arg-type]


def test_tile_str_writes_low_dash_high() -> None:
    """A tile is written "low-high"."""
    assert tile_str((3, 4)) == "3-4"
    assert tile_str((0, 0)) == "0-0"


def test_is_double() -> None:
    """Only tiles with equal halves are doubles."""
    assert [t for t in ALL_TILES if is_double(t)] == [(d, d) for d in range(7)]


def test_full_set_mask_holds_every_tile() -> None:
    """The mask of all tiles is FULL_SET and reads back as ALL_TILES."""
    assert mask_of(ALL_TILES) == FULL_SET
    assert tiles_of(FULL_SET) == ALL_TILES
    assert tiles_of(0) == ()


@given(st.sets(st.sampled_from(ALL_TILES)))
def test_mask_round_trip(tiles: set[tuple[int, int]]) -> None:
    """tiles_of(mask_of(ts)) gives the same tiles back in canonical order."""
    mask = mask_of(tiles)
    assert tiles_of(mask) == tuple(sorted(tiles, key=TILE_INDEX.__getitem__))
    assert list(indices_of(mask)) == sorted(TILE_INDEX[t] for t in tiles)
    assert mask.bit_count() == len(tiles)


def test_pips_count_doubles_twice_and_double_blank_as_zero() -> None:
    """pips_of sums both halves: 6-6 is 12, 0-0 is 0, 2-3 is 5."""
    assert pips_of(mask_of([(6, 6)])) == 12
    assert pips_of(mask_of([(0, 0)])) == 0
    assert pips_of(mask_of([(6, 6), (0, 0), (2, 3)])) == 17
    assert pips_of(FULL_SET) == 168


def test_shuffled_set_is_a_permutation_of_the_set() -> None:
    """A shuffle holds each of the 28 tiles exactly once."""
    tiles = shuffled_set(12345)
    assert len(tiles) == 28
    assert sorted(tiles) == sorted(ALL_TILES)


def test_shuffled_set_is_determined_by_the_seed() -> None:
    """The same seed gives the same order, another seed another order."""
    assert shuffled_set(7) == shuffled_set(7)
    assert shuffled_set(7) != shuffled_set(8)


def test_shuffled_set_spreads_over_seeds() -> None:
    """Fifty seeds give fifty different orders."""
    assert len({tuple(shuffled_set(seed)) for seed in range(50)}) == 50


def _stdlib_order(seed: object) -> list[int]:
    order = list(range(28))
    random.Random(seed).shuffle(order)  # type: ignore[arg-type]
    return order


def test_shuffled_set_is_exactly_the_standard_library_shuffle() -> None:
    """Every recorded deal depends on it: the fast shuffle is ``random.Random(seed).shuffle``,
    tile for tile, over thousands of seeds, large and negative ones included."""
    seeds = [*range(3000), 2**63 - 1, 2**80 + 7, -5, 987654321987654321]
    for seed in seeds:
        assert shuffled_set(seed) == [ALL_TILES[i] for i in _stdlib_order(seed)], seed


def test_a_shuffle_past_the_bulk_draw_is_the_same(monkeypatch: pytest.MonkeyPatch) -> None:
    """When the outputs drawn at once are not enough (here: never enough), the shuffle is done
    again output by output, with the same result."""
    monkeypatch.setattr(tiles_module, "_BULK_WORDS", 20)  # fewer than the 27 steps
    for seed in range(300):
        assert shuffled_indices(seed) == _stdlib_order(seed), seed


def test_a_seed_that_is_not_an_int_shuffles_as_the_standard_library() -> None:
    """A string seed is hashed by ``random.Random`` its own way: the same order still."""
    assert shuffled_indices("a seed") == _stdlib_order("a seed")  # type: ignore[arg-type]
