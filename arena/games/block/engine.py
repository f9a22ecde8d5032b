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
28 tile indices of :mod:`arena.games.tiles`, and legal moves come from complete tables built
once at import (see "tables" below); :meth:`BlockState.playout` plays a random hand to its end
on those tables without building states (:func:`arena.games.api.random_playout`).

Pure: no I/O, no clock; randomness only through ``tiles.shuffled_indices(seed)`` (the order of
``tiles.shuffled_set``) in :func:`deal`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from operator import itemgetter
from typing import Any, NamedTuple

from arena.games.api import (
    PASS,
    Chooser,
    Deal,
    HandEnd,
    HandOutcome,
    IllegalMoveError,
    Move,
    Playout,
    SeatView,
    made_deal,
    play,
    verb_playout,
)
from arena.games.common import (
    EngineGame,
    HandState,
    LineRecord,
    checked_deal,
    hand_slots,
    line_record,
)
from arena.games.tiles import (
    ALL_TILES,
    FULL_SET,
    TILE_BIT,
    indices_of,
    is_plain_random,
    pips_of,
    shuffled_indices,
    tiles_of,
)

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


# -- tables ------------------------------------------------------------------------------------
#
# The representation: tile ``i`` is bit ``1 << i`` (0..27, ``tiles.ALL_TILES`` order) and a hand is
# an ``int`` of those bits. ``_FITS[v]`` holds the seven tiles with a half ``v``, so the tiles of
# a hand that fit an end showing ``v`` are ``hand & _FITS[v]``, a subset of those seven. For every
# side, value and such subset the plays are precomputed (:data:`_LEFT_PLAYS`, :data:`_RIGHT_PLAYS`:
# 2 x 7 x 128 tuples of shared ``Move`` objects, tile order), so a position's legal moves are two
# dict look-ups and a tuple join. :data:`_CODE` maps each play to what ``apply`` needs (its bit,
# which end it needs and the value there, and the ends after it), and the ``*_CODES`` tables hold
# the same plays as those codes, in the same order, for :meth:`BlockState.playout`. Built once at
# import, from the rules' constants alone, and never changed: no state between calls.

#: Which end a play goes to, in its code: the lead, the left end or the right end.
_LEAD, _ON_LEFT, _ON_RIGHT = 0, 1, 2


class _Code(NamedTuple):
    """What :meth:`BlockState.apply` needs of a play, looked up by the move."""

    bit: int  #: the tile's bit
    side: int  #: :data:`_LEAD`, :data:`_ON_LEFT` or :data:`_ON_RIGHT`
    need: int  #: the value the end must show (-1, "no end yet", for the lead)
    left: int  #: the left end after the play (-1: unchanged)
    right: int  #: the right end after the play (-1: unchanged)


_FITS: tuple[int, ...] = tuple(
    sum(1 << i for i, (a, b) in enumerate(ALL_TILES) if value in (a, b)) for value in range(7)
)


def _subsets(mask: int) -> list[int]:
    """Every subset of the bits of ``mask``, 0 included."""
    subsets = [0]
    for i in indices_of(mask):
        subsets += [s | 1 << i for s in subsets]
    return subsets


#: A playout's code of a play: ``(bit, 0 for the left end or 1 for the right, the table of
#: that end's codes once the tile is played, the tiles fitting that end then)``; the table is
#: the :data:`_LEFT_CODES` / :data:`_RIGHT_CODES` entry of the end's new value.
_PlayCode = tuple[int, int, dict[int, tuple[Any, ...]], int]


def _side_tables(
    side: str,
) -> tuple[tuple[dict[int, tuple[Move, ...]], ...], tuple[dict[int, tuple[_PlayCode, ...]], ...]]:
    """Per end value: {tiles of a hand fitting it: the plays there} as moves and as playout
    codes (:data:`_PlayCode`)."""
    on_right = int(side == RIGHT)
    moves = []
    # The code tables refer to each other (a play's code names its end's next table): made
    # empty first, then filled.
    codes: tuple[dict[int, tuple[_PlayCode, ...]], ...] = tuple({} for _value in range(7))
    for value in range(7):
        # One shared Move per tile here; each subset's tuple lists some of them.
        single = {i: play(t, side, t[0] + t[1] - value) for i, t in enumerate(ALL_TILES)}
        move_of = {}
        code_of = codes[value]
        for subset in _subsets(_FITS[value]):
            tiles = [(i, ALL_TILES[i]) for i in indices_of(subset)]
            move_of[subset] = tuple(single[i] for i, _t in tiles)
            code_of[subset] = tuple(
                (1 << i, on_right, codes[t[0] + t[1] - value], _FITS[t[0] + t[1] - value])
                for i, t in tiles
            )
        moves.append(move_of)
    return tuple(moves), codes


