"""Run a tournament: schedule, worker processes, the database, events and the live view.

The parent process only dispatches matches and records results: matches are played by worker
processes (:mod:`arena.tournament.pool`), each with many matches at once. Each result is
written to the database as soon as it arrives (results that arrive while a transaction is
being written share the next one: group commit), and it is shown, written to the events file
and counted in the standings only once it is committed, so an interrupted tournament resumes
exactly where it stopped: a table whose match is recorded is never played
again, and every deal is derived from the tournament seed, so the final standings are those of
an uninterrupted run.
"""

from __future__ import annotations

import datetime
import errno
import json
import math
import re
import time
from collections.abc import Awaitable, Callable, Iterable
from contextlib import AbstractAsyncContextManager
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

import trio

from arena.live_events import LiveEvent
from arena.tournament.batches import Batcher
from arena.tournament.jobs import Job, JobBot, JobDone, JobEvent
from arena.tournament.live import Reporter, RunProgress
from arena.tournament.pool import open_worker_pool
from arena.tournament.resume import stored_entrants
from arena.tournament.schedule import BYE_POINTS, Table, build_schedule, swiss_tables
from arena.tournament.settings import TournamentSettings, job_sandbox, run_outputs
from arena.tournament.standings import Standings, StandingsTally
from arena.tournament.store import (
    AsyncStore,
    EntrantRow,
    MatchRow,
    Result,
    Store,
    StoreError,
    TableRow,
)
from arena.tournament.store_file import disk_full, disk_guard

#: How a worker's error says that the disk is full (``OSError: [Errno 28] ...``).
_NO_SPACE = f"[Errno {errno.ENOSPC}]"

#: How often, at most, the live view's standings are recomputed (seconds).
STANDINGS_EVERY_S = 0.5
#: ... and at most this share of the coordinator's time goes to them (a long tournament's
#: snapshot costs more than a short one's: it is then taken less often).
STANDINGS_SHARE = 0.1


if TYPE_CHECKING:
    from arena.cluster.options import ClusterOptions


class TournamentError(Exception):
    """A tournament that cannot go on (the message says why and what to do)."""


@dataclass(frozen=True)
class RunOptions:
    """How to run (not what): parallelism, files, the cluster (``None``: this machine)."""

    out_dir: Path
    concurrency: int = 4
    workers: int = 2
    events: Path | None = None
    cluster: ClusterOptions | None = None
    build_timeout_s: float = 300.0
    #: Who watches the matches as they are played (``--serve``): every job's live events go
    #: to it; ``None``: the workers build none.
    live: LiveFeed | None = None


class MatchPool(Protocol):
    """What plays a run's matches: the local `arena.tournament.pool.WorkerPool` or the
    cluster's `arena.cluster.pool.DaskPool`."""

    cpu_s: list[float]

    async def run(
        self,
        jobs: Iterable[Job],
        on_started: Callable[[int], Awaitable[None]],
        on_done: Callable[[JobDone], Awaitable[None]],
        on_event: Callable[[JobEvent], None] | None = None,
    ) -> None: ...


def open_pool(
    options: RunOptions,
    entrants: Iterable[Any],
    sandbox: dict[str, Any] | None,
    startup_ms: int,
) -> AbstractAsyncContextManager[MatchPool]:
    """The local worker processes, or the Dask cluster when ``options.cluster`` is set (Dask
    is imported only then); ``entrants`` (`arena.tournament.entrants.Entrant`) are the bots
    the cluster ships."""
    if options.cluster is None:
        return open_worker_pool(options.concurrency, options.workers)
    from arena.cluster.pool import open_dask_pool

    return open_dask_pool(
        options.cluster,
        list(entrants),
        sandbox=sandbox,
        startup_ms=startup_ms,
        build_timeout_s=options.build_timeout_s,
    )


class LiveFeed(Protocol):
    """What takes a tournament's live events (`arena.serve.hub.Hub`)."""

    def feed(self, match: int, event: LiveEvent, at: float | None = None) -> None:
        """The next live event of the match at table ``match`` (made at ``at``, seconds since
        the epoch); returns at once."""


