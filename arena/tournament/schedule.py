"""Tournament schedules: who sits where, on which deal. Pure and deterministic from the seed.

A schedule is a list of :class:`Table`\\ s. Every table belongs to a *deal group*: one deal (one
match seed) played once per seat rotation of the same bots, so the luck of the deal cancels
(duplicate play, as in duplicate bridge). Two bots play both seatings; ``k`` bots play the ``k``
cyclic rotations of one seat order, so within a group every bot sits in every seat exactly once,
and over a schedule every bot sits in every seat equally often. The tables of a group are
consecutive, with ``rotation`` 0 first, and ``deal_group == index // players``.

Formats (:func:`build_schedule`):

- ``round-robin``: every pair (2 players); for 3-4 players every combination of ``k`` bots when
  there are at most ``max_groups`` of them, else a *balanced sample* (:func:`balanced_groups`)
  in which every two bots meet equally often, as far as that is possible.
- ``gauntlet``: entrant 0 against each other entrant; for 3-4 players the tables that contain
  entrant 0, its ``k - 1`` opponents chosen as every combination (or a balanced sample) of the
  others.
- ``swiss``: built round by round from the results (:func:`swiss_round` pairs,
  :func:`swiss_tables` seats the pairs on duplicate deals); two-player tables only.

``rounds`` repeats the whole schedule with fresh deals. Rounds are numbered from 1; table
indexes, deal groups and rotations from 0. Every seed comes from
:func:`arena.games.api.derive_seed` (SHA-256), never from a global random generator, so the same
tournament seed gives the same schedule and deals on every machine and Python version:

- the deal of a group: ``derive_seed(seed, "deal", round, position of the group in its round)``;
- the order of the groups within a round (shuffled so that one bot's tables are spread over the
  round rather than bunched at its start) and the seat order of each group (so that, with 3-4
  players, who plays after whom varies): sort keys from ``derive_seed``.

The balanced sample is a *cyclic design* (R. C. Bose, "On the construction of balanced
incomplete block designs", 1939; Colbourn and Dinitz, Handbook of Combinatorial Designs, VI.16
"Difference families"). The bots are the points of Z_n (or of Z_(n-1) plus a fixed point
"infinity", a 1-rotational design), and the tables are whole orbits of base tables under
``x -> x + 1``. Two bots at cyclic distance ``d`` then meet as often as any other two at that
distance, so balancing the pairs only needs balancing the ``n // 2`` distance classes (plus the
pairs with infinity), a small exact-cover problem:

1. every combination, when there are at most ``max_groups``;
2. else an *exactly balanced* union of orbits (every pair meets ``lambda`` times), for the
   smallest ``lambda`` allowed by the divisibility conditions, found by depth-first search
   (the most constrained distance class first) within a fixed budget of search steps, and only
   while it has no more than ``max(max_groups, 2 * C(n, 2) / C(k, 2))`` groups;
3. else a *near-balanced* union of Z_n orbits: every pair meets once or twice (same search);
4. else a greedy union of Z_n orbits in which every pair meets at least once.

In every case each bot is in the same number of groups (a balanced design forces it; a union of
Z_n orbits gives it by symmetry). Exact designs cannot exist for every ``n`` (a Steiner triple
system needs ``n % 6`` in {1, 3}); steps 3 and 4 are "as far as possible". Checked for up to 80
bots: exact or near-balanced (every pair meets once or twice) for 3-player tables throughout,
for 4-player tables up to 64 bots and for most sizes above. :func:`meetings` counts how often
each pair meets, for a report. The search is deterministic (no randomness, a budget counted in
steps, not seconds), so the sample is the same everywhere; it takes up to about a second at 60
bots and a few seconds at 80.

Swiss (:func:`swiss_round`): bots are ranked by points, ties in an order drawn from the seed;
then paired top-down, each with the nearest-ranked bot it has not met (the Monrad system), with
backtracking, so the highest-ranked bots meet each other and no pairing repeats while a
repeat-free pairing of the field exists (the search is exhaustive within a fixed step budget).
When repeats cannot be avoided, the fewest possible are used. With an odd number of bots, one
sits out: the lowest-ranked among those with the fewest byes, provided the rest can still be
paired without repeats. A bye scores like a win: the runner credits :data:`BYE_POINTS`, what
winning both games of the round's duplicate pair would score.
"""

