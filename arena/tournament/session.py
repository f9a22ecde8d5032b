"""Starting and resuming tournaments: what ``arena tournament`` does between parsing its flags
and printing the standings."""

from __future__ import annotations

import time
from dataclasses import dataclass
from pathlib import Path

import trio

from arena.referee.sandbox import SandboxPlan
from arena.text import printable_block
from arena.tournament.entrants import Entrant, Excluded, prepare, scan, too_few_text
from arena.tournament.live import Reporter, RunProgress
from arena.tournament.runner import RunOptions, TournamentRun, initial_tables
from arena.tournament.settings import TournamentSettings
from arena.tournament.standings import Standings
from arena.tournament.store import EntrantRow, Store, StoreError


class SessionError(Exception):
    """The tournament cannot start or resume; the message says why."""


@dataclass(frozen=True)
class Opened:
    """A tournament ready to run: its database, settings, and the bots left out."""

    store: Store
    settings: TournamentSettings
    excluded: list[Excluded]
    skipped: list[str]


def open_new(
    bots: list[str],
    settings: TournamentSettings,
    db_path: Path,
    *,
    build_timeout_s: float = 300.0,
    sandbox: SandboxPlan | None = None,
) -> Opened:
    """Find the bots, build them, check their handshake, and create the tournament database.

    ``sandbox`` is the plan made for the tournament's settings: the builds and the handshakes
    run in it (`prepare`); ``None`` runs them uncontained.

    Raises:
        EntrantError: a bad bot argument or manifest (the message lists every problem).
        SessionError: too few bots left, or a database that already holds a tournament.
    """
    found = scan(bots)
    given = len(found.entrants)
    too_few = too_few_text(given, given, settings.players)
    if too_few is not None:  # no build or handshake can help
        raise SessionError(too_few)
    kept, excluded = trio.run(
        lambda: prepare(
            found.entrants,
            startup_ms=settings.startup_ms,
            build_timeout_s=build_timeout_s,
            sandbox=sandbox,
        )
    )
    too_few = too_few_text(given, len(kept), settings.players)
    if too_few is not None:
        raise SessionError(too_few + _excluded_text(excluded))
    rows = _entrant_rows(found.entrants, excluded)
    ids = [r.id for r in rows if r.excluded is None]
    try:
        store = Store(db_path)
        store.create(settings.to_dict(), rows, initial_tables(settings, ids))
    except StoreError as error:
        raise SessionError(str(error)) from None
    skipped = [f"{s.path}: {s.reason}" for s in found.skipped]
    return Opened(store, settings, excluded, skipped)


def open_existing(db_path: Path) -> Opened:
    """Reopen a tournament's database to resume it.

    Raises:
        SessionError: no such database, or one with no tournament in it.
    """
    if not db_path.exists():
        raise SessionError(f"no tournament database at {str(db_path)!r} to resume")
    try:
        store = Store(db_path)
    except StoreError as error:
        raise SessionError(str(error)) from None
    config = store.config()
    if config is None:
        raise SessionError(f"{str(db_path)!r} holds no tournament to resume")
    return Opened(store, TournamentSettings.from_dict(config), [], [])


@dataclass(frozen=True)
class RunSummary:
    """The final standings, and what this run measured (matches, moves, time, CPU)."""

    standings: Standings
    progress: RunProgress

    def line(self) -> str:
        """``played 12 matches in 3.1 s (3.9 matches/s, 1,612 moves/s); arena CPU per move
        41.0 µs``."""
        p = self.progress
        elapsed = time.monotonic() - p.started_at
        rate = p.moves / elapsed if elapsed > 0 else 0.0
        cpu = p.cpu_us_per_move
        cpu_text = "" if cpu is None else f"; the arena's own CPU per move: {cpu:.1f} µs"
        return (
            f"played {p.played} matches in {elapsed:.1f} s ({p.matches_per_s:.2f} matches/s, "
            f"{rate:,.0f} moves/s){cpu_text}"
        )


def run(opened: Opened, options: RunOptions, reporter: Reporter) -> RunSummary:
    """Play what is left of the tournament; the final standings and this run's figures."""
    runner = TournamentRun(opened.settings, opened.store, options, reporter)
    try:
        standings = trio.run(runner.run)
        return RunSummary(standings, runner.progress)
    except BaseExceptionGroup as group:
        # trio's nurseries group what their tasks raise; a Ctrl-C or a lone error is reported
        # as itself.
        if group.subgroup(KeyboardInterrupt) is not None:
            raise KeyboardInterrupt from None
        errors = group.exceptions
        if len(errors) == 1 and not isinstance(errors[0], BaseExceptionGroup):
            raise errors[0] from None
        raise


def _entrant_rows(entrants: list[Entrant], excluded: list[Excluded]) -> list[EntrantRow]:
    why = {x.entrant.name: f"{x.stage}: {x.reason}" for x in excluded}
    return [
        EntrantRow(i + 1, e.name, e.command, e.cwd, e.language, why.get(e.name))
        for i, e in enumerate(entrants)
    ]


def _excluded_text(excluded: list[Excluded]) -> str:
    if not excluded:
        return ""
    lines = [f"\n  {x.entrant.name}: {x.stage}: {printable_block(x.reason)}" for x in excluded]
    return "; left out:" + "".join(lines)
