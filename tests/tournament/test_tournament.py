"""Whole tournaments through ``arena tournament``: standings, resume after kill -9, Ctrl-C."""

from __future__ import annotations

import json
import os
import re
import signal
import sqlite3
import subprocess
import sys
import time
import uuid
from pathlib import Path
from typing import Any

import pytest

from arena.referee.sandbox.bot import SANDBOX_CONNECT_TIMEOUT_S
from tests.processes import live_processes_with

ROOT = Path(__file__).parents[2]
PY = sys.executable


def bots(marker: str) -> list[str]:
    """Four deterministic bots (their randomness comes from the seed they are given)."""
    return [
        f"{PY} sample_bots/random_bot.py {marker}",
        f"{PY} sample_bots/greedy.py {marker}",
        f"{PY} tests/bots/player.py ok 1 '' {marker}",
        f"{PY} sample_bots/random_bot.py {marker} second",
    ]


def tournament(out: Path, marker: str, *extra: str) -> list[str]:
    """The command line of a small round-robin tournament."""
    return [
        PY, "-m", "arena", "tournament", *bots(marker), "--hands", "2", "--seed", "9",
        "--out", str(out), "--concurrency", "2", "--workers", "2", *extra,
    ]  # fmt: skip


def standings(db: Path) -> dict[str, Any]:
    """``arena standings --json`` without the timing columns (they differ run to run)."""
    out = subprocess.run(
        [PY, "-m", "arena", "standings", "--db", str(db), "--json"],
        cwd=ROOT, capture_output=True, text=True, check=True,
    ).stdout  # fmt: skip
    document = json.loads(out)
    for line in document["standings"]:
        line.pop("median_ms")
        line.pop("p95_ms")
    return document


def results(db: Path) -> list[tuple[int, str, str]]:
    """Every recorded match: table, scores, statuses."""
    with sqlite3.connect(db) as conn:
        rows = conn.execute(
            "SELECT m.table_idx, m.scores, group_concat(s.status) FROM matches m "
            "JOIN seats s ON s.table_idx = m.table_idx GROUP BY m.table_idx ORDER BY m.table_idx"
        ).fetchall()
    return [(int(a), str(b), str(c)) for a, b, c in rows]


def recorded(db: Path) -> int:
    """How many matches the database holds (0 while it does not exist yet)."""
    if not db.exists():
        return 0
    try:
        with sqlite3.connect(db, timeout=1) as conn:
            return int(conn.execute("SELECT count(*) FROM matches").fetchone()[0])
    except sqlite3.OperationalError:
        return 0


@pytest.fixture
def marker() -> str:
    """A word on every bot's command line, to find leftover processes."""
    return f"tour-{uuid.uuid4().hex}"


