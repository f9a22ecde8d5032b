"""The engine interface every game implements, and the vocabulary it is written in.

A game is a set of pure functions over immutable states (OpenSpiel's game/state split,
python-chess's ``legal_moves``/``push``/``outcome``). The four verbs are the same for every game:

- ``legal_moves(state)``: the moves the player to move may make, each position listed apart;
- ``apply(state, move)``: the state after the move (the input is never changed), or
  :class:`IllegalMoveError`;
- ``outcome(state)``: ``None`` while the hand goes on, else a :class:`HandOutcome`;
- ``view(state, seat)``: what one seat may know, with no other seat's tiles and no stock order.

Pure: no I/O, no clock, no randomness except ``tiles.shuffled_indices(seed)`` in a deal.
"""

from __future__ import annotations

import enum
import hashlib
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, NamedTuple, Protocol, TypeVar

from arena.games.tiles import Tile, tile_str


class MoveKind(enum.StrEnum):
    """What a move does. A ``str`` enum: a member equals, hashes and formats as its value, so
    ``move.kind == "play"`` and the JSON of every record stay as they were."""

    PLAY = "play"
    DRAW = "draw"
    PASS = "pass"


class Move(NamedTuple):
    """One action: ``kind`` is a :class:`MoveKind` (play, draw or pass).

    A play names the ``tile`` (canonical ``(low, high)``), the ``end`` by position (``"left"``,
    ``"right"`` in Matador; ``None`` for the lead) and ``out``, the half that faces outward after
    the play (the new value of that end; for the lead, the high half).
    """

    kind: MoveKind
    tile: Tile | None = None
    end: str | None = None
    out: int | None = None

    def __str__(self) -> str:
        if self.kind != "play" or self.tile is None:
            return self.kind.upper()
        where = "lead" if self.end is None else f"on {self.end}"
        return f"{tile_str(self.tile)} {where}, {self.out} out"


DRAW = Move(MoveKind.DRAW)
PASS = Move(MoveKind.PASS)
_PLAY = MoveKind.PLAY


#: Every play built by :func:`play`, by its fields: the same play is always the same object.
_PLAYS: dict[tuple[Tile, str | None, int], Move] = {}


def play(tile: Tile, end: str | None, out: int) -> Move:
    """Build a play move (``tile`` must already be canonical ``(low, high)``).

    Interned: the engines build their moves once, through here, and a bot's reply becomes a
    move through here too (`arena.wire.move_from_wire`), so a legal move asked for is the very
    object in the legal list, and finding it there, or in a cache keyed by moves, stops at
    identity instead of comparing the fields. The plays there can be are few (the decoder
    bounds every field of a reply).
    """
    key = (tile, end, out)
    move = _PLAYS.get(key)
    if move is None:
        move = _PLAYS[key] = Move(_PLAY, tile, end, out)
    return move


class HandEnd(enum.Enum):
    """How a hand ended."""

    DOMINO = "domino"  #: a player played the last tile of the hand
    BLOCK = "block"  #: nobody could move any more
    TARGET = "target"  #: a score reached the match target during the hand (Fives)


# A frozen dataclass's generated __init__ writes each field with ``object.__setattr__``, looked
# up anew per field; the classes made once per hand (in every random playout) write them through
# their slots' setters instead (bound once, below each class; like object.__setattr__ they bypass
# the frozen class's __setattr__). Same fields, same errors for a missing argument.


@dataclass(frozen=True, slots=True, init=False)
class HandOutcome:
    """The result of a finished hand.

    Attributes:
        kind: how the hand ended.
        winners: the seat that won the hand, or several seats on a drawn block, in seat order.
        award: the points each seat scored at the end of the hand (a drawn block awards nothing).
        scores: the match scores after the hand, per seat.
        pips: the pips left in each hand.
    """

    kind: HandEnd
    winners: tuple[int, ...]
    award: tuple[int, ...]
    scores: tuple[int, ...]
    pips: tuple[int, ...]

    def __init__(
        self,
        kind: HandEnd,
        winners: tuple[int, ...],
        award: tuple[int, ...],
        scores: tuple[int, ...],
        pips: tuple[int, ...],
    ) -> None:
        _set_kind(self, kind)
        _set_winners(self, winners)
        _set_award(self, award)
        _set_scores(self, scores)
        _set_pips(self, pips)


_set_kind = HandOutcome.__dict__["kind"].__set__
_set_winners = HandOutcome.__dict__["winners"].__set__
_set_award = HandOutcome.__dict__["award"].__set__
_set_scores = HandOutcome.__dict__["scores"].__set__
_set_pips = HandOutcome.__dict__["pips"].__set__


class PublicEvent(NamedTuple):
    """One entry of a hand's public history: what every seat saw happen.

    A draw is public, the drawn tile is not: ``move`` is then ``DRAW`` for everybody.
    """

    seat: int
    move: Move


