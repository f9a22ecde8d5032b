"""An in-process driver for the reference tests: seeded hands over engine states, each seat's
choice made from that seat's own knowledge (what it saw), never from the full state."""

from __future__ import annotations

import random
from collections.abc import Iterator

from arena.games.api import GameState, derive_seed
from arena.games.registry import GAMES, get_game
from arena.reference.knowledge import SeatKnowledge, knowledge_from_state

#: Every game with every player count it allows, and a non-default variant of each flag set.
SETUPS: list[tuple[str, int, dict[str, object]]] = [
    (name, players, {})
    for name, plugin in GAMES.items()
    for players in range(plugin.min_players, plugin.max_players + 1)
]
VARIANTS: list[tuple[str, int, dict[str, object]]] = [
    ("matador", 2, {"draw_when_playable": "never", "draw_mode": "one_then_pass"}),
    ("matador", 3, {"reserve": 2, "lead": "highest_double", "hand_size": 7}),
    ("matador", 2, {"draw_when_playable": "always", "hand_size": "9-n"}),
    ("fives", 2, {"spinner_sides_first": False, "block_winner": "fewer_pips"}),
]


def positions(
    game: str, players: int, flags: dict[str, object], hands: int, seed: int = 0
) -> Iterator[tuple[GameState, SeatKnowledge]]:
    """Every position of ``hands`` seeded hands played by random moves, with the knowledge of
    the seat to move."""
    plugin = get_game(game)
    rules = plugin.parse_rules(dict(flags))
    rng = random.Random(seed)
    for hand in range(hands):
        deal = plugin.deal(rules, players, derive_seed(seed, "deal", hand))
        state = plugin.start_hand(rules, players, deal)
        while state.outcome() is None:
            seat = state.to_move
            assert seat is not None
            yield state, knowledge_from_state(plugin, state, seat)
            legal = state.legal_moves()
            state = state.apply(legal[rng.randrange(len(legal))])
