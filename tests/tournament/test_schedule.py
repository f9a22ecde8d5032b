"""Tournament schedules: duplicate deals, seat balance, balanced samples, gauntlets and Swiss."""

from __future__ import annotations

import itertools
import math
import random
from collections import Counter
from collections.abc import Sequence

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from arena.games.api import derive_seed
from arena.tournament.schedule import (
    BYE_POINTS,
    SwissRound,
    Table,
    balanced_groups,
    build_schedule,
    gauntlet_groups,
    meetings,
    seat_groups,
    swiss_round,
    swiss_tables,
)

FIXED_FORMATS = ("round-robin", "gauntlet")


@st.composite
def schedules(draw: st.DrawFn) -> tuple[int, int, str, int, int]:
    """Arguments of a small fixed-format schedule: entrants, players, format, rounds, seed."""
    players = draw(st.integers(2, 4))
    n = draw(st.integers(players, 9))
    fmt = draw(st.sampled_from(FIXED_FORMATS))
    rounds = draw(st.integers(1, 3))
    seed = draw(st.integers(0, 2**63 - 1))
    return n, players, fmt, rounds, seed


def groups_of(tables: Sequence[Table]) -> dict[int, list[Table]]:
    """The tables of each deal group."""
    out: dict[int, list[Table]] = {}
    for table in tables:
        out.setdefault(table.deal_group, []).append(table)
    return out


def pair_counts(groups: Sequence[Sequence[int]], n: int) -> list[int]:
    """How often each of the C(n, 2) pairs meets, including pairs that never meet."""
    counts = meetings(groups)
    return [counts[(a, b)] for a, b in itertools.combinations(range(n), 2)]


# --- determinism ----------------------------------------------------------------------------


@given(schedules())
def test_same_seed_gives_the_same_schedule(args: tuple[int, int, str, int, int]) -> None:
    """Building a schedule twice from the same arguments gives identical tables."""
    assert build_schedule(*args) == build_schedule(*args)


@given(schedules())
def test_another_seed_gives_other_deals(args: tuple[int, int, str, int, int]) -> None:
    """A different tournament seed changes every deal."""
    n, players, fmt, rounds, seed = args
    first = {t.seed for t in build_schedule(n, players, fmt, rounds, seed)}
    second = {t.seed for t in build_schedule(n, players, fmt, rounds, seed + 1)}
    assert not first & second


def test_schedule_is_pinned_across_machines() -> None:
    """The seeds and seatings are SHA-256 derived, so these exact values hold everywhere."""
    tables = build_schedule(4, 2, "round-robin", 1, 1)
    assert tables[0] == Table(0, 1, (2, 3), 3865857861745209631, 0, 0)
    assert tables[1] == Table(1, 1, (3, 2), 3865857861745209631, 0, 1)
    assert tables[0].seed == derive_seed(1, "deal", 1, 0)
    three = build_schedule(6, 3, "round-robin", 1, 1)
    assert [t.seats for t in three[:3]] == [(1, 3, 0), (3, 0, 1), (0, 1, 3)]


# --- duplicate deals and seats --------------------------------------------------------------


@given(schedules())
def test_deal_groups_hold_every_rotation_of_one_deal(args: tuple[int, int, str, int, int]) -> None:
    """Each deal group is k consecutive tables: one seed, the k cyclic rotations of one order."""
    n, players, fmt, rounds, seed = args
    tables = build_schedule(n, players, fmt, rounds, seed)
    assert [t.index for t in tables] == list(range(len(tables)))
    seeds = set()
    for group, members in groups_of(tables).items():
        assert len(members) == players
        assert [t.rotation for t in members] == list(range(players))
        assert [t.index for t in members] == [group * players + r for r in range(players)]
        assert len({t.seed for t in members}) == 1
        assert len({t.round for t in members}) == 1
        base = members[0].seats
        assert len(set(base)) == players
        for t in members:
            assert t.seats == base[t.rotation :] + base[: t.rotation]
        seeds.add(members[0].seed)
    assert len(seeds) == len(groups_of(tables))


