"""Tiles of the double-six set: identities, pips, rank, and bit-set helpers.

A tile is written as a tuple ``(low, high)`` with ``0 <= low <= high <= 6``. Internally the
engines also number the 28 tiles 0..27 (``TILE_INDEX``) so a hand can be a bit set (an ``int``):
that keeps states small, immutable and cheap to copy.

Pure: no I/O, no clock, no randomness.
"""

from __future__ import annotations

import _random
import random
import re
from collections.abc import Callable, Iterable, Iterator
from functools import reduce
from operator import getitem
from typing import TypeGuard

Tile = tuple[int, int]

#: Every tile of the double-six set, in a fixed canonical order (low half, then high half).
ALL_TILES: tuple[Tile, ...] = tuple((a, b) for a in range(7) for b in range(a, 7))
#: Tile -> its index in ``ALL_TILES``.
TILE_INDEX: dict[Tile, int] = {t: i for i, t in enumerate(ALL_TILES)}
#: Tile -> its bit in a bit set (one dict lookup instead of a lookup and a shift).
TILE_BIT: dict[Tile, int] = {t: 1 << i for t, i in TILE_INDEX.items()}
#: Bit mask holding all 28 tiles.
FULL_SET: int = (1 << len(ALL_TILES)) - 1
#: Pip total of each tile, by index.
PIPS: tuple[int, ...] = tuple(a + b for a, b in ALL_TILES)


def make_tile(a: int, b: int) -> Tile:
    """Return the canonical ``(low, high)`` form of a tile, validating its halves.

    Raises:
        ValueError: when a half is not an integer from 0 to 6.
    """
    for half in (a, b):
        if not isinstance(half, int) or isinstance(half, bool) or not 0 <= half <= 6:
            raise ValueError(f"a tile half must be an integer from 0 to 6, got {half!r}")
    return (a, b) if a <= b else (b, a)


def tile_str(tile: Tile) -> str:
    """Format a tile as ``"low-high"``, e.g. ``"4-3"`` is written ``"3-4"``."""
    return f"{tile[0]}-{tile[1]}"


def is_double(tile: Tile) -> bool:
    """True for a double such as ``5-5``."""
    return tile[0] == tile[1]


def rank_key(tile: Tile) -> tuple[int, int, int]:
    """Sort key of the tile rank (rules.md, Tile rank: doubles, then pip total, then high half).

    A larger key is a higher rank; the order is strict over the 28 tiles.
    """
    low, high = tile
    return (1 if low == high else 0, low + high, high)


def highest(tiles: Iterable[Tile]) -> Tile:
    """The highest-ranked tile of a non-empty collection."""
    return max(tiles, key=rank_key)


def mask_of(tiles: Iterable[Tile]) -> int:
    """The bit set of a collection of canonical tiles."""
    mask = 0
    for t in tiles:
        mask |= 1 << TILE_INDEX[t]
    return mask


def indices_of(mask: int) -> Iterator[int]:
    """Tile indices in a bit set, in increasing order."""
    while mask:
        low_bit = mask & -mask
        yield low_bit.bit_length() - 1
        mask ^= low_bit


def _chunk_table(shift: int) -> tuple[tuple[Tile, ...], ...]:
    return tuple(
        tuple(ALL_TILES[shift + i] for i in range(7) if bits >> i & 1 and shift + i < 28)
        for bits in range(128)
    )


# The tiles of every 7-bit slice of a hand: four look-ups instead of a loop over the bits
# (views ask for a hand's tiles on every request).
_CHUNKS = tuple(_chunk_table(shift) for shift in (0, 7, 14, 21))


def tiles_of(mask: int) -> tuple[Tile, ...]:
    """The tiles of a bit set, in canonical order."""
    c0, c1, c2, c3 = _CHUNKS
    return c0[mask & 127] + c1[mask >> 7 & 127] + c2[mask >> 14 & 127] + c3[mask >> 21 & 127]


# The pip total of every 7-bit slice of a hand, as _CHUNKS holds its tiles.
_PIP_CHUNKS = tuple(tuple(sum(a + b for a, b in tiles) for tiles in chunk) for chunk in _CHUNKS)


def pips_of(mask: int) -> int:
    """Total pips of the tiles in a bit set (a double counts both halves; 0-0 counts 0)."""
    # Four look-ups, whatever the hand holds: the engines ask for the pips of every hand at a
    # hand's end, once per random playout.
    p0, p1, p2, p3 = _PIP_CHUNKS
    return p0[mask & 127] + p1[mask >> 7 & 127] + p2[mask >> 14 & 127] + p3[mask >> 21 & 127]


# The tiles of ALL_TILES by id(). Deals hand out these very tuple objects, and a live object with
# the id of one of them *is* that tile, already canonical: no need to validate its halves.
_CANONICAL_BY_ID: dict[int, Tile] = {id(t): t for t in ALL_TILES}


def canonical_tiles(tiles: Iterable[Tile]) -> tuple[Tile, ...]:
    """``tuple(make_tile(*t) for t in tiles)``, skipping the checks when every tile is one of the
    set's own tile objects (the fast path of starting a hand from a deal the engine made, once per
    game in every playout). Any other input goes through :func:`make_tile`, with its errors."""
    given = tuple(tiles)
    for tile in given:
        if _CANONICAL_BY_ID.get(id(tile)) is not tile:
            return tuple(make_tile(*t) for t in given)
    return given