class SeatView(NamedTuple):
    """Everything one seat may know about a hand in progress (and nothing more).

    Attributes:
        seat: the seat this view belongs to.
        players: number of seats.
        to_move: the seat to act, or ``None`` when the hand is over.
        hand: this seat's tiles, canonical order.
        hand_counts: how many tiles each seat holds.
        boneyard_size: tiles left in the boneyard (drawable or not).
        layout: the placed tiles as an oriented chain read from the left end to the right end,
            each as ``(left_half, right_half)`` (in Fives the west-east line, west first).
        ends: the open ends as ``(position, value)`` pairs, empty before the lead.
        scores: match scores per seat. In Matador this hand's award is not yet included; in
            Fives every point scored in this hand so far is (the counts, and once the hand is
            over its domino or block award).
        history: the public history of the hand.
        legal: the legal moves when this seat is to move, else empty.
        retired: seats that have been retired from the match (they pass from then on).
        draws: how many tiles each seat has drawn in this hand.
        passes: how many times each seat has passed in this hand.
        arms: Fives only (empty in Matador and before a spinner is laid): the spinner's
            ``("north", tiles)`` and ``("south", tiles)`` arms, each read outward from the
            spinner, each tile as ``(inner_half, outer_half)``. With ``layout`` (the west-east
            line) they hold every placed tile.
        spinner: Fives only: the index in ``layout`` of the spinner, or ``None``.
        end_count: Fives only: the count of the open ends now (docs/rules.md 2.5), or ``None``.
        scoring: Fives only: every scoring event of this hand so far, oldest first, as
            ``(seat, points, reason)`` with reason ``"count"``, ``"domino"`` or ``"block"``.

    A named tuple rather than a dataclass: the referee builds one per request.
    """

    seat: int
    players: int
    to_move: int | None
    hand: tuple[Tile, ...]
    hand_counts: tuple[int, ...]
    boneyard_size: int
    layout: tuple[tuple[int, int], ...]
    ends: tuple[tuple[str, int], ...]
    scores: tuple[int, ...]
    history: tuple[PublicEvent, ...]
    legal: tuple[Move, ...]
    retired: tuple[int, ...]
    draws: tuple[int, ...]
    passes: tuple[int, ...]
    arms: tuple[tuple[str, tuple[tuple[int, int], ...]], ...] = ()
    spinner: int | None = None
    end_count: int | None = None
    scoring: tuple[tuple[int, int, str], ...] = ()


class IllegalMoveError(ValueError):
    """A well-formed move that the rules do not allow in this position."""

    def __init__(self, move: Move, legal: tuple[Move, ...], ends: tuple[tuple[str, int], ...]):
        self.move = move
        self.legal = legal
        self.ends = ends
        ends_text = ", ".join(f"{p}={v}" for p, v in ends) or "none (the lead)"
        legal_text = "; ".join(str(m) for m in legal) or "none"
        super().__init__(f"illegal move {move}: open ends {ends_text}; legal moves: {legal_text}")


@dataclass(frozen=True, init=False)
class Deal:
    """The tiles of one hand: each seat's hand in seat order and the boneyard, top first.

    A deal that an engine's ``deal()`` made (:func:`arena.games.common.deal_hands`) also
    carries, out of sight, what it was made from: each hand as a bit set and the boneyard as
    tile indices (``_dealt``), so that ``start_hand`` need not check and convert its tiles
    again. Any other deal has ``_dealt = None`` and is checked tile by tile. The fields are
    frozen, so what a deal carries always matches them; equality, hashing, ``repr``, copies and
    pickles see the two fields only.
    """

    __slots__ = ("_dealt", "boneyard", "hands")

    hands: tuple[tuple[Tile, ...], ...]
    boneyard: tuple[Tile, ...]
    if TYPE_CHECKING:  # a slot, not a field: annotated for the type checker only
        _dealt: tuple[tuple[int, ...], tuple[int, ...]] | None

    def __init__(self, hands: tuple[tuple[Tile, ...], ...], boneyard: tuple[Tile, ...]) -> None:
        _set_hands(self, hands)
        _set_boneyard(self, boneyard)
        _set_dealt(self, None)

    def __getstate__(self) -> tuple[tuple[tuple[Tile, ...], ...], tuple[Tile, ...]]:
        return (self.hands, self.boneyard)

    def __setstate__(self, state: tuple[tuple[tuple[Tile, ...], ...], tuple[Tile, ...]]) -> None:
        self.__init__(*state)  # type: ignore[misc]


def made_deal(
    hands: tuple[tuple[Tile, ...], ...],
    boneyard: tuple[Tile, ...],
    masks: tuple[int, ...],
    stock: tuple[int, ...],
) -> Deal:
    """A deal as an engine's ``deal()`` makes it: ``Deal(hands, boneyard)`` carrying each hand
    as a bit set (``masks``) and the boneyard as tile indices (``stock``), which must be those
    very tiles (the engines' own deals only; ``start_hand`` trusts them)."""
    deal = _new_object(Deal)
    _set_hands(deal, hands)
    _set_boneyard(deal, boneyard)
    _set_dealt(deal, (masks, stock))
    return deal


