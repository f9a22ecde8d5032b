"""Every reference bot plays only legal moves, in every game and player count, and in the
fixed-budget mode the same seed gives the same moves."""

from __future__ import annotations

import pytest

from arena.games.api import derive_seed
from arena.games.registry import get_game
from arena.reference.bots import RefBot, budget_for
from arena.reference.knowledge import knowledge_from_state
from arena.reference.spec import SpecError, parse_spec, ref_argv, ref_name
from tests.reference.drive import SETUPS, VARIANTS

#: Small fixed budgets, so that thousands of positions take seconds.
SPECS = ("random", "greedy", "search:samples=2", "strong:samples=2")


def _play(game: str, players: int, flags: dict[str, object], specs: list[str], seed: int):  # type: ignore[no-untyped-def]
    """One hand, each seat played by its reference bot from its own knowledge; the moves."""
    plugin = get_game(game)
    rules = plugin.parse_rules(dict(flags))
    bots = [RefBot(parse_spec(s), derive_seed(seed, "bot", i)) for i, s in enumerate(specs)]
    state = plugin.start_hand(rules, players, plugin.deal(rules, players, seed))
    moves = []
    while state.outcome() is None:
        seat = state.to_move
        assert seat is not None
        k = knowledge_from_state(plugin, state, seat)
        move, _note = bots[seat].choose(k, 1000, 1000)
        assert move in state.legal_moves()
        moves.append(move)
        state = state.apply(move)
    return moves


@pytest.mark.parametrize(("game", "players", "flags"), SETUPS + VARIANTS)
def test_every_reference_bot_plays_legal_moves(game, players, flags) -> None:  # type: ignore[no-untyped-def]
    """Seeded hands with every bot in every seat: every move is in the legal list."""
    count = 0
    for hand in range(6):
        specs = [SPECS[(hand + s) % len(SPECS)] for s in range(players)]
        count += len(_play(game, players, flags, specs, seed=100 + hand))
    assert count > 30


@pytest.mark.parametrize("spec", ["search:samples=3", "strong:samples=3"])
def test_a_fixed_budget_bot_plays_the_same_moves_for_the_same_seed(spec) -> None:  # type: ignore[no-untyped-def]
    """Fixed budget: the same seed gives the same moves (independent of the machine)."""
    for game, players, _flags in SETUPS:
        specs = [spec] * players
        assert _play(game, players, {}, specs, 7) == _play(game, players, {}, specs, 7)


def test_spec_options_are_read_and_written_back() -> None:
    """`ref:search:samples=64,ms=50` is read into its options and written back the same."""
    spec = parse_spec("ref:search:samples=64,ms=50")
    assert (spec.name, spec.samples, spec.ms) == ("search", 64, 50.0)
    assert ref_name("ref:search:samples=64,ms=50") == "ref:search:samples=64,ms=50"
    assert ref_argv("ref:strong")[1:] == ["-m", "arena.reference", "strong"]


def test_the_default_budget_is_a_tenth_of_the_move_limit() -> None:
    """Without options a search plans 85% of a tenth of the smaller of its time and the move
    limit (the rest is for the reply and a busy machine)."""
    assert budget_for(parse_spec("search"), 5000, 1000).ms == pytest.approx(85)
    assert budget_for(parse_spec("search"), 400, 1000).ms == pytest.approx(34)
    assert budget_for(parse_spec("search:samples=8"), 400, 1000).ms is None


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (
            "ref:best",
            "unknown reference bot ref:best; known: ref:random, ref:greedy, ref:search, ref:strong",
        ),
        (
            "ref:search:depth=3",
            "unknown option 'depth=3' of ref:search; options: samples=..., "
            "ms=..., policy=..., playouts=..., win=...",
        ),
        ("ref:search:samples=0", "bad value '0' for samples of ref:search: a positive number"),
        ("ref:search:policy=smart", "bad value 'smart' for policy of ref:search: greedy or random"),
    ],
)
def test_a_bad_spec_is_one_line_naming_what_is_known(text: str, message: str) -> None:
    """Unknown names, options and values are refused with what is known."""
    with pytest.raises(SpecError) as caught:
        parse_spec(text)
    assert str(caught.value) == message