@given(schedules())
def test_every_bot_sits_in_every_seat_equally_often(args: tuple[int, int, str, int, int]) -> None:
    """Over the schedule, each bot's tables are spread evenly over the seats."""
    n, players, fmt, rounds, seed = args
    seats: Counter[tuple[int, int]] = Counter()
    for table in build_schedule(n, players, fmt, rounds, seed):
        for seat, entrant in enumerate(table.seats):
            seats[(entrant, seat)] += 1
    for entrant in range(n):
        assert len({seats[(entrant, seat)] for seat in range(players)}) == 1


@pytest.mark.parametrize("n", [2, 3, 5, 8])
def test_round_robin_plays_every_pair_once_per_seating(n: int) -> None:
    """Two-player round robin: every ordered seating of every pair exactly once per round."""
    rounds = 2
    tables = build_schedule(n, 2, "round-robin", rounds, seed=7)
    assert len(tables) == rounds * n * (n - 1)
    for round_number in range(1, rounds + 1):
        seatings = Counter(t.seats for t in tables if t.round == round_number)
        assert set(seatings) == set(itertools.permutations(range(n), 2))
        assert set(seatings.values()) == {1}
        for rotation in (0, 1):
            pairs = Counter(
                frozenset(t.seats)
                for t in tables
                if t.round == round_number and t.rotation == rotation
            )
            assert len(pairs) == math.comb(n, 2)
            assert set(pairs.values()) == {1}


def test_rounds_repeat_the_schedule_on_fresh_deals() -> None:
    """Every round holds the same groups of bots, each round on deals of its own."""
    tables = build_schedule(6, 3, "round-robin", 3, seed=11)
    per_round = [[t for t in tables if t.round == r] for r in (1, 2, 3)]
    groups = [Counter(frozenset(t.seats) for t in ts) for ts in per_round]
    assert groups[0] == groups[1] == groups[2]
    seeds = [{t.seed for t in ts} for ts in per_round]
    assert not (seeds[0] & seeds[1])
    assert not (seeds[1] & seeds[2])
    assert not (seeds[0] & seeds[2])


@pytest.mark.parametrize(("n", "players"), [(5, 3), (6, 3), (6, 4), (8, 4)])
def test_small_fields_play_every_combination(n: int, players: int) -> None:
    """With few bots, 3-4 player round robin plays every combination once per rotation."""
    tables = build_schedule(n, players, "round-robin", 1, seed=3)
    groups = Counter(frozenset(t.seats) for t in tables if t.rotation == 0)
    assert len(groups) == math.comb(n, players)
    assert set(groups.values()) == {1}
    per_pair = math.comb(n - 2, players - 2) * players
    assert set(pair_counts([t.seats for t in tables], n)) == {per_pair}


# --- gauntlet -------------------------------------------------------------------------------


@pytest.mark.parametrize("n", [2, 4, 7])
def test_two_player_gauntlet_is_entrant_zero_against_each_other_bot(n: int) -> None:
    """Entrant 0 plays every other bot on one duplicate deal, in both seats."""
    tables = build_schedule(n, 2, "gauntlet", 1, seed=5)
    assert len(tables) == 2 * (n - 1)
    assert all(0 in t.seats for t in tables)
    assert Counter(t.seats for t in tables) == Counter(
        s for j in range(1, n) for s in ((0, j), (j, 0))
    )


@pytest.mark.parametrize(("n", "players"), [(5, 3), (6, 4), (9, 3)])
def test_multiplayer_gauntlet_tables_all_contain_entrant_zero(n: int, players: int) -> None:
    """Every table holds entrant 0 and every combination of its opponents, once per rotation."""
    tables = build_schedule(n, players, "gauntlet", 1, seed=5)
    assert all(0 in t.seats for t in tables)
    opponents = Counter(frozenset(t.seats) - {0} for t in tables if t.rotation == 0)
    assert set(opponents) == {
        frozenset(c) for c in itertools.combinations(range(1, n), players - 1)
    }
    assert set(opponents.values()) == {1}


