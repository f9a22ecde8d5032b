"""The games the arena knows, by name: each game package's :data:`PLUGIN`, registered once.

Adding a game is one line here (docs/adding-a-game.md). :data:`DEFAULT_GAME` is the one game
name generic code may use: the default of ``--game`` and of a replay or tournament that names
no game.
"""

from __future__ import annotations

from typing import Final

from arena.games.block import PLUGIN as BLOCK
from arena.games.fives import PLUGIN as FIVES
from arena.games.matador import PLUGIN as MATADOR
from arena.games.plugin import GamePlugin

#: Every registered game by name, in the order help texts list them.
GAMES: dict[str, GamePlugin] = {plugin.name: plugin for plugin in (MATADOR, FIVES, BLOCK)}

#: The game played when none is named.
DEFAULT_GAME: Final = "matador"


def get_game(name: str) -> GamePlugin:
    """The game called ``name``; raises ``ValueError`` naming the known games otherwise."""
    try:
        return GAMES[name]
    except KeyError:
        known = ", ".join(sorted(GAMES))
        raise ValueError(f"unknown game {name!r}; known games: {known}") from None
