"""Matador (Russian dominoes), exactly as docs/rules.md 1.1-1.15, with every variant flag.

Ends join when the touching halves sum to seven; blanks are closed to all but the matadors
(0-0, 6-1, 5-2, 4-3), which go anywhere at any time with the outward half of the player's
choice. docs/rules.md states every rule as implemented here.

The state is immutable: :meth:`MatadorState.apply` builds a new one. Hands are bit sets over the
28 tile indices of :mod:`arena.games.tiles`, and the legal moves come from tables built once at
import, because random playouts (benchmarks, bots' helpers, the verifier) call them millions of
times.

Pure: no I/O, no clock; randomness only through ``tiles.shuffled_indices(seed)`` (the order of
``tiles.shuffled_set``) in :func:`deal`.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field, fields
from typing import Any, Literal

from arena.games.api import (
    DRAW,
    PASS,
    Deal,
    HandEnd,
    HandOutcome,
    IllegalMoveError,
    Move,
    SeatView,
    play,
)
from arena.games.common import (
    EngineGame,
    HandState,
    LineRecord,
    check_flag_names,
    checked_deal,
    deal_hands,
    hand_slots,
    line_record,
    one_more_action,
)
from arena.games.plugin import FLAG, flag
from arena.games.tiles import (
    ALL_TILES,
    TILE_BIT,
    TILE_INDEX,
    Tile,
    highest,
    indices_of,
    mask_of,
    pips_of,
    tiles_of,
)

LEFT = "left"
RIGHT = "right"

MATADOR_TILES: tuple[Tile, ...] = ((0, 0), (1, 6), (2, 5), (3, 4))
MATADOR_MASK: int = mask_of(MATADOR_TILES)

HandSize = Literal[5, 7, "9-n"]
Lead = Literal["any", "highest_double"]
DrawWhenPlayable = Literal["matador_only", "never", "always"]
DrawMode = Literal["until_playable", "one_then_pass"]


@dataclass(frozen=True, slots=True)
class MatadorRules:
    """The Matador variant flags (docs/rules.md 1.3, 1.4, 1.9); the defaults are the rules' own."""

    hand_size: HandSize = field(
        default=5,
        metadata=flag(
            option="--hand-size",
            choices=(5, 7, "9-n"),
            help="tiles dealt to each seat (9-n: nine minus the players)",
            doc="tiles dealt to each seat (`9-n`: nine minus the number of players)",
            rule="1.3",
            anchor="#13-deal",
            example="9-n",
        ),
    )
    lead: Lead = field(
        default="any",
        metadata=flag(
            option="--lead",
            choices=("any", "highest_double"),
            help="who may lead what",
            doc="whether the leader leads any tile or must lead the double that made them leader",
            rule="1.4",
            anchor="#14-leader",
            example="highest_double",
        ),
    )
    draw_when_playable: DrawWhenPlayable = field(
        default="matador_only",
        metadata=flag(
            option="--draw-when-playable",
            choices=("matador_only", "never", "always"),
            help="when DRAW is legal beside a play",
            doc="when `DRAW` is legal beside a play (by default: when every play uses a matador)",
            rule="1.9",
            anchor="#19-drawing",
            example="never",
        ),
    )
    reserve: Literal[0, 2] = field(
        default=0,
        metadata=flag(
            option="--reserve",
            choices=(0, 2),
            help="tiles left undrawn in the boneyard",
            doc="how many tiles stay in the boneyard, never drawn",
            rule="1.9",
            anchor="#19-drawing",
            example=2,
        ),
    )
    draw_mode: DrawMode = field(
        default="until_playable",
        metadata=flag(
            option="--draw-mode",
            choices=("until_playable", "one_then_pass"),
            help="draw until a tile fits, or draw one and pass",
            doc="draw until a tile fits, or draw one tile and pass if it does not fit",
            rule="1.9",
            anchor="#19-drawing",
            example="one_then_pass",
        ),
    )

    def __post_init__(self) -> None:
        for name, allowed in _FLAG_VALUES.items():
            value = getattr(self, name)
            if isinstance(value, bool) or value not in allowed:
                choices = ", ".join(repr(a) for a in allowed)
                raise ValueError(f"matador rule {name}={value!r} is not one of {choices}")

    def tiles_per_hand(self, players: int) -> int:
        """How many tiles each of ``players`` seats is dealt."""
        if self.hand_size == "9-n":
            return 9 - players
        return self.hand_size