from __future__ import annotations

import itertools
import math
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Literal

from arena.games.api import derive_seed

Format = Literal["round-robin", "gauntlet", "swiss"]

#: The tournament formats, as spelled on the command line.
FORMATS: tuple[Format, ...] = ("round-robin", "gauntlet", "swiss")

#: With 3-4 players, play every combination of bots when there are at most this many per round.
MAX_GROUPS = 500

#: A bye scores like a win of the round: 1 point per game, 2 games per duplicate pair.
BYE_POINTS = 2.0

#: Search steps (orbits examined) for one attempt at an exactly balanced design, for all of
#: them together, and for one attempt at a near-balanced one: about a second at most.
EXACT_BUDGET = 100_000
EXACT_TOTAL_BUDGET = 300_000
NEAR_BUDGET = 1_000_000

#: Search steps allowed for each attempt at a Swiss pairing.
SWISS_BUDGET = 20_000


@dataclass(frozen=True, slots=True)
class Table:
    """One scheduled match.

    Attributes:
        index: the table's position in the schedule, from 0 (the order to rate results in).
        round: the round, from 1 (``--rounds`` repetitions, or the Swiss round).
        seats: the entrant in each seat, in seat order (entrant indexes from 0).
        seed: the match seed: the deal, the same for every table of the deal group.
        deal_group: the duplicate deal this table belongs to (``index // len(seats)``).
        rotation: which seat rotation of the group this is (0 to ``len(seats) - 1``); rotation
            ``r`` seats the group's base order shifted left by ``r``.
    """

    index: int
    round: int
    seats: tuple[int, ...]
    seed: int
    deal_group: int
    rotation: int


@dataclass(frozen=True, slots=True)
class SwissRound:
    """The pairings of one Swiss round.

    Attributes:
        pairs: the pairs, each higher-ranked first, from the top of the standings down.
        bye: the entrant who sits out this round (odd fields), or ``None``.
        repeats: how many pairs have met before (0 unless a repeat was unavoidable).
    """

    pairs: tuple[tuple[int, int], ...]
    bye: int | None
    repeats: int


# --- fixed schedules ----------------------------------------------------------------------------


def build_schedule(
    n_entrants: int,
    players: int,
    fmt: str,
    rounds: int,
    seed: int,
    *,
    max_groups: int = MAX_GROUPS,
) -> list[Table]:
    """The whole schedule of a round-robin or gauntlet tournament.

    Args:
        n_entrants: how many bots (entrants ``0 .. n_entrants - 1``).
        players: seats per table, 2 to 4.
        fmt: ``"round-robin"`` or ``"gauntlet"`` (a Swiss schedule depends on results: see
            :func:`swiss_tables`).
        rounds: how many times the schedule is played, each time on fresh deals.
        seed: the tournament seed.
        max_groups: with 3-4 players, the most combinations per round played in full.

    Returns:
        Every table, in playing order: round by round, each deal's rotations together.

    Raises:
        ValueError: an unknown format, too few entrants for a table, or fewer than 1 round.
    """
    _check(n_entrants, players, rounds)
    if fmt == "round-robin":
        groups = balanced_groups(n_entrants, players, max_groups=max_groups)
    elif fmt == "gauntlet":
        groups = gauntlet_groups(n_entrants, players, max_groups=max_groups)
    elif fmt == "swiss":
        raise ValueError("a Swiss schedule is paired round by round: use swiss_tables")
    else:
        raise ValueError(f"unknown format {fmt!r}; formats: {', '.join(FORMATS)}")
    tables: list[Table] = []
    for round_number in range(1, rounds + 1):
        tables += seat_groups(groups, round_number=round_number, first_index=len(tables), seed=seed)
    return tables


