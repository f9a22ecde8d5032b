"""The sampler's worlds are consistent with everything the seat knows."""

from __future__ import annotations

import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from arena.games.registry import get_game
from arena.games.tiles import ALL_TILES
from arena.reference.knowledge import knowledge_from_state
from arena.reference.sampler import _learn_void, sample_worlds
from tests.reference.drive import SETUPS, VARIANTS, positions


def _check_world(world, k) -> None:  # type: ignore[no-untyped-def]
    view = world.view(k.seat)
    assert view.hand == k.hand
    assert view.hand_counts == k.hand_counts
    assert view.boneyard_size == k.boneyard_size
    assert view.history == k.events
    assert view.to_move == k.to_move
    assert view.legal == k.legal
    tiles = [t for s in range(k.players) for t in world.view(s).hand]
    tiles += list(world.boneyard_tiles())
    tiles += [e.move.tile for e in k.events if e.move.tile is not None]
    assert sorted(tiles) == sorted(ALL_TILES)  # the 28 tiles, once each


def _check_voids(world, k) -> None:  # type: ignore[no-untyped-def]
    """Replaying the world, every other seat's draw or pass was made holding no tile that
    would have made it illegal."""
    plugin = k.plugin
    state = plugin.start_hand(k.rules, k.players, world.deal(), k.start_scores, k.retired)
    for seat, move in k.events[len(state.view(k.seat).history) :]:
        if seat != k.seat and move.tile is None:
            void = _learn_void(state, seat, move)
            assert not set(state.view(seat).hand) & void
        state = state.apply(move)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    setup=st.sampled_from(SETUPS + VARIANTS),
    seed=st.integers(0, 2**32),
    stop=st.integers(0, 80),
)
def test_sampled_worlds_respect_everything_the_seat_knows(setup, seed, stop) -> None:  # type: ignore[no-untyped-def]
    """Hand, counts, boneyard size, history, voids and tile conservation hold in every world."""
    game, players, flags = setup
    found = None
    for i, (state, k) in enumerate(positions(game, players, flags, 1, seed)):
        found = (state, k)
        if i >= stop:
            break
    assert found is not None
    _state, k = found
    worlds = sample_worlds(k, 4, random.Random(seed), max_tries=5000)
    assert worlds, "a consistent world exists: the real one"
    for world in worlds:
        _check_world(world, k)
        _check_voids(world, k)


@pytest.mark.parametrize(("game", "players", "flags"), SETUPS + VARIANTS)
def test_a_world_is_found_in_every_position(game, players, flags) -> None:  # type: ignore[no-untyped-def]
    """Across whole seeded hands, the sampler finds a world at every position."""
    rng = random.Random(7)
    for _state, k in positions(game, players, flags, 6, seed=11):
        worlds = sample_worlds(k, 1, rng, max_tries=5000)
        assert worlds
        _check_world(worlds[0], k)


def test_sampling_is_deterministic_given_the_rng() -> None:
    """The same knowledge and seed give the same worlds."""
    plugin = get_game("matador")
    for state, k in positions("matador", 3, {}, 1, seed=5):
        again = knowledge_from_state(plugin, state, k.seat)  # a fresh cache of voids
        a = [w.deal() for w in sample_worlds(k, 3, random.Random(9))]
        b = [w.deal() for w in sample_worlds(again, 3, random.Random(9))]
        assert a == b
