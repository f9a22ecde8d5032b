"""Standings from recorded matches: points, results, failures, response times, cross-table.

Pure: a function of the stored matches and entrants. Points are the share of opponents a bot
finished ahead of at each table, ties counting half: in a two-player match a win is 1, a draw
0.5 and a loss 0; at a table of four, second place is worth 2/3.
"""

from __future__ import annotations

import dataclasses
import math
from collections import Counter
from dataclasses import dataclass, field

from arena.replay import Status
from arena.text import bot_label
from arena.tournament.store import EntrantRow, MatchRow


@dataclass
class BotStanding:
    """One bot's line in the standings."""

    entrant: int
    name: str
    matches: int = 0
    wins: int = 0
    draws: int = 0
    losses: int = 0
    points: float = 0.0
    score_total: int = 0
    hands: int = 0
    failures: Counter[str] = field(default_factory=Counter)
    response_ms: list[float] = field(default_factory=list)
    strikes: int = 0
    restarts: int = 0
    ready_names: Counter[str] = field(default_factory=Counter)

    @property
    def ready_name(self) -> str | None:
        """The name the bot said in ``ready`` most often (``None`` if it never said one)."""
        common = self.ready_names.most_common(1)
        return common[0][0] if common else None

    @property
    def label(self) -> str:
        """Its name as outputs show it: ``greedy (ready: greedy-py)`` where the two differ."""
        return bot_label(self.name, self.ready_name)

    @property
    def avg_hand_score(self) -> float:
        """Points scored per hand played, over all its matches."""
        return self.score_total / self.hands if self.hands else 0.0

    @property
    def median_ms(self) -> float | None:
        """The median time it took to answer a request, in milliseconds."""
        return percentile(self.response_ms, 50)

    @property
    def p95_ms(self) -> float | None:
        """The 95th percentile of its response times, in milliseconds."""
        return percentile(self.response_ms, 95)


@dataclass
class PairRecord:
    """How bot ``a`` did against bot ``b`` at the tables where both sat."""

    games: int = 0
    points: float = 0.0


@dataclass
class Standings:
    """The standings of a tournament: one line per bot (best first) and the cross-table."""

    bots: list[BotStanding]
    cross: dict[tuple[int, int], PairRecord]
    matches: int


def percentile(values: list[float], pct: float) -> float | None:
    """The ``pct`` percentile of ``values`` (nearest rank), or ``None`` when empty."""
    if not values:
        return None
    ordered = sorted(values)
    rank = max(1, math.ceil(pct / 100 * len(ordered)))
    return ordered[rank - 1]


def table_points(ranks: list[int], seat: int) -> float:
    """The points of ``seat`` at a table: opponents finished ahead of, ties counting half."""
    mine = ranks[seat]
    others = [r for s, r in enumerate(ranks) if s != seat]
    if not others:
        return 0.0
    beaten = sum(1 for r in others if r > mine) + 0.5 * sum(1 for r in others if r == mine)
    return beaten / len(others)


class StandingsTally:
    """Standings kept up to date one match at a time (the live view of a long tournament):
    adding a match costs the same at the first match and at the hundred-thousandth.

    :meth:`snapshot` gives :class:`Standings` equal to :func:`compute_standings` over the
    same entrants and matches, independent of the matches added after it.
    """

    def __init__(self, entrants: list[EntrantRow]) -> None:
        self.lines = {e.id: BotStanding(e.id, e.name) for e in entrants if e.excluded is None}
        self.cross: dict[tuple[int, int], PairRecord] = {}
        self.matches = 0

    def add(self, match: MatchRow) -> None:
        """Count one more recorded match."""
        self.matches += 1
        lines, cross = self.lines, self.cross
        seats = match.table.seats
        ranks = [s.rank for s in match.summary.seats]
        for s in match.summary.seats:
            entrant = seats[s.seat]
            line = lines.setdefault(entrant, BotStanding(entrant, s.name))
            line.matches += 1
            first = [r for r in ranks if r == 1]
            if s.rank == 1 and len(first) == 1:
                line.wins += 1
            elif s.rank == 1:
                line.draws += 1
            else:
                line.losses += 1
            line.points += table_points(ranks, s.seat)
            line.score_total += s.score
            line.hands += match.summary.hands
            if s.failure is not None:
                line.failures[s.failure] += 1
            line.strikes += s.strikes
            line.restarts += s.restarts
            line.response_ms.extend(s.response_ms)
            if not (s.status is not Status.OK and s.name == f"seat{s.seat}"):  # said no name
                line.ready_names[s.name] += 1
            for other in match.summary.seats:
                if other.seat == s.seat:
                    continue
                pair = cross.setdefault((entrant, seats[other.seat]), PairRecord())
                pair.games += 1
                if s.rank < other.rank:
                    pair.points += 1
                elif s.rank == other.rank:
                    pair.points += 0.5

    def snapshot(self, *, cross: bool = True) -> Standings:
        """The standings so far, ordered by points, then wins, then name (copies: later
        :meth:`add` calls do not change them); without the cross-table (empty) when not
        ``cross``: the live view does not show it, and a big one costs most of the copy."""
        bots = [
            dataclasses.replace(
                b,
                failures=Counter(b.failures),
                response_ms=list(b.response_ms),
                ready_names=Counter(b.ready_names),
            )
            for b in self.lines.values()
        ]
        pairs = {k: PairRecord(v.games, v.points) for k, v in self.cross.items()} if cross else {}
        ordered = sorted(bots, key=lambda b: (-b.points, -b.wins, b.name))
        return Standings(ordered, pairs, self.matches)


def compute_standings(entrants: list[EntrantRow], matches: list[MatchRow]) -> Standings:
    """Standings over every recorded match, ordered by points, then wins, then name."""
    tally = StandingsTally(entrants)
    for match in matches:
        tally.add(match)
    return tally.snapshot()