#: Each flag's allowed values, from the rules dataclass's field metadata.
_FLAG_VALUES: dict[str, tuple[object, ...]] = {
    f.name: f.metadata[FLAG].choices for f in fields(MatadorRules)
}


def _build_tables() -> tuple[tuple[int, ...], tuple[tuple[tuple[tuple[Move, ...], ...], ...], ...]]:
    """Per end value: the mask of tiles playable there, and per (side, value, tile) the moves."""
    playable = []
    moves_by_side: list[tuple[tuple[tuple[Move, ...], ...], ...]] = []
    for e in range(7):
        mask = 0
        for i, (a, b) in enumerate(ALL_TILES):
            if (a, b) in MATADOR_TILES or a + e == 7 or b + e == 7:
                mask |= 1 << i
        playable.append(mask)
    for side in (LEFT, RIGHT):
        per_value = []
        for e in range(7):
            per_tile = []
            for a, b in ALL_TILES:
                tile = (a, b)
                outs: tuple[int, ...]
                if tile in MATADOR_TILES:
                    outs = (a,) if a == b else (a, b)
                else:
                    # a + e == 7 puts b outward; b + e == 7 puts a outward (one of them at most,
                    # except for a double, whose two halves are the same end).
                    outs = tuple(sorted({o for o, touch in ((b, a), (a, b)) if touch + e == 7}))
                per_tile.append(tuple(play(tile, side, o) for o in outs))
            per_value.append(tuple(per_tile))
        moves_by_side.append(tuple(per_value))
    return tuple(playable), tuple(moves_by_side)


_PLAYABLE, _MOVES = _build_tables()
_LEFT_MOVES, _RIGHT_MOVES = _MOVES
_LEAD_MOVES: tuple[Move, ...] = tuple(play(t, None, t[1]) for t in ALL_TILES)
_PASS_ONLY: tuple[Move, ...] = (PASS,)
_DRAW_ONLY: tuple[Move, ...] = (DRAW,)

# Memo of the plays on one end, per side and end value: {tiles of the hand playable there: the
# moves, in tile order}. Building the tuple from the per-tile table costs more than the rest of
# legal_moves() together, and the same (value, tiles) pairs recur endlessly in playouts. Keys are
# subsets of the at most ten tiles playable on one value, so the memo stays small (< 2 x 7 x 2**10).
_LEFT_MEMO: tuple[dict[int, tuple[Move, ...]], ...] = tuple({0: ()} for _ in range(7))
#: The legal moves of a position with plays at both ends, or a draw beside its plays, by its
#: ends, its playable tiles at each end and whether it may draw (`_compute_legal`).
_JOINED_MEMO: dict[int, tuple[Move, ...]] = {}
_JOINED_MEMO_LIMIT = 1 << 16
_RIGHT_MEMO: tuple[dict[int, tuple[Move, ...]], ...] = tuple({0: ()} for _ in range(7))


def _end_moves(
    memo: dict[int, tuple[Move, ...]], table: tuple[tuple[Move, ...], ...], tiles: int
) -> tuple[Move, ...]:
    """The plays of ``tiles`` (a bit set) on one end, from its per-tile ``table``; memoised."""
    moves = tuple(m for i in indices_of(tiles) for m in table[i])
    memo[tiles] = moves
    return moves


_NEW_VIEW = tuple.__new__
_BIT_COUNT = int.bit_count
#: The open ends of every (left, right) pair of values, at ``left * 7 + right``: built once, so
#: a view holds a shared tuple instead of three new ones.
_END_PAIRS = tuple(((LEFT, left), (RIGHT, right)) for left in range(7) for right in range(7))


