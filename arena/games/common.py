"""What the engines share: a hand state's bookkeeping, dealing, checking a deal, the game object.

Matador (:mod:`arena.games.matador`) and Fives (:mod:`arena.games.fives`) keep a hand the same
way: each hand a bit set over the 28 tile indices, the stock as dealt with a read position, the
actions as a linked list (newest first), and the legal moves, the public record and the
outcome memoised. :class:`HandState` holds those fields and what follows from them alone; each
engine's state class adds its layout and its rules (legal moves, apply, scoring, views). Only
logic that is the same in both games lives here, nothing that follows a rule of docs/rules.md
1.1-1.15 or 2.1-2.12.

The hot paths (``legal_moves``, ``apply``, ``view`` and the public record behind it) stay in the
engines, written out in full: a helper call per move would cost more than the lines it saves.

Pure: no I/O, no clock; randomness only through ``tiles.shuffled_indices(seed)`` (the order of
``tiles.shuffled_set``) in :func:`deal_hands`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from itertools import chain
from operator import itemgetter
from typing import Any, Generic, NamedTuple, Protocol, TypeVar

from arena.games.api import Deal, HandOutcome, Move, PublicEvent, carried, made_deal
from arena.games.tiles import (
    ALL_TILES,
    FULL_SET,
    TILE_BIT,
    TILE_INDEX,
    Tile,
    canonical_tiles,
    shuffled_indices,
    tiles_of,
)

RulesT = TypeVar("RulesT")
StateT = TypeVar("StateT")
_RulesContra = TypeVar("_RulesContra", contravariant=True)
_StateCo = TypeVar("_StateCo", covariant=True)
# Not Self: mypy checks assignments to a Self against the base's (empty) __slots__.
_H = TypeVar("_H", bound="HandState")

#: The slots of the fields :class:`HandState` declares. An engine's state class declares them in
#: its own ``__slots__`` (see :func:`hand_slots`), so that ``__slots__`` names every field of its
#: states and the base class adds no layout of its own.
HAND_SLOTS: tuple[str, ...] = (
    "_count",
    "_history",
    "_legal",
    "_outcome",
    "_public",
    "hands",
    "leader",
    "players",
    "retired",
    "rules",
    "scores",
    "stock",
    "stock_pos",
    "to_move",
)


def hand_slots(*own: str) -> tuple[str, ...]:
    """The ``__slots__`` of an engine's state class: :data:`HAND_SLOTS` and its ``own`` fields,
    in alphabetical order.

    The order is the fields' layout in memory, read and written on every move; alphabetical is
    the order the engines always had, so the hot path's memory access stays as it was measured.
    """
    return tuple(sorted((*HAND_SLOTS, *own)))


class HandState:
    """The fields every engine's hand state has, and the facts derived from them alone.

    Immutable by convention, like the engines' states: a new state is built, never changed (the
    memos ``_legal``, ``_public`` and ``_outcome`` aside, which only cache what follows from the
    other fields). An engine's state class narrows the types of ``rules`` (its rules) and
    ``_public`` (its public record, memoised).

    A base without slots of its own: the engine's class declares them all (:func:`hand_slots`),
    so its ``__slots__`` names every field of its states (copies and the tests' snapshots go
    by it). And not a ``Generic``: a generic base cost about 1% more instructions per playout
    with a view per move, and states are the hot path's allocations.

    Attributes:
        rules: the variant flags.
        players: number of seats.
        hands: each seat's tiles as a bit set.
        stock: the boneyard as dealt, tile indices, top first; ``stock_pos`` tiles are drawn.
        to_move: the seat to act, ``None`` once the hand is over.
        leader: the seat that leads (or led) the hand.
        scores: the match scores (what they include is the game's business).
        retired: bit set of retired seats.
    """

    __slots__ = ()

    rules: Any
    players: int
    hands: tuple[int, ...]
    stock: tuple[int, ...]
    stock_pos: int
    to_move: int | None
    leader: int
    scores: tuple[int, ...]
    retired: int
    #: The actions, newest first, as a linked list ``((seat, move, drawn tile or None), older)``.
    _history: tuple[Any, ...] | None
    #: How many actions ``_history`` holds.
    _count: int
    _public: Any
    _legal: tuple[Move, ...] | None
    _outcome: HandOutcome | None

    @classmethod
    def _new_hand(
        cls: type[_H],
        rules: Any,
        players: int,
        hands: tuple[int, ...],
        stock: tuple[int, ...],
        leader: int,
        scores: tuple[int, ...] | None,
        retired: frozenset[int],
    ) -> _H:
        """A state with these fields set, no action taken and nothing memoised yet; the engine
        sets ``to_move`` and its own fields.

        Raises:
            ValueError: when ``scores`` (zeros when ``None``) does not hold one score per seat.
        """
        start_scores = tuple(scores) if scores is not None else (0,) * players
        if len(start_scores) != players:
            raise ValueError(f"{len(start_scores)} scores given for {players} players")
        state = object.__new__(cls)
        state.rules = rules
        state.players = players
        state.hands = hands
        state.stock = stock
        state.stock_pos = 0
        state.leader = leader
        state.scores = start_scores
        state.retired = sum([1 << s for s in retired]) if retired else 0
        state._history = None
        state._count = 0
        state._public = None
        state._legal = None
        state._outcome = None
        return state

    def _clone(self: _H) -> _H:
        """A copy of this state with every field as it is, memos included."""
        cls = type(self)
        new = object.__new__(cls)
        slots: tuple[str, ...] = cls.__slots__
        for name in slots:
            setattr(new, name, getattr(self, name))
        return new

    def with_hand(self: _H, seat: int, hand: int) -> _H:
        """A what-if copy of this state in which ``seat`` holds ``hand`` (a bit set) instead.

        For search over hidden information (``arena.reference``): what would have been legal
        had the seat held other tiles. The tile set of the copy need not be a real deal; the
        legal-move memo is dropped (call it on a state whose hand is not over).
        """
        new = self._clone()
        hands = list(self.hands)
        hands[seat] = hand
        new.hands = tuple(hands)
        new._legal = None
        return new

    def last_actions(self, count: int) -> tuple[tuple[int, Move], ...]:
        """The newest ``count`` actions (fewer at the start of a hand) as ``(seat, move)``,
        newest first: what a transposition key needs of the history (consecutive passes, a
        draw just made)."""
        found: list[tuple[int, Move]] = []
        node = self._history
        while node is not None and len(found) < count:
            seat, move, _drawn = node[0]
            found.append((seat, move))
            node = node[1]
        return tuple(found)

    @property
    def boneyard_size(self) -> int:
        """Tiles left in the boneyard (Fives' stock; in Matador the reserve included)."""
        return len(self.stock) - self.stock_pos

    def hand_tiles(self, seat: int) -> tuple[Tile, ...]:
        """The tiles in ``seat``'s hand, canonical order."""
        return tiles_of(self.hands[seat])

    def boneyard_tiles(self) -> tuple[Tile, ...]:
        """The boneyard, top (next to be drawn) first. Never shown to a bot."""
        return tuple(ALL_TILES[i] for i in self.stock[self.stock_pos :])

    def history(self) -> tuple[tuple[int, Move, Tile | None], ...]:
        """Every action of the hand as ``(seat, move, drawn tile or None)``, oldest first.

        In Fives the first entry is the automatic opening: ``(leader, play(tile, None, high),
        None)``.
        """
        items = []
        node = self._history
        while node is not None:
            items.append(node[0])
            node = node[1]
        items.reverse()
        return tuple(items)

    def deal(self) -> Deal:
        """The deal this hand started from (hands as dealt, boneyard top first)."""
        # As dealt = held now + played since - drawn since (a drawn tile may have been played;
        # Fives' automatic opening is in the history as the leader's play), as bit sets: the
        # referee records every hand's deal.
        players = self.players
        played = [0] * players
        drawn_bits = [0] * players
        node = self._history
        while node is not None:
            seat, move, drawn = node[0]
            if move.tile is not None and move.kind == "play":
                played[seat] |= TILE_BIT[move.tile]
            elif drawn is not None:
                drawn_bits[seat] |= TILE_BIT[drawn]
            node = node[1]
        held = self.hands
        return Deal(
            tuple([tiles_of((held[s] | played[s]) & ~drawn_bits[s]) for s in range(players)]),
            _tiles_at(list(self.stock)),
        )


# -- starting a hand ---------------------------------------------------------------------------


def check_flag_names(game: str, raw: Mapping[str, Any], known: Iterable[str]) -> None:
    """Refuse a rules mapping with flags ``game`` does not know, naming them and the known ones.

    Raises:
        ValueError: when ``raw`` has a key not in ``known``.
    """
    known = tuple(known)
    unknown = sorted(set(raw) - set(known))
    if unknown:
        names = ", ".join(known)
        raise ValueError(f"unknown {game} rule(s) {', '.join(unknown)}; known rules: {names}")


def deal_hands(players: int, hand_size: int, seed: int) -> Deal:
    """Shuffle the 28 tiles by ``seed`` and deal ``hand_size`` to each of ``players`` seats, each
    hand sorted; the rest is the boneyard, top first.

    The deal carries its hands as bit sets and its boneyard as indices (:func:`made_deal`), so
    that :func:`checked_deal` need not check and convert its tiles again.
    """
    order = shuffled_indices(seed)
    n = hand_size
    cut = players * n
    # A hand's bit set lists its tiles in canonical order: tiles_of sorts them.
    masks = tuple([sum(map(_BITS.__getitem__, order[s : s + n])) for s in range(0, cut, n)])
    rest = order[cut:]
    return made_deal(tuple(map(tiles_of, masks)), _tiles_at(rest), masks, tuple(rest))


def _tiles_at(indices: list[int]) -> tuple[Tile, ...]:
    """The tiles of ``indices``, in that order."""
    if len(indices) > 1:
        tiles: tuple[Tile, ...] = itemgetter(*indices)(ALL_TILES)
        return tiles
    return tuple(map(ALL_TILES.__getitem__, indices))


def checked_deal(
    deal: Deal, players: int, hand_size: int, size_rule: str
) -> tuple[tuple[tuple[Tile, ...], ...], list[int], tuple[int, ...]]:
    """The hands of ``deal`` (canonical tiles, and bit sets) and its boneyard, once checked.

    Args:
        deal: the hands in seat order and the boneyard, top first.
        players: number of seats.
        hand_size: how many tiles each hand must hold.
        size_rule: what says so, ending the error on a wrong size (``"the rules say"``).

    Returns:
        The hands as canonical tiles, the same as bit sets, and the boneyard as tile indices,
        top first.

    Raises:
        ValueError: when the deal has not one hand per seat, or is not the 28 distinct tiles of
            the set, or a hand does not hold ``hand_size`` tiles (or a tile is not a tile).
    """
    dealt = carried(deal)
    if dealt is not None:  # made by deal_hands: 28 distinct tiles, the bit sets theirs
        made, stock = dealt
        if len(made) == players and all(m.bit_count() == hand_size for m in made):
            return deal.hands, list(made), stock
    if len(deal.hands) != players:
        raise ValueError(f"the deal has {len(deal.hands)} hands for {players} players")
    every = tuple(chain(*deal.hands, deal.boneyard))
    if len(every) == 28:
        # The fast path, once per hand in every playout: 28 canonical tiles, looked up in one
        # call (itemgetter looks each up in C); a tile written otherwise (halves the other way
        # round, a list, a bad half) is not a key, and takes the checked path below.
        try:
            order: tuple[int, ...] = itemgetter(*every)(TILE_INDEX)
        except (KeyError, TypeError):
            pass
        else:
            if len(set(order)) != 28:
                raise ValueError("a deal must hold each of the 28 tiles exactly once")
            return _split(order, tuple(map(len, deal.hands)), hand_size, size_rule)
    hands = tuple(canonical_tiles(h) for h in deal.hands)
    boneyard = canonical_tiles(deal.boneyard)
    # Each tile exactly once: 28 tiles whose bits add up to the full set. (28 powers of two add
    # up to a number with 28 one bits only when no two are the same.)
    bit = TILE_BIT.__getitem__
    masks = [sum(map(bit, h)) for h in hands]
    count = sum(map(len, hands)) + len(boneyard)
    if count != 28 or sum(masks) + sum(map(bit, boneyard)) != FULL_SET:
        raise ValueError("a deal must hold each of the 28 tiles exactly once")
    return _split(
        tuple(map(TILE_INDEX.__getitem__, (*chain(*hands), *boneyard))),
        tuple(map(len, hands)),
        hand_size,
        size_rule,
    )


def _split(
    order: tuple[int, ...], sizes: tuple[int, ...], hand_size: int, size_rule: str
) -> tuple[tuple[tuple[Tile, ...], ...], list[int], tuple[int, ...]]:
    """:func:`checked_deal`'s result from the deal's 28 distinct tile indices (hands in seat
    order, then the boneyard) and the hands' sizes, which it checks."""
    for seat, size in enumerate(sizes):
        if size != hand_size:
            raise ValueError(f"seat {seat} was dealt {size} tiles; {size_rule} {hand_size}")
    hands = []
    masks = []
    start = 0
    for size in sizes:
        run = order[start : start + size]
        hands.append(tuple(map(ALL_TILES.__getitem__, run)))
        masks.append(sum(map(_BITS.__getitem__, run)))
        start += size
    return tuple(hands), masks, order[start:]


#: The bit of each tile index.
_BITS: tuple[int, ...] = tuple(1 << i for i in range(28))


# -- the game object ---------------------------------------------------------------------------


class StartHand(Protocol[_RulesContra, _StateCo]):
    """The signature of an engine's ``start_hand`` (:meth:`arena.games.api.Game.start_hand`)."""

    def __call__(
        self,
        rules: _RulesContra,
        players: int,
        deal: Deal,
        scores: tuple[int, ...] | None = None,
        retired: frozenset[int] = frozenset(),
    ) -> _StateCo: ...


class EngineGame(Generic[RulesT, StateT]):
    """A game as an :class:`arena.games.api.Game`, made of its engine module's functions.

    Attributes:
        name: the game's name (the registry's key, the wire's and the replay's).
        min_players, max_players: how many seats it is for.
        match_target: a score that ends a match at once, whatever its length (Fives' 100),
            or ``None`` (see :func:`arena.games.match.match_target`).
        parse_rules, rules_dict, deal, start_hand: the engine module's functions of those names.
    """

    def __init__(
        self,
        name: str,
        min_players: int,
        max_players: int,
        *,
        parse_rules: Callable[[dict[str, Any]], RulesT],
        rules_dict: Callable[[RulesT], dict[str, Any]],
        deal: Callable[[RulesT, int, int], Deal],
        start_hand: StartHand[RulesT, StateT],
        match_target: int | None = None,
    ) -> None:
        self.name = name
        self.min_players = min_players
        self.max_players = max_players
        self.match_target = match_target
        self.parse_rules = parse_rules
        self.rules_dict = rules_dict
        self.deal = deal
        self.start_hand = start_hand

    def __repr__(self) -> str:
        return f"<EngineGame {self.name}>"


# -- the public record of a line game (Matador, Block) --------------------------------------


class LineRecord(NamedTuple):
    """What every seat has seen of a line game's hand after its first ``actions`` actions."""

    actions: int
    events: tuple[PublicEvent, ...]
    layout: tuple[tuple[int, int], ...]
    draws: tuple[int, ...]
    passes: tuple[int, ...]


#: ``tuple.__new__``: a named tuple built from its fields in one C call (its class's own
#: ``__new__`` is a Python function, which costs more than the rest of the one-action path).
_NEW_TUPLE = tuple.__new__


def line_record(
    record: LineRecord | None, count: int, history: Any, players: int, left: str
) -> LineRecord:
    """The public record after ``count`` actions, brought up to date from ``record`` (the
    parent state's, carried forward; ``None`` for a new hand), so that it costs only the
    actions since, not the whole hand.

    ``history`` is the state's newest-first linked list of ``(seat, move, drawn)`` actions;
    a play on ``left`` goes on the layout's left end, any other end on its right.
    """
    if record is None:
        record = LineRecord(0, (), (), (0,) * players, (0,) * players)
    elif count == record.actions + 1:
        return one_more_action(record, history[0], left)
    newer = []
    node = history
    for _ in range(count - record.actions):
        assert node is not None
        newer.append(node[0])
        node = node[1]
    events, layout = record.events, record.layout
    draws, passes = list(record.draws), list(record.passes)
    for seat, move, _drawn in reversed(newer):
        if move.tile is not None:  # a play (a draw and a pass name no tile)
            a, b = move.tile
            out = move.out
            assert out is not None
            if move.end is None:
                layout = ((a, b),)
            elif move.end == left:
                layout = ((out, a + b - out), *layout)
            else:
                layout = (*layout, (a + b - out, out))
        elif move.kind == "draw":
            draws[seat] += 1
        else:
            passes[seat] += 1
    events += tuple(PublicEvent(s, m) for s, m, _drawn in reversed(newer))
    return LineRecord(count, events, layout, tuple(draws), tuple(passes))


def one_more_action(record: LineRecord, action: Any, left: str) -> LineRecord:
    """``record`` after one more ``(seat, move, drawn)`` action: :func:`line_record`'s case of
    the referee (which asks every state in turn), without the lists of its general case; an
    engine's ``_public_record`` calls it directly when its state is one action newer."""
    # Concatenation, not the starred form ruff prefers (RUF005): that one builds a list and
    # copies it into the tuple, two allocations and two copies per field instead of one.
    seat, move, _drawn = action
    _actions, events, layout, draws, passes = record
    if move.tile is not None:  # a play (a draw and a pass name no tile)
        a, b = move.tile
        out = move.out
        assert out is not None
        if move.end is None:
            layout = ((a, b),)
        elif move.end == left:
            layout = ((out, a + b - out),) + layout  # noqa: RUF005
        else:
            layout = layout + ((a + b - out, out),)  # noqa: RUF005
    elif move.kind == "draw":
        draws = (*draws[:seat], draws[seat] + 1, *draws[seat + 1 :])
    else:
        passes = (*passes[:seat], passes[seat] + 1, *passes[seat + 1 :])
    events = events + (_NEW_TUPLE(PublicEvent, (seat, move)),)  # noqa: RUF005
    return _NEW_TUPLE(LineRecord, (record.actions + 1, events, layout, draws, passes))
