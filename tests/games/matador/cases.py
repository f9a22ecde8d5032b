"""What the Matador rule tests share: two deals, the ends' names and small helpers."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from arena.games.api import IllegalMoveError, Move
from arena.games.matador import MatadorState
from arena.games.tiles import Tile

L = "left"
R = "right"
PERFT = Path(__file__).parents[2] / "data" / "perft.json"

#: 2 players: seat 0 holds 6-6 and leads; no matador in either hand.
HANDS_A = (
    [(6, 6), (0, 1), (2, 3), (1, 4), (0, 5)],
    [(5, 5), (0, 2), (2, 4), (3, 5), (1, 3)],
)
#: 2 players: seat 0 leads 6-6; seat 1 then has nothing on a 6 and must draw.
HANDS_V = (
    [(6, 6), (0, 1), (0, 2), (1, 1), (2, 2)],
    [(5, 5), (0, 3), (0, 4), (2, 3), (3, 3)],
)


def raises_exactly(message: str) -> Any:
    """pytest.raises(ValueError) matching the whole of ``message``, literally."""
    return pytest.raises(ValueError, match=f"^{re.escape(message)}$")


def illegal(state: MatadorState, move: Move) -> IllegalMoveError:
    with pytest.raises(IllegalMoveError) as info:
        state.apply(move)
    return info.value


def snapshot(state: MatadorState) -> dict[str, Any]:
    # legal_moves() fills a memo slot; fill it first so only real changes show.
    state.legal_moves()
    return {name: getattr(state, name) for name in MatadorState.__slots__}


def all_tiles_once(state: MatadorState) -> list[Tile]:
    held = [t for s in range(state.players) for t in state.hand_tiles(s)]
    return sorted(held + list(state.boneyard_tiles()) + [tuple(sorted(t)) for t in state.layout()])