class MatadorState(HandState):
    """One hand of Matador in progress (immutable; build the first with :func:`start_hand`).

    ``scores`` are the match scores when the hand started; the hand's award is in
    :meth:`outcome`. The fields every engine has, and what follows from them alone (the hands,
    the boneyard, the history, the deal), are :class:`arena.games.common.HandState`'s.
    """

    __slots__ = hand_slots("drew", "lead_tile", "left", "passes", "right")

    game = "matador"

    rules: MatadorRules
    _public: LineRecord | None
    left: int
    right: int
    passes: int
    drew: bool
    lead_tile: int

    def __repr__(self) -> str:
        ends = "lead" if self.left < 0 else f"ends {self.left}|{self.right}"
        return (
            f"<MatadorState {self.players}p {ends} to_move={self.to_move} "
            f"boneyard={self.boneyard_size}>"
        )

    # -- derived facts -------------------------------------------------------------------------

    @property
    def ends(self) -> tuple[tuple[str, int], ...]:
        """The open ends as ``(position, value)``; empty before the lead."""
        left = self.left
        return () if left < 0 else _END_PAIRS[left * 7 + self.right]

    def layout(self) -> tuple[tuple[int, int], ...]:
        """The chain read from the left end to the right end, each tile as it lies."""
        return self._public_record().layout

    def _public_record(self) -> LineRecord:
        """The public record of the hand (events, layout, draw and pass counts), memoised and
        carried forward from the parent state (`arena.games.common.line_record`)."""
        record = self._public
        count = self._count
        if record is None or record.actions != count:
            if record is not None and record.actions + 1 == count:
                record = one_more_action(record, self._history[0], LEFT)  # type: ignore[index]
            else:
                record = line_record(record, count, self._history, self.players, LEFT)
            self._public = record
        return record

    # -- the four verbs ------------------------------------------------------------------------

    def legal_moves(self) -> tuple[Move, ...]:
        """The legal moves of the player to move; empty once the hand is over."""
        legal = self._legal
        if legal is None:
            legal = self._legal = self._compute_legal()
        return legal

    def _compute_legal(self) -> tuple[Move, ...]:
        seat = self.to_move
        if seat is None:
            return ()
        if self.retired >> seat & 1:
            return _PASS_ONLY
        hand = self.hands[seat]
        rules = self.rules
        left = self.left
        if left < 0:
            if rules.lead == "highest_double":
                return (_LEAD_MOVES[self.lead_tile],)
            return tuple(map(_LEAD_MOVES.__getitem__, indices_of(hand)))
        right = self.right
        on_left = hand & _PLAYABLE[left]
        on_right = hand & _PLAYABLE[right]
        # Every playable tile gives at least one move, so "some play exists" is a bit test.
        playable = on_left | on_right
        if len(self.stock) - self.stock_pos > rules.reserve and not (
            self.drew and rules.draw_mode == "one_then_pass"
        ):
            if not playable:
                return _DRAW_ONLY
            policy = rules.draw_when_playable
            may_draw = policy == "always" or (
                policy == "matador_only" and not playable & ~MATADOR_MASK
            )
        elif not playable:
            return _PASS_ONLY
        else:
            may_draw = False
        # Left plays first, then right, then DRAW: the order the moves are listed in is part of
        # the behaviour (seeded random choices depend on it).
        plays = _LEFT_MEMO[left].get(on_left)
        if plays is None:
            plays = _end_moves(_LEFT_MEMO[left], _LEFT_MOVES[left], on_left)
        right_plays = _RIGHT_MEMO[right].get(on_right)
        if right_plays is None:
            right_plays = _end_moves(_RIGHT_MEMO[right], _RIGHT_MOVES[right], on_right)
        if not right_plays and not may_draw:
            return plays
        # Both ends (or a draw beside the plays): the joined tuple is memoised too, so the same
        # position's moves are one tuple (the referee caches their JSON by its identity).
        key = (on_left << 28 | on_right) << 7 | (left * 7 + right) << 1 | may_draw
        legal = _JOINED_MEMO.get(key)
        if legal is None:
            if len(_JOINED_MEMO) >= _JOINED_MEMO_LIMIT:
                _JOINED_MEMO.clear()
            legal = plays + right_plays
            if may_draw:
                legal += _DRAW_ONLY
            _JOINED_MEMO[key] = legal
        return legal

    def apply(self, move: Move) -> MatadorState:
        """The state after ``move``; raises :class:`IllegalMoveError` when it is not legal."""
        legal = self._legal
        if legal is None:
            legal = self.legal_moves()
        # Moves from legal_moves() are shared singletons, so this usually stops at identity.
        if move not in legal:
            raise IllegalMoveError(move, legal, self.ends)
        seat = self.to_move
        assert seat is not None  # legal is empty when the hand is over
        players = self.players
        # The new state is built field by field here rather than copied and then patched (as
        # retire() does): apply() is the hot path of every playout, and each slot written twice
        # costs. The hand-level fields carry over; every branch below sets the other eight
        # (hands, stock_pos, left, right, to_move, passes, drew, _history).
        new = object.__new__(MatadorState)
        new.rules = self.rules
        new.players = players
        new.stock = self.stock
        new.leader = self.leader
        new.lead_tile = self.lead_tile
        new.scores = self.scores
        new.retired = self.retired
        new._legal = None
        new._outcome = None
        new._count = self._count + 1
        new._public = self._public
        kind = move.kind
        if move.tile is not None:  # a play (a draw and a pass name no tile)
            tile = move.tile
            assert tile is not None
            assert move.out is not None
            hands = list(self.hands)
            hand = hands[seat] = hands[seat] & ~TILE_BIT[tile]
            new.hands = tuple(hands)
            new.stock_pos = self.stock_pos
            end = move.end
            if end is None:
                new.left, new.right = tile
            elif end == LEFT:
                new.left = move.out
                new.right = self.right
            else:
                new.left = self.left
                new.right = move.out
            new.passes = 0
            new.drew = False
            new._history = ((seat, move, None), self._history)
            if hand:
                new.to_move = (seat + 1) % players
            else:
                new.to_move = None
                new._outcome = new._finish(HandEnd.DOMINO, (seat,))
        elif kind == "draw":
            pos = self.stock_pos
            index = self.stock[pos]
            hands = list(self.hands)
            hands[seat] |= 1 << index
            new.hands = tuple(hands)
            new.stock_pos = pos + 1
            new.left = self.left
            new.right = self.right
            new.to_move = seat  # the drawer moves again
            new.passes = 0
            new.drew = True
            new._history = ((seat, move, ALL_TILES[index]), self._history)
        else:
            new.hands = self.hands
            new.stock_pos = self.stock_pos
            new.left = self.left
            new.right = self.right
            new.passes = passes = self.passes + 1
            new.drew = False
            new._history = ((seat, move, None), self._history)
            if passes >= players:
                new.to_move = None
                new._outcome = new._finish(HandEnd.BLOCK, new._block_winners())
            else:
                new.to_move = (seat + 1) % players
        return new

    def outcome(self) -> HandOutcome | None:
        """``None`` while the hand goes on, else the result and the award (rules.md 1.11-1.13)."""
        return self._outcome

    def view(self, seat: int) -> SeatView:
        """What ``seat`` may know: its own tiles, counts, the layout, the public history."""
        record = self._public
        count = self._count
        if record is None or record.actions != count:
            if record is not None and record.actions + 1 == count:
                # A state fresh from apply (the referee's case): its parent's record plus the
                # newest action, without _public_record's call.
                record = self._public = one_more_action(record, self._history[0], LEFT)  # type: ignore[index]
            else:
                record = self._public_record()
        retired = self.retired
        left = self.left
        to_move = self.to_move
        if to_move != seat:
            legal: tuple[Move, ...] = ()
        else:
            legal = self._legal or self.legal_moves()
        hands = self.hands
        # Built with tuple.__new__ (the named tuple's own __new__ is a Python function): the
        # referee asks for a view per move. The last four fields are SeatView's defaults.
        return _NEW_VIEW(
            SeatView,
            (
                seat,
                self.players,
                to_move,
                tiles_of(hands[seat]),
                (hands[0].bit_count(), hands[1].bit_count())
                if len(hands) == 2
                else tuple(map(_BIT_COUNT, hands)),
                len(self.stock) - self.stock_pos,
                record.layout,
                () if left < 0 else _END_PAIRS[left * 7 + self.right],
                self.scores,
                record.events,
                legal,
                tuple(s for s in range(self.players) if retired >> s & 1) if retired else (),
                record.draws,
                record.passes,
                (),
                None,
                None,
                (),
            ),
        )

    def retire(self, seat: int) -> MatadorState:
        """The same position with ``seat`` retired: it passes from now on and cannot win.

        The referee retires a seat whose bot failed in a game of three or four. A leader that
        retires before leading hands the lead to the leader rule 1.4 picks among the others.
        """
        new = _copy(self)
        new.retired = self.retired | (1 << seat)
        new._outcome = self._outcome
        if self._outcome is None and self.left < 0 and self.to_move == seat:
            # The leader retired before leading: the lead goes to the leader that rule 1.4
            # picks among the seats still in play.
            eligible = tuple(s for s in range(self.players) if not new.retired >> s & 1)
            if eligible:
                hands = tuple(self.hand_tiles(s) for s in range(self.players))
                leader, lead_tile = find_leader(hands, eligible)
                new.to_move = new.leader = leader
                new.lead_tile = TILE_INDEX[lead_tile]
        return new

    # -- hand end ------------------------------------------------------------------------------

    def _block_winners(self) -> tuple[int, ...]:
        active = [s for s in range(self.players) if not self.retired >> s & 1]
        pips = {s: pips_of(self.hands[s]) for s in active}
        fewest = min(pips.values())
        return tuple(s for s in active if pips[s] == fewest)

    def _finish(self, kind: HandEnd, winners: tuple[int, ...]) -> HandOutcome:
        pips = tuple(pips_of(h) for h in self.hands)
        award = [0] * self.players
        if len(winners) == 1:
            winner = winners[0]
            award[winner] = sum(p for s, p in enumerate(pips) if s != winner)
        return HandOutcome(
            kind=kind,
            winners=winners,
            award=tuple(award),
            scores=tuple(s + a for s, a in zip(self.scores, award, strict=True)),
            pips=pips,
        )


