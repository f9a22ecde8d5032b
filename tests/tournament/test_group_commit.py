"""The coordinator's fast path: results committed in groups, shown only once committed;
standings kept up to date one match at a time."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import AsyncIterator, Awaitable, Callable, Iterable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import pytest
import trio

import arena.tournament.runner as runner_module
from arena.tournament.batches import Batcher
from arena.tournament.jobs import Job, JobDone, JobEvent
from arena.tournament.live import RunProgress
from arena.tournament.runner import RunOptions, TournamentRun
from arena.tournament.standings import StandingsTally, compute_standings
from arena.tournament.store import MatchRow, Store, TableRow
from tests.tournament.test_store import ENTRANTS, summary

TABLES = [TableRow(i, 1, 100 + i, i, 0, (1, 2) if i % 2 else (2, 1)) for i in range(12)]
CONFIG = {
    "game": "matador",
    "rules": {},
    "players": 2,
    "format": "round-robin",
    "rounds": 1,
    "hands": 1,
    "target": None,
    "startup_ms": 1000,
    "move_ms": 1000,
    "bank_ms": 0,
    "seed": 1,
}


def result(table: TableRow) -> JobDone:
    """An instant result: the first seat wins on even tables, the second on odd ones."""
    ranks = [1, 2] if table.idx % 2 == 0 else [2, 1]
    return JobDone(
        table=table.idx,
        replay=f"/replays/t{table.idx}.json",
        referee_cpu_s=0.0,
        summary=summary([10 * r for r in ranks[::-1]], ranks),
    )


def test_items_arriving_during_a_batch_go_into_the_next_one() -> None:
    """While one batch is handled, what is put waits and forms the next batch, in order."""
    batches: list[list[int]] = []

    async def main() -> None:
        gate = trio.Event()

        async def handle(items: list[int]) -> None:
            batches.append(items)
            if len(batches) == 1:
                await gate.wait()

        batcher = Batcher(handle)
        async with trio.open_nursery() as nursery:
            nursery.start_soon(batcher.run)
            await batcher.put(1)
            await trio.testing.wait_all_tasks_blocked()
            for item in (2, 3, 4):
                await batcher.put(item)
            gate.set()
            await batcher.drain()
            nursery.cancel_scope.cancel()

    trio.run(main)
    assert batches == [[1], [2, 3, 4]]


def test_record_many_is_one_transaction(tmp_path: Path) -> None:
    """Several results in one call are stored together; a failing one stores none of them."""
    store = Store(tmp_path / "t.db")
    store.create(CONFIG, ENTRANTS, TABLES)
    rows = [(t, result(t).summary, f"r{t.idx}", "2026-12-02T00:00:00+00:00") for t in TABLES[:3]]
    store.record_many(rows)  # type: ignore[arg-type]
    assert store.finished() == {0, 1, 2}
    again = [(TABLES[3], rows[0][1], "r3", "x"), rows[0]]  # table 0 a second time: refused
    with pytest.raises(sqlite3.IntegrityError):
        store.record_many(again)  # type: ignore[arg-type]
    assert store.finished() == {0, 1, 2}
    store.close()


def test_a_tally_gives_the_standings_of_a_full_recomputation() -> None:
    """Adding matches one at a time gives what `compute_standings` gives over all of them,
    and a snapshot does not change when more matches are added after it."""
    rows = [MatchRow(t, result(t).summary, "r") for t in TABLES]  # type: ignore[arg-type]
    tally = StandingsTally(ENTRANTS)
    for row in rows[:5]:
        tally.add(row)
    early = tally.snapshot()
    assert early == compute_standings(ENTRANTS, rows[:5])
    for row in rows[5:]:
        tally.add(row)
    assert tally.snapshot() == compute_standings(ENTRANTS, rows)
    assert early == compute_standings(ENTRANTS, rows[:5])
    assert tally.snapshot(cross=False).cross == {}


class InstantPool:
    """Every match finishes the moment it starts."""

    def __init__(self) -> None:
        self.cpu_s = [0.0]

    async def run(
        self,
        jobs: Iterable[Job],
        on_started: Callable[[int], Awaitable[None]],
        on_done: Callable[[JobDone], Awaitable[None]],
        on_event: Callable[[JobEvent], None] | None = None,
    ) -> None:
        for job in jobs:
            await on_started(job.table)
            await trio.lowlevel.checkpoint()
            await on_done(result(TABLES[job.table]))


class CheckingReporter:
    """Checks, for every match it is shown, that the database already holds it."""

    def __init__(self, db: Path) -> None:
        self.db = db
        self.shown: list[int] = []

    def begin(self, progress: RunProgress) -> None:
        pass

    def finished(self, row: MatchRow, progress: RunProgress, standings: Any) -> None:
        with sqlite3.connect(f"file:{self.db}?mode=ro", uri=True) as db:
            stored = {r[0] for r in db.execute("SELECT table_idx FROM matches")}
        assert row.table.idx in stored
        self.shown.append(row.table.idx)

    def end(self) -> None:
        pass


def test_a_result_is_shown_only_once_committed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Fast results share transactions, but each is shown (and its match_finished event
    written) only once it is in the database; all are recorded, in fewer transactions than
    results, and the standings are those of every match."""

    @asynccontextmanager
    async def instant(concurrency: int, workers: int) -> AsyncIterator[InstantPool]:
        yield InstantPool()

    monkeypatch.setattr(runner_module, "open_worker_pool", instant)
    store = Store(tmp_path / "t.db")
    store.create(CONFIG, ENTRANTS, TABLES)
    commits: list[int] = []
    record_many = store.record_many

    def counted(items: list[Any]) -> None:
        commits.append(len(items))
        record_many(items)

    monkeypatch.setattr(store, "record_many", counted)
    from arena.tournament.settings import TournamentSettings

    settings = TournamentSettings.from_dict(CONFIG)
    reporter = CheckingReporter(tmp_path / "t.db")
    events = tmp_path / "events.jsonl"
    run = TournamentRun(settings, store, RunOptions(out_dir=tmp_path, events=events), reporter)
    final = trio.run(run.run)
    assert sorted(reporter.shown) == list(range(len(TABLES)))
    assert sum(commits) == len(TABLES)
    assert len(commits) < len(TABLES)
    lines = [json.loads(line) for line in events.read_text().splitlines()]
    finished = [e["table"] for e in lines if e["event"] == "match_finished"]
    assert sorted(finished) == list(range(len(TABLES)))
    assert final == compute_standings(ENTRANTS, store.matches())
    store.close()