_LEFT_PLAYS, _LEFT_CODES = _side_tables(LEFT)
_RIGHT_PLAYS, _RIGHT_CODES = _side_tables(RIGHT)
_LEAD_MOVES: tuple[Move, ...] = tuple(play(t, None, t[1]) for t in ALL_TILES)
#: Per 7-bit slice of a hand (bits 0-6, 7-13, 14-20, 21-27): its leads as playout codes
#: ``(bit, left codes, left fits, right codes, right fits)`` of the ends the lead opens.
_LEAD_CODES: tuple[tuple[tuple[tuple[Any, ...], ...], ...], ...] = tuple(
    tuple(
        tuple(
            (1 << i, _LEFT_CODES[a], _FITS[a], _RIGHT_CODES[b], _FITS[b])
            for i in indices_of(chunk << shift)
            for a, b in (ALL_TILES[i],)
        )
        for chunk in range(128)
    )
    for shift in (0, 7, 14, 21)
)
_CODE: dict[Move, _Code] = {
    **{m: _Code(TILE_BIT[m.tile], _LEAD, -1, *m.tile) for m in _LEAD_MOVES if m.tile},
    **{
        m: _Code(TILE_BIT[m.tile], _ON_LEFT, m.tile[0] + m.tile[1] - m.out, m.out, -1)
        for table in _LEFT_PLAYS
        for plays in table.values()
        for m in plays
        if m.tile and m.out is not None
    },
    **{
        m: _Code(TILE_BIT[m.tile], _ON_RIGHT, m.tile[0] + m.tile[1] - m.out, -1, m.out)
        for table in _RIGHT_PLAYS
        for plays in table.values()
        for m in plays
        if m.tile and m.out is not None
    },
}
_PASS_ONLY: tuple[Move, ...] = (PASS,)
#: ``n.bit_length()`` for the lengths of the playout's choices (a hand's plays at both ends).
_BIT_LENGTH = tuple(n.bit_length() for n in range(2 * HAND_SIZE + 1))


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
                legal = (
                    _LEFT_PLAYS[left][hand & _FITS[left]] + _RIGHT_PLAYS[right][hand & _FITS[right]]
                ) or _PASS_ONLY
        self._legal = legal
        return legal

    def apply(self, move: Move) -> BlockState:
        """The state after ``move``; raises :class:`IllegalMoveError` when it is not legal."""
        try:
            code = _CODE.get(move)  # the plays of Block; None for PASS and for non-moves
        except TypeError:  # a field that cannot be hashed: not one of our moves
            code = None
        seat = self.to_move
        if code is None or seat is None or self.retired:
            # PASS, a move that is no play, the hand over, or a seat retired: the general check.
            legal = self.legal_moves()
            if move not in legal:
                raise IllegalMoveError(move, legal, self.ends)
            if code is None:
                return self._passed()
        assert seat is not None
        bit, side, need, new_left, new_right = code
        hands = self.hands
        hand = hands[seat]
        # The tile is in hand and its end shows the value it needs (-1 before the lead).
        if not hand & bit or need != (self.right if side == _ON_RIGHT else self.left):
            legal = self.legal_moves()
            raise IllegalMoveError(move, legal, self.ends)
        hand ^= bit
        other = seat ^ 1
        other_hand = hands[other]
        left = self.left if new_left < 0 else new_left
        right = self.right if new_right < 0 else new_right
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
        new.hands = (other_hand, hand) if seat else (hand, other_hand)
        new.left = left
        new.right = right
        if not hand:
            new.to_move = None
            new._outcome = _hand_outcome(HandEnd.DOMINO, new.hands, retired, self.scores)
            return new
        reach = _FITS[left] | _FITS[right]
        if retired:
            if retired >> other & 1:
                other_hand = 0
            if retired >> seat & 1:
                hand = 0
        if other_hand & reach or hand & reach:
            new.to_move = other  # it plays, or passes so that this seat moves again
        else:
            new.to_move = None
            new._outcome = _hand_outcome(HandEnd.BLOCK, new.hands, retired, self.scores)
        return new

    def _passed(self) -> BlockState:
        """The state after the seat to move passes (legal: checked by :meth:`apply`)."""
        seat = self.to_move
        assert seat is not None
        new = self._clone()
        new._legal = None
        new._count = self._count + 1
        new._history = ((seat, PASS, None), self._history)
        new.to_move = seat ^ 1  # the other seat can play (else the hand would be over)
        return new

    def playout(self, rng: Chooser) -> Playout:
        """Play the hand to its end with uniformly random legal moves: the fast path of
        :func:`arena.games.api.random_playout`, with no states built.

        Exactly the hand that ``state = state.apply(rng.choice(state.legal_moves()))`` until
        ``outcome()`` plays, with the same calls of ``rng.choice`` on sequences of the same
        length and order (``PASS`` choices included), so the outcome is the same.
        """
        done = self._outcome
        if done is not None:
            return Playout(done, 0, 0)
        if self.retired or not is_plain_random(rng):
            # Rare (a bot failed; a generator of another kind): the verbs, one move at a time.
            return verb_playout(self, rng)
        # ``rng.choice(seq)`` of random.Random, inlined (the same getrandbits calls, so the
        # generator ends in the same state): k = len(seq).bit_length() bits, drawn again while
        # the number is not below len(seq); the element at that index.
        getrandbits = rng.getrandbits
        bit_length = _BIT_LENGTH
        first = self.to_move
        assert first is not None
        # Only what the next turn needs is kept, as locals: the two hands, and per end the table
        # of its plays and the tiles that fit it (a play's code carries its end's next pair).
        # How many plays were made follows at the end from the tile counts.
        hand = self.hands[first]
        other = self.hands[first ^ 1]
        tiles = hand.bit_count() + other.bit_count()
        passes = 0
        kind = HandEnd.DOMINO
        if self.left < 0:  # the lead: any tile of the hand
            c0, c1, c2, c3 = _LEAD_CODES
            codes = c0[hand & 127] + c1[hand >> 7 & 127] + c2[hand >> 14 & 127] + c3[hand >> 21]
            n = len(codes)
            k = bit_length[n]
            r = getrandbits(k)
            while r >= n:
                r = getrandbits(k)
            bit, left_codes, left_fits, right_codes, right_fits = codes[r]
            hand ^= bit
            if not hand:  # the lead was the hand's last tile
                if first:
                    return _played_out(kind, other, hand, self.scores, 1, 0)
                return _played_out(kind, hand, other, self.scores, 1, 0)
            hand, other = other, hand
            mover = first ^ 1
        else:
            mover = first
            left_codes = _LEFT_CODES[self.left]
            left_fits = _FITS[self.left]
            right_codes = _RIGHT_CODES[self.right]
            right_fits = _FITS[self.right]
        # Two turns per pass of the loop: seat ``mover``'s, holding ``hand``, then the other's,
        # holding ``other`` (each hand stays in its variable: no swap, no seat to track).
        while True:
            codes = left_codes[hand & left_fits] + right_codes[hand & right_fits]
            if codes:
                n = len(codes)
                k = bit_length[n]
                r = getrandbits(k)
                while r >= n:
                    r = getrandbits(k)
                bit, on_right, end_codes, end_fits = codes[r]
                hand ^= bit
                if on_right:
                    right_codes = end_codes
                    right_fits = end_fits
                else:
                    left_codes = end_codes
                    left_fits = end_fits
                if not hand:
                    break  # a domino
            elif other & (left_fits | right_fits):
                # rng.choice((PASS,)), as the verbs make it, so that the stream stays in step.
                while getrandbits(1):
                    pass
                passes += 1
            else:
                kind = HandEnd.BLOCK  # neither can play
                break
            codes = left_codes[other & left_fits] + right_codes[other & right_fits]
            if codes:
                n = len(codes)
                k = bit_length[n]
                r = getrandbits(k)
                while r >= n:
                    r = getrandbits(k)
                bit, on_right, end_codes, end_fits = codes[r]
                other ^= bit
                if on_right:
                    right_codes = end_codes
                    right_fits = end_fits
                else:
                    left_codes = end_codes
                    left_fits = end_fits
                if not other:
                    break  # a domino
            elif hand & (left_fits | right_fits):
                while getrandbits(1):
                    pass
                passes += 1
            else:
                kind = HandEnd.BLOCK
                break
        plays = tiles - hand.bit_count() - other.bit_count()
        if mover:  # ``hand`` is seat 1's
            hand, other = other, hand
        return _played_out(kind, hand, other, self.scores, plays, passes)

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
        reach = -1 if lead else _FITS[self.left] | _FITS[self.right]
        if not any(self.hands[s] & reach and not retired >> s & 1 for s in range(PLAYERS)):
            new.to_move = None
            new._outcome = _hand_outcome(HandEnd.BLOCK, new.hands, retired, new.scores)
        return new


