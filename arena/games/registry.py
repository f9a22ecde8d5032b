"""The games the arena knows, by name."""

from __future__ import annotations

from arena.games.api import Game
from arena.games.fives import FIVES
from arena.games.matador import MATADOR

GAMES: dict[str, Game] = {MATADOR.name: MATADOR, FIVES.name: FIVES}


def get_game(name: str) -> Game:
    """The game called ``name``; raises ``ValueError`` naming the known games otherwise."""
    try:
        return GAMES[name]
    except KeyError:
        known = ", ".join(sorted(GAMES))
        raise ValueError(f"unknown game {name!r}; known games: {known}") from None