def _copy(state: MatadorState) -> MatadorState:
    """A copy of ``state`` with nothing memoised but the public record."""
    new = state._clone()
    new._legal = None
    new._outcome = None
    return new


# -- starting a hand ---------------------------------------------------------------------------


def parse_rules(raw: dict[str, Any]) -> MatadorRules:
    """Rules from a JSON-like mapping of flags; unknown flags are an error naming them."""
    check_flag_names("matador", raw, _FLAG_VALUES)
    return MatadorRules(**raw)


def rules_dict(rules: MatadorRules) -> dict[str, Any]:
    """Every flag of ``rules`` as a JSON-ready mapping (defaults included)."""
    return asdict(rules)


def deal(rules: MatadorRules, players: int, seed: int) -> Deal:
    """Shuffle the 28 tiles by ``seed`` and deal each seat its hand; the rest is the boneyard."""
    _check_players(players)
    return deal_hands(players, rules.tiles_per_hand(players), seed)


def find_leader(hands: tuple[tuple[Tile, ...], ...], eligible: tuple[int, ...]) -> tuple[int, Tile]:
    """The leader (docs/rules.md 1.4) among ``eligible`` seats and the tile that made them leader.

    The holder of the highest double; when no eligible hand holds a double, the holder of the
    highest-ranked tile. Only dealt hands count, never the boneyard.
    """
    doubles = [(t, s) for s in eligible for t in hands[s] if t[0] == t[1]]
    candidates = doubles or [(t, s) for s in eligible for t in hands[s]]
    best = highest(t for t, _s in candidates)
    seat = next(s for t, s in candidates if t == best)
    return seat, best