def test_large_gauntlet_samples_the_opponents_evenly() -> None:
    """When the opponents' combinations are too many, every opponent still plays equally often."""
    groups = gauntlet_groups(15, 4, max_groups=50)
    assert all(g[0] == 0 for g in groups)
    assert len(groups) < math.comb(14, 3)
    appearances = Counter(e for g in groups for e in g[1:])
    assert set(appearances) == set(range(1, 15))
    assert len(set(appearances.values())) == 1


# --- balanced samples -----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("n", "players", "groups", "meets"),
    [
        (13, 4, 13, 1),  # the projective plane of order 3: difference set {0, 1, 3, 9} mod 13
        (16, 4, 20, 1),  # the affine plane of order 4, 1-rotational
        (19, 3, 57, 1),  # a Steiner triple system
        (25, 3, 100, 1),
        (16, 3, 80, 2),  # no Steiner system on 16 points: every pair twice
        (17, 4, 68, 3),
        (22, 3, 154, 2),
    ],
)
def test_balanced_sample_meets_every_pair_equally(
    n: int, players: int, groups: int, meets: int
) -> None:
    """Past the combination limit, these fields get an exact design with the counts given."""
    sample = balanced_groups(n, players)
    assert math.comb(n, players) > 500
    assert len(sample) == groups
    assert len(set(sample)) == groups
    assert set(pair_counts(sample, n)) == {meets}
    assert len(set(Counter(e for g in sample for e in g).values())) == 1


@pytest.mark.parametrize(("n", "players"), [(14, 4), (18, 4), (23, 4), (26, 3), (32, 3)])
def test_balanced_sample_is_near_balanced_when_no_exact_design_is_found(
    n: int, players: int
) -> None:
    """Otherwise every pair meets once or twice and every bot plays equally many tables."""
    sample = balanced_groups(n, players)
    assert len(sample) < math.comb(n, players)
    assert set(pair_counts(sample, n)) <= {1, 2}
    assert len(set(Counter(e for g in sample for e in g).values())) == 1


@settings(deadline=None)
@given(st.integers(3, 4).flatmap(lambda k: st.tuples(st.just(k), st.integers(k + 1, 15))))
def test_small_samples_are_balanced(case: tuple[int, int]) -> None:
    """Forced to sample, small fields still give every bot equal tables and pairs 1-2 meetings."""
    players, n = case
    sample = balanced_groups(n, players, max_groups=1)
    assert all(len(set(g)) == players and max(g) < n for g in sample)
    counts = pair_counts(sample, n)
    assert min(counts) >= 1
    assert max(counts) - min(counts) <= 1 or len(sample) == math.comb(n, players)
    assert len(set(Counter(e for g in sample for e in g).values())) == 1


def test_sampled_schedule_keeps_seats_and_pairs_balanced() -> None:
    """A 4-player round robin of 13 bots: 13 deals x 4 rotations, each pair at 4 tables."""
    tables = build_schedule(13, 4, "round-robin", 1, seed=2)
    assert len(tables) == 52
    assert set(pair_counts([t.seats for t in tables], 13)) == {4}
    seats = Counter((e, s) for t in tables for s, e in enumerate(t.seats))
    assert len(seats) == 13 * 4
    assert set(seats.values()) == {4}  # each bot is in 4 of the 13 deals, once per seat


def test_bad_arguments_are_refused() -> None:
    """Unknown formats, too few bots, bad table sizes and Swiss are refused with a reason."""
    with pytest.raises(ValueError, match="unknown format"):
        build_schedule(4, 2, "knockout", 1, 0)
    with pytest.raises(ValueError, match="entrants"):
        build_schedule(2, 3, "round-robin", 1, 0)
    with pytest.raises(ValueError, match="2 to 4"):
        build_schedule(6, 5, "round-robin", 1, 0)
    with pytest.raises(ValueError, match="rounds"):
        build_schedule(4, 2, "round-robin", 0, 0)
    with pytest.raises(ValueError, match="swiss_tables"):
        build_schedule(4, 2, "swiss", 1, 0)
    with pytest.raises(ValueError, match="whole deal group"):
        seat_groups([(0, 1), (2, 3)], round_number=1, first_index=3, seed=0)
    with pytest.raises(ValueError, match="different bots"):
        seat_groups([(1, 1)], round_number=1, first_index=0, seed=0)