_SEAT_0_WINS = (0,)
_SEAT_1_WINS = (1,)
_DRAWN = (0, 1)
_NOTHING = (0, 0)


def _hand_outcome(
    kind: HandEnd, hands: Sequence[int], retired: int, scores: tuple[int, ...]
) -> HandOutcome:
    """The outcome: the seat in play with fewer pips wins the other hand's pips."""
    p0 = pips_of(hands[0])
    p1 = pips_of(hands[1])
    winners: tuple[int, ...]
    if retired == 3 or (p0 == p1 and not retired):  # nobody scores
        winners, award = _DRAWN, _NOTHING
    elif retired == 1 or (p1 < p0 and retired != 2):  # seat 0 retired, or 1 has fewer
        winners, award = _SEAT_1_WINS, (0, p0)
    else:
        winners, award = _SEAT_0_WINS, (p1, 0)
    s0, s1 = scores
    return HandOutcome(kind, winners, award, (s0 + award[0], s1 + award[1]), (p0, p1))


def _played_out(
    kind: HandEnd, h0: int, h1: int, scores: tuple[int, ...], plays: int, passes: int
) -> Playout:
    """:meth:`BlockState.playout`'s result, the hands being ``h0`` and ``h1`` and nobody
    retired: :func:`_hand_outcome`'s outcome, in one call."""
    q0, q1, q2, q3 = _PIP_CHUNKS  # tiles.pips_of, inlined
    p0 = q0[h0 & 127] + q1[h0 >> 7 & 127] + q2[h0 >> 14 & 127] + q3[h0 >> 21]
    p1 = q0[h1 & 127] + q1[h1 >> 7 & 127] + q2[h1 >> 14 & 127] + q3[h1 >> 21]
    s0, s1 = scores
    if p1 < p0:
        outcome = HandOutcome(kind, _SEAT_1_WINS, (0, p0), (s0, s1 + p0), (p0, p1))
    elif p0 < p1:
        outcome = HandOutcome(kind, _SEAT_0_WINS, (p1, 0), (s0 + p1, s1), (p0, p1))
    else:
        outcome = HandOutcome(kind, _DRAWN, _NOTHING, scores, (p0, p1))
    return _new_playout(Playout, (outcome, plays, passes))


