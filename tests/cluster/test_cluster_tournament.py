"""`arena tournament --cluster` and `arena sprt --cluster` on a real Dask cluster: a scheduler
and two workers on 127.0.0.1, started once for the module and stopped by pid at the end."""

from __future__ import annotations

import json
import sqlite3
import stat
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from arena.cluster.ship import bot_dir, pack_folder
from tests.cluster.dask_procs import DaskCluster, arena, start_cluster
from tests.helpers import REPO, player_command

pytestmark = pytest.mark.timeout(300)

ALPHA = "tests/tournament/bots/league/alpha"
RUNNER = "tests/cluster/bots/runner"
PICKY = "tests/cluster/bots/picky"
RANDOM = f"{sys.executable} sample_bots/random_bot.py"
BOTS = [ALPHA, RUNNER, RANDOM]
LENGTH = ["--hands", "2", "--seed", "7"]


@pytest.fixture(scope="module")
def cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[DaskCluster]:
    """A scheduler and two one-thread workers on 127.0.0.1 that declare one CPU each (so each
    match asks for the resource CPU=1; the TLS test's worker does not: one match per thread)."""
    started = start_cluster(tmp_path_factory.mktemp("dask"), extra=["--resources", "CPU=1"])
    yield started
    left = started.stop()
    assert not left, f"processes of the cluster survived: {left}"


