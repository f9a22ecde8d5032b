"""The reference bots by name, their options, and how each chooses a move.

A reference bot is named ``ref:NAME`` wherever a bot is accepted, with options after a second
colon: ``ref:search:samples=64``, ``ref:strong:ms=50``. The names (:data:`NAMES`):

- ``random``: a uniformly random legal move (seeded);
- ``greedy``: the greedy score of :mod:`arena.reference.policy`, less a penalty for each open
  end the next seat can answer (estimated over a few sampled worlds);
- ``search``: determinized search: every legal move scored over sampled worlds by greedy
  playouts (:func:`arena.reference.evaluate.evaluate_moves`), the exact endgame once the rest
  of the hand is of perfect information;
- ``strong``: the same search with **racing** (moves clearly worse than the best so far, paired
  over the same worlds, are dropped and their share of the budget goes to the others) and each
  world **solved exactly** instead of played out once at most seven tiles can still move.

Options (:mod:`arena.reference.spec`): ``samples=N`` (a fixed number of worlds per move: the
moves do not depend on the machine's speed), ``ms=N`` (milliseconds per move; by default 85% of
a tenth of the request's time, at most of a tenth of the per-move limit), ``policy=greedy|random``
(the playouts), ``playouts=N`` (per move and world), ``win=N`` (what a won hand is worth
beside its points when moves are ranked; by default 5, and in a match of one hand 40, or 200
for ``strong``).
"""

from __future__ import annotations

import random
from dataclasses import replace

from arena.games.api import Move
from arena.reference.evaluate import Budget, MoveValue, evaluate_moves
from arena.reference.knowledge import SeatKnowledge
from arena.reference.policy import move_score
from arena.reference.sampler import sample_worlds
from arena.reference.spec import NAMES, PREFIX, RefSpec, SpecError, parse_spec

__all__ = ["NAMES", "PREFIX", "RefBot", "RefSpec", "SpecError", "budget_for", "parse_spec"]

#: The share of the request's time a bot spends by default.
TIME_SHARE = 0.1
#: The share of that time planned for the search: the rest covers the reply, the last world and
#: a busy machine's delays, so that the time the referee measures stays within the share.
PLANNED = 0.85
_ANSWER_PENALTY = 6.0
_GREEDY_WORLDS = 8


#: The default worth of a won hand beside its points: in a match of one hand, and in longer ones.
WIN_ONE_HAND = 40.0
WIN_LONGER = 5.0
#: ``ref:strong`` in a match of one hand: nearly only the win counts (measured: docs).
WIN_ONE_HAND_STRONG = 200.0


def budget_for(spec: RefSpec, time_left_ms: int, move_ms: int, one_hand: bool = False) -> Budget:
    """The evaluation budget of one move (``one_hand``: the match is one hand long)."""
    strong = spec.name == "strong"
    one_hand_win = WIN_ONE_HAND_STRONG if strong else WIN_ONE_HAND
    win = spec.win if spec.win is not None else one_hand_win if one_hand else WIN_LONGER
    base = Budget(
        win_weight=win,
        samples=spec.samples,
        ms=None,
        playouts=spec.playouts,
        policy=spec.policy,
        weighted=False,  # measured: weighting by the greedy model lost points (docs)
        solve_worlds=strong,
        racing=strong,
    )
    if spec.samples is not None and spec.ms is None:
        return base
    ms = spec.ms if spec.ms is not None else PLANNED * TIME_SHARE * min(time_left_ms, move_ms)
    return replace(base, ms=ms)


class RefBot:
    """One reference bot: chooses a move from a seat's knowledge, with its own seeded random."""

    def __init__(self, spec: RefSpec, seed: int, *, one_hand: bool = False) -> None:
        self.spec = spec
        self.rng = random.Random(seed)
        self.one_hand = one_hand

    def __repr__(self) -> str:
        return f"<RefBot {PREFIX}{self.spec.text}>"

    def choose(self, k: SeatKnowledge, time_left_ms: int, move_ms: int) -> tuple[Move, str]:
        """The move for the request ``k`` describes, and a short note for the replay."""
        legal = k.legal
        name = self.spec.name
        if name == "random":
            return legal[self.rng.randrange(len(legal))], ""
        if len(legal) == 1:
            return legal[0], "only move"
        if name == "greedy":
            return self._greedy(k), ""
        budget = budget_for(self.spec, time_left_ms, move_ms, self.one_hand)
        values = evaluate_moves(k, budget, self.rng)
        return values[0].move, _note(values)

    def _greedy(self, k: SeatKnowledge) -> Move:
        worlds = sample_worlds(k, _GREEDY_WORLDS, self.rng)
        if not worlds:
            return k.legal[0]
        best, best_score = k.legal[0], -1e18
        for move in k.legal:
            score = 0.0
            for world in worlds:
                score += move_score(k.plugin, world, move)
                after = world.apply(move)
                answers = after.outcome() is None and after.to_move != k.seat
                if answers and any(mv.tile is not None for mv in after.legal_moves()):
                    score -= _ANSWER_PENALTY
            if score > best_score:
                best, best_score = move, score
        return best


def _note(values: list[MoveValue]) -> str:
    best = values[0]
    kind = "exact" if best.exact else f"{best.samples} worlds"
    return f"{best.move}: {best.value:+.2f} ({kind})"
