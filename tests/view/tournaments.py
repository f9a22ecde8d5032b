"""Real small tournaments for the report tests, played in the test through ``arena tournament``,
and what the report should show of them, read from the database with plain SQL (never through
the standings code the report itself uses)."""

from __future__ import annotations

import json
import sqlite3
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

from tests.view.matches import ROOT

PY = sys.executable

#: Three quick bots: two that never fail and one that plays an illegal move at its 3rd request.
QUICK_BOTS = [
    f"{PY} sample_bots/greedy.py",
    f"{PY} sample_bots/random_bot.py",
    f"{PY} tests/bots/player.py illegal 3",
]


@dataclass(frozen=True)
class Played:
    """A finished tournament: its folder, database, and what ``arena tournament`` printed."""

    out: Path
    db: Path
    stdout: str
    stderr: str

    @property
    def report(self) -> Path:
        """The report ``arena tournament`` writes at its end."""
        return self.out / "report.html"


def play_tournament(out: Path, *extra: str, bots: list[str] | None = None, seed: int = 4) -> Played:
    """Run ``arena tournament`` on ``bots`` (default :data:`QUICK_BOTS`) into ``out``."""
    command = [
        PY, "-m", "arena", "tournament", *(bots or QUICK_BOTS), "--hands", "2", "--seed", str(seed),
        "--out", str(out), "--concurrency", "3", "--workers", "2", "--move-ms", "3000",
        "--startup-ms", "10000", *extra,
    ]  # fmt: skip
    run = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stdout + run.stderr
    return Played(out, out / "tournament.db", run.stdout, run.stderr)


@dataclass(frozen=True)
class SeatRow:
    """One seat of a recorded match, as stored."""

    entrant: str
    status: str
    detail: str
    score: int
    rank: int


@dataclass(frozen=True)
class StoredMatch:
    """One recorded match, as stored."""

    table: int
    round: int
    replay: str
    winner: int | None
    seats: list[SeatRow]


def stored_matches(db: Path) -> list[StoredMatch]:
    """Every recorded match of ``db`` in table order, seats in seat order, by plain SQL."""
    with sqlite3.connect(db) as conn:
        names = dict(conn.execute("SELECT id, name FROM entrants").fetchall())
        seats: dict[int, list[SeatRow]] = {}
        for table, entrant, status, detail, score, rank in conn.execute(
            "SELECT table_idx, entrant, status, detail, score, rank FROM seats "
            "ORDER BY table_idx, seat"
        ):
            seats.setdefault(table, []).append(SeatRow(names[entrant], status, detail, score, rank))
        rows = conn.execute(
            "SELECT m.table_idx, t.round, m.replay, m.winner_seat FROM matches m "
            "JOIN tables t ON t.idx = m.table_idx ORDER BY m.table_idx"
        ).fetchall()
    return [StoredMatch(t, r, replay, w, seats[t]) for t, r, replay, w in rows]


def expected_points(matches: list[StoredMatch]) -> dict[str, tuple[float, int, int, int]]:
    """Each bot's (points, wins, draws, losses): at each table, the share of the opponents it
    finished ahead of (ties half); a win is first place alone."""
    out: dict[str, list[float]] = {}
    for match in matches:
        ranks = [s.rank for s in match.seats]
        for i, seat in enumerate(match.seats):
            others = [r for j, r in enumerate(ranks) if j != i]
            share = (sum(r > seat.rank for r in others) + 0.5 * others.count(seat.rank)) / len(
                others
            )
            line = out.setdefault(seat.entrant, [0.0, 0, 0, 0])
            line[0] += share
            if seat.rank == 1 and ranks.count(1) == 1:
                line[1] += 1
            elif seat.rank == 1:
                line[2] += 1
            else:
                line[3] += 1
    return {k: (v[0], int(v[1]), int(v[2]), int(v[3])) for k, v in out.items()}


def expected_cross(matches: list[StoredMatch]) -> dict[tuple[str, str], tuple[float, int]]:
    """(row bot, column bot) -> (row's points against column, games both sat at)."""
    out: dict[tuple[str, str], tuple[float, int]] = {}
    for match in matches:
        for a in match.seats:
            for b in match.seats:
                if a is b:
                    continue
                points, games = out.get((a.entrant, b.entrant), (0.0, 0))
                won = 1.0 if a.rank < b.rank else 0.5 if a.rank == b.rank else 0.0
                out[(a.entrant, b.entrant)] = (points + won, games + 1)
    return out


def stored_config(db: Path) -> dict[str, object]:
    """The tournament's settings as stored."""
    with sqlite3.connect(db) as conn:
        (text,) = conn.execute("SELECT value FROM meta WHERE key = 'config'").fetchone()
    config: dict[str, object] = json.loads(text)
    return config