#: The pips of each 7-bit slice of a hand (tiles.pips_of's table).
_PIP_CHUNKS = tuple(
    tuple(pips_of(chunk << shift) for chunk in range(128)) for shift in (0, 7, 14, 21)
)
#: ``Playout(*fields)`` in one C call (a named tuple is a tuple; its ``__new__`` adds a frame).
_new_playout = tuple.__new__


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
    """Shuffle the 28 tiles by ``seed`` and deal seven to each seat; the rest is out of play.

    :func:`arena.games.common.deal_hands`'s deal for two hands of seven, written out: it carries
    the hands' bit sets and the stock's indices for :func:`start_hand`.
    """
    if players != PLAYERS:
        _check_players(players)
    order = shuffled_indices(seed)
    b = _BITS  # the bit sets of the two hands, a tile at a time (cheaper than sum of a slice)
    first = b[order[0]] | b[order[1]] | b[order[2]] | b[order[3]] | b[order[4]] | b[order[5]]
    first |= b[order[6]]
    second = b[order[7]] | b[order[8]] | b[order[9]] | b[order[10]] | b[order[11]] | b[order[12]]
    second |= b[order[13]]
    rest = order[14:]
    # tiles.tiles_of, inlined: a hand's tiles in canonical order, 7 bits at a time.
    c0, c1, c2, c3 = _CHUNKS
    return made_deal(
        (
            c0[first & 127] + c1[first >> 7 & 127] + c2[first >> 14 & 127] + c3[first >> 21],
            c0[second & 127] + c1[second >> 7 & 127] + c2[second >> 14 & 127] + c3[second >> 21],
        ),
        itemgetter(*rest)(ALL_TILES),
        (first, second),
        tuple(rest),
    )