@pytest.fixture(scope="module")
def local_run(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """The same tournament played on this machine."""
    out = tmp_path_factory.mktemp("local") / "t"
    result = arena("tournament", *BOTS, *LENGTH, "--out", str(out))
    assert result.returncode == 0, result.stderr
    return standings(out / "tournament.db")


def standings(db: Path) -> dict[str, Any]:
    """What the standings say that does not depend on timing: places, points, scores."""
    result = arena("standings", "--db", str(db), "--json")
    assert result.returncode == 0, result.stderr
    data = json.loads(result.stdout)
    for row in data["standings"]:
        del row["median_ms"], row["p95_ms"]
    return {"standings": data["standings"], "cross_table": data["cross_table"]}


def test_nothing_listens_beyond_loopback(cluster: DaskCluster) -> None:
    """The scheduler, nannies and workers (dashboards included) listen on 127.0.0.1 only."""
    listening = cluster.listening()
    assert listening
    assert {a.rsplit(":", 1)[0] for a in listening} == {"127.0.0.1"}


def test_cluster_standings_equal_a_local_run(
    cluster: DaskCluster, local_run: dict[str, Any], tmp_path: Path
) -> None:
    """Same seed and bots: the cluster's standings and cross-table are the local run's, every
    replay is in the coordinator's out folder, and each verifies."""
    out = tmp_path / "t"
    result = arena("tournament", *BOTS, *LENGTH, "--out", str(out), "--cluster", cluster.address)
    assert result.returncode == 0, result.stderr
    assert standings(out / "tournament.db") == local_run
    replays = sorted((out / "replays").glob("t*.json"))
    assert len(replays) == 6
    assert result.stderr.count("): sandbox bwrap + cgroup") == 2  # each worker's sandbox
    assert "1 match at once on" in result.stderr
    verified = arena("verify", str(replays[0]))
    assert verified.returncode == 0, verified.stdout + verified.stderr
    replay = json.loads(replays[0].read_text())
    assert replay["workdir"] == str(REPO)  # the coordinator's, not the worker's
    folders = {s.get("folder") for s in replay["seats"]}
    assert folders <= {None, str(REPO / ALPHA), str(REPO / RUNNER)}
    assert replay["mechanism"] == "bwrap"
    assert replay["host"]
    played = [line for line in result.stderr.splitlines() if " played on worker " in line]
    assert sum(int(line.split()[1]) for line in played) == 6
    report = (out / "report.html").read_text()
    assert report.count(f"bwrap on host {replay['host']}") == 6


def test_bots_reach_the_workers_with_their_modes(cluster: DaskCluster) -> None:
    """The runner bot's ./run script is unpacked on the worker host still executable (it played
    above: started as ./run)."""
    unpacked = Path(bot_dir(pack_folder(str(REPO / RUNNER)).sha256))
    assert unpacked.is_dir()
    assert unpacked.joinpath("run").stat().st_mode & stat.S_IXUSR
    assert stat.S_IMODE(unpacked.stat().st_mode) == 0o755


def test_resume_on_the_cluster_finishes_a_local_start(
    cluster: DaskCluster, local_run: dict[str, Any], tmp_path: Path
) -> None:
    """A tournament started here and cut short resumes on the cluster (--cluster is how to
    run, not what) and ends with the local run's standings."""
    out = tmp_path / "t"
    result = arena("tournament", *BOTS, *LENGTH, "--out", str(out))
    assert result.returncode == 0, result.stderr
    db = out / "tournament.db"
    with sqlite3.connect(db) as conn:  # as if the run had stopped after three matches
        conn.execute("DELETE FROM seats WHERE table_idx >= 3")
        conn.execute("DELETE FROM matches WHERE table_idx >= 3")
    result = arena("tournament", "--resume", "--db", str(db), "--cluster", cluster.address)
    assert result.returncode == 0, result.stderr
    assert "3 of 6 matches already played" in result.stdout
    assert standings(db) == local_run


def test_a_build_failing_on_the_workers_names_the_host(
    cluster: DaskCluster, tmp_path: Path
) -> None:
    """The picky bot builds on the coordinator but not on the workers: the tournament stops
    before its first match, naming the bot, the stage, each worker and its host."""
    out = tmp_path / "t"
    result = arena(
        "tournament", ALPHA, PICKY, *LENGTH, "--out", str(out), "--cluster", cluster.address
    )
    assert result.returncode == 2, result.stdout + result.stderr
    line = result.stderr.strip().splitlines()[-1]
    assert line.startswith("arena tournament: error: bot picky: its build failed on worker tcp://")
    assert "(host " in line
    assert "no compiler on this host" in line
    assert line.count("bot picky: its build failed on worker") == 2


def test_sprt_on_the_cluster_decides_as_locally(cluster: DaskCluster, tmp_path: Path) -> None:
    """`arena sprt --cluster` counts the same pairs, in deal order, as a local run."""
    args = ["sprt", ALPHA, RUNNER, "--hands", "2", "--seed", "3", "--max-pairs", "4"]
    local = arena(*args, "--out", str(tmp_path / "local"))
    remote = arena(*args, "--out", str(tmp_path / "remote"), "--cluster", cluster.address)
    assert local.returncode == 0, local.stderr
    assert remote.returncode == 0, remote.stderr

    def pairs(text: str) -> list[str]:
        return [line for line in text.splitlines() if line.startswith(("pair", "LLR", "H"))]

    assert pairs(remote.stdout) == pairs(local.stdout)
    assert len([p for p in pairs(remote.stdout) if p.startswith("pair")]) >= 1


def test_a_failure_leaves_its_bundle_on_the_coordinator(
    cluster: DaskCluster, tmp_path: Path
) -> None:
    """A bot that crashes on a worker: the coordinator writes the failure bundle beside the
    replay (its rematch line runs here), and the events file has each match start and end."""
    out = tmp_path / "t"
    events = tmp_path / "events.jsonl"
    crasher = player_command("crash", 2)
    result = arena(
        "tournament", ALPHA, crasher, "--hands", "1", "--seed", "5", "--out", str(out),
        "--events", str(events), "--cluster", cluster.address,
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    bundles = sorted((out / "replays").glob("*.failures"))
    assert len(bundles) == 2
    assert (bundles[0] / "rematch.sh").read_text().count("arena rematch") == 1
    lines = [json.loads(line) for line in events.read_text().splitlines()]
    finished = sorted(e["table"] for e in lines if e["event"] == "match_finished")
    assert finished == [0, 1]
    started = [e["table"] for e in lines if e["event"] == "match_started"]
    assert set(started) <= {0, 1}
    assert started  # the workers said so through Dask's events


@pytest.mark.slow
def test_every_remote_move_reaches_the_live_server(cluster: DaskCluster, tmp_path: Path) -> None:
    """``--serve`` with ``--cluster``: the server saw exactly the moves the replays hold, a
    remote match was followed move by move while it was played (its steps at the server grew
    before it ended), and every match is listed as finished."""
    from tests.serve.service import (
        finished_state,
        free_port,
        get_json,
        replay_moves,
        running,
        slowed,
        wait_for,
    )

    port = free_port()
    out = tmp_path / "t"
    args = ["tournament", slowed(RANDOM, 0.02), RANDOM, "--hands", "2", "--seed", "3"]
    args += ["--out", str(out), "--cluster", cluster.address, "--serve", f"127.0.0.1:{port}"]
    with running(args, port, REPO) as service:
        live = wait_for("a match in progress", lambda: get_json(port, "/api/state")["in_progress"])
        table = live[0]["match"]
        first = wait_for("its moves", lambda: _steps(port, table))
        later = wait_for("more of its moves", lambda: (_steps(port, table) or 0) > first)
        assert later
        state = finished_state(service, port, 2)
        assert state["moves"] == replay_moves(out) > 0
        assert sorted(m["match"] for m in state["finished"]) == [0, 1]
        assert service.stop() == 0


def _steps(port: int, table: int) -> int | None:
    """How many steps of match ``table`` the server holds while it is in progress."""
    from tests.serve.service import get_json

    for match in get_json(port, "/api/state")["in_progress"]:
        if match["match"] == table:
            return int(match["steps"]) or None
    return None
