"""Standings for people and programs: the final report, ``arena standings`` text, JSON, CSV.

Every form has each bot's strikes and restarts (failure policy ``lenient``): JSON keys and CSV
columns always, the text table only for a bot that had some. The text says the failure policy
when it is not strict, and where each failed match's failure bundle is.
"""

from __future__ import annotations

import csv
import io
from collections import Counter
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.table import Table
from rich.text import Text

from arena.failure_report import bundle_path, rematch_command
from arena.failure_text import FailureEntry, explain, failures_of
from arena.policy import FailurePolicy
from arena.replay import Replay, ReplayError, read_replay
from arena.text import printable, printable_block, shell_line
from arena.tournament.live import name_cell, ready_names_line, standings_table
from arena.tournament.ratings_view import RatingsView, compute_ratings
from arena.tournament.report_matches import find_bundle, find_replay, tournament_policy
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
        table.add_row(Text(f"{row}. ").append_text(name_cell(bot.name)), *cells)
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
        cells: list[str | Text] = [name_cell(line.name), f"{line.mu:.2f} ± {line.sigma:.2f}"]
        cells.append(f"{line.conservative:.2f}")
        elo = ratings.elo.get(line.entrant)
        if ratings.elo:
            if elo is None:
                cells += ["-", "-", "-"]
            else:
                cells += [elo.games_text, elo.paired_text, f"{elo.los:.1%}"]
        table.add_row(*cells)
    return table


def policy_text(store: Store) -> str | None:
    """``lenient (3 strikes, 1 restart)`` when the tournament's failure policy is not strict;
    ``None`` for strict (the default, said nowhere)."""
    policy = tournament_policy(store)
    if policy is None:
        raw = (store.config() or {}).get("policy")
        return f"{raw!r} (not one the arena knows)"
    return None if policy.name == "strict" else policy.describe()


def _plural(count: int, word: str, plural: str = "") -> str:
    """``1 strike``, ``2 strikes``, ``3 matches`` (with ``plural="matches"``)."""
    return f"{count} {word if count == 1 else plural or word + 's'}"


def failures_line(store: Store, standings: Standings) -> str | None:
    """The final report's line on failures, or ``None`` when nothing failed: how many (the
    forfeits, and the strikes and restarts when there were any), in how many matches, and
    where each match's failure bundle is (``NAME.failures/`` beside its replay)."""
    forfeits = sum(sum(b.failures.values()) for b in standings.bots)
    strikes = sum(b.strikes for b in standings.bots)
    restarts = sum(b.restarts for b in standings.bots)
    if not (forfeits or strikes or restarts):
        return None
    failed = [
        row
        for row in store.matches()
        if any(s.failure is not None or s.strikes or s.restarts for s in row.summary.seats)
    ]
    if strikes or restarts:
        counts = [_plural(forfeits, "forfeit"), _plural(strikes, "strike")]
        counts.append(_plural(restarts, "restart"))
        what = f"{', '.join(counts)} in {_plural(len(failed), 'match', 'matches')}"
    else:
        what = str(forfeits)
    db_dir = store.path.parent
    bundled = [
        replay
        for replay in (find_replay(row.replay, db_dir) for row in failed)
        if replay is not None and find_bundle(replay) is not None
    ]
    if failed and len(bundled) == len(failed):
        where = "each failed match has a NAME.failures/ folder beside its replay: README.txt "
        where += "explains it"
    elif bundled:
        where = f"{len(bundled)} of the {len(failed)} failed matches have a NAME.failures/ "
        where += "folder beside their replay (README.txt explains it); the others' replays "
        where += "record the evidence in their seats"
    else:
        where = "see each failed match's replay: its seats record the evidence"
    return f"failures: {what} ({where})"


def standings_text(store: Store) -> str:
    """Standings, ratings and cross-table as text (what ``arena standings`` prints), after the
    failure policy when it is not strict."""
    standings = compute_standings(store.entrants(), store.matches())
    policy = policy_text(store)
    said = ready_names_line(standings)
    return _render(
        *([f"failure policy: {policy}"] if policy else []),
        standings_table(standings, title=f"standings after {standings.matches} matches"),
        *([Text(said)] if said else []),  # Text: a bot's name is never read as markup
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
            *[Text(line) for line in filter(None, [ready_names_line(standings)])],
            ratings_table(compute_ratings(store)),
            cross_table(standings),
        ),
        "",
    ]
    for entrant in excluded:
        lines.append(
            f"left out: {printable(entrant.name)}: {printable_block(entrant.excluded or '')}"
        )
    lines += [
        f"database: {printable(str(db))}   ({shell_line('arena', 'standings', '--db', db)})",
        f"replays:  {printable(str(out_dir / 'replays'))}   (arena view REPLAY; arena verify"
        " REPLAY)",
    ]
    if report is not None:
        lines.append(
            f"report:   {printable(str(report))}   (open it in a browser; "
            f"{shell_line('arena', 'report', '--db', db)})"
        )
    policy = policy_text(store)
    if policy is not None:
        lines.append(f"policy:   {policy}   (docs/failure-policies.md)")
    failures = failures_line(store, standings)
    if failures is not None:
        lines.append(failures)
    policy_now = tournament_policy(store)
    if policy_now is not None and policy_now.loud:
        lines += classroom_lines(store)
    return "\n".join(lines)