#: The bit of each tile index.
_BITS = tuple(1 << i for i in range(28))
#: The tiles of each 7-bit slice of a hand (tiles.tiles_of's table).
_CHUNKS = tuple(tuple(tiles_of(chunk << shift) for chunk in range(128)) for shift in (0, 7, 14, 21))


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
    if players != PLAYERS:
        _check_players(players)
    # api.carried(deal), inlined: a deal made by an engine's deal() carries its bit sets.
    dealt = getattr(deal, "_dealt", None)
    if dealt is None or len(dealt[0]) != PLAYERS or dealt[0][0].bit_count() != HAND_SIZE:
        dealt = _dealt(deal)
    elif dealt[0][1].bit_count() != HAND_SIZE:
        dealt = None
    if dealt is None:  # not seven, seven and fourteen set tiles each once: the checks, in order
        _hands, masks, stock = checked_deal(deal, PLAYERS, HAND_SIZE, "block hands hold")
        dealt = (masks[0], masks[1]), stock
    hands, stock = dealt
    assert len(hands) == PLAYERS
    if not retired or 0 not in retired:
        leader = 0
    elif 1 not in retired:
        leader = 1
    else:
        raise ValueError("every seat is retired")
    if scores is not None or retired:
        state = BlockState._new_hand(rules, PLAYERS, hands, stock, leader, scores, retired)
    else:  # the hand of every playout from a deal: the fields written once, directly
        state = object.__new__(BlockState)
        state.rules = rules
        state.players = PLAYERS
        state.hands = hands
        state.stock = stock
        state.stock_pos = 0
        state.leader = 0
        state.scores = _NO_SCORES
        state.retired = 0
        state._history = None
        state._count = 0
        state._public = None
        state._legal = None
        state._outcome = None
    state.left = state.right = -1
    state.to_move = leader
    return state


_NO_SCORES = (0, 0)
#: The index of each tile's bit.
_INDEX_OF_BIT = {1 << i: i for i in range(28)}


def _dealt(deal: Deal) -> tuple[tuple[int, int], tuple[int, ...]] | None:
    """The hands of ``deal`` as bit sets and its tiles out of play as indices, when it is two
    hands of seven and fourteen tiles out of play, together the 28 tiles of the set each once;
    otherwise ``None`` (:func:`arena.games.common.checked_deal` then says what is wrong)."""
    hands = deal.hands
    rest = deal.boneyard
    if len(hands) != PLAYERS:
        return None
    first, second = hands
    if len(first) != HAND_SIZE or len(second) != HAND_SIZE or len(rest) != 14:
        return None
    try:  # each tile's bit, looked up in C; a tile that is not a set tile's tuple is no key
        bits: tuple[int, ...] = itemgetter(*first, *second, *rest)(TILE_BIT)
    except (KeyError, TypeError):
        return None
    # 28 powers of two add up to the full set only when no two are the same.
    if sum(bits) != FULL_SET:
        return None
    stock: tuple[int, ...] = itemgetter(*bits[14:])(_INDEX_OF_BIT)
    return (sum(bits[:7]), sum(bits[7:14])), stock


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