def make_job(
    settings: TournamentSettings,
    table: TableRow,
    seats: list[EntrantRow],
    replay: Path,
    sandbox: dict[str, Any] | None,
    live: bool = False,
) -> Job:
    """The job that plays ``table`` (its seed, its bots in seat order) under ``settings``."""
    return Job(
        table=table.idx,
        game=settings.game,
        rules=settings.rules,
        seed=table.seed,
        target=settings.target,
        hands=settings.hands,
        startup_ms=settings.startup_ms,
        move_ms=settings.move_ms,
        bank_ms=settings.bank_ms,
        bots=[JobBot(e.command, e.cwd, e.name) for e in seats],
        replay=str(replay),
        sandbox=sandbox,
        max_stdout_bytes=settings.max_stdout_bytes,
        policy=settings.failure_policy(),
        live=live,
    )


def table_rows(tables: list[Table], entrant_ids: list[int]) -> list[TableRow]:
    """Schedule tables (entrant positions) as database rows (entrant ids)."""
    return [
        TableRow(
            idx=t.index,
            round=t.round,
            seed=t.seed,
            deal_group=t.deal_group,
            rotation=t.rotation,
            seats=tuple(entrant_ids[i] for i in t.seats),
        )
        for t in tables
    ]


def initial_tables(settings: TournamentSettings, entrant_ids: list[int]) -> list[TableRow]:
    """The schedule known before any result: all of it, or Swiss round 1."""
    if settings.format == "swiss":
        tables = swiss_tables(len(entrant_ids), [0.0] * len(entrant_ids), [], 1, 0, settings.seed)
    else:
        tables = build_schedule(
            n_entrants=len(entrant_ids),
            players=settings.players,
            fmt=settings.format,
            rounds=settings.rounds,
            seed=settings.seed,
        )
    return table_rows(tables, entrant_ids)


