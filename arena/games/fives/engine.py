"""Fives (the two-player "Dominó" of the fifth source), exactly as docs/rules.md 2.1-2.12.

Tiles match by equal halves; the first double is the spinner, whose north and south ends open
once both its sides are covered (flag ``spinner_sides_first``); after every placement a count
of the open ends that is a positive multiple of five scores for the player who placed the tile.
The match is played to :data:`TARGET` points, checked after every scoring event: a hand ends
with :attr:`HandEnd.TARGET <arena.games.api.HandEnd.TARGET>` the moment a score reaches it.

Design choices (docs/rules.md states the rules themselves):

- **The opening is automatic.** :func:`start_hand` returns the position *after* docs/rules.md 2.2's
  opening: the lead tile lies low half west, high half east, its count is scored, and the other
  seat is to move. The opening shows in :meth:`FivesState.history` and in every view's history
  as a play by the leader with ``end=None`` and ``out`` equal to the high half (Matador's lead
  notation). It is never a legal move: ``apply`` refuses it. So the referee and the perft cases
  see the first *choice* as the first move.
- **Scores run during the hand.** ``state.scores`` are the match scores *including* every point
  scored in this hand so far (rules.md 2.10 compares them on a block), and in a finished hand its
  award too. ``outcome().award`` is the hand-end award alone (domino or block; zeros for
  ``TARGET``) and ``outcome().scores`` the final scores, so ``outcome().scores - scores`` at
  any position is what the seats still score, counts included (what perft's ``lines_to_end``
  sums).
- **Scoring events are state.** ``state.scoring`` is the hand's tuple of :class:`ScoreEvent`
  ``(seat, points, reason)``, reason ``"count"`` (a placement, the opening included),
  ``"domino"`` or ``"block"`` (the hand-end award, recorded even when it is zero or, on a
  block under ``more_points``, negative). Every view carries it, so a bot learns every score.
- **Views carry the cross.** ``SeatView.layout`` is the west-east line read from west to east
  (the spinner included, at index ``SeatView.spinner``); ``SeatView.arms`` holds the north and
  south arms read outward from the spinner; ``SeatView.end_count`` is the current count.

The state is immutable: :meth:`FivesState.apply` builds a new one. Hands are bit sets over the
28 tile indices of :mod:`arena.games.tiles`; legal moves come from tables built once at import
and memoised per (end, value, playable tiles), as in :mod:`arena.games.matador`, because random
playouts call them millions of times.

Pure: no I/O, no clock; randomness only through ``tiles.shuffled_indices(seed)`` (the order of
``tiles.shuffled_set``) in :func:`deal`.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field, fields
from typing import Any, Literal, NamedTuple

from arena.games.api import (
    DRAW,
    PASS,
    Deal,
    HandEnd,
    HandOutcome,
    IllegalMoveError,
    Move,
    PublicEvent,
    SeatView,
    play,
)
from arena.games.common import (
    EngineGame,
    HandState,
    check_flag_names,
    checked_deal,
    deal_hands,
    hand_slots,
)
from arena.games.plugin import FLAG, flag
from arena.games.tiles import (
    ALL_TILES,
    Tile,
    make_tile,
    mask_of,
    pips_of,
    rank_key,
    tiles_of,
)

WEST = "west"
EAST = "east"
NORTH = "north"
SOUTH = "south"
#: The end positions in the order the engine lists them (and indexes its ``ends`` tuple).
POSITIONS: tuple[str, str, str, str] = (WEST, EAST, NORTH, SOUTH)

#: Fives is for exactly two players, seven tiles each (docs/rules.md 2.1).
PLAYERS = 2
HAND_SIZE = 7
#: The match target (docs/rules.md 2.11): the first score to reach it ends the match at once.
TARGET = 100

BlockWinner = Literal["more_points", "fewer_pips"]


@dataclass(frozen=True, slots=True)
class FivesRules:
    """The Fives variant flags (docs/rules.md 2.4 and 2.10); the defaults are the rules' own.

    Attributes:
        spinner_sides_first: the spinner's north and south ends open only once both of its
            sides (west and east) have a tile; when false they are open from the start.
        block_winner: who wins a blocked hand: ``"more_points"`` (the higher match score,
            this hand's counts included) or ``"fewer_pips"`` (the lighter hand).
    """

    spinner_sides_first: bool = field(
        default=True,
        metadata=flag(
            option="--spinner-sides-first",
            choices=(True, False),
            help="the spinner's north and south open only once both its sides are covered",
            doc="the spinner's north and south ends open only once both its sides have a tile",
            rule="2.4",
            anchor="#24-the-spinner",
            example=False,
        ),
    )
    block_winner: BlockWinner = field(
        default="more_points",
        metadata=flag(
            option="--block-winner",
            choices=("more_points", "fewer_pips"),
            help="who wins a blocked hand",
            doc="who wins a blocked hand: the higher match score or the lighter hand",
            rule="2.10",
            anchor="#210-block-award",
            example="fewer_pips",
        ),
    )

    def __post_init__(self) -> None:
        for name, allowed in _FLAG_VALUES.items():
            value = getattr(self, name)
            # 1 == True: compare types too, so only a real bool stands for the bool flag.
            if not any(type(value) is type(a) and value == a for a in allowed):
                choices = ", ".join(repr(a) for a in allowed)
                raise ValueError(f"fives rule {name}={value!r} is not one of {choices}")


#: Each flag's allowed values, from the rules dataclass's field metadata.
_FLAG_VALUES: dict[str, tuple[object, ...]] = {
    f.name: f.metadata[FLAG].choices for f in fields(FivesRules)
}


class ScoreEvent(NamedTuple):
    """One scoring event of a hand: ``seat`` scored ``points`` for ``reason``.

    ``reason`` is ``"count"`` (the count after a placement, the opening included: always a
    positive multiple of five), ``"domino"`` or ``"block"`` (the hand-end award).
    """

    seat: int
    points: int
    reason: str


# -- tables built once ---------------------------------------------------------------------------

#: Per end value 0..6, the tiles with that half; index 7 (= -1, a closed end) is empty, so
#: ``_PLAYABLE[value]`` works for closed ends too.
_PLAYABLE: tuple[int, ...] = (
    *(mask_of(t for t in ALL_TILES if v in t) for v in range(7)),
    0,
)


class _PlayInfo(NamedTuple):
    """What ``apply`` needs of a play, looked up once per move."""

    pos: int  # index in POSITIONS
    bit: int  # the tile's bit in a hand
    out: int  # the new value of the end
    contrib: int  # what the tile counts at that end (a double both halves)
    double: bool


def _build_tables() -> tuple[tuple[tuple[tuple[Move | None, ...], ...], ...], dict[int, _PlayInfo]]:
    """Per (position, end value, tile index) the one play there or ``None``; info per play."""
    moves: list[tuple[tuple[Move | None, ...], ...]] = []
    info: dict[int, _PlayInfo] = {}
    for pos, name in enumerate(POSITIONS):
        per_value = []
        for e in range(8):
            per_tile: list[Move | None] = []
            for i, (a, b) in enumerate(ALL_TILES):
                if e == 7 or e not in (a, b):
                    per_tile.append(None)
                    continue
                # x = e leaves y outward, y = e leaves x: one orientation per end, even for a
                # double (both halves are the same end value).
                out = b if a == e else a
                move = play((a, b), name, out)
                per_tile.append(move)
                double = a == b
                info[id(move)] = _PlayInfo(pos, 1 << i, out, 2 * out if double else out, double)
            per_value.append(tuple(per_tile))
        moves.append(tuple(per_value))
    return tuple(moves), info


_MOVES, _INFO_BY_ID = _build_tables()
_INFO_BY_MOVE: dict[Move, _PlayInfo] = {
    m: _INFO_BY_ID[id(m)] for table in _MOVES for row in table for m in row if m is not None
}
#: The opening "move" of each tile, as it shows in the history (Matador's lead notation).
_OPENING_MOVES: tuple[Move, ...] = tuple(play(t, None, t[1]) for t in ALL_TILES)
#: Tile indices, highest rank first (rules.md, Tile rank: doubles, then pips, then high half).
_BY_RANK: tuple[int, ...] = tuple(
    sorted(range(28), key=lambda i: rank_key(ALL_TILES[i]), reverse=True)
)
_PASS_ONLY: tuple[Move, ...] = (PASS,)
_DRAW_ONLY: tuple[Move, ...] = (DRAW,)

# Memo of the plays on one end, per position and end value: {tiles of the hand playable there:
# the moves, in tile order}. Keys are subsets of the seven tiles with that half, so each dict
# holds at most 128 entries.
_MEMO: tuple[tuple[dict[int, tuple[Move, ...]], ...], ...] = tuple(
    tuple({0: ()} for _ in range(8)) for _ in POSITIONS
)


def _end_moves(pos: int, value: int, tiles: int) -> tuple[Move, ...]:
    """The plays of ``tiles`` (a bit set, all playable there) on one end; memoised."""
    memo = _MEMO[pos][value]
    moves = memo.get(tiles)
    if moves is None:
        table = _MOVES[pos][value]
        moves = memo[tiles] = tuple(
            m for i, m in enumerate(table) if m is not None and tiles >> i & 1
        )
    return moves


#: Open ends (a 4-tuple of values, -1 for a closed end) -> ``(position, value)`` pairs.
_ENDS_VIEW: dict[tuple[int, ...], tuple[tuple[str, int], ...]] = {}


def _ends_view(ends: tuple[int, ...]) -> tuple[tuple[str, int], ...]:
    """The open ends of a 4-tuple of end values as ``(position, value)`` pairs (cached)."""
    view = _ENDS_VIEW.get(ends)
    if view is None:
        view = _ENDS_VIEW[ends] = tuple(
            (name, v) for name, v in zip(POSITIONS, ends, strict=True) if v >= 0
        )
    return view


class _PublicRecord(NamedTuple):
    """What every seat has seen of a hand after its first ``actions`` actions."""

    actions: int
    events: tuple[PublicEvent, ...]
    layout: tuple[tuple[int, int], ...]
    spinner: int  # index in layout, -1 before the spinner
    north: tuple[tuple[int, int], ...]
    south: tuple[tuple[int, int], ...]
    draws: tuple[int, ...]
    passes: tuple[int, ...]


class FivesState(HandState):
    """One hand of Fives in progress (immutable; build the first with :func:`start_hand`).

    The fields every engine has (rules, players always 2, hands, stock, to_move, leader,
    scores, retired), and what follows from them alone (the hands, the stock, the history, the
    deal), are :class:`arena.games.common.HandState`'s. Fives adds:

    Attributes:
        ends: the value of each end in :data:`POSITIONS` order, -1 while it is closed.
        contribs: what each end counts (docs/rules.md 2.5), the spinner itself apart.
        spin: the spinner's value, -1 before the first double.
        spin_at: which sides (1 west, 2 east) still end in the spinner itself; the spinner
            counts both halves while this is not 0 (at most one side covered).
        count: the count of the layout now.
        last_placer: the seat that placed the last tile (``leader`` is the seat that opened).
        scoring: this hand's :class:`ScoreEvent` tuple.

    ``scores`` are the running match scores, this hand's counts included.
    """

    __slots__ = hand_slots("contribs", "count", "ends", "last_placer", "scoring", "spin", "spin_at")

    game = "fives"

    rules: FivesRules
    _public: _PublicRecord | None
    ends: tuple[int, ...]
    contribs: tuple[int, ...]
    spin: int
    spin_at: int
    count: int
    last_placer: int
    scoring: tuple[ScoreEvent, ...]

    def __repr__(self) -> str:
        ends = " ".join(f"{p}={v}" for p, v in self.open_ends)
        return (
            f"<FivesState {ends} count={self.count} to_move={self.to_move} "
            f"scores={self.scores} stock={self.boneyard_size}>"
        )

    # -- derived facts -------------------------------------------------------------------------

    @property
    def open_ends(self) -> tuple[tuple[str, int], ...]:
        """The open ends as ``(position, value)``, west, east, north, south."""
        return _ends_view(self.ends)

    def layout(self) -> tuple[tuple[int, int], ...]:
        """The west-east line read from west to east, each tile as it lies."""
        return self._public_record().layout

    def arms(self) -> tuple[tuple[str, tuple[tuple[int, int], ...]], ...]:
        """The spinner's north and south arms, read outward (empty before the spinner)."""
        record = self._public_record()
        if record.spinner < 0:
            return ()
        return ((NORTH, record.north), (SOUTH, record.south))

    def placed_tiles(self) -> tuple[Tile, ...]:
        """Every tile on the table, canonical, line first then north then south."""
        record = self._public_record()
        return tuple(
            make_tile(*t) for part in (record.layout, record.north, record.south) for t in part
        )

    def _public_record(self) -> _PublicRecord:
        """The public record of the hand (events, layout, arms, draws, passes), memoised.

        Each state carries its parent's record forward, so bringing it up to date costs only
        the actions since (one, when the referee asks every state in turn), not the whole hand.
        """
        record = self._public
        count = self._count
        if record is not None and record.actions == count:
            return record
        if record is None:
            record = _PublicRecord(0, (), (), -1, (), (), (0, 0), (0, 0))
        newer = []
        node = self._history
        for _ in range(count - record.actions):
            assert node is not None
            newer.append(node[0])
            node = node[1]
        layout, spinner = record.layout, record.spinner
        north, south = record.north, record.south
        draws, passes = list(record.draws), list(record.passes)
        for seat, move, _drawn in reversed(newer):
            kind = move.kind
            if move.tile is not None:  # a play (a draw and a pass name no tile)
                a, b = move.tile
                out = move.out
                inner = a + b - out
                end = move.end
                if end is None:
                    layout = ((a, b),)
                    spinner = 0 if a == b else -1
                elif end == WEST:
                    layout = ((out, inner), *layout)
                    if spinner >= 0:
                        spinner += 1
                    elif a == b:
                        spinner = 0
                elif end == EAST:
                    layout = (*layout, (inner, out))
                    if spinner < 0 and a == b:
                        spinner = len(layout) - 1
                elif end == NORTH:
                    north = (*north, (inner, out))
                else:
                    south = (*south, (inner, out))
            elif kind == "draw":
                draws[seat] += 1
            else:
                passes[seat] += 1
        events = record.events + tuple(PublicEvent(s, m) for s, m, _drawn in reversed(newer))
        record = _PublicRecord(
            count, events, layout, spinner, north, south, tuple(draws), tuple(passes)
        )
        self._public = record
        return record

    # -- the four verbs ------------------------------------------------------------------------

    def legal_moves(self) -> tuple[Move, ...]:
        """The legal moves of the player to move; empty once the hand is over.

        Plays are listed west, east, north, south, each in tile order. A player with no play
        has ``DRAW`` while the stock lasts, then ``PASS`` (the hand is blocked instead when
        the other seat cannot play either, so a listed ``PASS`` means the other can).
        """
        legal = self._legal
        if legal is not None:
            return legal
        seat = self.to_move
        if seat is None:
            legal = ()
        elif self.retired >> seat & 1:
            legal = _PASS_ONLY
        else:
            hand = self.hands[seat]
            w, e, n, s = self.ends
            playable = _PLAYABLE
            on_w = hand & playable[w]
            on_e = hand & playable[e]
            on_n = hand & playable[n]
            on_s = hand & playable[s]
            if not (on_w | on_e | on_n | on_s):
                legal = _DRAW_ONLY if self.stock_pos < len(self.stock) else _PASS_ONLY
            else:
                memo = _MEMO
                legal = ()
                if on_w:
                    legal = memo[0][w].get(on_w) or _end_moves(0, w, on_w)
                if on_e:
                    legal += memo[1][e].get(on_e) or _end_moves(1, e, on_e)
                if on_n:
                    legal += memo[2][n].get(on_n) or _end_moves(2, n, on_n)
                if on_s:
                    legal += memo[3][s].get(on_s) or _end_moves(3, s, on_s)
        self._legal = legal
        return legal

    def apply(self, move: Move) -> FivesState:
        """The state after ``move``; raises :class:`IllegalMoveError` when it is not legal.

        A play is scored at once (docs/rules.md 2.6); a score reaching :data:`TARGET` ends the hand
        with ``HandEnd.TARGET`` before anything else (rules.md 2.11). Playing the last tile ends
        it with a domino, and a position where the stock is empty and neither seat can play
        ends it with a block (docs/rules.md 2.8), each with its award (docs/rules.md 2.9, 2.10).
        """
        legal = self._legal
        if legal is None:
            legal = self.legal_moves()
        # Moves from legal_moves() are shared singletons, so this usually stops at identity.
        if move not in legal:
            raise IllegalMoveError(move, legal, self.open_ends)
        seat = self.to_move
        assert seat is not None  # legal is empty when the hand is over
        new = object.__new__(FivesState)
        new.rules = self.rules
        new.players = 2
        new.stock = self.stock
        new.leader = self.leader
        new.retired = self.retired
        new._legal = None
        new._outcome = None
        new._count = self._count + 1
        new._public = self._public
        kind = move.kind
        if move.tile is not None:  # a play (a draw and a pass name no tile)
            pos, bit, out, contrib, double = _INFO_BY_ID.get(id(move)) or _INFO_BY_MOVE[move]
            new._history = ((seat, move, None), self._history)
            new.stock_pos = self.stock_pos
            new.last_placer = seat
            h0, h1 = self.hands
            if seat == 0:
                h0 &= ~bit
                hand = h0
            else:
                h1 &= ~bit
                hand = h1
            new.hands = (h0, h1)
            # rules.md 2.3-2.5: the end takes the tile's outward half; what it counts is that half,
            # or both halves for a double.
            w, e, n, s = self.ends
            cw, ce, cn, cs = self.contribs
            spin = self.spin
            spin_at = self.spin_at
            if pos < 2:
                if pos == 0:
                    w = out
                    cw = contrib
                else:
                    e = out
                    ce = contrib
                side = pos + 1  # west 1, east 2
                if spin_at & side:
                    # Covering a side of the spinner. With both covered it counts nothing, and
                    # (by default) its north and south ends open: the spinner's value, count 0.
                    spin_at ^= side
                    if not spin_at and self.rules.spinner_sides_first:
                        n = s = spin
                elif double and spin < 0:
                    # The first double is the spinner. The side it was played on is covered
                    # already; its outer side is this end, counted through the spinner (2d).
                    spin = out
                    spin_at = side
                    if pos == 0:
                        cw = 0
                    else:
                        ce = 0
                    if not self.rules.spinner_sides_first:
                        n = s = out
            elif pos == 2:
                n = out
                cn = contrib
            else:
                s = out
                cs = contrib
            new.ends = (w, e, n, s)
            new.contribs = (cw, ce, cn, cs)
            new.spin = spin
            new.spin_at = spin_at
            count = cw + ce + cn + cs + (2 * spin if spin_at else 0)
            new.count = count
            scores = self.scores
            if count % 5 == 0 and count:
                a, b = scores
                scores = (a + count, b) if seat == 0 else (a, b + count)
                new.scores = scores
                new.scoring = (*self.scoring, _count_event(seat, count))
                if scores[seat] >= TARGET:
                    new.to_move = None
                    new._outcome = _finish(new, HandEnd.TARGET, seat, 0)
                    return new
            else:
                new.scores = scores
                new.scoring = self.scoring
            if not hand:
                award = pips_of(h1 if seat == 0 else h0) // 5 * 5
                _score(new, seat, award, "domino")
                new.to_move = None
                new._outcome = _finish(new, HandEnd.DOMINO, seat, award)
                return new
            new.to_move = 1 - seat
            if new.stock_pos == len(new.stock):
                _check_block(new)
        elif kind == "draw":
            pos = self.stock_pos
            index = self.stock[pos]
            h0, h1 = self.hands
            new.hands = (h0 | 1 << index, h1) if seat == 0 else (h0, h1 | 1 << index)
            new.stock_pos = pos + 1
            new.to_move = seat  # the drawer acts again: play if the tile fits, else draw on
            new._history = ((seat, move, ALL_TILES[index]), self._history)
            new.ends = self.ends
            new.contribs = self.contribs
            new.spin = self.spin
            new.spin_at = self.spin_at
            new.count = self.count
            new.last_placer = self.last_placer
            new.scores = self.scores
            new.scoring = self.scoring
            if pos + 1 == len(self.stock):
                _check_block(new)
        else:
            new.hands = self.hands
            new.stock_pos = self.stock_pos
            new.to_move = 1 - seat
            new._history = ((seat, move, None), self._history)
            _carry_layout(new, self)
            _check_block(new)  # only a retired seat's pass can leave a block behind
        return new

    def outcome(self) -> HandOutcome | None:
        """``None`` while the hand goes on, else how it ended and the award (rules.md 2.8-2.11)."""
        return self._outcome

    def view(self, seat: int) -> SeatView:
        """What ``seat`` may know: its own tiles, counts, the cross, history and scoring."""
        record = self._public_record()
        retired = self.retired
        spinner = record.spinner
        return SeatView(
            seat,
            2,
            self.to_move,
            tiles_of(self.hands[seat]),
            (self.hands[0].bit_count(), self.hands[1].bit_count()),
            len(self.stock) - self.stock_pos,
            record.layout,
            _ends_view(self.ends),
            self.scores,
            record.events,
            self.legal_moves() if self.to_move == seat else (),
            tuple(s for s in range(2) if retired >> s & 1) if retired else (),
            record.draws,
            record.passes,
            ((NORTH, record.north), (SOUTH, record.south)) if spinner >= 0 else (),
            spinner if spinner >= 0 else None,
            self.count,
            self.scoring,
        )

    def retire(self, seat: int) -> FivesState:
        """The same position with ``seat`` retired: it passes from now on and cannot win.

        With two seats the match is forfeited at once (:meth:`arena.games.match.Match.retire`);
        the hand stays playable so the record can be finished: the other seat plays on, and
        when it is stuck with the stock empty the hand is a block that it wins.
        """
        new = self._clone()
        new.retired = self.retired | (1 << seat)
        new._legal = None
        if self._outcome is None and self.stock_pos == len(self.stock):
            _check_block(new)
        return new


# -- the steps of apply -------------------------------------------------------------------------


def _carry_layout(new: FivesState, old: FivesState) -> None:
    """Copy the fields a pass leaves as they were (the draw branch inlines the same)."""
    new.ends = old.ends
    new.contribs = old.contribs
    new.spin = old.spin
    new.spin_at = old.spin_at
    new.count = old.count
    new.last_placer = old.last_placer
    new.scores = old.scores
    new.scoring = old.scoring


#: The count events, built once: {(seat, points): ScoreEvent(seat, points, "count")}.
_COUNT_EVENTS: dict[tuple[int, int], ScoreEvent] = {
    (seat, points): ScoreEvent(seat, points, "count")
    for seat in range(PLAYERS)
    for points in range(5, 125, 5)
}


def _count_event(seat: int, points: int) -> ScoreEvent:
    """The event of ``seat`` scoring ``points`` by a count (shared, as events are immutable)."""
    event = _COUNT_EVENTS.get((seat, points))
    return ScoreEvent(seat, points, "count") if event is None else event


def _score(state: FivesState, seat: int, points: int, reason: str) -> None:
    """Add ``points`` to ``seat``'s running score and record the event (``state`` is new)."""
    a, b = state.scores
    state.scores = (a + points, b) if seat == 0 else (a, b + points)
    state.scoring = (*state.scoring, ScoreEvent(seat, points, reason))


def _check_block(state: FivesState) -> None:
    """End the hand with a block when the stock is empty and neither seat can play.

    A retired seat counts as unable to play. The caller has checked the stock is empty.
    """
    if state.stock_pos < len(state.stock):
        return
    w, e, n, s = state.ends
    reach = _PLAYABLE[w] | _PLAYABLE[e] | _PLAYABLE[n] | _PLAYABLE[s]
    retired = state.retired
    for seat in (0, 1):
        if state.hands[seat] & reach and not retired >> seat & 1:
            return
    winner = _block_winner(state)
    pips = (pips_of(state.hands[0]), pips_of(state.hands[1]))
    award = pips[1 - winner] - pips[winner]
    _score(state, winner, award, "block")
    state.to_move = None
    state._legal = None
    state._outcome = _finish(state, HandEnd.BLOCK, winner, award)


def _block_winner(state: FivesState) -> int:
    """docs/rules.md 2.10: more points (or fewer pips), then fewer tiles, then the last placer."""
    retired = state.retired
    if retired in (1, 2):
        return 1 if retired == 1 else 0  # the seat still in play wins

    def key(seat: int) -> tuple[int, int, bool]:
        hand = state.hands[seat]
        first = state.scores[seat] if state.rules.block_winner == "more_points" else -pips_of(hand)
        return (first, -hand.bit_count(), seat == state.last_placer)

    return 0 if key(0) > key(1) else 1


def _finish(state: FivesState, kind: HandEnd, winner: int, award: int) -> HandOutcome:
    """The outcome; ``state.scores`` already hold the award."""
    return HandOutcome(
        kind=kind,
        winners=(winner,),
        award=(award, 0) if winner == 0 else (0, award),
        scores=state.scores,
        pips=(pips_of(state.hands[0]), pips_of(state.hands[1])),
    )


# -- starting a hand ---------------------------------------------------------------------------


def parse_rules(raw: dict[str, Any]) -> FivesRules:
    """Rules from a JSON-like mapping of flags; unknown flags are an error naming them."""
    check_flag_names("fives", raw, _FLAG_VALUES)
    return FivesRules(**raw)


def rules_dict(rules: FivesRules) -> dict[str, Any]:
    """Every flag of ``rules`` as a JSON-ready mapping (defaults included)."""
    return asdict(rules)


def deal(rules: FivesRules, players: int, seed: int) -> Deal:
    """Shuffle the 28 tiles by ``seed``: seven to each seat, the other fourteen are the stock."""
    _check_players(players)
    return deal_hands(players, HAND_SIZE, seed)


def start_hand(
    rules: FivesRules,
    players: int,
    deal: Deal,
    scores: tuple[int, ...] | None = None,
    retired: frozenset[int] = frozenset(),
) -> FivesState:
    """The position after the automatic opening of docs/rules.md 2.2, the other seat to move.

    The holder of the highest double (else of the highest tile; dealt hands only, retired
    seats left out) lays it, low half west and high half east; its count is scored at once
    (docs/rules.md 2.5, 2.6). The opening is the first entry of the history. Should that score reach
    :data:`TARGET`, the hand is already over (``HandEnd.TARGET``).

    Args:
        rules: the variant flags.
        players: number of seats (must be 2).
        deal: the hands in seat order and the stock, top first.
        scores: match scores before this hand (zeros when omitted).
        retired: seats that failed earlier in the match; they neither lead nor win.

    Raises:
        ValueError: when the deal is not the 28 distinct tiles of the set, or a hand does not
            hold seven tiles, or every seat is retired.
    """
    _check_players(players)
    _hands, masks, stock = checked_deal(deal, players, HAND_SIZE, "fives deals")
    eligible = [masks[s] for s in range(players) if s not in retired]
    if not eligible:
        raise ValueError("every seat is retired")
    # Every double outranks every non-double, so "the highest double, else the highest tile"
    # is simply the highest-ranked tile dealt to a seat in play.
    dealt = eligible[0] | eligible[-1]
    index = next(i for i in _BY_RANK if dealt >> i & 1)
    leader = 0 if masks[0] >> index & 1 and 0 not in retired else 1
    low, high = ALL_TILES[index]
    masks[leader] &= ~(1 << index)
    state = FivesState._new_hand(rules, players, tuple(masks), stock, leader, scores, retired)
    state.last_placer = leader
    state.scoring = ()
    state._history = ((leader, _OPENING_MOVES[index], None), None)
    state._count = 1
    if low == high:
        # A double lead is the spinner, both sides open: it counts 2d (rules.md 2.5's lone tile).
        opened = not rules.spinner_sides_first
        state.ends = (low, low, low, low) if opened else (low, low, -1, -1)
        state.contribs = (0, 0, 0, 0)
        state.spin, state.spin_at = low, 3
        state.count = 2 * low
    else:
        state.ends = (low, high, -1, -1)
        state.contribs = (low, high, 0, 0)
        state.spin, state.spin_at = -1, 0
        state.count = low + high
    state.to_move = 1 - leader
    if state.count % 5 == 0 and state.count:  # a lone 0-0 counts 0: no score
        _score(state, leader, state.count, "count")
        if state.scores[leader] >= TARGET:
            state.to_move = None
            state._outcome = _finish(state, HandEnd.TARGET, leader, 0)
    return state


def _check_players(players: int) -> None:
    if players != PLAYERS:
        raise ValueError(f"fives is for 2 players, not {players}")


#: Fives as a :class:`arena.games.api.Game`; a match ends as soon as a score reaches
#: :data:`TARGET`, whatever its length (docs/rules.md 2.11).
FIVES: EngineGame[FivesRules, FivesState] = EngineGame(
    "fives",
    PLAYERS,
    PLAYERS,
    parse_rules=parse_rules,
    rules_dict=rules_dict,
    deal=deal,
    start_hand=start_hand,
    match_target=TARGET,
)
