"""Move policies over engine states, for any game: random, greedy, and a softmax model of play.

The greedy score of a move is generic, read from the engine and the plugin's data, never from a
rule written here:

- a play beats a draw or a pass (both only when nothing better is legal, or when the rules let
  a seat draw beside a play: drawing fills the hand);
- points the move scores at once (the state's scores after it, in a game that scores during
  a hand), first;
- then shed weight: the tile's pips, a bonus for a double (it fits one value only);
- a special tile (the plugin's ``drawing.special_tiles``, tiles that go anywhere)
  is kept while another play exists.

:func:`greedy_move` is ``ref:greedy``'s choice and the playouts' policy; :func:`model_loglik` is
the opponent model the strong bot weights its samples with.
"""

from __future__ import annotations

import math
import random

from arena.games.api import GameState, Move
from arena.games.plugin import GamePlugin

#: Weight of one point scored at once, against one pip shed.
_POINTS = 3.0
_DOUBLE = 4.0
_SPECIAL = 12.0
_NOT_A_PLAY = 1000.0
#: Inverse temperature of the opponent model's softmax over greedy scores.
_BETA = 0.35


def move_score(plugin: GamePlugin, state: GameState, move: Move) -> float:
    """The greedy score of ``move`` for the seat to move in ``state`` (higher is better)."""
    tile = move.tile
    if tile is None:
        return -_NOT_A_PLAY
    score = float(tile[0] + tile[1])
    if tile[0] == tile[1]:
        score += _DOUBLE
    if tile in plugin.drawing.special_tiles:
        score -= _SPECIAL
    if plugin.features.hand_scoring:
        seat = state.to_move
        assert seat is not None
        after = state.apply(move)
        score += _POINTS * (after.scores[seat] - state.scores[seat])
    return score


def greedy_move(plugin: GamePlugin, state: GameState, legal: tuple[Move, ...]) -> Move:
    """The legal move with the best greedy score (the first listed among equals)."""
    if len(legal) == 1:
        return legal[0]
    best = legal[0]
    best_score = -math.inf
    for move in legal:
        score = move_score(plugin, state, move)
        if score > best_score:
            best, best_score = move, score
    return best


def random_move(legal: tuple[Move, ...], rng: random.Random) -> Move:
    """A uniformly random legal move."""
    return legal[rng.randrange(len(legal))] if len(legal) > 1 else legal[0]


def model_loglik(plugin: GamePlugin, state: GameState, move: Move) -> float:
    """The log-probability of ``move`` in ``state`` under a softmax of the greedy scores: the
    opponent model (a seat that plays much like a greedy player, now and then otherwise)."""
    legal = state.legal_moves()
    if len(legal) <= 1:
        return 0.0
    scores = [_BETA * move_score(plugin, state, mv) for mv in legal]
    top = max(scores)
    total = sum(math.exp(s - top) for s in scores)
    mine = _BETA * move_score(plugin, state, move)
    return mine - top - math.log(total)
