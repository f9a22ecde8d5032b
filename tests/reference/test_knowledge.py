"""A seat's knowledge from its protocol messages equals the knowledge read from the state."""

from __future__ import annotations

import random

import pytest

from arena import wire
from arena.games.api import derive_seed
from arena.games.registry import get_game
from arena.reference.knowledge import KnowledgeTracker, knowledge_from_state
from protocol import messages as m
from tests.reference.drive import SETUPS, VARIANTS


def _hello(game: str, players: int, seat: int, flags: dict[str, object]) -> m.Hello:
    plugin = get_game(game)
    rules = plugin.rules_dict(plugin.parse_rules(dict(flags)))
    return m.Hello(
        protocol=1,
        game=game,  # type: ignore[arg-type]
        seat=seat,
        players=players,
        rules=wire.rules_to_wire(game, rules),
        match=m.MatchLength(hands=2),
        time=m.TimeControl(startup_ms=1000, move_ms=1000),
        seed=1,
    )


@pytest.mark.parametrize(("game", "players", "flags"), SETUPS + VARIANTS)
def test_tracker_knows_what_the_state_says_the_seat_knows(game, players, flags) -> None:  # type: ignore[no-untyped-def]
    """Over seeded hands, at every request, the tracker's knowledge (built from hello,
    hand_start and the requests alone) is the state's knowledge at that seat."""
    plugin = get_game(game)
    rules = plugin.parse_rules(dict(flags))
    rng = random.Random(4)
    trackers = [KnowledgeTracker() for _ in range(players)]
    for seat, tracker in enumerate(trackers):
        tracker.hello(_hello(game, players, seat, flags))
    requests = 0
    for hand in range(1, 5):
        deal = plugin.deal(rules, players, derive_seed(9, "deal", hand))
        state = plugin.start_hand(rules, players, deal)
        first = state.history()[0][0] if state.history() else state.to_move
        for seat, tracker in enumerate(trackers):
            tracker.hand_start(wire.hand_start(state.view(seat), hand, first))
        while state.outcome() is None:
            seat = state.to_move
            assert seat is not None
            request = wire.move_request(state.view(seat), requests, hand, 1000, 0)
            requests += 1
            got = trackers[seat].request(request)
            assert got == knowledge_from_state(plugin, state, seat)
            legal = state.legal_moves()
            state = state.apply(legal[rng.randrange(len(legal))])
    assert requests > 20
