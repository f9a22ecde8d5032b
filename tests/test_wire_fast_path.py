"""The referee's fast request path (`RequestBuilder.request_line`, a line put together from cached
JSON pieces) gives exactly the bytes of the plain msgspec encoding of the same view, in every
game, over thousands of seeded positions each: a cache that went stale would change a byte."""

from __future__ import annotations

import random
from collections.abc import Iterator

import pytest

from arena.games.api import GameState
from arena.games.registry import GAMES, get_game
from arena.wire import RequestBuilder, move_request
from protocol.codec import encode

#: Each game's rule sets played here (Matador's variants change draws and passes).
RULES: dict[str, tuple[dict[str, object], ...]] = {
    "matador": (
        {},
        {"hand_size": "9-n", "draw_when_playable": "always"},
        {"hand_size": 7, "draw_mode": "one_then_pass", "reserve": 2},
    ),
    "fives": ({}, {"spinner_sides_first": False}),
    "block": ({},),
}
#: Positions checked per game, at least.
POSITIONS = 3000


def hands(game: str) -> Iterator[tuple[list[GameState], int]]:
    """Random hands of ``game`` with the scores of a match under way, every seat count the game
    allows: each hand's states from its start, and its seed."""
    plugin = get_game(game)
    seed = 0
    while True:
        for raw in RULES[game]:
            rules = plugin.parse_rules(raw)
            for players in range(plugin.min_players, plugin.max_players + 1):
                seed += 1
                rng = random.Random(seed)
                scores = tuple(rng.randrange(0, 60) for _ in range(players))
                state = plugin.start_hand(rules, players, plugin.deal(rules, players, seed), scores)
                states = [state]
                while state.outcome() is None:
                    state = state.apply(rng.choice(state.legal_moves()))
                    states.append(state)
                yield states, seed


@pytest.mark.parametrize("game", sorted(GAMES))
def test_request_line_is_the_plain_encoding_of_the_same_view(game: str) -> None:
    """At every turn of thousands of seeded positions, with one builder per hand (as the
    referee), ``request_line`` equals ``encode(move_request(view, ...))`` of a fresh message;
    a seat retired mid-hand (three or more seats) and clock values of every size included."""
    assert set(RULES) == set(GAMES)
    checked = 0
    builder = RequestBuilder()
    for states, seed in hands(game):
        rng = random.Random(-seed)
        builder.new_hand()
        players = states[0].players
        retire_at = rng.randrange(len(states)) if players > 2 and seed % 2 else None
        for index, played in enumerate(states):
            state = played
            if retire_at is not None and index >= retire_at:
                state = played.retire((retire_at + 1) % players)
            seat = state.to_move
            if seat is None:
                continue
            view = state.view(seat)
            request_id = rng.randrange(1, 10**9)
            number = rng.randrange(1, 500)
            left = rng.choice((0, 1, 999, 10_000, rng.randrange(-5, 10**7)))
            bank = rng.choice((0, 5, rng.randrange(-5, 10**6)))
            line = builder.request_line(view, request_id, number, left, bank)
            assert line == encode(move_request(view, request_id, number, left, bank)), (
                game,
                seed,
                index,
            )
            checked += 1
        if checked >= POSITIONS:
            break
    assert checked >= POSITIONS


@pytest.mark.parametrize("game", sorted(GAMES))
def test_request_line_after_skipped_turns_is_the_plain_encoding(game: str) -> None:
    """A builder asked only at some turns (the seats it skips pass automatically in the
    referee, or play through another builder) catches up by several events at once, and its
    lines still equal the plain encoding: the history's JSON grows by one event or by many."""
    checked = 0
    builder = RequestBuilder()
    for states, seed in hands(game):
        rng = random.Random(seed * 7)
        builder.new_hand()
        skip = 1 + seed % 4
        for index, state in enumerate(states):
            seat = state.to_move
            if seat is None or (index % skip and rng.random() < 0.8):
                continue
            view = state.view(seat)
            line = builder.request_line(view, index + 1, 3, 1000, 0)
            assert line == encode(move_request(view, index + 1, 3, 1000, 0)), (game, seed, index)
            checked += 1
        if checked >= POSITIONS // 3:
            break
