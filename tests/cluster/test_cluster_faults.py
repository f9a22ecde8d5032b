"""Faults in the middle of a tournament on a real Dask cluster (docs/cluster.md, "Faults"):
``kill -9`` of a worker process, of a whole worker (nanny and worker), of the coordinator, and
of the scheduler. Every test has its own scheduler and two workers on 127.0.0.1, stopped by pid
at the end, and compares the final standings with the same tournament played locally."""

from __future__ import annotations

import datetime
import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import psutil
import pytest

from arena.replay import read_replay
from tests.cluster.dask_procs import DaskCluster, arena, dask_command, start_cluster, worker_env
from tests.cluster.test_cluster_tournament import standings
from tests.helpers import REPO

pytestmark = pytest.mark.timeout(300)

SLOW = "tests/cluster/bots/slow.py"
#: Three bots that think 10 ms a move: a match lasts about a second, long enough to be
#: interrupted in the middle.
BOTS = [f"{sys.executable} {SLOW} 0.01 {name}" for name in ("ann", "bob", "cat")]
LENGTH = ["--hands", "3", "--seed", "11"]
TABLES = 6
#: Generous: how long a test waits for something that takes a fraction of it.
PATIENCE_S = 60.0


@pytest.fixture
def cluster(tmp_path: Path) -> Iterator[DaskCluster]:
    """A scheduler and two one-thread workers on 127.0.0.1, for this test alone."""
    started = start_cluster(tmp_path / "dask")
    yield started
    left = started.stop()
    assert not left, f"processes of the cluster survived: {left}"