class TournamentRun:
    """One run of a tournament (a fresh start or a resume) against its database."""

    def __init__(
        self,
        settings: TournamentSettings,
        store: Store,
        options: RunOptions,
        reporter: Reporter,
    ) -> None:
        self.settings = settings
        self.store = store
        self.async_store = AsyncStore(store)
        self.options = options
        self.reporter = reporter
        self.entrants = {e.id: e for e in store.entrants()}
        self.rows: list[MatchRow] = store.matches()
        self.errors: list[str] = []
        self.pending: dict[int, TableRow] = {}
        self._standings_at = -math.inf
        self._standings_cost = 0.0
        self._tally = StandingsTally(list(self.entrants.values()))
        for row in self.rows:
            self._tally.add(row)
        self._standings = self._tally.snapshot(cross=False)
        self._results = Batcher(self._record)
        self._committed = Batcher(self._show)
        self._lines = Batcher(self._write_events)
        self.replays = options.out_dir / "replays"
        # Bots must not see the results, the replays or the other entrants' folders.
        self.sandbox = job_sandbox(
            settings.sandbox,
            options.out_dir,
            (e.cwd for e in self.entrants.values()),
            run_outputs(options.out_dir, store.path, options.events),
        )
        self.logs = options.out_dir / "logs"

    def standings(self) -> Standings:
        """The standings over every match recorded so far (`compute_standings` of them)."""
        return self._tally.snapshot()

    async def run(self) -> Standings:
        """Play every table not yet recorded (and the later Swiss rounds); the standings."""
        with disk_guard(self.replays):
            self.replays.mkdir(parents=True, exist_ok=True)
        progress = RunProgress(total=self._expected_total(), done=len(self.rows))
        self.progress = progress
        self.reporter.begin(progress)
        try:
            entrants = stored_entrants(self.store)
            async with (
                open_pool(self.options, entrants, self.sandbox, self.settings.startup_ms) as pool,
                trio.open_nursery() as writers,
            ):
                writers.start_soon(self._results.run)
                writers.start_soon(self._committed.run)
                writers.start_soon(self._lines.run)
                while True:
                    finished = {r.table.idx for r in self.rows}
                    pending = [t for t in self.store.tables() if t.idx not in finished]
                    if not pending:
                        more = self._next_swiss_round()
                        if not more:
                            break
                        await self.async_store.add_tables(more)
                        continue
                    self.pending = {t.idx: t for t in pending}
                    jobs = [self._job(t) for t in pending]
                    live = self.options.live
                    on_event = None if live is None else self._live_event
                    await pool.run(jobs, self._started, self._finished, on_event)
                    await self._results.drain()
                    await self._committed.drain()
                    progress.referee_cpu_s = sum(pool.cpu_s)
                    if self.errors:  # played again, they would fail again: said below
                        break
                await self._lines.drain()
                writers.cancel_scope.cancel()
        finally:
            # Results that arrived but were not committed yet when an interruption or an error
            # came (a lost cluster, Ctrl-C): committed now, unless the database is the problem.
            self._commit_leftovers()
            # Results committed but not shown yet, and events not written yet: now.
            for table, summary, replay, _ in self._committed.take_waiting():
                self._count(MatchRow(table, summary, replay))
            if self.options.events is not None and (lines := self._lines.take_waiting()):
                with disk_guard(self.options.events):
                    _append(self.options.events, "".join(lines))
            self.reporter.end()
        if self.errors:
            raise TournamentError(
                f"{len(self.errors)} match(es) could not be played because of an internal "
                f"error (see {self.logs}); the others are recorded: run again with --resume"
            )
        return self.standings()

    def _commit_leftovers(self) -> None:
        leftovers = self._results.take_waiting()
        if not leftovers:
            return
        try:
            self.store.record_many(leftovers)
        except StoreError:  # the disk is full, say: those matches are played again on resume
            return
        self._committed.put_nowait(*leftovers)

    def _expected_total(self) -> int:
        if self.settings.format != "swiss":
            return len(self.store.tables())
        # Each Swiss pair plays its deal in both seatings: two tables per pair and round.
        pairs = len([e for e in self.entrants.values() if e.excluded is None]) // 2
        return 2 * pairs * self.settings.rounds

    def _next_swiss_round(self) -> list[TableRow]:
        """The next Swiss round's tables, paired on the results so far (none when done)."""
        if self.settings.format != "swiss":
            return []
        tables = self.store.tables()
        played_rounds = max((t.round for t in tables), default=0)
        if played_rounds >= self.settings.rounds:
            return []
        ids = [e.id for e in self.entrants.values() if e.excluded is None]
        position = {entrant: i for i, entrant in enumerate(ids)}
        points = [0.0] * len(ids)
        for bot in self.standings().bots:
            if bot.entrant in position:
                points[position[bot.entrant]] = bot.points
        played = [tuple(position[s] for s in t.seats) for t in tables]
        # The entrant with no table in a round had its bye: it scores like a win for pairing.
        byes = []
        for number in range(1, played_rounds + 1):
            seated = {position[s] for t in tables if t.round == number for s in t.seats}
            byes += [i for i in range(len(ids)) if i not in seated]
        for entrant in byes:
            points[entrant] += BYE_POINTS
        new = swiss_tables(
            len(ids),
            points,
            played,
            played_rounds + 1,
            len(tables),
            self.settings.seed,
            byes=byes,
        )
        return table_rows(new, ids)

    def _names(self, table: TableRow) -> list[str]:
        return [self.entrants[e].name for e in table.seats]

    def _job(self, table: TableRow) -> Job:
        settings = self.settings
        names = "-".join(_slug(n) for n in self._names(table))
        replay = self.replays / f"t{table.idx:05d}-r{table.round}-{names}.json"
        seats = [self.entrants[e] for e in table.seats]
        live = self.options.live is not None
        return make_job(settings, table, seats, replay, self.sandbox, live)

    def _live_event(self, message: JobEvent) -> None:
        assert self.options.live is not None
        self.options.live.feed(message.table, message.event, message.at)

    async def _started(self, table: int) -> None:
        names = self._names(self.pending[table])
        self._event({"event": "match_started", "table": table, "seats": names})

    async def _finished(self, result: JobDone) -> None:
        await self._done(self.pending[result.table], result)

    async def _done(self, table: TableRow, result: JobDone) -> None:
        if result.summary is None:
            if _NO_SPACE in (result.error or ""):  # the worker could not write the replay
                raise disk_full(result.replay)
            self.errors.append(result.error or "unknown error")
            log = self.logs / f"t{table.idx:05d}-internal-error.txt"
            with disk_guard(log):
                self.logs.mkdir(parents=True, exist_ok=True)
                await trio.Path(log).write_text(result.error or "")
            return
        finished_at = datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds")
        await self._results.put((table, result.summary, result.replay, finished_at))

    async def _record(self, results: list[Result]) -> None:
        """Commit results that arrived together in one transaction, then hand them to
        :meth:`_show` (which runs while the next transaction is written)."""
        await self.async_store.record_many(results)
        self._committed.put_nowait(*results)  # no checkpoint: committed means shown

    async def _show(self, results: list[Result]) -> None:
        """Count committed results, show them and queue their events: what is shown as
        finished is in the database. No checkpoint: a batch is shown whole or not at all."""
        for table, summary, replay, _ in results:
            self._count(MatchRow(table, summary, replay))

    def _count(self, row: MatchRow) -> None:
        progress = self.progress
        summary = row.summary
        self.rows.append(row)
        self._tally.add(row)
        progress.done += 1
        progress.played += 1
        progress.moves += summary.moves
        progress.late_moves += summary.late_moves
        progress.late_max_ms = max(progress.late_max_ms, summary.late_max_ms)
        for seat in summary.seats:
            if seat.failure is not None:
                progress.failures[seat.failure] += 1
        self._event(
            {
                "event": "match_finished",
                "table": row.table.idx,
                "seats": self._names(row.table),
                "scores": summary.scores,
                "ranks": [s.rank for s in summary.seats],
                "statuses": [s.status.value for s in summary.seats],
                "replay": row.replay,
            }
        )
        # A snapshot of the standings at most twice a second (less often when it costs more
        # than STANDINGS_SHARE of the time), and for the last match.
        now = time.monotonic()
        wait = max(STANDINGS_EVERY_S, self._standings_cost / STANDINGS_SHARE)
        if progress.done >= progress.total or now - self._standings_at >= wait:
            self._standings = self._tally.snapshot(cross=False)
            self._standings_at = time.monotonic()
            self._standings_cost = self._standings_at - now
        self.reporter.finished(row, progress, self._standings)

    def _event(self, event: dict[str, Any]) -> None:
        if self.options.events is None:
            return
        event = {"time": datetime.datetime.now(datetime.UTC).isoformat(), **event}
        self._lines.put_nowait(json.dumps(event) + "\n")

    async def _write_events(self, lines: list[str]) -> None:
        path = self.options.events
        assert path is not None
        with disk_guard(path):
            await trio.to_thread.run_sync(_append, path, "".join(lines))


def _append(path: Path, line: str) -> None:
    with path.open("a", encoding="utf-8") as f:
        f.write(line)
        f.flush()


def _slug(name: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.]+", "_", name)[:24] or "bot"


def new_entrant_rows(
    names: list[str],
    commands: list[str],
    cwds: list[str | None],
    languages: list[str | None],
    excluded: list[str | None],
) -> list[EntrantRow]:
    """Entrant rows numbered from 1 in the order given."""
    return [
        EntrantRow(i + 1, n, c, d, lang, x)
        for i, (n, c, d, lang, x) in enumerate(
            zip(names, commands, cwds, languages, excluded, strict=True)
        )
    ]


Factory = Callable[[], Reporter]