# -- the shuffle --------------------------------------------------------------------------------
#
# ``shuffled_set`` must give exactly what ``random.Random(seed).shuffle(list(ALL_TILES))`` gives
# (every recorded deal and golden replay depends on it), at a fraction of the cost: the deal is a
# large part of a short random playout, and Python bytecode is what costs. ``Random.shuffle`` is
# Fisher-Yates from the last position down, swapping position ``i`` with ``j = _randbelow(i +
# 1)``; ``_randbelow(n)`` takes the top ``k = n.bit_length()`` bits of one 32-bit Mersenne Twister
# output, again until they are below ``n``. With ``k <= 8`` (n <= 28), whether an output is taken
# and the ``j`` it gives depend only on its top byte: ``top >> (8 - k) < n`` exactly when
# ``top < n << (8 - k)``. So, all in C:
#
# 1. the outputs are drawn in bulk (one ``getrandbits`` call) and their top bytes sliced out;
# 2. one regular expression with a group per step skips each step's rejected bytes and captures
#    the byte it takes;
# 3. each taken byte picks its step's swap, as a ``bytes.translate`` table that exchanges ``i``
#    and ``j``; the shuffled order is the identity put through those tables, last step first
#    (swapping positions ``i`` and ``j`` of a list ``a`` gives ``a o t``, so the result is
#    ``t1 o t2 o ... o t27``: ``t27`` applied first).
#
# The generator is ``_random.Random``, the C base of ``random.Random``, which an int seeds
# identically (``Random.seed`` hands an int to it unchanged). A shuffle takes about 40 outputs on
# average; should the bulk draw not hold enough, the shuffle is done again one output at a time
# (:func:`_fisher_yates`, also the tests' reference).

#: ``(i, 8 - (i + 1).bit_length())`` for each Fisher-Yates step, last position first.
_STEPS: tuple[tuple[int, int], ...] = tuple((i, 8 - (i + 1).bit_length()) for i in range(27, 0, -1))
#: 32-bit outputs drawn at once: enough for all but ~0.2% of shuffles.
_BULK_WORDS = 56
#: Per step: any number of rejected top bytes, then the taken one, captured.
_TAKEN = re.compile(
    b"".join(
        b"[\\x%02x-\\xff]*([\\x00-\\x%02x])" % ((i + 1) << shift, ((i + 1) << shift) - 1)
        for i, shift in _STEPS
    )
)


def _swap_table(i: int, j: int) -> bytes:
    """The ``bytes.translate`` table that exchanges ``i`` and ``j`` and keeps every other byte."""
    table = bytearray(range(256))
    table[i], table[j] = j, i
    return bytes(table)


_SWAPS = [[_swap_table(i, j) for j in range(28)] for i in range(28)]
#: Per step, last step first: the swap table picked by each top byte the step can take.
_STEP_SWAPS: tuple[tuple[bytes, ...], ...] = tuple(
    tuple(_SWAPS[i][top >> shift] for top in range((i + 1) << shift))
    for i, shift in reversed(_STEPS)
)
del _SWAPS
_UNSHUFFLED = bytes(range(28))
# bytes.translate with its table as the one argument (reduce's function; typed for mypy).
_translate: Callable[[bytes, bytes], bytes] = bytes.translate


def _fisher_yates(seed: int) -> list[int]:
    """The tile indices 0..27 shuffled as ``random.Random(seed).shuffle`` shuffles them, one
    generator output at a time (the fallback of :func:`shuffled_indices`, and its reference)."""
    word = _random.Random(seed).getrandbits
    order = list(range(28))
    for i, shift in _STEPS:
        j = word(32) >> 24 + shift
        while j > i:
            j = word(32) >> 24 + shift
        order[i], order[j] = order[j], order[i]
    return order


def shuffled_indices(seed: int) -> list[int]:
    """The 28 tile indices in the order ``shuffled_set(seed)`` puts their tiles."""
    if type(seed) is not int:  # random.Random hashes other seeds (str, bytes) its own way
        order = list(range(28))
        random.Random(seed).shuffle(order)
        return order
    raw = _random.Random(seed).getrandbits(32 * _BULK_WORDS).to_bytes(4 * _BULK_WORDS, "little")
    taken = _TAKEN.match(raw[3::4])  # the top byte of each little-endian 32-bit output
    if taken is None:  # more rejections than the bulk draw holds
        return _fisher_yates(seed)
    tops = b"".join(taken.groups())[::-1]  # last step first
    swaps: Iterator[bytes] = map(getitem, _STEP_SWAPS, tops)
    shuffled: bytes = reduce(_translate, swaps, _UNSHUFFLED)
    return list(shuffled)


def shuffled_set(seed: int) -> list[Tile]:
    """All 28 tiles shuffled as ``random.Random(seed).shuffle`` does (Fisher-Yates; stable
    across platforms), computed faster (see the comment above ``_STEPS``).

    This is the only place randomness enters the engines.
    """
    return list(map(ALL_TILES.__getitem__, shuffled_indices(seed)))


def is_plain_random(rng: object) -> TypeGuard[random.Random]:
    """Whether ``rng`` is a ``random.Random`` itself, its ``choice`` not replaced on the
    instance: then ``rng.choice(seq)`` is ``seq[k]`` for the first ``k = getrandbits(b)`` below
    ``len(seq)``, with ``b = len(seq).bit_length()``, and a caller may make those very draws
    itself (Block's playout does), leaving the generator as ``choice`` would. A subclass may
    change ``choice``, so it is not plain."""
    return type(rng) is random.Random and "choice" not in vars(rng)
