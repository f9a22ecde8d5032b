"""Standings for people and programs: the final report, ``arena standings`` text, JSON, CSV."""

from __future__ import annotations

import csv
import io
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.table import Table

from arena.tournament.live import standings_table
from arena.tournament.ratings_view import RatingsView, compute_ratings
from arena.tournament.standings import Standings, compute_standings
from arena.tournament.store import Store

WIDTH = 120


def _render(*parts: object) -> str:
    buffer = io.StringIO()
    console = Console(file=buffer, width=WIDTH, color_system=None, highlight=False)
    for part in parts:
        console.print(part)
    return buffer.getvalue().rstrip("\n")


def cross_table(standings: Standings) -> Table:
    """Points each bot (row) took from each other bot (column), over the games they met."""
    table = Table(title="cross-table: row's points / games against column", title_justify="left")
    bots = standings.bots
    table.add_column("bot")
    for column, _bot in enumerate(bots, start=1):
        table.add_column(str(column), justify="right")
    for row, bot in enumerate(bots, start=1):
        cells = []
        for other in bots:
            if other.entrant == bot.entrant:
                cells.append("-")
                continue
            pair = standings.cross.get((bot.entrant, other.entrant))
            cells.append("" if pair is None else f"{pair.points:g}/{pair.games}")
        table.add_row(f"{row}. {bot.name}", *cells)
    return table


def ratings_table(ratings: RatingsView) -> Table:
    """The ratings: Plackett-Luce mean ± sigma, and for two-player tournaments Elo with CIs."""
    table = Table(title="ratings", title_justify="left")
    table.add_column("bot")
    table.add_column("rating (mu ± sigma)", justify="right")
    table.add_column("conservative", justify="right")
    if ratings.elo:
        table.add_column("Elo (games) 95% CI", justify="right")
        table.add_column("Elo (paired deals) 95% CI", justify="right")
        table.add_column("LOS", justify="right")
    for line in ratings.lines:
        cells = [line.name, f"{line.mu:.2f} ± {line.sigma:.2f}", f"{line.conservative:.2f}"]
        elo = ratings.elo.get(line.entrant)
        if ratings.elo:
            if elo is None:
                cells += ["-", "-", "-"]
            else:
                cells += [elo.games_text, elo.paired_text, f"{elo.los:.1%}"]
        table.add_row(*cells)
    return table


def standings_text(store: Store) -> str:
    """Standings, ratings and cross-table as text (what ``arena standings`` prints)."""
    standings = compute_standings(store.entrants(), store.matches())
    return _render(
        standings_table(standings, title=f"standings after {standings.matches} matches"),
        ratings_table(compute_ratings(store)),
        cross_table(standings),
    )


def final_report(
    store: Store, standings: Standings, out_dir: Path, db: Path, *, report: Path | None = None
) -> str:
    """What a finished tournament prints: the tables, then where everything is (``report``:
    its web page, when written)."""
    excluded = [e for e in store.entrants() if e.excluded is not None]
    lines = [
        _render(
            standings_table(standings, title=f"final standings ({standings.matches} matches)"),
            ratings_table(compute_ratings(store)),
            cross_table(standings),
        ),
        "",
    ]
    for entrant in excluded:
        lines.append(f"left out: {entrant.name}: {entrant.excluded}")
    lines += [
        f"database: {db}   (arena standings --db {db})",
        f"replays:  {out_dir / 'replays'}   (arena view REPLAY; arena verify REPLAY)",
    ]
    if report is not None:
        lines.append(f"report:   {report}   (open it in a browser; arena report --db {db})")
    failed = sum(sum(b.failures.values()) for b in standings.bots)
    if failed:
        lines.append(
            f"failures: {failed} (see each failed match's replay: its seats record the evidence)"
        )
    return "\n".join(lines)


def standings_document(store: Store) -> dict[str, Any]:
    """Standings, ratings and cross-table as one JSON-ready document."""
    standings = compute_standings(store.entrants(), store.matches())
    ratings = compute_ratings(store)
    names = {b.entrant: b.name for b in standings.bots}
    return {
        "matches": standings.matches,
        "standings": [
            {
                "place": place,
                "name": b.name,
                "matches": b.matches,
                "wins": b.wins,
                "draws": b.draws,
                "losses": b.losses,
                "points": b.points,
                "avg_hand_score": round(b.avg_hand_score, 3),
                "failures": dict(b.failures),
                "median_ms": b.median_ms,
                "p95_ms": b.p95_ms,
            }
            for place, b in enumerate(standings.bots, start=1)
        ],
        "ratings": ratings.to_json(),
        "cross_table": [
            {"bot": names[a], "opponent": names[b], "games": p.games, "points": p.points}
            for (a, b), p in sorted(standings.cross.items())
            if a in names and b in names
        ],
        "excluded": [
            {"name": e.name, "reason": e.excluded}
            for e in store.entrants()
            if e.excluded is not None
        ],
    }


def standings_csv(store: Store) -> str:
    """The standings as CSV, one row per bot, best first."""
    document = standings_document(store)
    buffer = io.StringIO()
    fields = [
        "place",
        "name",
        "matches",
        "wins",
        "draws",
        "losses",
        "points",
        "avg_hand_score",
        "median_ms",
        "p95_ms",
        "failures",
    ]
    writer = csv.DictWriter(buffer, fieldnames=fields, lineterminator="\n")
    writer.writeheader()
    for row in document["standings"]:
        row = dict(row)
        row["failures"] = ";".join(f"{k}={v}" for k, v in sorted(row["failures"].items()))
        writer.writerow(row)
    return buffer.getvalue()
