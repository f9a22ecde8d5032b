"""The scripted positions of ``arena check``: each game's own, from its plugin.

A game lists its positions in its plugin (``check_first``, ``check_rules``; written with the
vocabulary of :mod:`arena.games.scenario`, re-exported here). Pure: no I/O, no clock, no
randomness (the dealt hands of ``arena check``'s second hand come from the engine's seeded
``deal``).
"""

from __future__ import annotations

from arena.games.api import Game
from arena.games.registry import get_game
from arena.games.scenario import (
    BOT_SEAT,
    OTHER_SEAT,
    PLAYERS,
    Expectation,
    Note,
    Scenario,
    deal_of,
    default_rules,
    lead,
    put,
    start,
    tiles,
)

__all__ = [
    "BOT_SEAT",
    "OTHER_SEAT",
    "PLAYERS",
    "Expectation",
    "Note",
    "Scenario",
    "check_scenario",
    "deal_of",
    "default_rules",
    "lead",
    "put",
    "scenarios_of",
    "start",
    "tiles",
]


def scenarios_of(game_name: str) -> tuple[Scenario, tuple[Scenario, ...]]:
    """The first-hand scenario and the rule scenarios of a game (``ValueError`` if unknown)."""
    plugin = get_game(game_name)
    return plugin.check_first, plugin.check_rules


def check_scenario(game: Game, scenario: Scenario) -> str | None:
    """What is wrong with ``scenario``'s position (``None`` when it is as described)."""
    state = start(game, default_rules(game), scenario)
    return None if scenario.expect is None else scenario.expect(state)