@pytest.fixture(scope="module")
def local_run(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """The same tournament played on this machine, uninterrupted."""
    out = tmp_path_factory.mktemp("local") / "t"
    result = arena("tournament", *BOTS, *LENGTH, "--out", str(out))
    assert result.returncode == 0, result.stderr
    return standings(out / "tournament.db")


#: The coordinators a test started: the fixture below stops any still running at its end.
_started: list[Coordinator] = []


@pytest.fixture(autouse=True)
def _stop_coordinators() -> Iterator[None]:
    """A test that fails half-way leaves no ``arena tournament`` running, nor its pipes."""
    yield
    while _started:
        run = _started.pop()
        if run.process.poll() is None:
            run.process.kill()
        run.process.communicate()


class Coordinator:
    """``arena tournament --cluster`` running in the background, with its events file."""

    def __init__(self, out: Path, *args: str) -> None:
        _started.append(self)
        self.out = out
        self.events = out.parent / "events.jsonl"
        self.process = subprocess.Popen(
            [sys.executable, "-m", "arena", "tournament", *args, "--events", str(self.events)],
            cwd=REPO,
            env=worker_env(),
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )

    def tables(self, event: str) -> list[int]:
        """The tables of every ``event`` line written so far."""
        if not self.events.exists():
            return []
        lines = self.events.read_text().splitlines()
        return [json.loads(line)["table"] for line in lines if f'"{event}"' in line]

    def wait_mid_run(self) -> None:
        """Wait until a match is recorded and another one is being played."""
        deadline = time.monotonic() + PATIENCE_S
        while time.monotonic() < deadline:
            finished = self.tables("match_finished")
            if finished and set(self.tables("match_started")) - set(finished):
                return
            assert self.process.poll() is None, self.process.communicate()
            time.sleep(0.02)
        raise AssertionError("the tournament never got to the middle")

    def finish(self) -> tuple[int, str, str]:
        """Wait for the end: exit code, stdout, stderr."""
        out, err = self.process.communicate(timeout=PATIENCE_S * 3)
        return self.process.returncode, out, err

    def recorded(self) -> list[int]:
        """The tables whose match is in the database."""
        with sqlite3.connect(self.out / "tournament.db") as db:
            return sorted(row[0] for row in db.execute("SELECT table_idx FROM matches"))


def bots_under(pid: int) -> set[int]:
    """The pids of the test bots among a process's descendants."""
    found = set()
    for child in psutil.Process(pid).children(recursive=True):
        try:
            if any(SLOW in part for part in child.cmdline()):
                found.add(child.pid)
        except psutil.NoSuchProcess:
            continue
    return found


def busy_worker(cluster: DaskCluster) -> tuple[int, int, set[int]]:
    """A worker playing a match now: its nanny's pid, its worker process's pid, its bots."""
    deadline = time.monotonic() + PATIENCE_S
    while time.monotonic() < deadline:
        for nanny in cluster.processes[1:]:  # the first is the scheduler
            for child in psutil.Process(nanny.pid).children():
                bots = bots_under(child.pid)
                if bots:
                    return nanny.pid, child.pid, bots
        time.sleep(0.02)
    raise AssertionError("no worker is playing a match")


def wait_gone(pids: set[int]) -> set[int]:
    """Wait (at most PATIENCE_S) for ``pids`` to end; the ones still running."""
    deadline = time.monotonic() + PATIENCE_S
    alive = set(pids)
    while alive and time.monotonic() < deadline:
        alive = {p for p in alive if _running(p)}
        time.sleep(0.05)
    return alive


def _running(pid: int) -> bool:
    try:
        return psutil.Process(pid).status() != psutil.STATUS_ZOMBIE
    except psutil.NoSuchProcess:
        return False


def assert_recorded_once(run: Coordinator) -> None:
    """Every table recorded, once, in the database and in the events file, with its replay."""
    assert run.recorded() == list(range(TABLES))
    assert sorted(run.tables("match_finished")) == list(range(TABLES))
    assert len(list((run.out / "replays").glob("t*.json"))) == TABLES


def test_worker_process_killed_mid_match(
    cluster: DaskCluster, local_run: dict[str, Any], tmp_path: Path
) -> None:
    """``kill -9`` of a worker process (its nanny restarts it) in the middle of a match: its
    bots end with it, the match is played again, recorded once, and the standings are those
    of an uninterrupted local run."""
    run = Coordinator(
        tmp_path / "t", *BOTS, *LENGTH, "--out", str(tmp_path / "t"), "--cluster", cluster.address
    )
    run.wait_mid_run()
    _nanny, worker, bots = busy_worker(cluster)
    os.kill(worker, signal.SIGKILL)
    assert wait_gone(bots) == set(), "bots of the killed worker survived it"
    code, out, err = run.finish()
    assert code == 0, out + err
    assert_recorded_once(run)
    assert standings(run.out / "tournament.db") == local_run


def test_whole_worker_killed_mid_match(
    cluster: DaskCluster, local_run: dict[str, Any], tmp_path: Path
) -> None:
    """``kill -9`` of a whole worker (nanny and worker process) in the middle of a match: no
    bot of it survives on the host, the other worker plays the rest, every match is recorded
    once, and the standings are those of an uninterrupted local run."""
    run = Coordinator(
        tmp_path / "t", *BOTS, *LENGTH, "--out", str(tmp_path / "t"), "--cluster", cluster.address
    )
    run.wait_mid_run()
    nanny, worker, bots = busy_worker(cluster)
    os.kill(nanny, signal.SIGKILL)
    os.kill(worker, signal.SIGKILL)
    assert wait_gone(bots | {nanny, worker}) == set(), "the killed worker's bots survived it"
    code, out, err = run.finish()
    assert code == 0, out + err
    assert_recorded_once(run)
    assert standings(run.out / "tournament.db") == local_run


def test_coordinator_killed_then_resumed(
    cluster: DaskCluster, local_run: dict[str, Any], tmp_path: Path
) -> None:
    """``kill -9`` of the coordinator in the middle: every match it had reported as finished is
    in the database, and ``arena tournament --resume ... --cluster ...`` finishes with the
    standings of an uninterrupted local run."""
    out = tmp_path / "t"
    run = Coordinator(out, *BOTS, *LENGTH, "--out", str(out), "--cluster", cluster.address)
    run.wait_mid_run()
    os.kill(run.process.pid, signal.SIGKILL)
    run.finish()
    reported = set(run.tables("match_finished"))
    recorded = run.recorded()
    assert reported
    assert reported <= set(recorded)
    assert len(recorded) < TABLES
    db = out / "tournament.db"
    resumed = arena("tournament", "--resume", "--db", str(db), "--cluster", cluster.address)
    assert resumed.returncode == 0, resumed.stdout + resumed.stderr
    assert f"{len(recorded)} of {TABLES} matches already played" in resumed.stdout
    assert standings(db) == local_run


def test_scheduler_lost_stops_cleanly_with_the_resume_command(
    cluster: DaskCluster, local_run: dict[str, Any], tmp_path: Path
) -> None:
    """The scheduler killed in the middle: the coordinator waits --cluster-timeout seconds for
    it, then stops with one line and the resume command (exit 2, no traceback), having lost no
    result; resumed on another cluster, the tournament ends with the local run's standings."""
    out = tmp_path / "t"
    address = cluster.address
    run = Coordinator(
        out, *BOTS, *LENGTH, "--out", str(out), "--cluster", address, "--cluster-timeout", "2"
    )
    run.wait_mid_run()
    os.kill(cluster.processes[0].pid, signal.SIGKILL)
    code, _out, err = run.finish()
    assert code == 2, err
    assert "Traceback" not in err
    lines = err.strip().splitlines()
    db = out / "tournament.db"
    done = len(run.recorded())
    assert lines[-2] == (
        f"arena tournament: error: lost the Dask scheduler at {address} in the middle of the "
        f"run and it did not come back within 2 s (--cluster-timeout); {done} of {TABLES} "
        f"matches are recorded in {db}."
    )
    assert lines[-1] == f"Resume with: arena tournament --resume --db {db} --cluster {address}"
    assert set(run.tables("match_finished")) == set(run.recorded())
    assert 0 < done < TABLES
    cluster.stop()
    other = start_cluster(tmp_path / "dask2")
    try:
        resumed = arena("tournament", "--resume", "--db", str(db), "--cluster", other.address)
    finally:
        assert not other.stop()
    assert resumed.returncode == 0, resumed.stdout + resumed.stderr
    assert standings(db) == local_run


def test_scheduler_back_in_time_finishes_the_run(
    cluster: DaskCluster, local_run: dict[str, Any], tmp_path: Path
) -> None:
    """The scheduler killed in the middle and started again at the same address, with new
    workers (Dask's workers stop with their scheduler), within --cluster-timeout: the lost
    matches are submitted again and the run ends normally with the local run's standings."""
    out = tmp_path / "t"
    address = cluster.address
    run = Coordinator(
        out, *BOTS, *LENGTH, "--out", str(out), "--cluster", address, "--cluster-timeout", "60"
    )
    run.wait_mid_run()
    scheduler = cluster.processes[0]
    os.kill(scheduler.pid, signal.SIGKILL)
    scheduler.wait()
    cluster.scheduler_file.unlink()
    port = address.rsplit(":", 1)[1]
    argv = [*dask_command("scheduler"), "--host", "127.0.0.1", "--port", port]
    argv += ["--dashboard-address", "127.0.0.1:0", "--scheduler-file", str(cluster.scheduler_file)]
    cluster._start(argv, "scheduler-2.log", worker_env())
    deadline = time.monotonic() + PATIENCE_S
    while not cluster.scheduler_file.exists() and time.monotonic() < deadline:
        time.sleep(0.05)
    for name in ("w2", "w3"):
        cluster.start_worker(name)
    code, _out, err = run.finish()
    assert code == 0, err
    assert_recorded_once(run)
    assert standings(out / "tournament.db") == local_run


def most_at_once(run: Coordinator) -> int:
    """The most matches that were being played at one time: each from the moment its worker
    said it started (the events file's ``match_started``) for as long as its replay lasted.
    (Not until its ``match_finished``: that line is written once the result is committed, so
    a worker's next match could seem to overlap the one before.)"""
    started: dict[int, datetime.datetime] = {}
    intervals: list[tuple[datetime.datetime, datetime.datetime]] = []
    for line in run.events.read_text().splitlines():
        event = json.loads(line)
        when = datetime.datetime.fromisoformat(event["time"])
        if event["event"] == "match_started":
            started[event["table"]] = when  # the last start is the one the replay records
        elif event["event"] == "match_finished":
            lasted = datetime.timedelta(seconds=read_replay(event["replay"]).duration_s)
            begun = started[event["table"]]
            intervals.append((begun, begun + lasted))
    edges = sorted([(s, 1) for s, _ in intervals] + [(e, -1) for _, e in intervals])
    most = now = 0
    for _, step in edges:
        now += step
        most = max(most, now)
    return most


def test_workers_that_join_mid_run_take_matches_at_once(tmp_path: Path) -> None:
    """Two workers started in the middle of a run (one worker until then) get the bots from
    the arena's plugin and are given matches at once: three matches run at the same time
    (the run had sized itself for one worker), every match is recorded once."""
    cluster = start_cluster(tmp_path / "dask", workers=1)
    try:
        out = tmp_path / "t"
        length = ["--hands", "6", "--seed", "11"]  # about 2 s a match
        run = Coordinator(out, *BOTS, *length, "--out", str(out), "--cluster", cluster.address)
        run.wait_mid_run()
        assert len(run.tables("match_finished")) <= 2, "the run went too fast for this test"
        cluster.start_worker("late-1")
        cluster.start_worker("late-2")
        code, stdout, err = run.finish()
        assert code == 0, stdout + err
    finally:
        assert not cluster.stop(), "processes of the cluster survived"
    assert_recorded_once(run)
    played = [line for line in err.splitlines() if " played on worker " in line]
    assert len(played) == 3, err
    assert "refused" not in err
    assert most_at_once(run) == 3


def profilers_running(cluster: DaskCluster) -> dict[str, bool]:
    """Whether each worker's statistical profiler (Dask's periodic callback) is running."""
    from distributed import Client

    def running(dask_worker: Any) -> bool:
        return bool(dask_worker.periodic_callbacks["profile"].is_running())

    with Client(cluster.address, set_as_default=False) as client:
        answers: dict[str, bool] = client.run(running)
    return answers


def test_workers_profiler_is_paused_while_a_run_plays(cluster: DaskCluster, tmp_path: Path) -> None:
    """Dask's statistical profiler (100 stack samples a second, holding the GIL, in the thread
    that referees) is stopped on every worker while a run plays, and runs again after it."""
    assert set(profilers_running(cluster).values()) == {True}
    out = tmp_path / "t"
    run = Coordinator(out, *BOTS, *LENGTH, "--out", str(out), "--cluster", cluster.address)
    run.wait_mid_run()
    during = profilers_running(cluster)
    code, stdout, err = run.finish()
    assert code == 0, stdout + err
    assert len(during) == 2
    assert set(during.values()) == {False}
    assert set(profilers_running(cluster).values()) == {True}