def start_hand(
    rules: MatadorRules,
    players: int,
    deal: Deal,
    scores: tuple[int, ...] | None = None,
    retired: frozenset[int] = frozenset(),
) -> MatadorState:
    """The opening position of a hand: the leader of docs/rules.md 1.4 is to move.

    Args:
        rules: the variant flags.
        players: number of seats (2 to 4).
        deal: the hands in seat order and the boneyard, top first.
        scores: match scores before this hand (zeros when omitted).
        retired: seats that failed earlier in the match; they neither lead nor win.

    Raises:
        ValueError: when the deal is not the 28 distinct tiles of the set, or a hand has the
            wrong size, or every seat is retired.
    """
    _check_players(players)
    size = rules.tiles_per_hand(players)
    hands, masks, stock = checked_deal(deal, players, size, "the rules say")
    eligible = tuple(s for s in range(players) if s not in retired)
    if not eligible:
        raise ValueError("every seat is retired")
    leader, lead_tile = find_leader(hands, eligible)
    state = MatadorState._new_hand(rules, players, tuple(masks), stock, leader, scores, retired)
    state.left = state.right = -1
    state.to_move = leader
    state.passes = 0
    state.drew = False
    state.lead_tile = TILE_INDEX[lead_tile]
    return state


def _check_players(players: int) -> None:
    if not 2 <= players <= 4:
        raise ValueError(f"matador is for 2 to 4 players, not {players}")


#: Matador as a :class:`arena.games.api.Game`.
MATADOR: EngineGame[MatadorRules, MatadorState] = EngineGame(
    "matador",
    2,
    4,
    parse_rules=parse_rules,
    rules_dict=rules_dict,
    deal=deal,
    start_hand=start_hand,
)
