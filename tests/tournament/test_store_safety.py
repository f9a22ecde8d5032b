"""The tournament database through the CLI: a file that is not one is refused and left
byte-identical, a read-only mount is readable, a damaged database and a full disk are one line
each (exit 2, no traceback), and a full disk loses no recorded result.

Real runs: ``python3 -m arena ...`` in a subprocess, with the fast sample bot. The read-only
mount and the full disk are real too (a bind mount and a tiny tmpfs in a private mount
namespace, ``unshare -m``), so those tests need root; they are skipped elsewhere.
"""

from __future__ import annotations

import os
import random
import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).parents[2]
PY = sys.executable
BOTS = [f"{PY} sample_bots/random_bot.py", f"{PY} sample_bots/random_bot.py b",
        f"{PY} sample_bots/random_bot.py c"]  # fmt: skip
#: Three bots, both seatings of every deal: 6 matches of one hand.
SMALL = ["--hands", "1", "--seed", "3", "--sandbox", "none", "--workers", "1",
         "--concurrency", "1"]  # fmt: skip


def arena(*args: str, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    """``python3 -m arena ARGS`` from the repository's root."""
    return subprocess.run(
        [PY, "-m", "arena", *args], cwd=ROOT, capture_output=True, text=True, timeout=timeout
    )


def one_error_line(run: subprocess.CompletedProcess[str]) -> str:
    """The usage error of ``run``: exit 2, no traceback, one error line and the last line on
    stderr (a warning line before it, such as ``--sandbox none``'s, is not the error)."""
    assert run.returncode == 2, (run.stdout, run.stderr)
    assert "Traceback" not in run.stderr
    lines = [line for line in run.stderr.splitlines() if line.strip()]
    errors = [line for line in lines if ": error: " in line]
    assert errors == lines[-1:], run.stderr
    return lines[-1]


def results(db: Path) -> list[tuple[int, str, str]]:
    """Every recorded match (table, scores, statuses), by plain SQL."""
    with sqlite3.connect(db) as conn:
        rows = conn.execute(
            "SELECT m.table_idx, m.scores, group_concat(s.status) FROM matches m "
            "JOIN seats s ON s.table_idx = m.table_idx GROUP BY m.table_idx ORDER BY m.table_idx"
        ).fetchall()
    return [(int(a), str(b), str(c)) for a, b, c in rows]


@pytest.fixture(scope="module")
def finished(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The database of a finished 6-match tournament (not to be changed by the tests)."""
    out = tmp_path_factory.mktemp("finished") / "t"
    run = arena("tournament", *BOTS, *SMALL, "--out", str(out))
    assert run.returncode == 0, run.stderr
    return out / "tournament.db"


def _needs_root_namespaces() -> None:
    if os.geteuid() != 0 or shutil.which("unshare") is None:
        pytest.skip("needs root and unshare (a private mount namespace)")
    if subprocess.run(["unshare", "-m", "true"], capture_output=True).returncode != 0:
        pytest.skip("unshare -m does not work here")


# -- files that are not a tournament database --------------------------------------------------


def _foreign_sqlite(path: Path) -> None:
    """Another program's SQLite database, with a ``meta`` table of its own."""
    with sqlite3.connect(path) as conn:
        conn.execute("CREATE TABLE meta (name TEXT, setting TEXT)")
        conn.execute("INSERT INTO meta VALUES ('theme', 'dark')")
        conn.execute("CREATE TABLE notes (body TEXT)")
    conn.close()


FOREIGN = {
    "sqlite": (_foreign_sqlite, "an SQLite database without the arena's tables"),
    "empty": (lambda p: p.write_bytes(b""), "the file is empty"),
    "text": (lambda p: p.write_text("name,score\nalpha,3\n"), "not an SQLite file"),
}
COMMANDS = {
    "standings": lambda db: ["standings", "--db", str(db)],
    "report": lambda db: ["report", "--db", str(db)],
    "resume": lambda db: ["tournament", "--resume", "--db", str(db)],
    "new": lambda db: ["tournament", *BOTS[:2], *SMALL, "--db", str(db)],
}


@pytest.mark.parametrize("kind", sorted(FOREIGN))
@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_a_file_that_is_not_a_tournament_database_is_refused_and_left_as_it_was(
    tmp_path: Path, kind: str, command: str
) -> None:
    """``standings``, ``report``, ``tournament --resume`` and a new ``tournament`` on another
    program's SQLite file (with a ``meta`` table), an empty file or a text file: exit 2, one
    line naming the file, and the file byte-identical with its mtime, nothing made beside it."""
    folder = tmp_path / "data"
    folder.mkdir()
    path = folder / "other.db"
    make, why = FOREIGN[kind]
    make(path)
    os.utime(path, ns=(1_000_000_000_000_000_000, 1_000_000_000_000_000_000))
    before = (path.read_bytes(), path.stat().st_mtime_ns, sorted(os.listdir(folder)))
    run = arena(*COMMANDS[command](path))
    prog = "tournament" if command in ("resume", "new") else command
    assert one_error_line(run) == f"arena {prog}: error: {path}: not a tournament database ({why})"
    assert (path.read_bytes(), path.stat().st_mtime_ns, sorted(os.listdir(folder))) == before


@pytest.mark.parametrize("command", ["standings", "report", "resume", "new"])
def test_a_folder_given_as_the_database_is_refused(tmp_path: Path, command: str) -> None:
    """``--db A_FOLDER``: exit 2, one line, nothing made in the folder."""
    folder = tmp_path / "folder.db"
    folder.mkdir()
    run = arena(*COMMANDS[command](folder))
    prog = "tournament" if command in ("resume", "new") else command
    if command == "new":  # caught with the other output paths, before anything is made
        expected = f"--db {str(folder)!r} is a directory; give a file name"
    else:
        expected = f"{folder}: is a folder, not a tournament database (give a file)"
    assert one_error_line(run) == f"arena {prog}: error: {expected}"
    assert os.listdir(folder) == []


# -- a read-only mount -------------------------------------------------------------------------


def test_a_database_on_a_read_only_mount_is_readable(finished: Path, tmp_path: Path) -> None:
    """``standings`` and ``report`` read a tournament on a read-only bind mount (the report
    written elsewhere); ``--resume`` there says the folder is not writable, in one line."""
    _needs_root_namespaces()
    copy = tmp_path / "ro"
    shutil.copytree(finished.parent, copy)
    db = copy / "tournament.db"
    report = tmp_path / "report.html"
    script = (
        f"mount --bind -o ro {copy} {copy} && "
        f"{PY} -m arena standings --db {db} --json > {tmp_path / 'standings.json'} && "
        f"{PY} -m arena report --db {db} -o {report} && "
        f"{{ {PY} -m arena tournament --resume --db {db}; echo resume=$?; }}"
    )
    run = subprocess.run(
        ["unshare", "-m", "sh", "-c", script], cwd=ROOT, capture_output=True, text=True,
        timeout=120,
    )  # fmt: skip
    assert "resume=2" in run.stdout, (run.stdout, run.stderr)
    assert "Traceback" not in run.stderr
    assert '"matches": 6' in (tmp_path / "standings.json").read_text()
    assert report.is_file()
    assert run.stderr.strip().splitlines()[-1] == (
        f"arena tournament: error: {db}: cannot write beside it (Read-only file system); a "
        "tournament needs a writable folder (standings and report only read)"
    )


# -- a damaged database ------------------------------------------------------------------------


def _damage(db: Path, copy: Path) -> None:
    """``copy``: ``db`` with 2 KB of noise at the end of its seats table's first page (where
    SQLite keeps the rows, from the end of the page back)."""
    shutil.copy(db, copy)
    with sqlite3.connect(db) as conn:
        (root,) = conn.execute("SELECT rootpage FROM sqlite_master WHERE name = 'seats'").fetchone()
        (page,) = conn.execute("PRAGMA page_size").fetchone()
    conn.close()
    with copy.open("r+b") as file:
        file.seek(root * page - 2048)
        file.write(random.Random(5).randbytes(2048))


@pytest.mark.parametrize("command", ["standings", "report", "resume"])
def test_a_damaged_database_is_one_line(finished: Path, tmp_path: Path, command: str) -> None:
    """2 KB of noise in the middle of a tournament database: ``standings``, ``report`` and
    ``--resume`` say it is damaged, in one line naming it (exit 2, no traceback)."""
    db = tmp_path / "tournament.db"
    _damage(finished, db)
    run = arena(*COMMANDS[command](db))
    prog = "tournament" if command == "resume" else command
    assert one_error_line(run) == (
        f"arena {prog}: error: {db}: the database is damaged (database disk image is malformed)"
    )


# -- a full disk -------------------------------------------------------------------------------


def test_a_full_disk_stops_the_tournament_and_loses_no_result(
    finished: Path, tmp_path: Path
) -> None:
    """A tournament whose out folder is a tiny tmpfs fills it: exit 2, one line "disk full:
    free space, then --resume"; every match recorded before stays; once there is space again,
    ``--resume`` finishes with the results of an uninterrupted run."""
    _needs_root_namespaces()
    disk = tmp_path / "disk"
    disk.mkdir()
    db = disk / "t" / "tournament.db"
    tournament = " ".join(
        [PY, "-m", "arena", "tournament", *(f"'{b}'" for b in BOTS), *SMALL, "--out",
         str(disk / "t")]
    )  # fmt: skip
    script = f"""
        mount -t tmpfs -o size=176k tmpfs {disk} || exit 99
        {tournament} > /dev/null 2> {tmp_path / "full.err"}
        echo full=$?
        mkdir {tmp_path / "at-full"} {tmp_path / "after"}
        cp {db}* {tmp_path / "at-full"}
        mount -o remount,size=32m {disk}
        {PY} -m arena tournament --resume --db {db} > {tmp_path / "resume.out"} \
            2> {tmp_path / "resume.err"}
        echo resumed=$?
        cp {db}* {tmp_path / "after"}
    """
    run = subprocess.run(
        ["unshare", "-m", "sh", "-c", script], cwd=ROOT, capture_output=True, text=True,
        timeout=300,
    )  # fmt: skip
    assert "full=2" in run.stdout, (run.stdout, run.stderr, (tmp_path / "full.err").read_text())
    err = (tmp_path / "full.err").read_text()
    assert "Traceback" not in err
    assert err.strip().splitlines()[-1] == (
        f"arena tournament: error: {db}: disk full: free space, then --resume (every match "
        "recorded so far is kept)"
    )
    at_full = results(tmp_path / "at-full" / "tournament.db")
    assert 1 <= len(at_full) < 6, "the disk should have filled part-way"
    assert "resumed=0" in run.stdout, (tmp_path / "resume.err").read_text()
    assert f"{len(at_full)} of 6 matches already played" in (tmp_path / "resume.out").read_text()
    after = results(tmp_path / "after" / "tournament.db")
    assert after[: len(at_full)] == at_full
    assert after == results(finished)


# -- SQLite's errors, one by one ---------------------------------------------------------------


def _error(message: str, code: int) -> sqlite3.OperationalError:
    error = sqlite3.OperationalError(message)
    error.sqlite_errorcode = code  # type: ignore[attr-defined]
    return error


@pytest.mark.parametrize(
    ("error", "expected"),
    [
        (_error("database or disk is full", sqlite3.SQLITE_FULL),
         "DB: disk full: free space, then --resume (every match recorded so far is kept)"),
        (OSError(28, "No space left on device"),
         "DB: disk full: free space, then --resume (every match recorded so far is kept)"),
        (_error("database disk image is malformed", sqlite3.SQLITE_CORRUPT),
         "DB: the database is damaged (database disk image is malformed)"),
        (_error("attempt to write a readonly database", sqlite3.SQLITE_READONLY),
         "DB: cannot write it (attempt to write a readonly database)"),
        (_error("database is locked", sqlite3.SQLITE_BUSY),
         "DB: another program holds it (database is locked); try again later"),
    ],
)  # fmt: skip
def test_each_sqlite_error_is_one_line_naming_the_file(error: BaseException, expected: str) -> None:
    """The store's translation of what SQLite (or the disk) says: a full disk, damage, a file
    it may not write, a lock held by another program."""
    from arena.tournament.store_file import DiskFullError, StoreError, translated

    with pytest.raises(StoreError) as caught, translated(Path("DB")):
        raise error
    assert str(caught.value) == expected
    assert isinstance(caught.value, DiskFullError) == ("disk full" in expected)


def test_a_full_disk_while_recording_keeps_the_results_before(tmp_path: Path) -> None:
    """SQLite's "database or disk is full" while a match is recorded: `DiskFullError`, and the
    matches recorded before are there when the database is opened again."""
    from arena.replay import Status
    from arena.tournament.jobs import MatchSummary, SeatSummary
    from arena.tournament.store import DiskFullError, EntrantRow, Store, TableRow

    tables = [TableRow(0, 1, 11, 0, 0, (1, 2)), TableRow(1, 1, 11, 0, 1, (2, 1))]
    seats = [SeatSummary(s, f"b{s}", Status.OK, "", 0, 1, None, [1.0]) for s in range(2)]
    summary = MatchSummary(None, "hands", [0, 0], [0, 1], [[0, 0]], 1, 3, 0.1, seats)
    store = Store(tmp_path / "t.db")
    store.create({}, [EntrantRow(1, "a", "a", None, None, None),
                      EntrantRow(2, "b", "b", None, None, None)], tables)  # fmt: skip
    store.record(tables[0], summary, "r0.json", "now")

    class FullDisk:
        """A connection whose every statement fails as SQLite does on a full disk."""

        def __init__(self, db: sqlite3.Connection) -> None:
            self.db = db

        def __enter__(self) -> None:
            self.db.__enter__()

        def __exit__(self, *exc: object) -> None:
            self.db.__exit__(*exc)  # type: ignore[arg-type]

        def execute(self, *args: object) -> None:
            if args[0] != "BEGIN":
                raise _error("database or disk is full", sqlite3.SQLITE_FULL)
            self.db.execute("BEGIN")

    real = store.db
    store.db = FullDisk(real)  # type: ignore[assignment]
    with pytest.raises(DiskFullError, match=r"t\.db: disk full: free space, then --resume"):
        store.record(tables[1], summary, "r1.json", "now")
    store.db = real
    store.close()
    again = Store(tmp_path / "t.db", read_only=True)
    assert again.finished() == {0}
    again.close()
