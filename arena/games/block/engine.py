"""Block (the plain blocking game), exactly as OpenSpiel's ``python_block_dominoes`` plays it.

Double-six set, two players, seven tiles each; the other fourteen are out of play (nobody
draws). Seat 0 leads any tile of its hand. A tile joins an open end whose value matches one of
its halves; the other half faces outward. A player with no legal tile is skipped and the other
moves again. The hand ends when a player goes out (a domino) or neither can play (a block); the
player with fewer pips in hand wins and scores the pips left in the loser's hand; equal pips
score nothing. OpenSpiel's source (``open_spiel/python/games/block_dominoes.py``) is the
reference, and ``tests/games/block/test_openspiel.py`` plays both engines side by side.

Design choices:

- **Moves name ends by position**, as in Matador: ``play(tile, "left"|"right", out)``, ``out``
  the half that faces outward afterwards; the lead is ``play(tile, None, high half)``. When both
  ends show the same value a tile that fits has two moves (one per end), where OpenSpiel lists
  one action ``(tile, matched value)``: the two give the same open ends, mirrored. A move's
  matched value is the value of its end before the play, ``low + high - out``.
- **A skipped player passes.** As in Matador and Fives, a seat that cannot play is to move with
  ``PASS`` as its only legal move, listed alone; the referee asks its bot like any other request
  (bots see the pass in the history and in ``passes``), and after the pass the other seat moves
  again. A listed ``PASS`` always means the other seat can play: when neither can, the hand is
  over at once, a block, with no passes (OpenSpiel's ``_apply_action`` decides the same after
  every play). So our move sequence is OpenSpiel's with a ``PASS`` inserted wherever OpenSpiel
  lets a player move twice in a row.
- **Scores.** ``outcome().award`` gives the winner the pips left in the loser's hand and the
  loser 0; equal pips give 0 each and both seats are ``winners`` (a drawn hand, even after a
  domino: going out against a lone 0-0 is a draw, as in OpenSpiel). OpenSpiel's ``returns()``
  are zero-sum, ``[award[0] - award[1], award[1] - award[0]]``: +pips for the winner, -pips for
  the loser. ``state.scores`` are the match scores when the hand started (the award is not yet
  in them, as in Matador); ``outcome().scores`` add the award. The match is played to a target
  or for a number of hands like Matador's (:mod:`arena.games.match`); Block has no target of
  its own.
- **Rules.** :class:`BlockRules` has no flags: the hand size is fixed at :data:`HAND_SIZE` and
  the game is for :data:`PLAYERS` players only.
- **Retirement** (:meth:`BlockState.retire`): the retired seat passes from then on and cannot
  win; with two seats the match is forfeited at once (:meth:`arena.games.match.Match.retire`),
  but the hand stays playable so its record can be finished.

The state is immutable: :meth:`BlockState.apply` builds a new one. Hands are bit sets over the
28 tile indices of :mod:`arena.games.tiles`, and legal moves come from tables built once at
import and memoised per (end, value, playable tiles), as in :mod:`arena.games.matador`.

Pure: no I/O, no clock; randomness only through ``tiles.shuffled_set(seed)`` in :func:`deal`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from arena.games.api import (
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
    checked_deal,
    deal_hands,
    hand_slots,
    line_record,
)
from arena.games.tiles import ALL_TILES, TILE_BIT, indices_of, pips_of, tiles_of

LEFT = "left"
RIGHT = "right"

#: Tiles dealt to each seat.
HAND_SIZE = 7
#: Block is for two players only.
PLAYERS = 2


@dataclass(frozen=True, slots=True)
class BlockRules:
    """Block's rule flags: none. Hand size (:data:`HAND_SIZE`) and players (:data:`PLAYERS`)
    are fixed; the class exists so that Block's rules are data like every game's."""


def _build_tables() -> tuple[tuple[int, ...], tuple[tuple[tuple[Move | None, ...], ...], ...]]:
    """Per end value: the mask of tiles that match it, and per (side, value, tile) the play."""
    playable = tuple(
        sum(1 << i for i, (a, b) in enumerate(ALL_TILES) if value in (a, b)) for value in range(7)
    )
    moves = tuple(
        tuple(
            tuple(
                play((a, b), side, a + b - value) if value in (a, b) else None for a, b in ALL_TILES
            )
            for value in range(7)
        )
        for side in (LEFT, RIGHT)
    )
    return playable, moves


_PLAYABLE, (_LEFT_MOVES, _RIGHT_MOVES) = _build_tables()
_LEAD_MOVES: tuple[Move, ...] = tuple(play(t, None, t[1]) for t in ALL_TILES)
_PASS_ONLY: tuple[Move, ...] = (PASS,)

# Memo of the plays on one end, per side and end value: {tiles of the hand matching it: the
# moves, in tile order}. Keys are subsets of the seven tiles holding one value, so each memo
# holds at most 2**7 entries.
_LEFT_MEMO: tuple[dict[int, tuple[Move, ...]], ...] = tuple({0: ()} for _ in range(7))
_RIGHT_MEMO: tuple[dict[int, tuple[Move, ...]], ...] = tuple({0: ()} for _ in range(7))


def _end_moves(
    memo: dict[int, tuple[Move, ...]], table: tuple[Move | None, ...], tiles: int
) -> tuple[Move, ...]:
    """The plays of ``tiles`` (a bit set of tiles matching the end) on one end; memoised."""
    moves = tuple(m for i in indices_of(tiles) if (m := table[i]) is not None)
    memo[tiles] = moves
    return moves


def _plays(left: int, right: int, on_left: int, on_right: int) -> tuple[Move, ...]:
    """The plays on ends ``left`` and ``right`` of the tiles ``on_left`` and ``on_right`` (bit
    sets of tiles matching each): left plays first, then right, each in tile order."""
    plays = _LEFT_MEMO[left].get(on_left)
    if plays is None:
        plays = _end_moves(_LEFT_MEMO[left], _LEFT_MOVES[left], on_left)
    if on_right:
        more = _RIGHT_MEMO[right].get(on_right)
        if more is None:
            more = _end_moves(_RIGHT_MEMO[right], _RIGHT_MOVES[right], on_right)
        plays += more
    return plays


class BlockState(HandState):
    """One hand of Block in progress (immutable; build the first with :func:`start_hand`).

    ``left`` and ``right`` are the open ends' values, both ``-1`` before the lead. ``stock``
    holds the fourteen tiles out of play (never drawn: ``stock_pos`` stays 0). The fields
    every engine has are :class:`arena.games.common.HandState`'s.
    """

    __slots__ = hand_slots("left", "right")

    game = "block"

    rules: BlockRules
    _public: LineRecord | None
    left: int
    right: int

    def __repr__(self) -> str:
        ends = "lead" if self.left < 0 else f"ends {self.left}|{self.right}"
        return f"<BlockState {ends} to_move={self.to_move}>"

    # -- derived facts -------------------------------------------------------------------------

    @property
    def ends(self) -> tuple[tuple[str, int], ...]:
        """The open ends as ``(position, value)``; empty before the lead."""
        if self.left < 0:
            return ()
        return ((LEFT, self.left), (RIGHT, self.right))

    def layout(self) -> tuple[tuple[int, int], ...]:
        """The chain read from the left end to the right end, each tile as it lies."""
        return self._public_record().layout

    def _public_record(self) -> LineRecord:
        """The public record of the hand (events, layout, draw and pass counts), memoised and
        carried forward from the parent state (`arena.games.common.line_record`)."""
        record = self._public
        if record is None or record.actions != self._count:
            record = line_record(record, self._count, self._history, self.players, LEFT)
            self._public = record
        return record

    # -- the four verbs ------------------------------------------------------------------------

    def legal_moves(self) -> tuple[Move, ...]:
        """The legal moves of the player to move; empty once the hand is over.

        The lead: one play per tile in hand. Then the plays on the left end, then those on the
        right, each in tile order; ``PASS`` alone when none (the other seat can play then).
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
            left = self.left
            if left < 0:
                legal = tuple(map(_LEAD_MOVES.__getitem__, indices_of(hand)))
            else:
                right = self.right
                on_left = hand & _PLAYABLE[left]
                on_right = hand & _PLAYABLE[right]
                legal = _plays(left, right, on_left, on_right) if on_left | on_right else _PASS_ONLY
        self._legal = legal
        return legal

    def apply(self, move: Move) -> BlockState:
        """The state after ``move``; raises :class:`IllegalMoveError` when it is not legal."""
        legal = self._legal
        if legal is None:
            legal = self.legal_moves()
        # Moves from legal_moves() are shared singletons, so this usually stops at identity.
        if move not in legal:
            raise IllegalMoveError(move, legal, self.ends)
        seat = self.to_move
        assert seat is not None  # legal is empty when the hand is over
        other = seat ^ 1
        # Built field by field (not copied, then patched): apply() is every playout's hot path.
        new = object.__new__(BlockState)
        new.rules = self.rules
        new.players = PLAYERS
        new.stock = self.stock
        new.stock_pos = 0
        new.leader = self.leader
        new.scores = self.scores
        new.retired = retired = self.retired
        new._legal = None
        new._outcome = None
        new._count = self._count + 1
        new._public = self._public
        new._history = ((seat, move, None), self._history)
        if move.tile is None:  # PASS: the other seat can play (else the hand would be over)
            new.hands = self.hands
            new.left = self.left
            new.right = self.right
            new.to_move = other
            return new
        tile = move.tile
        assert tile is not None
        h0, h1 = self.hands
        if seat:
            h1 &= ~TILE_BIT[tile]
            hand, other_hand = h1, h0
        else:
            h0 &= ~TILE_BIT[tile]
            hand, other_hand = h0, h1
        new.hands = (h0, h1)
        end = move.end
        if end is None:
            left, right = tile
        else:
            out = move.out
            assert out is not None  # every play names its outward half
            if end == LEFT:
                left, right = out, self.right
            else:
                left, right = self.left, out
        new.left = left
        new.right = right
        if not hand:
            new.to_move = None
            new._outcome = new._finish(HandEnd.DOMINO)
            return new
        on_left = _PLAYABLE[left]
        on_right = _PLAYABLE[right]
        if retired:
            if retired >> other & 1:
                other_hand = 0
            if retired >> seat & 1:
                hand = 0
        elif other_hand & (on_left | on_right):
            # The other seat plays: its legal moves are known here at little cost, and every
            # caller asks for them next.
            new.to_move = other
            new._legal = _plays(left, right, other_hand & on_left, other_hand & on_right)
            return new
        reach = on_left | on_right
        if other_hand & reach or hand & reach:
            new.to_move = other  # it plays, or passes so that this seat moves again
        else:
            new.to_move = None
            new._outcome = new._finish(HandEnd.BLOCK)
        return new

    def outcome(self) -> HandOutcome | None:
        """``None`` while the hand goes on, else the result and the award."""
        return self._outcome

    def view(self, seat: int) -> SeatView:
        """What ``seat`` may know: its own tiles, counts, the layout, the public history."""
        record = self._public_record()
        retired = self.retired
        left = self.left
        return SeatView(
            seat,
            PLAYERS,
            self.to_move,
            tiles_of(self.hands[seat]),
            (self.hands[0].bit_count(), self.hands[1].bit_count()),
            len(self.stock),
            record.layout,
            () if left < 0 else ((LEFT, left), (RIGHT, self.right)),
            self.scores,
            record.events,
            self.legal_moves() if self.to_move == seat else (),
            tuple(s for s in range(PLAYERS) if retired >> s & 1) if retired else (),
            record.draws,
            record.passes,
        )

    def retire(self, seat: int) -> BlockState:
        """The same position with ``seat`` retired: it passes from now on and cannot win.

        A leader retired before leading hands the lead to the other seat. When no seat still
        in play can play, the hand ends at once, a block.
        """
        new = self._clone()
        new.retired = retired = self.retired | (1 << seat)
        new._legal = None
        if self._outcome is not None:
            return new
        other = seat ^ 1
        lead = self.left < 0
        if lead and new.to_move == seat and not retired >> other & 1:
            new.to_move = new.leader = other
        reach = -1 if lead else _PLAYABLE[self.left] | _PLAYABLE[self.right]
        if not any(self.hands[s] & reach and not retired >> s & 1 for s in range(PLAYERS)):
            new.to_move = None
            new._outcome = new._finish(HandEnd.BLOCK)
        return new

    # -- hand end ------------------------------------------------------------------------------

    def _finish(self, kind: HandEnd) -> HandOutcome:
        """The outcome: the seat in play with fewer pips wins the other hand's pips."""
        p0 = pips_of(self.hands[0])
        p1 = pips_of(self.hands[1])
        retired = self.retired
        winners: tuple[int, ...]
        if retired == 3 or (p0 == p1 and not retired):  # nobody scores
            winners, award = _DRAWN, (0, 0)
        elif retired == 1 or (p1 < p0 and retired != 2):  # seat 0 retired, or 1 has fewer
            winners, award = _SEAT_1_WINS, (0, p0)
        else:
            winners, award = _SEAT_0_WINS, (p1, 0)
        s0, s1 = self.scores
        return HandOutcome(kind, winners, award, (s0 + award[0], s1 + award[1]), (p0, p1))