def seat_groups(
    groups: Iterable[Sequence[int]], *, round_number: int, first_index: int, seed: int
) -> list[Table]:
    """Seat one round's groups of bots on duplicate deals.

    The groups are played in an order drawn from the seed; each group gets a seat order drawn
    from the seed, a deal of its own, and one table per cyclic rotation of that order.

    Args:
        groups: the bots of each deal (any order; all groups the same size).
        round_number: the round, from 1.
        first_index: the index of the round's first table (the number of tables before it).
        seed: the tournament seed.

    Returns:
        The round's tables, indexed from ``first_index``.

    Raises:
        ValueError: a group of fewer than two different bots, groups of different sizes, or a
            ``first_index`` that is not a multiple of the group size (so that
            ``deal_group == index // players`` holds across rounds).
    """
    keyed = [tuple(sorted(g)) for g in groups]
    if len({len(g) for g in keyed}) > 1 or (keyed and first_index % len(keyed[0])):
        raise ValueError("a round's groups are all one size, starting on a whole deal group")
    keyed.sort(key=lambda g: (derive_seed(seed, "group-order", round_number, *g), g))
    tables: list[Table] = []
    for position, group in enumerate(keyed):
        size = len(group)
        if size < 2 or len(set(group)) != size:
            raise ValueError(f"a table seats two or more different bots, not {group}")
        order = sorted(
            group, key=lambda e: (derive_seed(seed, "seat-order", round_number, position, e), e)
        )
        deal = derive_seed(seed, "deal", round_number, position)
        for rotation in range(size):
            index = first_index + len(tables)
            tables.append(
                Table(
                    index=index,
                    round=round_number,
                    seats=tuple(order[rotation:] + order[:rotation]),
                    seed=deal,
                    deal_group=index // size,
                    rotation=rotation,
                )
            )
    return tables


def gauntlet_groups(
    n_entrants: int, players: int, *, max_groups: int = MAX_GROUPS
) -> list[tuple[int, ...]]:
    """The groups of a gauntlet: entrant 0 with ``players - 1`` of the others.

    Every combination of opponents when there are at most ``max_groups`` (always for 2 and 3
    players: no smaller set of opponent pairs has every two opponents together equally often),
    else a balanced sample of the others (:func:`balanced_groups`).
    """
    _check(n_entrants, players, 1)
    others = balanced_groups(n_entrants - 1, players - 1, max_groups=max_groups)
    return [(0, *(e + 1 for e in group)) for group in others]


def balanced_groups(
    n_entrants: int, players: int, *, max_groups: int = MAX_GROUPS
) -> list[tuple[int, ...]]:
    """Groups of ``players`` bots in which every two bots meet equally often, if possible.

    Every combination when there are at most ``max_groups`` (or when ``players`` is 1 or 2, or
    equals ``n_entrants``); otherwise the cyclic design of the module docstring: exactly
    balanced when the search finds one, else every pair meets once or twice, else at least
    once. Every bot is in the same number of groups in all cases.

    Returns:
        Sorted tuples of entrant indexes, in a fixed order.
    """
    n, k = n_entrants, players
    if not 1 <= k <= n:
        raise ValueError(f"cannot make groups of {k} from {n} entrants")
    if k <= 2 or k == n or math.comb(n, k) <= max_groups:
        return list(itertools.combinations(range(n), k))
    return _cyclic_design(n, k, max_groups)


def meetings(groups: Iterable[Sequence[int]]) -> Counter[tuple[int, int]]:
    """How many groups (or tables) each pair of entrants shares, keyed ``(low, high)``."""
    counts: Counter[tuple[int, int]] = Counter()
    for group in groups:
        for a, b in itertools.combinations(sorted(group), 2):
            counts[(a, b)] += 1
    return counts


