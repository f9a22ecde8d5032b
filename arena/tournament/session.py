"""Starting and resuming tournaments: what ``arena tournament`` does between parsing its flags
and printing the standings."""

from __future__ import annotations

import time
from collections.abc import Callable
from contextlib import AbstractAsyncContextManager
from dataclasses import dataclass
from pathlib import Path

from arena import stop_signals
from arena.errors import ArenaError
from arena.referee.sandbox import SandboxPlan
from arena.text import printable_block
from arena.tournament.entrants import Entrant, Excluded, prepare, scan, too_few_text
from arena.tournament.live import Reporter, RunProgress
from arena.tournament.resume import stored_entrants, stored_meta
from arena.tournament.runner import RunOptions, TournamentRun, initial_tables
from arena.tournament.settings import TournamentSettings
from arena.tournament.standings import Standings
from arena.tournament.store import DiskFullError, EntrantRow, Store, StoreError


class SessionError(ArenaError):
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
    out_dir: Path | None = None,
) -> Opened:
    """Find the bots, build them, check their handshake, and create the tournament database
    (with ``out_dir``, default the database's folder, and the bots' builds, for a resume).

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
    kept, excluded = stop_signals.run(
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
    meta = stored_meta(out_dir or db_path.parent, db_path, found.entrants)
    try:
        store = Store(db_path)
    except StoreError as error:
        raise SessionError(str(error)) from None
    try:
        store.create(settings.to_dict(), rows, initial_tables(settings, ids), meta)
    except DiskFullError:
        store.close()
        raise SessionError(
            f"{db_path}: disk full: free space, then start the tournament again"
        ) from None
    except StoreError as error:
        store.close()
        raise SessionError(str(error)) from None
    skipped = [f"{s.path}: {s.reason}" for s in found.skipped]
    return Opened(store, settings, excluded, skipped)


def open_existing(db_path: Path) -> Opened:
    """Reopen a tournament's database to resume it (this run holds its lock from here on).

    Raises:
        SessionError: no such database, one that is not a tournament's, damaged, or held by
            another run.
    """
    if not db_path.exists():
        raise SessionError(f"no tournament database at {str(db_path)!r} to resume")
    try:
        store = Store(db_path)
    except StoreError as error:
        raise SessionError(str(error)) from None
    try:
        store.check_integrity()
        config = store.config()
        settings = None if config is None else TournamentSettings.from_dict(config)
    except (StoreError, TypeError, ValueError) as error:
        store.close()
        if isinstance(error, StoreError):
            raise SessionError(str(error)) from None
        raise SessionError(
            f"{db_path}: the tournament's stored settings are damaged ({error})"
        ) from None
    if settings is None:
        store.close()
        raise SessionError(f"{str(db_path)!r} holds no tournament to resume")
    return Opened(store, settings, [], [])


def recheck_bots(
    opened: Opened, *, build_timeout_s: float = 300.0, sandbox: SandboxPlan | None = None
) -> None:
    """Build the tournament's bots and check their handshake again, as at its start, before a
    resume plays on: a bot that now fails stops the resume (its matches are not forfeited).

    Raises:
        SessionError: naming every bot that fails and what to do.
    """
    entrants = stored_entrants(opened.store)
    _, excluded = stop_signals.run(
        lambda: prepare(
            entrants,
            startup_ms=opened.settings.startup_ms,
            build_timeout_s=build_timeout_s,
            sandbox=sandbox,
        )
    )
    if excluded:
        failed = "; ".join(
            f"{x.entrant.name} ({x.entrant.command!r}): {x.stage}: {x.reason}" for x in excluded
        )
        raise SessionError(
            f"{len(excluded)} bot(s) of the tournament no longer pass their build and "
            f"handshake ({failed}); a resume plays the bots the tournament started with: "
            "restore them (their files, their folders), then --resume again"
        )


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


def run(
    opened: Opened,
    options: RunOptions,
    reporter: Reporter,
    around: Callable[[], AbstractAsyncContextManager[object]] | None = None,
) -> RunSummary:
    """Play what is left of the tournament; the final standings and this run's figures.

    ``around`` is entered around the run, in the same trio program (the live server of
    ``--serve``)."""
    runner = TournamentRun(opened.settings, opened.store, options, reporter)

    async def main() -> Standings:
        if around is None:
            return await runner.run()
        async with around():
            return await runner.run()

    try:
        standings = stop_signals.run(main)
        return RunSummary(standings, runner.progress)
    except BaseExceptionGroup as group:
        # trio's nurseries group what their tasks raise; a Ctrl-C or a lone error is reported
        # as itself.
        if group.subgroup(KeyboardInterrupt) is not None:
            raise KeyboardInterrupt from None
        stopped = group.subgroup(StoreError)  # a full disk, say: one line, not a group
        if stopped is not None:
            raise _first(stopped) from None
        errors = _leaves(group)  # nurseries in nurseries (the pool's, the writers')
        if len(errors) == 1:
            raise errors[0] from None
        raise


def _leaves(group: BaseExceptionGroup[BaseException]) -> list[BaseException]:
    out: list[BaseException] = []
    for error in group.exceptions:
        out += _leaves(error) if isinstance(error, BaseExceptionGroup) else [error]
    return out


def _first(group: BaseExceptionGroup[StoreError]) -> StoreError:
    first = group.exceptions[0]
    return first if isinstance(first, StoreError) else _first(first)


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
