"""A match: a series of hands of one game, scored to a target or for a fixed number of hands.

Pure like the engines: the deal of hand ``k`` comes from ``derive_seed(seed, "deal", k)``, so a
match is a deterministic function of (game, rules, players, seed, length, moves, retirements).

A game may have a target of its own (:func:`match_target`: Fives' 100, docs/rules.md 2.11) that ends
the match whatever its length says: during a hand (the engine ends the hand with
``HandEnd.TARGET``) or through a hand's award (a domino or a block), also in a match played for
a fixed number of hands.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, field, replace
from functools import cached_property
from typing import Any

from arena.games.api import Game, GameState, HandEnd, HandOutcome, Move, derive_seed

#: A match to a target also stops after this many hands (a run of drawn blocks scores nothing).
MAX_HANDS = 500


def match_target(game: Game) -> int | None:
    """The score that ends a match of ``game`` as soon as any seat reaches it, whatever the
    match length (the game's ``match_target``, from its plugin: 100 in Fives), or ``None``."""
    return game.match_target


def hand_leader(hand: GameState) -> int | None:
    """The seat that leads ``hand``: the seat of the first entry of its public history (the
    lead; in Fives the automatic opening, which is there from the start), else, before the lead,
    the seat to move. ``None`` for a hand over before anybody led (not possible in the games
    the arena knows)."""
    history = hand.view(0).history
    return history[0].seat if history else hand.to_move


@dataclass(frozen=True, slots=True)
class MatchLength:
    """Play to ``target`` points (checked after each hand), or exactly ``hands`` hands.

    Either way a hand that ends with ``HandEnd.TARGET`` (a game whose rules end the match
    during a hand, as Fives does at 100) ends the match at once, with reason ``"target"``, and
    so does a hand whose award takes a score to the game's own :func:`match_target`.
    """

    target: int | None = 100
    hands: int | None = None

    def __post_init__(self) -> None:
        if (self.target is None) == (self.hands is None):
            raise ValueError("a match is played either to a target score or for a number of hands")
        for name in ("target", "hands"):
            value = getattr(self, name)
            if value is not None and value < 1:
                raise ValueError(f"the match {name} must be at least 1, not {value}")


class EndReason(enum.StrEnum):
    """Why a match ended (a ``str`` enum: the wire's and the replay's ``reason`` is the value)."""

    TARGET = "target"  #: a score reached the match target, or the game's own (Fives' 100)
    HANDS = "hands"  #: the fixed number of hands was played (or the hand cap was reached)
    FORFEIT = "forfeit"  #: fewer than two seats were left in play


@dataclass(frozen=True, slots=True)
class MatchResult:
    """The end of a match.

    Attributes:
        scores: final scores per seat.
        winner: the winning seat, or ``None`` for a draw.
        reason: why it ended (`EndReason`).
        ranking: seats best first; retired seats last, the later-retired above the earlier.
    """

    scores: tuple[int, ...]
    winner: int | None
    reason: EndReason
    ranking: tuple[int, ...]


@dataclass(frozen=True)
class Match:
    """A match in progress. ``hand`` is the current hand; ``result`` is set once it is over."""

    game: Game
    rules: Any
    players: int
    seed: int
    length: MatchLength
    hand_number: int
    hand: GameState
    scores: tuple[int, ...]
    retired: tuple[int, ...] = ()
    outcomes: tuple[HandOutcome, ...] = ()
    result: MatchResult | None = field(default=None)

    @cached_property
    def over(self) -> bool:
        """True once the match has a result.

        Kept in the instance once asked (the referee asks twice per move): a copy made by
        :meth:`apply` or :meth:`_changed` carries it only with an unchanged ``result``.
        """
        return self.result is not None

    def active_seats(self) -> tuple[int, ...]:
        """Seats still in play, in seat order."""
        return tuple(s for s in range(self.players) if s not in self.retired)

    def apply(self, move: Move) -> Match:
        """Play ``move`` in the current hand (raises the engine's ``IllegalMoveError``)."""
        return self.with_hand(self.hand.apply(move))

    def with_hand(self, hand: GameState) -> Match:
        """The match with ``hand``, a later position of its current hand (``hand`` after some
        moves): the referee plays a hand's moves on the hand's state and makes the match of
        the new position only when it needs one (an awaited turn, the hand's end)."""
        # dataclasses.replace re-runs __init__ and costs more than the engine's own apply; this
        # is the same copy, done directly.
        fields = self.__dict__.copy()
        fields["hand"] = hand
        new = _new_match(Match)
        _set_dict(new, fields)
        return new

    def _changed(self, **changes: Any) -> Match:
        """``dataclasses.replace(self, **changes)`` for fields other than ``result``, without
        running ``__init__`` again (its checks are the types', which the caller keeps)."""
        fields = self.__dict__.copy()
        fields.update(changes)
        new = _new_match(Match)
        _set_dict(new, fields)
        return new

    def retire(self, *seats: int) -> Match:
        """Retire ``seats`` (their bots failed): they pass from now on and rank last.

        With fewer than two seats left in play the match ends at once by forfeit. A seat that
        fails after the last hand (before the match's end was announced) still loses: the
        result is ranked again with it last.
        """
        new = [s for s in seats if s not in self.retired]
        if not new:
            return self
        hand = self.hand
        for seat in new:
            hand = hand.retire(seat)
        match = replace(self, retired=(*self.retired, *new), hand=hand)
        if len(match.active_seats()) < 2:
            return replace(match, result=match._result(EndReason.FORFEIT))
        if self.result is not None:
            return replace(match, result=match._result(self.result.reason))
        return match

    def next_hand(self) -> Match:
        """After a finished hand: the match with its award counted and the next hand dealt, or
        the match over."""
        outcome = self.hand.outcome()
        if outcome is None:
            raise ValueError("the current hand is not over")
        scores = outcome.scores
        outcomes = (*self.outcomes, outcome)
        done = self._changed(scores=scores, outcomes=outcomes)
        own = match_target(self.game)
        if outcome.kind is HandEnd.TARGET or (own is not None and max(scores) >= own):
            # A score reached the game's own target (Fives, rules.md 2.11): during play (the engine
            # ended the hand) or through the hand's award. The match ends there, whatever its
            # length says.
            return replace(done, result=done._result(EndReason.TARGET))
        if self.length.hands is not None:
            if self.hand_number >= self.length.hands:
                return replace(done, result=done._result(EndReason.HANDS))
        elif max(scores) >= (self.length.target or 0) or self.hand_number >= MAX_HANDS:
            reason = (
                EndReason.TARGET if max(scores) >= (self.length.target or 0) else EndReason.HANDS
            )
            return replace(done, result=done._result(reason))
        number = self.hand_number + 1
        hand = _deal_hand(
            self.game, self.rules, self.players, self.seed, number, scores, self.retired
        )
        return self._changed(scores=scores, outcomes=outcomes, hand_number=number, hand=hand)

    def _result(self, reason: EndReason) -> MatchResult:
        active = self.active_seats()
        ranked = sorted(active, key=lambda s: -self.scores[s])
        ranking = (*ranked, *reversed(self.retired))
        if len(active) <= 1:
            winner: int | None = active[0] if active else None
        else:
            best = self.scores[ranked[0]]
            leaders = [s for s in active if self.scores[s] == best]
            winner = leaders[0] if len(leaders) == 1 else None
        return MatchResult(self.scores, winner, reason, ranking)


_new_match = object.__new__
#: The setter of a match's ``__dict__`` (the frozen class's own ``__setattr__`` refuses it).
_set_dict = Match.__dict__["__dict__"].__set__


def hand_seed(seed: int, hand_number: int) -> int:
    """The seed of the deal of hand ``hand_number`` (1-based) of a match played with ``seed``."""
    return derive_seed(seed, "deal", hand_number)


def bot_seed(seed: int, seat: int) -> int:
    """The seed handed to the bot in ``seat`` for its own randomness."""
    return derive_seed(seed, "bot", seat)


def _deal_hand(
    game: Game,
    rules: Any,
    players: int,
    seed: int,
    number: int,
    scores: tuple[int, ...],
    retired: tuple[int, ...],
) -> GameState:
    deal = game.deal(rules, players, hand_seed(seed, number))
    return game.start_hand(rules, players, deal, scores, frozenset(retired))


def start_match(game: Game, rules: Any, players: int, seed: int, length: MatchLength) -> Match:
    """A new match with hand 1 dealt from ``seed``."""
    scores = (0,) * players
    hand = _deal_hand(game, rules, players, seed, 1, scores, ())
    return Match(game, rules, players, seed, length, 1, hand, scores)
