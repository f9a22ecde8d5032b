"""The ratings of a tournament, computed from its database for the standings and reports.

Plackett-Luce skill for every table size (matches fed in schedule order, so the ratings do not
depend on which worker finished first); for two-player tournaments also each bot's Elo against
the field, from single games and from duplicate-deal pairs (the two games of one deal, once in
each seat, as one sample).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from arena.replay import Status
from arena.tournament.ratings import (
    EloEstimate,
    elo_from_games,
    elo_from_pairs,
    match_ranks,
    skill_ratings,
)
from arena.tournament.store import MatchRow, Store

MIN_ELO_SAMPLES = 10
"""The fewest samples (games, or duplicate-deal pairs) an Elo interval is shown for: below it
the normal approximation's interval is mostly clamped to ``[-inf, +inf]`` (two games, one won,
give exactly that), so the text says "too few games" and the JSON has ``null`` bounds."""


@dataclass(frozen=True)
class RatingLine:
    """One bot's Plackett-Luce skill."""

    entrant: int
    name: str
    mu: float
    sigma: float
    conservative: float
    matches: int


@dataclass(frozen=True)
class EloLine:
    """One bot's Elo against the field: from single games, and from paired deals."""

    games: EloEstimate
    paired: EloEstimate

    @property
    def games_text(self) -> str:
        """``+35.2 [-10.1, +80.4]``, ``too few games (4 of 10)`` or ``no games``."""
        return _interval(self.games, "games")

    @property
    def paired_text(self) -> str:
        """The same from paired duplicate deals (``too few pairs (2 of 10)``)."""
        return _interval(self.paired, "pairs")

    @property
    def los(self) -> float:
        """Likelihood of superiority over the field, from the paired samples."""
        return self.paired.los if self.paired.n else self.games.los


@dataclass(frozen=True)
class RatingsView:
    """Ratings of every bot, best first, with Elo lines for two-player tournaments."""

    lines: list[RatingLine]
    elo: dict[int, EloLine]

    def to_json(self) -> list[dict[str, Any]]:
        """JSON-ready ratings, best first."""
        out = []
        for line in self.lines:
            item: dict[str, Any] = {
                "name": line.name,
                "mu": round(line.mu, 4),
                "sigma": round(line.sigma, 4),
                "conservative": round(line.conservative, 4),
                "matches": line.matches,
            }
            elo = self.elo.get(line.entrant)
            if elo is not None:
                item["elo_games"] = _elo_json(elo.games)
                item["elo_paired"] = _elo_json(elo.paired)
            out.append(item)
        return out


def too_few(estimate: EloEstimate) -> bool:
    """Whether ``estimate`` has fewer than `MIN_ELO_SAMPLES` samples to show an interval for."""
    return estimate.n < MIN_ELO_SAMPLES


def _interval(estimate: EloEstimate, unit: str) -> str:
    if estimate.n == 0:
        return "no games"
    if too_few(estimate):
        return f"too few {unit} ({estimate.n} of {MIN_ELO_SAMPLES})"
    return f"{_num(estimate.elo)} [{_num(estimate.lo)}, {_num(estimate.hi)}]"


def _num(value: float) -> str:
    if math.isinf(value):
        return "+inf" if value > 0 else "-inf"
    return f"{value:+.1f}"


def _elo_json(estimate: EloEstimate) -> dict[str, Any]:
    def finite(value: float) -> float | None:
        return None if math.isinf(value) else round(value, 2)

    few = too_few(estimate)
    return {
        "elo": None if few else finite(estimate.elo),
        "lo": None if few else finite(estimate.lo),
        "hi": None if few else finite(estimate.hi),
        "los": round(estimate.los, 4),
        "samples": estimate.n,
        "saturated": estimate.saturated,
        "too_few": few,
        "min_samples": MIN_ELO_SAMPLES,
    }


def seat_ranks(row: MatchRow) -> tuple[int, ...]:
    """Each seat's rank in a match (0 best, ties equal, failed bots below the rest)."""
    summary = row.summary
    retired = [s.seat for s in summary.seats if s.status is not Status.OK]
    return match_ranks(summary.scores, summary.ranking, retired)


def compute_ratings(store: Store) -> RatingsView:
    """The ratings over every recorded match of ``store``."""
    entrants = [e for e in store.entrants() if e.excluded is None]
    position = {e.id: i for i, e in enumerate(entrants)}
    rows = sorted(store.matches(), key=lambda r: r.table.idx)
    matches = [
        ([position[e] for e in row.table.seats], seat_ranks(row))
        for row in rows
        if all(e in position for e in row.table.seats)
    ]
    lines = []
    if entrants:
        for rating in skill_ratings(len(entrants), matches):
            entrant = entrants[rating.entrant]
            lines.append(
                RatingLine(
                    entrant.id,
                    entrant.name,
                    rating.mu,
                    rating.sigma,
                    rating.conservative,
                    rating.matches,
                )
            )
    two_player = bool(rows) and all(len(r.table.seats) == 2 for r in rows)
    elo = _elo_lines(rows) if two_player else {}
    return RatingsView(lines, elo)


def _elo_lines(rows: list[MatchRow]) -> dict[int, EloLine]:
    """Each bot's single-game scores and duplicate-deal pairs against whoever it met."""
    games: dict[int, list[float]] = {}
    by_deal: dict[tuple[int, frozenset[int]], dict[int, list[float]]] = {}
    for row in rows:
        ranks = seat_ranks(row)
        seats = row.table.seats
        for seat, entrant in enumerate(seats):
            other = ranks[1 - seat]
            score = 1.0 if ranks[seat] < other else 0.5 if ranks[seat] == other else 0.0
            games.setdefault(entrant, []).append(score)
            deal = (row.table.deal_group, frozenset(seats))
            by_deal.setdefault(deal, {}).setdefault(entrant, []).append(score)
    pairs: dict[int, list[tuple[float, float]]] = {}
    for scores in by_deal.values():
        for entrant, own in scores.items():
            if len(own) == 2:
                pairs.setdefault(entrant, []).append((own[0], own[1]))
    return {
        entrant: EloLine(elo_from_games(scores), elo_from_pairs(pairs.get(entrant, [])))
        for entrant, scores in games.items()
    }