_new_object = object.__new__
_set_hands = Deal.__dict__["hands"].__set__
_set_boneyard = Deal.__dict__["boneyard"].__set__
_set_dealt = Deal.__dict__["_dealt"].__set__


def carried(deal: Deal) -> tuple[tuple[int, ...], tuple[int, ...]] | None:
    """The bit sets and stock indices a deal made by :func:`made_deal` carries, else ``None``
    (a deal built from its fields, or decoded, which ``start_hand`` checks tile by tile)."""
    dealt: tuple[tuple[int, ...], tuple[int, ...]] | None = getattr(deal, "_dealt", None)
    return dealt


class GameState(Protocol):
    """What every game's state offers (states are immutable; ``apply`` returns a new one)."""

    @property
    def players(self) -> int: ...

    @property
    def to_move(self) -> int | None: ...

    @property
    def scores(self) -> tuple[int, ...]: ...

    def legal_moves(self) -> tuple[Move, ...]: ...

    def apply(self, move: Move) -> GameState: ...

    def outcome(self) -> HandOutcome | None: ...

    def view(self, seat: int) -> SeatView: ...

    def deal(self) -> Deal: ...

    def retire(self, seat: int) -> GameState: ...


S = TypeVar("S", bound=GameState)


def legal_moves(state: GameState) -> tuple[Move, ...]:
    """The legal moves of the player to move (empty when the hand is over)."""
    return state.legal_moves()


def apply(state: S, move: Move) -> S:
    """The state after ``move``; :class:`IllegalMoveError` for a move not in ``legal_moves``."""
    return state.apply(move)  # type: ignore[return-value]


def outcome(state: GameState) -> HandOutcome | None:
    """``None`` while the hand goes on, else how it ended and who scored."""
    return state.outcome()


def view(state: GameState, seat: int) -> SeatView:
    """What ``seat`` may know about the hand: its own tiles, public facts, its legal moves."""
    return state.view(seat)


class Game(Protocol):
    """A game: its name, how to read its rules, and how to start a hand."""

    @property
    def name(self) -> str: ...

    @property
    def match_target(self) -> int | None:
        """A score that ends a match at once, whatever its length (Fives' 100), or ``None``."""
        ...

    def parse_rules(self, raw: dict[str, Any]) -> Any: ...

    def rules_dict(self, rules: Any) -> dict[str, Any]: ...

    def deal(self, rules: Any, players: int, seed: int) -> Deal: ...

    def start_hand(
        self,
        rules: Any,
        players: int,
        deal: Deal,
        scores: tuple[int, ...] | None = None,
        retired: frozenset[int] = frozenset(),
    ) -> GameState: ...


class Chooser(Protocol):
    """A source of random choices, such as ``random.Random(seed)``: all a playout needs."""

    def choice(self, seq: Sequence[Any]) -> Any: ...


class Playout(NamedTuple):
    """The end of a random playout: the hand's outcome and how many plays and passes led to it
    from the state it started from (draws are neither)."""

    outcome: HandOutcome
    plays: int
    passes: int


def verb_playout(state: GameState, rng: Chooser) -> Playout:
    """The hand played to its end by ``state = state.apply(rng.choice(state.legal_moves()))``
    until ``outcome()``: what :func:`random_playout` does with an engine without a fast path."""
    plays = passes = 0
    choice = rng.choice
    done = state.outcome()
    while done is None:
        move = choice(state.legal_moves())
        state = state.apply(move)
        if move.tile is not None:
            plays += 1
        elif move.kind == MoveKind.PASS:
            passes += 1
        done = state.outcome()
    return Playout(done, plays, passes)


def random_playout(state: GameState, rng: Chooser) -> Playout:
    """Play the hand from ``state`` to its end with uniformly random legal moves; ``state`` is not
    changed. Search lives on these.

    The result is exactly that of :func:`verb_playout` with an equal ``rng`` (the same moves, the
    same calls of ``rng.choice``); an engine whose state has a ``playout(rng)`` method (Block)
    gets there without building the states in between.
    """
    fast = getattr(state, "playout", None)
    if fast is not None:
        result: Playout = fast(rng)
        return result
    return verb_playout(state, rng)


def derive_seed(seed: int, *parts: object) -> int:
    """A 63-bit seed derived from a match seed and a purpose, the same on every machine.

    ``derive_seed(s, "deal", 3)`` is the seed of hand 3's deal; ``derive_seed(s, "bot", 1)`` is
    the seed given to the bot in seat 1.
    """
    text = ":".join(str(p) for p in (seed, *parts))
    return int.from_bytes(hashlib.sha256(text.encode()).digest()[:8], "big") >> 1