# --- the cyclic designs -------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class _Orbit:
    """The tables ``{x + t : x in base}`` for every shift ``t`` (``None`` is infinity).

    ``cover[c]`` is how many of these tables hold one given pair of distance class ``c``
    (the same for every pair of the class); the last class of a 1-rotational design is the
    pairs with infinity.
    """

    base: tuple[int | None, ...]
    size: int
    cover: tuple[int, ...]


def _orbits(modulus: int, k: int, infinity: bool) -> list[_Orbit]:
    """Every orbit of ``k``-sets under ``x -> x + 1`` on Z_modulus (plus infinity)."""
    half = modulus // 2
    classes = half + (1 if infinity else 0)
    orbits = []
    sizes = (k - 1, k) if infinity else (k,)
    for size in sizes:
        for rest in itertools.combinations(range(1, modulus), size - 1):
            base = (0, *rest)
            translates = [tuple(sorted((b - t) % modulus for b in base)) for t in base]
            if min(translates) != base:
                continue  # not the orbit's canonical representative
            stabilizer = translates.count(base)
            incidences = [0] * classes
            for a, b in itertools.combinations(base, 2):
                d = min(b - a, modulus - (b - a))
                incidences[d - 1] += 2 if 2 * d == modulus else 1
            if size == k - 1:
                incidences[half] = size
            cover = tuple(c // stabilizer for c in incidences)
            full = (*base, None) if size == k - 1 else base
            orbits.append(_Orbit(full, modulus // stabilizer, cover))
    return orbits


def _search(
    orbits: Sequence[_Orbit], low: int, high: int, budget: int
) -> tuple[list[int] | None, int]:
    """Orbits whose covers add up to between ``low`` and ``high`` in every class, or None.

    Depth-first: cover the class with the fewest fitting orbits first; orbits chosen for the
    same class in a row are taken in increasing order, so no set is tried twice in a row.
    Gives up (None) once ``budget`` steps have been taken, a step being one orbit examined
    (so the budget bounds the time, whatever the size). Also returns the steps taken.
    """
    classes = len(orbits[0].cover)
    covered = [0] * classes
    nonzero = [[(c, v) for c, v in enumerate(o.cover) if v] for o in orbits]
    by_class = [[i for i, o in enumerate(orbits) if o.cover[c]] for c in range(classes)]
    chosen: list[int] = []
    steps = 0

    def fits(i: int) -> bool:
        return all(covered[c] + v <= high for c, v in nonzero[i])

    def extend(last_class: int, last_orbit: int) -> bool | None:
        nonlocal steps
        if steps > budget:
            return None
        best: tuple[int, list[int]] | None = None
        for c in range(classes):
            if covered[c] >= low:
                continue
            most = len(best[1]) if best is not None else len(orbits)
            fitting: list[int] = []
            for i in by_class[c]:
                steps += 1
                if (c != last_class or i > last_orbit) and fits(i):
                    fitting.append(i)
                    if len(fitting) >= most:
                        break
            if best is None or len(fitting) < most:
                best = (c, fitting)
                if not fitting:
                    return False
        if best is None:
            return True
        c, fitting = best
        for i in fitting:
            for cc, v in nonzero[i]:
                covered[cc] += v
            chosen.append(i)
            found = extend(c, i)
            if found is not False:
                return found
            chosen.pop()
            for cc, v in nonzero[i]:
                covered[cc] -= v
        return False

    return (chosen if extend(-1, -1) else None), steps


def _cyclic_design(n: int, k: int, max_groups: int) -> list[tuple[int, ...]]:
    """The balanced sample of :func:`balanced_groups` for ``C(n, k) > max_groups``."""
    families = [(n, _orbits(n, k, False)), (n - 1, _orbits(n - 1, k, True))]
    pairs_per_group = math.comb(k, 2)
    least = math.comb(n, 2) / pairs_per_group
    limit = max(max_groups, 2 * least)
    lam, left = 1, EXACT_TOTAL_BUDGET
    while lam * least <= limit and left > 0:
        divisible = lam * (n - 1) % (k - 1) == 0 and lam * n * (n - 1) % (k * (k - 1)) == 0
        if divisible:
            for modulus, orbits in families:
                chosen, steps = _search(orbits, lam, lam, min(EXACT_BUDGET, left))
                left -= steps
                if chosen is not None:
                    return _develop(orbits, chosen, modulus)
        lam += 1
    # Below, Z_n alone: a union of its orbits gives every bot equally many tables, which an
    # unbalanced 1-rotational design would not (the fixed point is in every one of its orbits).
    cyclic = families[0][1]
    chosen, _ = _search(cyclic, 1, 2, NEAR_BUDGET)
    return _develop(cyclic, chosen if chosen is not None else _greedy_cover(cyclic), n)


def _greedy_cover(orbits: Sequence[_Orbit]) -> list[int]:
    """Orbits covering every class at least once, each chosen to add the least excess."""
    classes = len(orbits[0].cover)
    covered = [0] * classes
    chosen: list[int] = []
    while 0 in covered:
        first = covered.index(0)
        now = tuple(covered)
        best = min(
            (i for i, o in enumerate(orbits) if o.cover[first]),
            key=lambda i: _excess(orbits[i].cover, now, i),
        )
        chosen.append(best)
        covered = [a + b for a, b in zip(covered, orbits[best].cover, strict=True)]
    return chosen


def _excess(cover: Sequence[int], covered: Sequence[int], i: int) -> tuple[int, int, int]:
    """Greedy preference: least cover added to covered classes, most new classes, lowest i."""
    extra = sum(v for v, done in zip(cover, covered, strict=True) if done)
    new = sum(1 for v, done in zip(cover, covered, strict=True) if v and not done)
    return extra, -new, i


def _develop(
    orbits: Sequence[_Orbit], chosen: Iterable[int], modulus: int
) -> list[tuple[int, ...]]:
    """Every table of the chosen orbits, with infinity as the last entrant (``modulus``)."""
    groups = set()
    for i in chosen:
        base = orbits[i].base
        for shift in range(modulus):
            groups.add(tuple(sorted(modulus if b is None else (b + shift) % modulus for b in base)))
    return sorted(groups)


# --- Swiss --------------------------------------------------------------------------------------


def swiss_round(
    standings: Sequence[float],
    history: Iterable[tuple[int, int]],
    seed: int,
    *,
    byes: Iterable[int] = (),
) -> SwissRound:
    """Pair the next Swiss round (two-player tables).

    Args:
        standings: each entrant's points so far (a bye counts :data:`BYE_POINTS`).
        history: the pairs that have played, in any order (repeats allowed, e.g. one per
            table of a duplicate pair).
        seed: orders entrants with equal points; pass a different one each round (e.g.
            ``derive_seed(tournament_seed, "swiss", round)``).
        byes: the entrants who have had a bye (one item per bye).

    Returns:
        The round's pairs, top of the standings first, and the bye (odd fields).

    Raises:
        ValueError: fewer than two entrants, or an entrant in ``history`` that does not exist.
    """
    n = len(standings)
    if n < 2:
        raise ValueError(f"a Swiss round needs two or more entrants, not {n}")
    met: Counter[frozenset[int]] = Counter()
    for a, b in history:
        if not (0 <= a < n and 0 <= b < n) or a == b:
            raise ValueError(f"history holds a pair that cannot have played: {(a, b)}")
        met[frozenset((a, b))] += 1
    had_bye = Counter(byes)
    rank = sorted(range(n), key=lambda e: (-standings[e], derive_seed(seed, "swiss-rank", e), e))
    candidates: list[int | None] = [None]
    if n % 2:
        position = {e: i for i, e in enumerate(rank)}
        candidates = [*sorted(rank, key=lambda e: (had_bye[e], -position[e]))]
    for allowed in range(n // 2 + 1):
        for bye in candidates:
            field = [e for e in rank if e != bye]
            pairs = _pair(field, met, allowed)
            if pairs is not None:
                repeats = sum(1 for a, b in pairs if met[frozenset((a, b))])
                return SwissRound(tuple(pairs), bye, repeats)
    raise AssertionError("unreachable: adjacent pairing allows every repeat")  # pragma: no cover


def swiss_tables(
    n_entrants: int,
    points: Sequence[float],
    played: Iterable[Sequence[int]],
    round_number: int,
    first_index: int,
    seed: int,
    *,
    byes: Iterable[int] = (),
) -> list[Table]:
    """The tables of the next Swiss round: :func:`swiss_round`, each pair on a duplicate deal.

    Args:
        n_entrants: how many entrants.
        points: each entrant's points so far, bye points included.
        played: the seats of every table played so far (both tables of a duplicate pair may
            be given; only who met whom counts).
        round_number: this round, from 1.
        first_index: the index of the round's first table (the number of tables before it).
        seed: the tournament seed (the round's pairing seed and deals derive from it).
        byes: the entrants who had a bye in earlier rounds: in a Swiss tournament, the one
            entrant with no table in a round.

    Returns:
        Two tables per pair (both seatings of one deal); the bye, if any, has none: it is
        :func:`swiss_round`'s and is recomputed as the entrant missing from the round.
    """
    if len(points) != n_entrants:
        raise ValueError(f"{len(points)} point totals for {n_entrants} entrants")
    history = []
    for seats in played:
        history += [(a, b) for a, b in itertools.combinations(seats, 2)]
    pairing = swiss_round(points, history, derive_seed(seed, "swiss", round_number), byes=byes)
    tables = seat_groups(pairing.pairs, round_number=round_number, first_index=0, seed=seed)
    # seat_groups orders the groups by the seed; keep the pairing's order (top boards first).
    order = {tuple(sorted(p)): i for i, p in enumerate(pairing.pairs)}
    tables.sort(key=lambda t: (order[tuple(sorted(t.seats))], t.rotation))
    out = []
    for i, t in enumerate(tables):
        index = first_index + i
        out.append(Table(index, round_number, t.seats, t.seed, index // 2, t.rotation))
    return out


def _pair(
    field: Sequence[int], met: Counter[frozenset[int]], allowed: int
) -> list[tuple[int, int]] | None:
    """Pair ``field`` (in rank order) top-down with at most ``allowed`` repeat pairs, or None.

    Each bot in turn (highest-ranked unpaired first) takes the nearest-ranked partner that
    keeps the repeats within ``allowed``; on a dead end the search backtracks. Exhaustive
    within :data:`SWISS_BUDGET` steps, then gives up (None).
    """
    free = list(field)
    pairs: list[tuple[int, int]] = []
    steps = 0

    def extend(repeats: int) -> bool | None:
        nonlocal steps
        if not free:
            return True
        steps += 1
        if steps > SWISS_BUDGET:
            return None
        top = free[0]
        if allowed == repeats and len(free) > 2:
            # prune: a bot that has met everyone left cannot be paired without a repeat
            rest = set(free)
            for e in free:
                if all(met[frozenset((e, o))] for o in rest if o != e):
                    return False
        for j in range(1, len(free)):
            partner = free[j]
            cost = 1 if met[frozenset((top, partner))] else 0
            if repeats + cost > allowed:
                continue
            del free[j]
            del free[0]
            pairs.append((top, partner))
            found = extend(repeats + cost)
            if found is not False:
                return found
            pairs.pop()
            free.insert(0, top)
            free.insert(j, partner)
        return False

    return pairs if extend(0) else None


def _check(n_entrants: int, players: int, rounds: int) -> None:
    if not 2 <= players <= 4:
        raise ValueError(f"tables have 2 to 4 players, not {players}")
    if n_entrants < players:
        raise ValueError(
            f"{players}-player tables need {players} or more entrants, not {n_entrants}"
        )
    if rounds < 1:
        raise ValueError(f"rounds must be at least 1, not {rounds}")