def test_a_tournament_prints_standings_and_records_every_match(tmp_path: Path, marker: str) -> None:
    """Four bots, round robin, both seatings of every deal: 12 matches, standings, replays."""
    out = tmp_path / "t"
    run = subprocess.run(
        tournament(out, marker, "--events", str(tmp_path / "events.jsonl")),
        cwd=ROOT, capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert run.returncode == 0, run.stderr
    assert "final standings (12 matches)" in run.stdout
    assert f"database: {out / 'tournament.db'}" in run.stdout
    assert len(results(out / "tournament.db")) == 12
    assert len(list((out / "replays").glob("*.json"))) == 12
    events = [json.loads(line) for line in (tmp_path / "events.jsonl").read_text().splitlines()]
    assert sorted(e["table"] for e in events if e["event"] == "match_finished") == list(range(12))
    assert len([e for e in events if e["event"] == "match_started"]) == 12
    document = standings(out / "tournament.db")
    assert sum(line["matches"] for line in document["standings"]) == 24
    assert sum(line["points"] for line in document["standings"]) == 12
    assert live_processes_with(marker) == []


def test_kill_9_then_resume_gives_the_same_standings(tmp_path: Path, marker: str) -> None:
    """A tournament killed with SIGKILL mid-run and resumed ends exactly as an uninterrupted one,
    replays nothing that finished, and leaves no bot behind."""
    whole = tmp_path / "whole"
    subprocess.run(tournament(whole, marker), cwd=ROOT, capture_output=True, timeout=300,
                   check=True)  # fmt: skip
    cut = tmp_path / "cut"
    db = cut / "tournament.db"
    process = subprocess.Popen(
        tournament(cut, marker), cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    deadline = time.monotonic() + 120
    while recorded(db) < 4 and time.monotonic() < deadline and process.poll() is None:
        time.sleep(0.02)
    os.kill(process.pid, signal.SIGKILL)
    process.wait()
    before = results(db)
    assert 4 <= len(before) < 12, "the tournament should have been killed part-way"
    # A sandbox whose referee died while bubblewrap was still setting it up ends by itself
    # after SANDBOX_CONNECT_TIMEOUT_S (its pid 1 gets the parent-death signal only once its
    # mounts are set up): the wait allows that and the setup under a loaded CI machine.
    deadline = time.monotonic() + SANDBOX_CONNECT_TIMEOUT_S + 18
    while live_processes_with(marker) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert live_processes_with(marker) == []
    resumed = subprocess.run(
        [PY, "-m", "arena", "tournament", "--resume", "--db", str(db)],
        cwd=ROOT, capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert resumed.returncode == 0, resumed.stderr
    assert f"{len(before)} of 12 matches already played" in resumed.stdout
    after = results(db)
    assert after[: len(before)] == before or set(before) <= set(after)
    assert len(after) == 12
    assert after == results(whole / "tournament.db")
    assert standings(db) == standings(whole / "tournament.db")
    assert live_processes_with(marker) == []


def test_ctrl_c_stops_cleanly_and_says_how_to_resume(tmp_path: Path, marker: str) -> None:
    """SIGINT ends the run with exit 130, keeps what finished, and prints the resume command."""
    out = tmp_path / "t"
    process = subprocess.Popen(
        tournament(out, marker), cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        text=True,
    )  # fmt: skip
    deadline = time.monotonic() + 120
    while recorded(out / "tournament.db") < 2 and time.monotonic() < deadline:
        time.sleep(0.02)
    process.send_signal(signal.SIGINT)
    _, err = process.communicate(timeout=60)
    assert process.returncode == 130
    assert f"Resume with: arena tournament --resume --db {out / 'tournament.db'}" in err
    assert recorded(out / "tournament.db") >= 2
    assert live_processes_with(marker) == []


def test_a_bot_that_fails_its_handshake_is_left_out(tmp_path: Path, marker: str) -> None:
    """A bot answering garbage to hello is reported and excluded; the others play on."""
    out = tmp_path / "t"
    commands = [*bots(marker)[:2], f"{PY} tests/bots/garbage.py {marker}"]
    run = subprocess.run(
        [PY, "-m", "arena", "tournament", *commands, "--hands", "1", "--seed", "1",
         "--out", str(out), "--workers", "1"],
        cwd=ROOT, capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert run.returncode == 0, run.stderr
    assert "left out garbage: handshake: " in run.stdout
    assert "final standings (2 matches)" in run.stdout
    assert live_processes_with(marker) == []


@pytest.mark.parametrize(
    ("candidate", "baseline", "verdict"),
    [
        ("tests/bots/player.py ok 1", "tests/bots/player.py garbage 1", "H1 accepted"),
        ("tests/bots/player.py garbage 1", "tests/bots/player.py ok 1", "H0 accepted"),
    ],
)
def test_sprt_stops_at_a_decision(
    tmp_path: Path, marker: str, candidate: str, baseline: str, verdict: str
) -> None:
    """A bot that wins every game is accepted as stronger (H1), and one that loses every game
    is rejected (H0); the test stops there, every game recorded, the last line the decision."""
    run = subprocess.run(
        [PY, "-m", "arena", "sprt", f"{PY} {candidate} '' {marker}",
         f"{PY} {baseline} '' {marker}-b", "--elo0", "0", "--elo1", "200", "--hands", "1",
         "--seed", "4", "--out", str(tmp_path / "s"), "--concurrency", "2", "--workers", "1"],
        cwd=ROOT, capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert run.returncode == 0, run.stderr
    assert verdict in run.stdout
    pairs = [line for line in run.stdout.splitlines() if line.startswith("pair ")]
    decided = next(i for i, line in enumerate(pairs) if line.endswith(verdict.split()[0]))
    assert decided + 1 <= 15
    # Games still running at the decision are recorded, not counted, and the summary says so.
    games = recorded(tmp_path / "s" / "tournament.db")
    extra = games - 2 * len(pairs)
    assert extra >= 0
    if extra:
        assert re.search(
            rf"^not counted: \d+ pairs? \({extra} games?\) still in flight", run.stdout, re.M
        )
    else:
        assert "not counted" not in run.stdout
    assert live_processes_with(marker) == []


def test_swiss_rounds_are_paired_from_results(tmp_path: Path, marker: str) -> None:
    """Five bots, two Swiss rounds: each round two pairs on both seatings and one bye."""
    out = tmp_path / "t"
    commands = [*bots(marker), f"{PY} sample_bots/greedy.py {marker} second"]
    run = subprocess.run(
        [PY, "-m", "arena", "tournament", *commands, "--format", "swiss", "--rounds", "2",
         "--hands", "1", "--seed", "2", "--out", str(out), "--workers", "2"],
        cwd=ROOT, capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert run.returncode == 0, run.stderr
    assert "final standings (8 matches)" in run.stdout
    with sqlite3.connect(out / "tournament.db") as conn:
        rounds = conn.execute("SELECT round, count(*) FROM tables GROUP BY round").fetchall()
        seats = [json.loads(r[0]) for r in conn.execute("SELECT seats FROM tables")]
    assert rounds == [(1, 4), (2, 4)]
    pairs = [frozenset(s) for s in seats]
    assert all(pairs.count(p) == 2 for p in pairs)  # each pair twice: both seatings, no repeat
    assert live_processes_with(marker) == []


def test_three_player_tables_rotate_every_seat(tmp_path: Path, marker: str) -> None:
    """Four bots at three-player tables: every combination, each deal in three rotations."""
    out = tmp_path / "t"
    run = subprocess.run(
        [PY, "-m", "arena", "tournament", *bots(marker), "--players", "3", "--hands", "1",
         "--seed", "3", "--out", str(out), "--workers", "2", "--concurrency", "4"],
        cwd=ROOT, capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert run.returncode == 0, run.stderr
    assert "final standings (12 matches)" in run.stdout
    document = standings(out / "tournament.db")
    assert [line["matches"] for line in document["standings"]] == [9, 9, 9, 9]
    assert live_processes_with(marker) == []


def test_too_few_bots_for_the_table_size_says_how_many_were_given(tmp_path: Path) -> None:
    """``--players 3`` with two bots: the table needs three, two were given (nothing built)."""
    run = subprocess.run(
        [PY, "-m", "arena", "tournament", f"{PY} sample_bots/greedy.py",
         f"{PY} sample_bots/random_bot.py", "--players", "3", "--out", str(tmp_path / "t")],
        cwd=ROOT, capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert run.returncode == 2
    assert run.stderr.splitlines()[-1] == (
        "arena tournament: error: a 3-player table needs at least 3 bots (--players 3), but 2"
        " were given"
    )
    assert not (tmp_path / "t" / "tournament.db").exists()


def test_too_few_bots_passing_their_handshake_says_how_many_of_how_many(
    tmp_path: Path, marker: str
) -> None:
    """Three bots for a 3-player table, one failing its handshake: 2 of the 3 passed."""
    commands = [*bots(marker)[:2], f"{PY} tests/bots/garbage.py {marker}"]
    run = subprocess.run(
        [PY, "-m", "arena", "tournament", *commands, "--players", "3", "--out",
         str(tmp_path / "t"), "--sandbox", "none"],
        cwd=ROOT, capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert run.returncode == 2
    lines = run.stderr.splitlines()
    first = next(i for i, line in enumerate(lines) if line.startswith("arena tournament: error"))
    assert lines[first] == (
        "arena tournament: error: only 2 of the 3 bots passed their build and handshake; a"
        " 3-player table needs at least 3 bots; left out:"
    )
    assert lines[first + 1].startswith("  garbage: handshake: answered 'hello' with an invalid")
    assert live_processes_with(marker) == []
