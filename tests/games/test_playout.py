"""Random playouts (arena.games.api.random_playout): Block's fast path plays exactly the hand
that the four verbs play with the same random choices, in every engine."""

from __future__ import annotations

import random
from typing import Any

import pytest

from arena.games import block, fives, matador
from arena.games.api import HandEnd, Playout, random_playout, verb_playout

ENGINES: tuple[tuple[Any, Any, int], ...] = (
    (block, block.BlockRules(), 2),
    (matador, matador.MatadorRules(), 2),
    (matador, matador.MatadorRules(), 4),
    (fives, fives.FivesRules(), 2),
)
IDS = ("block", "matador-2p", "matador-4p", "fives")


def _start(engine: Any, rules: Any, players: int, seed: int) -> Any:
    return engine.start_hand(rules, players, engine.deal(rules, players, seed))


def _same(state: Any, seed: int) -> Playout:
    """The fast playout and the verb loop from ``state`` with equal generators: the same result,
    and the generators left in the same state (the same calls of ``choice``)."""
    fast_rng, verb_rng = random.Random(seed), random.Random(seed)
    fast = random_playout(state, fast_rng)
    assert fast == verb_playout(state, verb_rng)
    assert fast_rng.getstate() == verb_rng.getstate()
    return fast


@pytest.mark.parametrize(("engine", "rules", "players"), ENGINES, ids=IDS)
def test_a_playout_from_the_deal_is_the_verbs_hand(engine: Any, rules: Any, players: int) -> None:
    """From the opening position of 400 deals: the same outcome, plays and passes."""
    for seed in range(400):
        _same(_start(engine, rules, players, seed), seed)


def test_a_block_playout_from_any_position_is_the_verbs_hand() -> None:
    """From every position of 200 random Block hands (after passes, at the end too)."""
    passes = 0
    for seed in range(200):
        rng = random.Random(seed)
        state = _start(block, block.BlockRules(), 2, seed)
        while True:
            passes += _same(state, seed + 1).passes
            if state.outcome() is not None:
                break
            state = state.apply(rng.choice(state.legal_moves()))
    assert passes > 0  # the positions include passes to come


def test_a_block_playout_counts_the_plays_and_passes_of_its_hand() -> None:
    """Plays and passes are those of the hand's history; the outcome is its outcome."""
    state = _start(block, block.BlockRules(), 2, 11)
    result = random_playout(state, random.Random(5))
    rng = random.Random(5)
    while state.outcome() is None:
        state = state.apply(rng.choice(state.legal_moves()))
    kinds = [move.kind for _seat, move, _drawn in state.history()]
    assert result == Playout(state.outcome(), kinds.count("play"), kinds.count("pass"))


def test_a_block_playout_with_a_retired_seat_is_the_verbs_hand() -> None:
    """A retired seat passes from then on: the playout plays on as the verbs do."""
    for seed in range(100):
        state = _start(block, block.BlockRules(), 2, seed)
        state = state.apply(state.legal_moves()[0]).retire(seed % 2)
        _same(state, seed)


def test_a_playout_of_a_finished_hand_is_its_outcome() -> None:
    """No move is left: the outcome as it is, nothing played, no random number drawn."""
    state = _start(block, block.BlockRules(), 2, 3)
    state = state.apply(state.legal_moves()[0]).retire(0).retire(1)
    rng = random.Random(1)
    before = rng.getstate()
    result = random_playout(state, rng)
    assert result == Playout(state.outcome(), 0, 0)
    assert result.outcome.kind is HandEnd.BLOCK
    assert rng.getstate() == before


def test_a_playout_does_not_change_its_state() -> None:
    """States are immutable: the starting position is the same after a playout."""
    state = _start(block, block.BlockRules(), 2, 8)
    before = {name: getattr(state, name) for name in block.BlockState.__slots__}
    random_playout(state, random.Random(2))
    assert {name: getattr(state, name) for name in block.BlockState.__slots__} == before


class _Chooser:
    """A generator of another kind: only ``choice``, as the Chooser protocol asks."""

    def __init__(self, seed: int) -> None:
        self.rng = random.Random(seed)
        self.calls = 0

    def choice(self, seq: Any) -> Any:
        self.calls += 1
        return self.rng.choice(seq)


class _Reversed(random.Random):
    """A random.Random whose ``choice`` is its own: the playout must call it."""

    def choice(self, seq: Any) -> Any:
        return seq[-1 - self._randbelow(len(seq))]


def test_a_block_playout_calls_the_choice_of_a_generator_of_another_kind() -> None:
    """The draws are inlined only for random.Random itself: any other chooser, a subclass with
    its own ``choice`` or an instance whose ``choice`` was replaced gets its ``choice`` called,
    once a move, and plays the verbs' hand."""
    for seed in range(50):
        state = _start(block, block.BlockRules(), 2, seed)
        chooser = _Chooser(seed)
        result = random_playout(state, chooser)
        assert result == verb_playout(state, _Chooser(seed))
        assert chooser.calls == result.plays + result.passes
        reversed_rng = _Reversed(seed)
        assert random_playout(state, reversed_rng) == verb_playout(state, _Reversed(seed))
        patched = random.Random(seed)
        patched.choice = lambda seq: seq[0]  # type: ignore[method-assign]
        first_moves = verb_playout(state, _First())
        assert random_playout(state, patched) == first_moves


class _First:
    def choice(self, seq: Any) -> Any:
        return seq[0]
