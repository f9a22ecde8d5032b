"""Worker processes: jobs in, finished matches out, and nothing left running."""

from __future__ import annotations

import shlex
import sys
import uuid
from pathlib import Path

import trio

from arena.replay import Status, read_replay
from arena.tournament.jobs import Job, JobBot, JobDone
from arena.tournament.pool import open_worker_pool, split_capacity
from tests.processes import live_processes_with

PLAYER = Path(__file__).parent.parent / "bots" / "player.py"


def bot(mode: str, marker: str) -> JobBot:
    """The test player bot in ``mode``, tagged with ``marker``."""
    return JobBot(f"{shlex.quote(sys.executable)} {shlex.quote(str(PLAYER))} {mode} 1 '' {marker}")


def job(table: int, bots: list[JobBot], replay: Path, seed: int = 3) -> Job:
    """A one-hand Matador job."""
    return Job(
        table=table,
        game="matador",
        rules={},
        seed=seed,
        target=None,
        hands=1,
        startup_ms=5000,
        move_ms=2000,
        bank_ms=0,
        bots=bots,
        replay=str(replay),
    )


def test_capacity_is_split_over_workers() -> None:
    """Concurrency spreads over the workers; no worker is started without work."""
    assert split_capacity(4, 2) == [2, 2]
    assert split_capacity(5, 2) == [3, 2]
    assert split_capacity(1, 4) == [1]
    assert split_capacity(3, 8) == [1, 1, 1]


def test_workers_play_every_job_and_report_it(tmp_path: Path) -> None:
    """Six jobs on two workers: six results with summaries, replays on disk, no bot left."""
    marker = f"pool-{uuid.uuid4().hex}"
    jobs = [
        job(
            i,
            [bot("ok", marker), bot("garbage" if i == 4 else "ok", marker)],
            tmp_path / f"t{i}.json",
            seed=i,
        )
        for i in range(6)
    ]
    started: list[int] = []
    done: list[JobDone] = []

    async def on_started(table: int) -> None:
        started.append(table)

    async def on_done(result: JobDone) -> None:
        done.append(result)

    async def main() -> None:
        async with open_worker_pool(concurrency=4, workers=2) as pool:
            await pool.run(jobs, on_started, on_done)

    trio.run(main)
    assert sorted(started) == list(range(6))
    assert sorted(d.table for d in done) == list(range(6))
    for result in done:
        assert result.error is None
        assert result.summary is not None
        assert read_replay(result.replay).seed == result.table
    bad = next(d for d in done if d.table == 4)
    assert bad.summary is not None
    assert [s.status for s in bad.summary.seats] == [Status.OK, Status.BAD_MESSAGE]
    assert live_processes_with(marker) == []


def test_cancelling_the_pool_stops_workers_and_their_bots(tmp_path: Path) -> None:
    """When the parent gives up (as on Ctrl-C), hanging matches end and every bot is gone."""
    marker = f"pool-{uuid.uuid4().hex}"
    jobs = [
        job(i, [bot("hang", marker), bot("hang", marker)], tmp_path / f"t{i}.json")
        for i in range(2)
    ]

    async def nothing(_: object) -> None:
        return None

    async def main() -> bool:
        with trio.move_on_after(2.0) as scope:
            async with open_worker_pool(concurrency=2, workers=1) as pool:
                await pool.run(jobs, nothing, nothing)
        return scope.cancelled_caught

    assert trio.run(main) is True
    assert live_processes_with(marker) == []
