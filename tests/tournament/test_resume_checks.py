"""``arena tournament --resume`` continues the tournament that was started: other flags or bots
are refused by name, the bots are built and checked again (a bot that now fails stops the
resume, never a forfeit), the out folder is the one the tournament was started with, and one
run at a time holds a tournament (a second exits 2 at once naming the first's pid).

Real runs: ``python3 -m arena ...`` in a subprocess, with the fast sample bot and one hand per
match; a match is "un-played" by deleting its rows, so that a resume has a match to play.
"""

from __future__ import annotations

import os
import shutil
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).parents[2]
PY = sys.executable
RANDOM = f"{PY} sample_bots/random_bot.py"
SMALL = ["--hands", "1", "--seed", "5", "--sandbox", "none", "--workers", "1"]


def arena(*args: str, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    """``python3 -m arena ARGS`` from the repository's root."""
    return subprocess.run(
        [PY, "-m", "arena", *args], cwd=ROOT, capture_output=True, text=True, timeout=timeout
    )


def error_line(run: subprocess.CompletedProcess[str]) -> str:
    """The usage error of ``run``: exit 2, no traceback, the one error line, last on stderr."""
    assert run.returncode == 2, (run.stdout, run.stderr)
    assert "Traceback" not in run.stderr
    lines = [line for line in run.stderr.splitlines() if line.strip()]
    assert [line for line in lines if ": error: " in line] == lines[-1:], run.stderr
    return lines[-1]


def start(*args: str) -> None:
    """A finished tournament."""
    run = arena("tournament", *args)
    assert run.returncode == 0, run.stderr


def unplay(db: Path, table: int) -> None:
    """Forget the match of ``table``, as if the tournament had stopped before it finished."""
    with sqlite3.connect(db) as conn:
        conn.execute("DELETE FROM seats WHERE table_idx = ?", (table,))
        conn.execute("DELETE FROM matches WHERE table_idx = ?", (table,))
    conn.close()


def results(db: Path) -> list[tuple[int, str, str]]:
    """Every recorded match: table, replay, statuses."""
    with sqlite3.connect(db) as conn:
        rows = conn.execute(
            "SELECT m.table_idx, m.replay, group_concat(s.status) FROM matches m "
            "JOIN seats s ON s.table_idx = m.table_idx GROUP BY m.table_idx ORDER BY m.table_idx"
        ).fetchall()
    conn.close()
    return [(int(a), str(b), str(c)) for a, b, c in rows]


def test_other_flags_or_bots_are_refused_naming_each_difference(tmp_path: Path) -> None:
    """Every flag that changes the tournament and differs from it is named; nothing is played;
    the same flags given again (or none) resume it."""
    out = tmp_path / "t"
    start(RANDOM, f"{RANDOM} b", *SMALL, "--out", str(out))
    db = out / "tournament.db"
    unplay(db, 1)
    before = results(db)
    run = arena(
        "tournament", "--resume", "--db", str(db), RANDOM, f"{RANDOM} c", "--seed", "6",
        "--hands", "2", "--policy", "lenient", "--strikes", "2", "--rounds", "2",
        "--move-ms", "500", "--players", "3", "--hand-size", "7", "--sandbox", "rlimits",
        "--memory-mb", "256", "--format", "gauntlet", "--out", str(tmp_path / "elsewhere"),
    )  # fmt: skip
    assert error_line(run) == (
        "arena tournament: error: --resume continues the tournament as it was started; leave "
        "out the flags that differ, or start a new tournament: "
        f"--out: the tournament writes to {out}, not {tmp_path / 'elsewhere'}; "
        "--format: the tournament has round-robin, not gauntlet; "
        "--players: the tournament has 2, not 3; "
        "--rounds: the tournament has 1, not 2; "
        "--seed: the tournament has 5, not 6; "
        "--hands: the tournament has 1 hand(s) per match, not 2 hand(s) per match; "
        "--move-ms: the tournament has 1000, not 500; "
        "--policy: the tournament has strict, not lenient; "
        "--strikes: the tournament has none, not 2; "
        "--sandbox: the tournament has none, not rlimits; "
        "--memory-mb: the tournament has no sandbox, not 256; "
        "--hand-size: the tournament has 5, not 7; "
        f"bot random_bot-2: the tournament runs {RANDOM} b, not {RANDOM} c"
    )
    assert results(db) == before
    # The same bots and flags, or none at all: the tournament goes on.
    same = arena("tournament", "--resume", "--db", str(db), RANDOM, f"{RANDOM} b", *SMALL)
    assert same.returncode == 0, same.stderr
    assert [r[0] for r in results(db)] == [0, 1]


def test_a_bot_that_now_fails_its_check_stops_the_resume(tmp_path: Path) -> None:
    """A bot whose file vanished after the interruption: the resume exits 2 naming it and what
    to do, and plays nothing (no forfeit is recorded); with the file back it finishes."""
    bot = tmp_path / "gone.py"
    shutil.copy(ROOT / "sample_bots" / "random_bot.py", bot)
    out = tmp_path / "t"
    start(RANDOM, f"{PY} {bot}", *SMALL, "--out", str(out))
    db = out / "tournament.db"
    unplay(db, 1)
    before = results(db)
    bot.unlink()
    run = arena("tournament", "--resume", "--db", str(db))
    assert error_line(run) == (
        "arena tournament: error: 1 bot(s) of the tournament no longer pass their build and "
        f"handshake (gone ('{PY} {bot}'): handshake: exited (exit code 2) without answering "
        "'hello'); a resume plays the bots the tournament started with: restore them (their "
        "files, their folders), then --resume again"
    )
    assert results(db) == before
    shutil.copy(ROOT / "sample_bots" / "random_bot.py", bot)
    again = arena("tournament", "--resume", "--db", str(db))
    assert again.returncode == 0, again.stderr
    assert [(r[0], r[2]) for r in results(db)] == [(0, "ok,ok"), (1, "ok,ok")]


def test_a_resume_runs_the_builds_again(tmp_path: Path) -> None:
    """A folder bot's build command is stored with the tournament and run again on resume:
    what the build made, deleted since, is made again and the bot plays."""
    folder = tmp_path / "built"
    shutil.copytree(ROOT / "tests" / "tournament" / "bots" / "league" / "built", folder)
    out = tmp_path / "t"
    start(RANDOM, str(folder), *SMALL, "--out", str(out))
    db = out / "tournament.db"
    unplay(db, 0)
    (folder / "name.txt").unlink()
    run = arena("tournament", "--resume", "--db", str(db))
    assert run.returncode == 0, run.stderr
    assert (folder / "name.txt").read_text() == "built\n"
    assert [(r[0], r[2]) for r in results(db)] == [(0, "ok,ok"), (1, "ok,ok")]


def test_the_out_folder_is_stored_with_the_tournament(tmp_path: Path) -> None:
    """Started with ``--db`` in one folder and ``--out`` in another, a resume given only
    ``--db`` writes the replays and the report to the original out folder."""
    db = tmp_path / "db" / "t.db"
    out = tmp_path / "out"
    start(RANDOM, f"{RANDOM} b", *SMALL, "--db", str(db), "--out", str(out))
    unplay(db, 1)
    shutil.rmtree(out)
    run = arena("tournament", "--resume", "--db", str(db))
    assert run.returncode == 0, run.stderr
    [replayed] = [r[1] for r in results(db) if r[0] == 1]
    assert Path(replayed).parent == out / "replays"
    assert Path(replayed).is_file()
    assert (out / "report.html").is_file()
    assert sorted(os.listdir(db.parent)) == ["t.db", "t.db.lock"]


def _wait_for(condition: object, what: str, timeout: float = 60) -> None:
    deadline = time.monotonic() + timeout
    while not condition():  # type: ignore[operator]
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.05)


