"""Helpers that build Matador positions for the rule tests.

Two ways to reach a position:

- :func:`dealt` + :func:`line` (preferred): a legal deal written out by hand, started with the
  engine's own ``start_hand``, then a prefix of moves applied with ``apply``. Everything goes
  through the real code path.
- :func:`position`: a **test-only shortcut** that writes the state's fields directly (the open
  end values, the hands, the boneyard, whose turn it is), for positions that would take a long
  scripted line to reach. It starts a real hand and then overwrites the copy made by
  ``arena.games.matador._copy``.

A synthetic position has an **empty history**, so its ``layout()`` is empty and ``deal()`` does
not give back 28 tiles: the engine derives the layout from the history. The tiles that are in
neither a hand nor the boneyard are "on the table" (:func:`table_tiles`), which keeps the
28-tile conservation true: hands + boneyard + table hold each tile exactly once.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

from arena.games.api import Deal, Move, SeatView
from arena.games.matador import LEFT, RIGHT, MatadorRules, MatadorState, _copy, start_hand
from arena.games.tiles import ALL_TILES, TILE_INDEX, Tile, make_tile, mask_of

DEFAULT_RULES = MatadorRules()


def canonical(tiles: Iterable[Tile]) -> list[Tile]:
    """Tiles written in any orientation (``(4, 3)``), in canonical ``(low, high)`` form."""
    return [make_tile(*t) for t in tiles]


def dealt(
    hands: Sequence[Iterable[Tile]],
    boneyard: Iterable[Tile] = (),
    *,
    rules: MatadorRules = DEFAULT_RULES,
    scores: tuple[int, ...] | None = None,
    retired: frozenset[int] = frozenset(),
) -> MatadorState:
    """Start a hand with the engine from explicit hands (the real path).

    The boneyard is ``boneyard`` on top (drawn first, in the order given), followed by every
    tile that is in no hand, in canonical order.
    """
    hand_lists = [canonical(h) for h in hands]
    top = canonical(boneyard)
    used = {t for h in hand_lists for t in h} | set(top)
    rest = [t for t in ALL_TILES if t not in used]
    deal = Deal(tuple(tuple(h) for h in hand_lists), tuple(top + rest))
    return start_hand(rules, len(hand_lists), deal, scores, retired)


def line(state: MatadorState, *moves: Move) -> MatadorState:
    """Apply ``moves`` in order (each must be legal) and return the final state."""
    for move in moves:
        state = state.apply(move)
    return state


def position(
    *,
    ends: tuple[int, int],
    hand: Iterable[Tile],
    players: int = 2,
    rules: MatadorRules = DEFAULT_RULES,
    to_move: int = 0,
    other_hands: Mapping[int, Iterable[Tile]] | None = None,
    boneyard: Iterable[Tile] = (),
    passes: int = 0,
    drew: bool = False,
    scores: tuple[int, ...] | None = None,
    retired: frozenset[int] = frozenset(),
) -> MatadorState:
    """A synthetic mid-hand position (test-only shortcut; see the module docstring).

    Args:
        ends: the values of the ``left`` and ``right`` open ends.
        hand: the tiles of the seat to move, any orientation.
        players: number of seats.
        rules: the variant flags.
        to_move: the seat to act.
        other_hands: tiles of other seats by seat number; a seat left out holds one tile, the
            highest free one in canonical order (so that no seat starts with an empty hand).
        boneyard: the boneyard, top (next drawn) first; empty means the boneyard is closed.
        passes: passes in a row before this position.
        drew: whether the seat to move has already drawn this turn.
        scores: match scores before the hand (zeros when omitted).
        retired: retired seats.

    The history is empty, so ``layout()`` is empty; the tiles in neither a hand nor the
    boneyard count as on the table (:func:`table_tiles`).
    """
    for value in ends:
        if not 0 <= value <= 6:
            raise ValueError(f"an end value must be from 0 to 6, got {value}")
    given: dict[int, list[Tile]] = {to_move: canonical(hand)}
    for seat, tiles in (other_hands or {}).items():
        if seat == to_move:
            raise ValueError(f"seat {seat} is to move: give its tiles as hand=")
        given[seat] = canonical(tiles)
    stock = canonical(boneyard)
    placed = [t for ts in given.values() for t in ts] + stock
    if len(placed) != len(set(placed)):
        raise ValueError(f"a tile is given twice in {placed}")
    free = [t for t in reversed(ALL_TILES) if t not in placed]
    for seat in range(players):
        if seat not in given:
            given[seat] = [free.pop(0)]

    base = start_hand(rules, players, _any_legal_deal(rules, players), scores, retired)
    state = _copy(base)
    state.hands = tuple(mask_of(given[s]) for s in range(players))
    state.stock = tuple(TILE_INDEX[t] for t in stock)
    state.stock_pos = 0
    state.left, state.right = ends
    state.to_move = to_move
    state.leader = to_move
    state.passes = passes
    state.drew = drew
    state._history = None
    state._count = 0
    state._public = None
    return state


def _any_legal_deal(rules: MatadorRules, players: int) -> Deal:
    size = rules.tiles_per_hand(players)
    hands = tuple(ALL_TILES[s * size : (s + 1) * size] for s in range(players))
    return Deal(hands, ALL_TILES[players * size :])


def table_tiles(state: MatadorState) -> list[Tile]:
    """The tiles in no hand and not in the boneyard: on the table, in canonical order."""
    held = set(state.boneyard_tiles())
    for seat in range(state.players):
        held.update(state.hand_tiles(seat))
    return [t for t in ALL_TILES if t not in held]


def legal_set(state: MatadorState) -> set[Move]:
    """The legal moves as a set, after checking that none is listed twice."""
    legal = state.legal_moves()
    assert len(legal) == len(set(legal)), f"a move is listed twice in {legal}"
    return set(legal)


def ends_of(state: MatadorState) -> tuple[int, int]:
    """The values of the left and right ends, checking that they are named left and right."""
    (left_name, left), (right_name, right) = state.ends
    assert (left_name, right_name) == (LEFT, RIGHT)
    return left, right


#: Every field of :class:`SeatView`; a new field must be added to :func:`view_tiles` too.
VIEW_FIELDS = (
    "seat",
    "players",
    "to_move",
    "hand",
    "hand_counts",
    "boneyard_size",
    "layout",
    "ends",
    "scores",
    "history",
    "legal",
    "retired",
    "draws",
    "passes",
    "arms",
    "spinner",
    "end_count",
    "scoring",
)


def view_tiles(view: SeatView) -> set[Tile]:
    """Every tile a view mentions outside its own ``hand`` field, canonical.

    Only ``layout``, ``arms``, ``history`` and ``legal`` can hold tiles; every other field must
    hold plain integers (checked here), so nothing else can carry a tile either.
    """
    for name in ("seat", "players", "boneyard_size"):
        assert type(getattr(view, name)) is int, name
    assert view.to_move is None or type(view.to_move) is int
    for name in ("hand_counts", "scores", "retired", "draws", "passes"):
        assert all(type(v) is int for v in getattr(view, name)), name
    assert all(type(p) is str and type(v) is int for p, v in view.ends)
    assert view.spinner is None or type(view.spinner) is int
    assert view.end_count is None or type(view.end_count) is int
    assert all(type(s) is int and type(p) is int and type(r) is str for s, p, r in view.scoring)
    seen = {make_tile(*t) for t in view.layout}
    seen.update(make_tile(*t) for _arm, tiles in view.arms for t in tiles)
    seen.update(e.move.tile for e in view.history if e.move.tile is not None)
    seen.update(m.tile for m in view.legal if m.tile is not None)
    return seen