_SEAT_0_WINS = (0,)
_SEAT_1_WINS = (1,)
_DRAWN = (0, 1)


# -- starting a hand ---------------------------------------------------------------------------


def parse_rules(raw: dict[str, Any]) -> BlockRules:
    """Rules from a JSON-like mapping of flags: Block has none, so any flag is an error."""
    if raw:
        names = ", ".join(sorted(raw))
        raise ValueError(f"unknown block rule(s) {names}; block has no rule flags")
    return BlockRules()


def rules_dict(rules: BlockRules) -> dict[str, Any]:
    """Every flag of ``rules`` as a JSON-ready mapping: none."""
    return {}


def deal(rules: BlockRules, players: int, seed: int) -> Deal:
    """Shuffle the 28 tiles by ``seed`` and deal seven to each seat; the rest is out of play."""
    _check_players(players)
    return deal_hands(PLAYERS, HAND_SIZE, seed)


def start_hand(
    rules: BlockRules,
    players: int,
    deal: Deal,
    scores: tuple[int, ...] | None = None,
    retired: frozenset[int] = frozenset(),
) -> BlockState:
    """The opening position of a hand: seat 0 is to lead (seat 1 when seat 0 is retired).

    Args:
        rules: the (empty) rules.
        players: number of seats, 2.
        deal: the hands in seat order and the fourteen tiles out of play.
        scores: match scores before this hand (zeros when omitted).
        retired: seats that failed earlier in the match; they pass and cannot win.

    Raises:
        ValueError: when the players are not 2, the deal is not the 28 distinct tiles of the
            set, a hand does not hold seven tiles, or both seats are retired.
    """
    _check_players(players)
    _hands, masks, stock = checked_deal(deal, PLAYERS, HAND_SIZE, "block hands hold")
    eligible = [s for s in range(PLAYERS) if s not in retired]
    if not eligible:
        raise ValueError("every seat is retired")
    leader = eligible[0]
    state = BlockState._new_hand(rules, PLAYERS, tuple(masks), stock, leader, scores, retired)
    state.left = state.right = -1
    state.to_move = leader
    return state


def _check_players(players: int) -> None:
    if players != PLAYERS:
        raise ValueError(f"block is for {PLAYERS} players, not {players}")


#: Block as a :class:`arena.games.api.Game`.
BLOCK: EngineGame[BlockRules, BlockState] = EngineGame(
    "block",
    PLAYERS,
    PLAYERS,
    parse_rules=parse_rules,
    rules_dict=rules_dict,
    deal=deal,
    start_hand=start_hand,
)