def _holds_lock(lock: Path, db: Path) -> bool:
    if not lock.is_file() or not lock.read_text().strip():
        return False
    try:
        with sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=1) as conn:
            return conn.execute("SELECT count(*) FROM tables").fetchone()[0] > 0
    except sqlite3.Error:
        return False


def test_one_run_at_a_time_holds_a_tournament(tmp_path: Path) -> None:
    """While a tournament runs, a ``--resume`` (or a new run) on its database exits 2 at once
    naming the running one's pid; Ctrl-C's hint keeps ``--out`` (not the database's folder);
    the hint as printed resumes the tournament to the end."""
    db = tmp_path / "db" / "t.db"
    out = tmp_path / "out"
    slow = f"{PY} tests/bots/player.py late 1 3"
    first = subprocess.Popen(
        [PY, "-m", "arena", "tournament", slow, f"{slow} b", *SMALL, "--move-ms", "5000",
         "--concurrency", "1", "--db", str(db), "--out", str(out)],
        cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    try:
        _wait_for(lambda: _holds_lock(db.with_name("t.db.lock"), db), "the first run's lock")
        began = time.monotonic()
        second = arena("tournament", "--resume", "--db", str(db))
        assert time.monotonic() - began < 10
        held = (
            f"{db}: another run holds this tournament (pid {first.pid}); wait for it to end "
            "(or stop it), then --resume"
        )
        assert error_line(second) == f"arena tournament: error: {held}"
        new = arena("tournament", RANDOM, f"{RANDOM} b", *SMALL, "--db", str(db))
        assert error_line(new) == f"arena tournament: error: {held}"
        # Readers take no lock: the standings of a running tournament show.
        shown = arena("standings", "--db", str(db), "--json")
        assert shown.returncode == 0, shown.stderr
        assert '"matches"' in shown.stdout
    finally:
        first.send_signal(signal.SIGINT)
        _, err = first.communicate(timeout=60)
    assert first.returncode == 130, err
    hint = err.strip().splitlines()[-1]
    assert hint == f"Resume with: arena tournament --resume --db {db} --out {out}"
    resumed = arena(*hint.removeprefix("Resume with: arena ").split(), timeout=300)
    assert resumed.returncode == 0, resumed.stderr
    assert [r[0] for r in results(db)] == [0, 1]
    assert all(Path(r[1]).parent == out / "replays" for r in results(db))
