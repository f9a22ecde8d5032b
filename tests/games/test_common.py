"""What the engines share (arena/games/common.py), checked once for every game."""

from __future__ import annotations

import copy
import dataclasses
import pickle
import random
from typing import Any

import pytest

from arena.games import block, fives, matador
from arena.games.api import Deal, Game, carried
from arena.games.common import HAND_SLOTS, HandState, checked_deal, deal_hands
from arena.games.tiles import ALL_TILES, TILE_INDEX, canonical_tiles, mask_of

ENGINES: tuple[tuple[Any, Any, int], ...] = (
    (matador, matador.MatadorRules(), 3),
    (fives, fives.FivesRules(), 2),
    (block, block.BlockRules(), 2),
)
IDS = ("matador", "fives", "block")


def _played_out(engine: Any, rules: Any, players: int, seed: int) -> list[HandState]:
    """Every state of a random hand, the first included."""
    rng = random.Random(seed)
    state = engine.start_hand(rules, players, engine.deal(rules, players, seed))
    states = [state]
    while state.outcome() is None:
        state = state.apply(rng.choice(state.legal_moves()))
        states.append(state)
    return states


@pytest.mark.parametrize(
    "state_class", [matador.MatadorState, fives.FivesState, block.BlockState], ids=IDS
)
def test_the_engine_class_declares_every_slot(state_class: type[HandState]) -> None:
    """The base adds no layout; the engine's ``__slots__`` names every field, the shared ones
    included (the snapshot tests compare ``__slots__`` before and after ``apply``)."""
    assert HandState.__slots__ == ()
    assert set(HAND_SLOTS) <= set(state_class.__slots__)
    assert len(set(state_class.__slots__)) == len(state_class.__slots__)
    assert not hasattr(state_class(), "__dict__")


@pytest.mark.parametrize(("engine", "rules", "players"), ENGINES, ids=IDS)
def test_shared_facts_follow_the_state(engine: Any, rules: Any, players: int) -> None:
    """Hands, boneyard, history and deal, at every point of random hands; a clone is equal."""
    for seed in range(5):
        dealt = engine.deal(rules, players, seed)
        for state in _played_out(engine, rules, players, seed):
            assert state.deal() == dealt
            assert len(state.history()) == state._count
            assert state.boneyard_size == len(state.boneyard_tiles())
            assert (
                state.boneyard_tiles()
                == dealt.boneyard[len(dealt.boneyard) - state.boneyard_size :]
            )
            held = [t for s in range(players) for t in state.hand_tiles(s)]
            assert mask_of(held) == sum(state.hands)
            clone = state._clone()
            assert type(clone) is type(state)
            assert all(getattr(clone, n) is getattr(state, n) for n in type(state).__slots__)


def test_deal_hands_deals_in_order_and_sorts_each_hand() -> None:
    """Seat s gets the s-th run of the shuffle, sorted; the boneyard is the rest, in order."""
    dealt = deal_hands(3, 6, 42)
    assert [len(h) for h in dealt.hands] == [6, 6, 6]
    assert all(list(h) == sorted(h) for h in dealt.hands)
    assert sorted([*dealt.boneyard, *(t for h in dealt.hands for t in h)]) == list(ALL_TILES)
    assert dealt == matador.deal(matador.MatadorRules(hand_size="9-n"), 3, 42)


def test_checked_deal_makes_tiles_canonical_and_returns_masks_and_stock() -> None:
    """A deal written with halves the other way round is the same deal; the masks and stock
    indices are those of the canonical tiles."""
    dealt = deal_hands(2, 7, 5)
    flipped = Deal(
        tuple(tuple((b, a) for a, b in h) for h in dealt.hands),
        tuple((b, a) for a, b in dealt.boneyard),
    )
    hands, masks, stock = checked_deal(flipped, 2, 7, "fives deals")
    assert hands == dealt.hands
    assert masks == [mask_of(h) for h in dealt.hands]
    assert stock == tuple(TILE_INDEX[t] for t in dealt.boneyard)


@pytest.mark.parametrize(("engine", "rules", "players"), ENGINES, ids=IDS)
def test_a_dealt_deal_carries_its_own_tiles_as_bit_sets(
    engine: Any, rules: Any, players: int
) -> None:
    """What a deal from ``deal()`` carries for ``start_hand`` is exactly its tiles: each hand's
    bit set and the boneyard's indices, top first; a deal built from the same fields carries
    nothing, is equal to it, and starts the same hand."""
    for seed in range(200):
        dealt = engine.deal(rules, players, seed)
        made = carried(dealt)
        assert made is not None
        masks, stock = made
        assert masks == tuple(mask_of(h) for h in dealt.hands)
        assert stock == tuple(TILE_INDEX[t] for t in dealt.boneyard)
        plain = Deal(dealt.hands, dealt.boneyard)
        assert carried(plain) is None
        assert plain == dealt
        assert hash(plain) == hash(dealt)
        assert repr(plain) == repr(dealt)
        one = engine.start_hand(rules, players, dealt)
        other = engine.start_hand(rules, players, plain)
        assert all(getattr(one, n) == getattr(other, n) for n in type(one).__slots__)


