"""What one seat knows about a hand: :class:`SeatKnowledge`, and how to build it.

A seat knows the rules, its own tiles as dealt and as drawn (in draw order), the public history
of the hand (every play, and that a draw or a pass happened), the tile counts, the boneyard's
size and the scores. Everything else (the other hands, the boneyard's order) is hidden; the
sampler (:mod:`arena.reference.sampler`) fills it in consistently with this record.

Two ways to build one, which give equal records for the same position:

- :class:`KnowledgeTracker` follows the protocol messages one bot receives (``hello``,
  ``hand_start``, ``request``) and tells its drawn tiles apart by the changes of its hand
  between its requests (after a draw the drawer moves again, so it always sees the new tile);
- :func:`knowledge_from_state` reads a full engine state at one seat (a replay's position, for
  ``arena analyze``), keeping only what that seat saw.

No game is named here: the game is its plugin (:mod:`arena.games.registry`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from arena.games.api import DRAW, GameState, Move, MoveKind, PublicEvent
from arena.games.plugin import GamePlugin
from arena.games.registry import get_game
from arena.games.tiles import ALL_TILES, Tile, make_tile
from arena.wire import move_from_wire, rules_from_wire
from protocol import messages as m


@dataclass(frozen=True, slots=True)
class SeatKnowledge:
    """Everything one seat may know about the hand in progress, and nothing more.

    Attributes:
        plugin: the game.
        rules: the game's rules object (``plugin.parse_rules`` of the flags).
        players: number of seats.
        seat: the seat this knowledge belongs to.
        start_scores: the match scores before this hand (points scored during the hand, as in
            some games, taken out).
        retired: the seats retired from the match.
        dealt: this seat's tiles as dealt, canonical order (an automatic opening's tile
            included: it was dealt, then played).
        drawn: the tiles this seat drew in this hand, in the order drawn.
        events: the public history of the hand, oldest first (an automatic opening included).
        hand: this seat's tiles now, canonical order.
        hand_counts: how many tiles each seat holds now.
        boneyard_size: tiles left in the boneyard.
        to_move: the seat to act now, ``None`` once the hand is over.
        legal: the legal moves when this seat is to move, else empty.
    """

    plugin: GamePlugin
    rules: Any
    players: int
    seat: int
    start_scores: tuple[int, ...]
    retired: frozenset[int]
    dealt: tuple[Tile, ...]
    drawn: tuple[Tile, ...]
    events: tuple[PublicEvent, ...]
    hand: tuple[Tile, ...]
    hand_counts: tuple[int, ...]
    boneyard_size: int
    to_move: int | None
    legal: tuple[Move, ...]
    #: A cache the sampler keeps with the record (the voids it has learned); not compared.
    cache: dict[str, Any] = field(default_factory=dict, compare=False, repr=False)

    @property
    def hand_size(self) -> int:
        """How many tiles each seat was dealt."""
        return len(self.dealt)

    @property
    def stock_size(self) -> int:
        """How many tiles the boneyard held when the hand was dealt."""
        return 28 - self.players * self.hand_size

    def played(self, seat: int) -> tuple[Tile, ...]:
        """The tiles ``seat`` has played in this hand, oldest first."""
        return tuple(e.move.tile for e in self.events if e.seat == seat and e.move.tile)

    def unseen(self) -> tuple[Tile, ...]:
        """The tiles this seat has never seen: in another hand or in the boneyard."""
        seen = set(self.dealt) | set(self.drawn)
        seen.update(e.move.tile for e in self.events if e.move.tile is not None)
        return tuple(t for t in ALL_TILES if t not in seen)

    def determined(self) -> bool:
        """Whether the rest of the hand is a game of perfect information for this seat: the
        boneyard is empty and at most one other seat holds tiles (whose tiles are then exactly
        the unseen ones)."""
        if self.boneyard_size:
            return False
        holders = [s for s in range(self.players) if s != self.seat and self.hand_counts[s]]
        return len(holders) <= 1


def knowledge_from_state(plugin: GamePlugin, state: GameState, seat: int) -> SeatKnowledge:
    """What ``seat`` knows in ``state`` (a full engine state, e.g. a replay's position).

    Only the seat's own tiles, its own draws and the public record are taken from the state.
    """
    view = state.view(seat)
    history: Sequence[tuple[int, Move, Tile | None]] = state.history()  # type: ignore[attr-defined]
    drawn = tuple(t for s, mv, t in history if s == seat and mv.kind == MoveKind.DRAW and t)
    deal = state.deal()
    return SeatKnowledge(
        plugin=plugin,
        rules=state.rules,  # type: ignore[attr-defined]
        players=view.players,
        seat=seat,
        start_scores=_start_scores(view.scores, view.scoring, view.players),
        retired=frozenset(view.retired),
        dealt=tuple(deal.hands[seat]),
        drawn=drawn,
        events=view.history,
        hand=view.hand,
        hand_counts=view.hand_counts,
        boneyard_size=view.boneyard_size,
        to_move=view.to_move,
        legal=view.legal,
    )


def _start_scores(
    scores: Sequence[int], scoring: Sequence[tuple[int, int, str]], players: int
) -> tuple[int, ...]:
    start = list(scores)
    for seat, points, _reason in scoring:
        start[seat] -= points
    return tuple(start[:players])


def _tile(pair: Sequence[int]) -> Tile:
    return make_tile(pair[0], pair[1])


class KnowledgeTracker:
    """Builds a seat's :class:`SeatKnowledge` from the protocol messages its bot receives.

    Feed it ``hello`` (:meth:`hello`), each ``hand_start`` (:meth:`hand_start`) and each
    ``request`` (:meth:`request`, which returns the knowledge at that request).
    """

    def __init__(self) -> None:
        self.plugin: GamePlugin | None = None
        self.rules: Any = None
        self.players = 0
        self.seat = 0
        self._hand_number = 0
        self._start_hand: tuple[Tile, ...] = ()
        self._leader = 0
        self._last_hand: frozenset[Tile] = frozenset()
        self._last_draws = 0
        self._drawn: list[Tile] = []
        self._cache: dict[str, Any] = {}

    def hello(self, hello: m.Hello) -> None:
        """The match's game, rules, seats and seat."""
        self.plugin = get_game(hello.game)
        self.rules = self.plugin.parse_rules(rules_from_wire(hello.rules))
        self.players = hello.players
        self.seat = hello.seat

    def hand_start(self, start: m.HandStart) -> None:
        """A new hand: the seat's tiles as dealt (less an automatic opening's tile)."""
        self._new_hand(start.hand_number, tuple(sorted(_tile(t) for t in start.hand)))
        self._leader = start.leader

    def _new_hand(self, number: int, hand: tuple[Tile, ...]) -> None:
        self._hand_number = number
        self._start_hand = hand
        self._last_hand = frozenset(hand)
        self._last_draws = 0
        self._drawn = []
        self._cache = {}

    def request(self, req: m.MoveRequest) -> SeatKnowledge:
        """The seat's knowledge at this request."""
        assert self.plugin is not None, "hello comes first"
        hand = tuple(sorted(_tile(t) for t in req.hand))
        if req.hand_number != self._hand_number:  # no hand_start seen (a restarted bot)
            self._new_hand(req.hand_number, hand)
        events = tuple(PublicEvent(e.seat, move_from_wire(e.move)) for e in req.history)
        my_draws = sum(1 for e in events if e.seat == self.seat and e.move == DRAW)
        if my_draws > self._last_draws:
            gained = sorted(set(hand) - self._last_hand - set(self._drawn))
            self._drawn.extend(gained[: my_draws - self._last_draws])
            self._last_draws = my_draws
        self._last_hand = frozenset(hand)
        played = [e.move.tile for e in events if e.seat == self.seat and e.move.tile]
        dealt = set(hand) | set(played)
        dealt.difference_update(self._drawn)
        if len(self._drawn) < my_draws:  # draws we did not see (a restarted bot)
            opening = {events[0].move.tile} if self.plugin.automatic_opening and events else set()
            extra = sorted(dealt - set(self._start_hand) - opening)
            self._drawn.extend(extra[: my_draws - len(self._drawn)])
            dealt.difference_update(self._drawn)
        scoring = (
            [(s.seat, s.points, s.reason) for s in req.scoring]
            if isinstance(req.scoring, list)
            else []
        )
        counts = tuple(req.hand_counts)
        return SeatKnowledge(
            plugin=self.plugin,
            rules=self.rules,
            players=self.players,
            seat=self.seat,
            start_scores=_start_scores(req.scores, scoring, self.players),
            retired=frozenset(req.retired),
            dealt=tuple(sorted(dealt)),
            drawn=tuple(self._drawn),
            events=events,
            hand=hand,
            hand_counts=counts,
            boneyard_size=req.boneyard_size,
            to_move=self.seat,
            legal=tuple(move_from_wire(mv) for mv in req.legal),
            cache=self._cache,
        )