# --- Swiss ----------------------------------------------------------------------------------


def can_pair_without_repeats(field: list[int], met: set[frozenset[int]]) -> bool:
    """Brute force: is there a perfect matching of ``field`` avoiding every pair in ``met``?"""
    if not field:
        return True
    first, rest = field[0], field[1:]
    return any(
        frozenset((first, other)) not in met
        and can_pair_without_repeats([e for e in rest if e != other], met)
        for other in rest
    )


def test_first_round_pairs_neighbours_in_the_standings() -> None:
    """With distinct scores, the pairing is 1st-2nd, 3rd-4th, ... (top boards first)."""
    points = [1.0, 5.0, 3.0, 4.0, 0.0, 2.0]
    pairing = swiss_round(points, [], seed=1)
    assert pairing == SwissRound(((1, 3), (2, 5), (0, 4)), None, 0)


def test_equal_scores_are_ordered_by_the_seed() -> None:
    """All-equal standings are paired in a seeded order: deterministic, and seed-dependent."""
    pairings = {swiss_round([0.0] * 8, [], seed=s).pairs for s in range(6)}
    assert len(pairings) > 1
    assert swiss_round([0.0] * 8, [], seed=3) == swiss_round([0.0] * 8, [], seed=3)


def test_a_pair_that_met_is_not_paired_again() -> None:
    """The leader's nearest rival is skipped when they have met; the next one is taken."""
    points = [4.0, 3.0, 2.0, 1.0]
    assert swiss_round(points, [(0, 1)], seed=0).pairs == ((0, 2), (1, 3))
    # the top-down choice must backtrack: 0-2 would leave 1-3, who have met
    assert swiss_round(points, [(0, 1), (1, 3)], seed=0).pairs == ((0, 3), (1, 2))


@settings(deadline=None, max_examples=60)
@given(st.integers(2, 10), st.integers(0, 6), st.integers(0, 2**32))
def test_no_repeat_pairing_while_one_can_be_avoided(n: int, rounds: int, seed: int) -> None:
    """After random results, a round has a repeat only if every pairing of the field has one."""
    rng = random.Random(seed)
    points = [0.0] * n
    history: list[tuple[int, int]] = []
    byes: list[int] = []
    for r in range(rounds + 1):
        pairing = swiss_round(points, history, seed=r, byes=byes)
        met = {frozenset(p) for p in history}
        field = sorted(e for e in range(n) if e != pairing.bye)
        if pairing.repeats == 0:
            assert all(frozenset(p) not in met for p in pairing.pairs)
        elif pairing.bye is None:
            assert not can_pair_without_repeats(field, met)
        else:
            assert not any(
                can_pair_without_repeats([e for e in range(n) if e != b], met) for b in range(n)
            )
        paired = [e for p in pairing.pairs for e in p]
        assert sorted(paired + ([pairing.bye] if pairing.bye is not None else [])) == list(range(n))
        for a, b in pairing.pairs:
            outcome = rng.choice((0.0, 1.0, 2.0))
            points[a] += outcome
            points[b] += 2.0 - outcome
            history.append((a, b))
        if pairing.bye is not None:
            points[pairing.bye] += BYE_POINTS
            byes.append(pairing.bye)