class FailingPool(InstantPool):
    """Table 3's match cannot be played (an internal error); the others finish at once."""

    def __init__(self) -> None:
        super().__init__()
        self.jobs: list[int] = []

    async def run(
        self,
        jobs: Iterable[Job],
        on_started: Callable[[int], Awaitable[None]],
        on_done: Callable[[JobDone], Awaitable[None]],
        on_event: Callable[[JobEvent], None] | None = None,
    ) -> None:
        for job in jobs:
            self.jobs.append(job.table)
            await trio.lowlevel.checkpoint()
            if job.table == 3:
                await on_done(JobDone(job.table, job.replay, 0.0, error="boom"))
            else:
                await on_done(result(TABLES[job.table]))


def test_a_match_that_cannot_be_played_stops_the_run_after_one_pass(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A match lost to an internal error is not played again and again: the others are
    recorded and the run stops, saying to resume."""
    pool = FailingPool()

    @asynccontextmanager
    async def failing(concurrency: int, workers: int) -> AsyncIterator[FailingPool]:
        yield pool

    monkeypatch.setattr(runner_module, "open_worker_pool", failing)
    store = Store(tmp_path / "t.db")
    store.create(CONFIG, ENTRANTS, TABLES)
    from arena.tournament.settings import TournamentSettings

    reporter = CheckingReporter(tmp_path / "t.db")
    run = TournamentRun(
        TournamentSettings.from_dict(CONFIG), store, RunOptions(out_dir=tmp_path), reporter
    )
    with pytest.raises(runner_module.TournamentError, match="1 match"):
        trio.run(run.run)
    assert pool.jobs == list(range(len(TABLES)))
    assert store.finished() == set(range(len(TABLES))) - {3}
    store.close()