def classroom_lines(store: Store) -> list[str]:
    """Under ``classroom``: each bot's first failure explained at length (what went wrong,
    the last lines exchanged, the evidence, the stderr tail, the rematch command), and how many
    more it had: what a student reads first at the end of a graded tournament."""
    db_dir = store.path.parent
    names = {e.id: e.name for e in store.entrants()}
    first: dict[int, tuple[Replay, Path, FailureEntry]] = {}
    more: Counter[int] = Counter()
    for row in store.matches():
        if all(s.failure is None and not s.strikes and not s.restarts for s in row.summary.seats):
            continue
        path = find_replay(row.replay, db_dir)
        if path is None:
            continue
        try:
            replay = read_replay(path)
        except ReplayError:
            continue
        if len(replay.seats) != len(row.table.seats):  # the replay of another match
            continue
        for entry in failures_of(replay):
            entrant = row.table.seats[entry.seat]
            if entrant in first:
                more[entrant] += 1
            else:
                first[entrant] = (replay, path, entry)
    lines: list[str] = []
    for entrant in sorted(first, key=lambda e: names.get(e, "")):
        replay, path, entry = first[entrant]
        bundle = bundle_path(path)
        copy = bundle / "replay.json"
        rematch = rematch_command(copy if copy.is_file() else path)
        lines += ["", f"{printable(names.get(entrant, '?'))}: its first failure, explained"]
        lines.append(explain(replay, entry, rematch))
        if more[entrant]:
            lines.append(
                f"... and {_plural(more[entrant], 'more failure')} of {names.get(entrant, '?')}"
                " (each failed match's NAME.failures/README.txt explains them)"
            )
    return lines


def standings_document(store: Store) -> dict[str, Any]:
    """Standings, ratings and cross-table as one JSON-ready document."""
    standings = compute_standings(store.entrants(), store.matches())
    ratings = compute_ratings(store)
    names = {b.entrant: b.name for b in standings.bots}
    policy = tournament_policy(store)
    return {
        "matches": standings.matches,
        "policy": (store.config() or {}).get("policy")
        if policy is None
        else _policy_document(policy),
        "standings": [
            {
                "place": place,
                "name": b.name,
                "ready_name": b.ready_name,
                "matches": b.matches,
                "wins": b.wins,
                "draws": b.draws,
                "losses": b.losses,
                "points": b.points,
                "avg_hand_score": round(b.avg_hand_score, 3),
                "failures": dict(b.failures),
                "strikes": b.strikes,
                "restarts": b.restarts,
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


def _policy_document(policy: FailurePolicy) -> dict[str, Any]:
    """``{"name": "lenient", "strikes": 3, "restarts": 1}``: every field, defaults too."""
    return {"name": policy.name, "strikes": policy.strikes, "restarts": policy.restarts}


_ELO_COLUMNS = tuple(
    f"elo_{kind}{part}" for kind in ("games", "paired") for part in ("", "_lo", "_hi", "_samples")
)


def _elo_cells(rating: dict[str, Any]) -> dict[str, Any]:
    """A bot's Elo columns: empty cells when the tournament is not two-player, and for the
    estimate and its bounds when there are too few samples (the samples column says how
    many) or the bound is infinite."""
    cells: dict[str, Any] = {}
    for kind in ("games", "paired"):
        estimate = rating.get(f"elo_{kind}") or {}
        cells[f"elo_{kind}"] = estimate.get("elo")
        cells[f"elo_{kind}_lo"] = estimate.get("lo")
        cells[f"elo_{kind}_hi"] = estimate.get("hi")
        cells[f"elo_{kind}_samples"] = estimate.get("samples")
    return cells


def standings_csv(store: Store) -> str:
    """The standings as CSV, one row per bot, best first."""
    document = standings_document(store)
    buffer = io.StringIO()
    fields = [
        "place",
        "name",
        "ready_name",
        "matches",
        "wins",
        "draws",
        "losses",
        "points",
        "avg_hand_score",
        "median_ms",
        "p95_ms",
        *_ELO_COLUMNS,
        "failures",
        "strikes",
        "restarts",
    ]
    writer = csv.DictWriter(buffer, fieldnames=fields, lineterminator="\n")
    writer.writeheader()
    elo = {r["name"]: r for r in document["ratings"]}
    for row in document["standings"]:
        row = dict(row)
        row.update(_elo_cells(elo.get(row["name"], {})))
        row["failures"] = ";".join(f"{k}={v}" for k, v in sorted(row["failures"].items()))
        writer.writerow(row)
    return buffer.getvalue()
