"""Move-tree counting (perft) over any engine: the check against an independent implementation.

``perft(state, d)`` counts the distinct move sequences of length ``d``; a finished hand has no
legal moves, so it adds nothing at depth 1 or more. ``lines_to_end`` walks every complete line of
play to the end of the hand. PERFT.md in the shared rules folder explains the reference counts.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from arena.games.api import DRAW, PASS, GameState, Move, play
from arena.games.tiles import make_tile


def move_from_json(raw: Any) -> Move:
    """Read a move in the perft notation: ``"draw"``, ``"pass"`` or a play object."""
    if raw == "draw":
        return DRAW
    if raw == "pass":
        return PASS
    low, high = raw["play"]
    return play(make_tile(low, high), raw["end"], raw["out"])


def move_to_json(move: Move) -> Any:
    """Write a move in the perft notation."""
    if move.kind != "play" or move.tile is None:
        return move.kind
    return {"play": list(move.tile), "end": move.end, "out": move.out}


def perft(state: GameState, depth: int) -> int:
    """The number of distinct move sequences of length ``depth`` from ``state``."""
    if depth == 0:
        return 1
    moves = state.legal_moves()
    if depth == 1:
        return len(moves)
    return sum(perft(state.apply(m), depth - 1) for m in moves)


@dataclass
class LinesToEnd:
    """Every complete line of play from a position, tallied."""

    lines: int = 0
    by_kind: Counter[str] = field(default_factory=Counter)
    score_change: list[int] = field(default_factory=list)


def lines_to_end(state: GameState) -> LinesToEnd:
    """Walk every line to the end of the hand: count them by how the hand ended, and sum each
    seat's match-score change over all lines."""
    tally = LinesToEnd(score_change=[0] * state.players)
    start = state.scores

    def walk(s: GameState) -> None:
        result = s.outcome()
        if result is not None:
            tally.lines += 1
            tally.by_kind[result.kind.value] += 1
            for seat in range(s.players):
                tally.score_change[seat] += result.scores[seat] - start[seat]
            return
        for m in s.legal_moves():
            walk(s.apply(m))

    walk(state)
    return tally