def test_full_swiss_never_repeats_before_the_field_runs_out() -> None:
    """Eight bots, seven rounds (a full round robin's worth): no pairing is ever repeated."""
    rng = random.Random(4)
    points = [0.0] * 8
    history: list[tuple[int, int]] = []
    for r in range(7):
        pairing = swiss_round(points, history, seed=r)
        assert pairing.repeats == 0
        for a, b in pairing.pairs:
            outcome = rng.choice((0.0, 1.0, 2.0))
            points[a] += outcome
            points[b] += 2.0 - outcome
            history.append((a, b))
    assert len({frozenset(p) for p in history}) == 28


def test_unavoidable_repeats_are_as_few_as_possible() -> None:
    """Four bots that have all met: the next round repeats both pairs, and says so."""
    history = list(itertools.combinations(range(4), 2))
    pairing = swiss_round([3.0, 2.0, 1.0, 0.0], history, seed=0)
    assert pairing.repeats == 2
    assert pairing.pairs == ((0, 1), (2, 3))
    # one old pair: only the other pairings are free
    assert swiss_round([3.0, 2.0, 1.0, 0.0], [(0, 1), (0, 2), (1, 3), (2, 3)], seed=0).repeats == 0


def test_bye_goes_to_the_lowest_ranked_bot_without_one() -> None:
    """An odd field gives the bye to the last bot, or the last one who has not had a bye."""
    points = [4.0, 3.0, 2.0, 1.0, 0.0]
    assert swiss_round(points, [], seed=0).bye == 4
    assert swiss_round(points, [], seed=0, byes=[4]).bye == 3
    assert swiss_round(points, [], seed=0, byes=[4, 3, 2, 1, 0]).bye == 4


def test_bye_gives_way_to_avoiding_a_repeat() -> None:
    """The bye moves up the standings when the bottom bot's sitting out would force a repeat."""
    points = [4.0, 3.0, 2.0, 1.0, 0.0]
    history = [(0, 1), (0, 2), (0, 3)]  # without 4, the leader has no new opponent
    pairing = swiss_round(points, history, seed=0)
    assert pairing == SwissRound(((0, 4), (1, 2)), 3, 0)


def test_byes_rotate_through_an_odd_field() -> None:
    """Seven bots over seven rounds: nobody has a second bye before everyone had one."""
    rng = random.Random(9)
    points = [0.0] * 7
    history: list[tuple[int, int]] = []
    byes: list[int] = []
    for r in range(7):
        pairing = swiss_round(points, history, seed=r, byes=byes)
        assert pairing.bye is not None
        assert pairing.bye not in byes
        byes.append(pairing.bye)
        points[pairing.bye] += BYE_POINTS
        for a, b in pairing.pairs:
            outcome = rng.choice((0.0, 1.0, 2.0))
            points[a] += outcome
            points[b] += 2.0 - outcome
            history.append((a, b))
    assert sorted(byes) == list(range(7))


def test_swiss_tables_seat_each_pair_on_a_duplicate_deal() -> None:
    """Each pair gets both seatings of one deal; indexes continue; the bye gets no table."""
    tables = swiss_tables(
        n_entrants=5,
        points=[0.0, 2.0, 4.0, 1.0, 3.0],
        played=[(0, 1), (1, 0)],
        round_number=3,
        first_index=10,
        seed=8,
    )
    assert [t.index for t in tables] == [10, 11, 12, 13]
    assert [t.deal_group for t in tables] == [5, 5, 6, 6]
    assert [t.rotation for t in tables] == [0, 1, 0, 1]
    assert all(t.round == 3 for t in tables)
    assert tables[0].seats == tables[1].seats[::-1]
    assert tables[2].seats == tables[3].seats[::-1]
    assert tables[0].seed == tables[1].seed != tables[2].seed == tables[3].seed
    assert {frozenset(tables[0].seats), frozenset(tables[2].seats)} == {
        frozenset((2, 4)),
        frozenset((1, 3)),
    }
    seated = {e for t in tables for e in t.seats}
    assert seated == {1, 2, 3, 4}  # 0, last in the standings, sits out
    assert tables == swiss_tables(5, [0.0, 2.0, 4.0, 1.0, 3.0], [(0, 1), (1, 0)], 3, 10, 8)