def test_a_copied_replaced_or_pickled_deal_carries_nothing() -> None:
    """Only the engine's own deal carries bit sets: a copy, a replaced or an unpickled deal is
    equal to it and is checked tile by tile again (its tiles may have changed)."""
    dealt = block.deal(block.BlockRules(), 2, 3)
    for other in (
        copy.copy(dealt),
        copy.deepcopy(dealt),
        pickle.loads(pickle.dumps(dealt)),
        dataclasses.replace(dealt),
    ):
        assert other == dealt
        assert carried(other) is None
    swapped = dataclasses.replace(dealt, hands=(dealt.hands[1], dealt.hands[0]))
    assert carried(swapped) is None
    state = block.start_hand(block.BlockRules(), 2, swapped)
    assert state.hands == tuple(mask_of(h) for h in swapped.hands)


def test_a_dealt_deal_is_frozen_like_any_deal() -> None:
    """Neither its fields nor what it carries can be assigned."""
    dealt = deal_hands(2, 7, 1)
    for name in ("hands", "boneyard", "_dealt"):
        with pytest.raises(dataclasses.FrozenInstanceError):
            setattr(dealt, name, None)
    assert [f.name for f in dataclasses.fields(dealt)] == ["hands", "boneyard"]


def test_a_dealt_deal_used_for_other_hand_sizes_is_checked() -> None:
    """A deal made for one hand size and started with another is refused as before: what it
    carries is trusted only when it fits the rules asked for."""
    with pytest.raises(ValueError, match="seat 0 was dealt 7 tiles; fives deals 6"):
        checked_deal(deal_hands(2, 7, 9), 2, 6, "fives deals")
    with pytest.raises(ValueError, match="the deal has 3 hands for 2 players"):
        checked_deal(deal_hands(3, 7, 9), 2, 7, "fives deals")
    with pytest.raises(ValueError, match="seat 0 was dealt 6 tiles; block hands hold 7"):
        block.start_hand(block.BlockRules(), 2, deal_hands(2, 6, 9))


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda d: Deal(d.hands[:1], d.boneyard), "the deal has 1 hands for 2 players"),
        (lambda d: Deal(d.hands, (*d.boneyard[:-1], d.hands[0][0])), "exactly once"),
        (lambda d: Deal(d.hands, d.boneyard[:-1]), "exactly once"),
        (
            lambda d: Deal((d.hands[0][:-1], (*d.hands[1], d.hands[0][-1])), d.boneyard),
            "seat 0 was dealt 6 tiles; fives deals 7",
        ),
    ],
)
def test_checked_deal_refuses_a_bad_deal(change: Any, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        checked_deal(change(deal_hands(2, 7, 9)), 2, 7, "fives deals")


def test_a_start_with_the_wrong_number_of_scores_is_refused_by_both_engines() -> None:
    for engine, rules, players in ENGINES:
        dealt = engine.deal(rules, players, 1)
        with pytest.raises(ValueError, match=f"1 scores given for {players} players"):
            engine.start_hand(rules, players, dealt, (0,))


def test_canonical_tiles_keeps_the_sets_own_tiles_and_checks_any_other() -> None:
    own = tuple(ALL_TILES[:3])
    assert canonical_tiles(own) is own
    assert canonical_tiles([(1, 0), (2, 2)]) == ((0, 1), (2, 2))
    with pytest.raises(ValueError, match="from 0 to 6"):
        canonical_tiles([(0, 7)])


def test_the_game_objects() -> None:
    """Each game object holds its module's functions, its seat range and its own target."""
    games: tuple[Game, ...] = (matador.MATADOR, fives.FIVES)
    assert [g.name for g in games] == ["matador", "fives"]
    assert (matador.MATADOR.min_players, matador.MATADOR.max_players) == (2, 4)
    assert (fives.FIVES.min_players, fives.FIVES.max_players) == (2, 2)
    assert matador.MATADOR.match_target is None
    assert fives.FIVES.match_target == fives.TARGET
    rules = fives.FIVES.parse_rules({"block_winner": "fewer_pips"})
    assert fives.FIVES.rules_dict(rules) == {
        "spinner_sides_first": True,
        "block_winner": "fewer_pips",
    }
    dealt = fives.FIVES.deal(rules, 2, 3)
    state = fives.FIVES.start_hand(rules, 2, dealt, scores=(10, 20), retired=frozenset())
    assert state.deal() == dealt
    assert state.scores[0] >= 10
    assert state.scores[1] >= 20
