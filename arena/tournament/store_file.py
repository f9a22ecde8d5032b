"""Opening a tournament database safely (used by :mod:`arena.tournament.store`).

A file is recognised before anything is written to it: a folder, an empty file, a file that is
not SQLite, or an SQLite database of another program is refused by name and left
byte-identical. Readers (``standings``, ``report``) open it read-only, also on a read-only
mount; writers (a tournament, ``--resume``) hold a lock beside it, so one run at a time plays a
tournament. SQLite's own errors become one line naming the file (:func:`translated`).
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import os
import sqlite3
import stat
import urllib.parse
from collections.abc import Iterator
from pathlib import Path

from arena.errors import ArenaError

#: The first 16 bytes of every SQLite 3 database file.
SQLITE_HEADER = b"SQLite format 3\x00"

#: The columns each table of every schema has (schema 1 lacks the seats' strikes and
#: restarts): a database with all of them and a schema version is a tournament database.
REQUIRED_COLUMNS = {
    "meta": {"key", "value"},
    "entrants": {"id", "name", "command", "cwd", "language", "excluded"},
    "tables": {"idx", "round", "seed", "deal_group", "rotation", "seats"},
    "matches": {
        "table_idx", "finished_at", "winner_seat", "reason", "scores", "ranking",
        "hand_scores", "hands", "moves", "duration_s", "replay",
    },
    "seats": {
        "table_idx", "seat", "entrant", "name", "status", "detail", "score", "rank",
        "response_ms",
    },
}  # fmt: skip


class StoreError(ArenaError):
    """A database that cannot be used: not ours, damaged, a newer schema, held by another run,
    or a mismatched resume (the message is one line naming the file)."""


class DiskFullError(StoreError):
    """The disk filled up while the tournament was writing; what is recorded is kept."""


def disk_full(path: Path | str) -> DiskFullError:
    """The error for a full disk while writing ``path``."""
    return DiskFullError(
        f"{path}: disk full: free space, then --resume (every match recorded so far is kept)"
    )


@contextlib.contextmanager
def disk_guard(path: Path | str) -> Iterator[None]:
    """A full disk while writing ``path`` as `DiskFullError` (other errors pass)."""
    try:
        yield
    except OSError as error:
        if is_disk_full(error):
            raise disk_full(path) from None
        raise


def damaged(path: Path, error: BaseException) -> StoreError:
    """The error for a database SQLite (or its contents) says is damaged."""
    return StoreError(f"{path}: the database is damaged ({error})")


def not_ours(path: Path, why: str) -> StoreError:
    """The error for a file that is not a tournament database (``why``: what it is)."""
    return StoreError(f"{path}: not a tournament database ({why})")


def is_disk_full(error: BaseException) -> bool:
    """Whether ``error`` (an ``OSError`` or an SQLite error) says the disk is full."""
    if isinstance(error, OSError):
        return error.errno in (errno.ENOSPC, errno.EDQUOT)
    if isinstance(error, sqlite3.Error):
        return getattr(error, "sqlite_errorcode", None) == sqlite3.SQLITE_FULL
    return False


@contextlib.contextmanager
def translated(path: Path, *, contents: bool = False) -> Iterator[None]:
    """SQLite's errors as `StoreError` naming ``path``: a full disk as `DiskFullError`, any
    other failure as a damaged database; with ``contents``, also values that do not decode
    (noise inside a row). A constraint failure stays what it is (a bug, not damage)."""
    try:
        yield
    except sqlite3.IntegrityError:
        raise
    except (sqlite3.DatabaseError, OSError) as error:
        raise _one_line(path, error) from None
    except (ValueError, TypeError, KeyError, IndexError) as error:
        if not contents:
            raise
        raise damaged(path, error) from None


def _one_line(path: Path, error: sqlite3.DatabaseError | OSError) -> StoreError:
    """What an SQLite or file error means for the database ``path``."""
    if is_disk_full(error):
        return disk_full(path)
    if isinstance(error, OSError):
        return StoreError(f"{path}: {error.strerror or error}")
    code = getattr(error, "sqlite_errorcode", None)
    primary = None if code is None else code & 0xFF
    if primary in (sqlite3.SQLITE_CORRUPT, sqlite3.SQLITE_NOTADB):
        return damaged(path, error)
    if primary == sqlite3.SQLITE_READONLY:
        return StoreError(f"{path}: cannot write it ({error})")
    if primary in (sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED):
        return StoreError(f"{path}: another program holds it ({error}); try again later")
    return damaged(path, error) if code is None else StoreError(f"{path}: {error}")


def existing_file(path: Path) -> bool:
    """Whether ``path`` exists (``False``: a new database may be made there); refuses, by
    name, a folder, a special file, an empty file, and a file that is not SQLite."""
    try:
        info = path.stat()
    except FileNotFoundError:
        return False
    except OSError as error:
        raise StoreError(f"{path}: cannot read it ({error.strerror or error})") from None
    if stat.S_ISDIR(info.st_mode):
        raise StoreError(f"{path}: is a folder, not a tournament database (give a file)")
    if not stat.S_ISREG(info.st_mode):
        raise not_ours(path, "not a regular file")
    if info.st_size == 0:
        raise not_ours(path, "the file is empty")
    try:
        with path.open("rb") as file:
            head = file.read(len(SQLITE_HEADER))
    except OSError as error:
        raise StoreError(f"{path}: cannot read it ({error.strerror or error})") from None
    if head != SQLITE_HEADER:
        raise not_ours(path, "not an SQLite file")
    return True


def _uri(path: Path, **params: str) -> str:
    query = "&".join(f"{k}={v}" for k, v in params.items())
    return f"file:{urllib.parse.quote(str(path.absolute()))}?{query}"


def connect_read_only(path: Path, *, probe: bool = False) -> sqlite3.Connection:
    """A read-only connection to the existing SQLite file ``path``.

    With no write-ahead log beside the file, its content is all in the file: a ``probe``
    (recognising a file that may not be ours) then opens it ``immutable``, so that SQLite makes
    no ``-wal``/``-shm`` file beside another program's database. Otherwise ``mode=ro``; where
    that cannot open (a read-only folder or mount, where SQLite cannot make its ``-shm``
    file), ``immutable`` again.
    """
    wal = path.with_name(path.name + "-wal").exists()
    attempts = [] if wal or not probe else [_uri(path, immutable="1")]
    attempts.append(_uri(path, mode="ro"))
    if not wal:
        attempts.append(_uri(path, immutable="1"))
    last: sqlite3.Error | None = None
    for uri in attempts:
        try:
            db = sqlite3.connect(uri, uri=True, check_same_thread=False, isolation_level=None)
        except sqlite3.Error as error:
            last = error
            continue
        try:
            db.execute("SELECT count(*) FROM sqlite_master").fetchone()
        except sqlite3.OperationalError as error:
            db.close()
            last = error
            continue
        except sqlite3.DatabaseError as error:
            db.close()
            raise damaged(path, error) from None
        return db
    cant_open = getattr(last, "sqlite_errorcode", None) == sqlite3.SQLITE_CANTOPEN
    if isinstance(last, sqlite3.DatabaseError) and not cant_open:
        raise damaged(path, last)
    raise StoreError(f"{path}: cannot open it read-only ({last})")


def schema_version(db: sqlite3.Connection, path: Path) -> int:
    """The schema version of the tournament database ``db`` (refused by name when it is not
    one)."""
    with translated(path):
        found = {
            name: {str(row[1]) for row in db.execute(f"PRAGMA table_info({name})")}
            for name in REQUIRED_COLUMNS
        }
        if any(not need <= found[name] for name, need in REQUIRED_COLUMNS.items()):
            raise not_ours(path, "an SQLite database without the arena's tables")
        row = db.execute("SELECT value FROM meta WHERE key = 'schema_version'").fetchone()
    if row is None or not str(row[0]).isdigit():
        raise not_ours(path, "an SQLite database with no arena schema version")
    return int(row[0])


class WriterLock:
    """The lock a run that writes a tournament holds, on ``DB.lock`` beside the database
    (``flock``: released when the process ends, however it ends).

    Raises:
        StoreError: another run holds it (naming that run's pid), or the folder is read-only.
    """

    def __init__(self, db: Path) -> None:
        self.path = db.with_name(db.name + ".lock")
        try:
            self._fd: int | None = os.open(self.path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o644)
        except OSError as error:
            if is_disk_full(error):
                raise disk_full(self.path) from None
            raise StoreError(
                f"{db}: cannot write beside it ({error.strerror or error}); a tournament needs "
                "a writable folder (standings and report only read)"
            ) from None
        try:
            fcntl.flock(self._fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            holder = os.pread(self._fd, 32, 0).decode(errors="replace").strip()
            os.close(self._fd)
            self._fd = None
            who = f" (pid {holder})" if holder.isdigit() else ""
            raise StoreError(
                f"{db}: another run holds this tournament{who}; wait for it to end (or stop "
                "it), then --resume"
            ) from None
        with contextlib.suppress(OSError):  # the pid only helps the message of another run
            os.ftruncate(self._fd, 0)
            os.pwrite(self._fd, f"{os.getpid()}\n".encode(), 0)

    def release(self) -> None:
        """Release the lock (the lock file stays: removing it would race another run)."""
        if self._fd is not None:
            os.close(self._fd)
            self._fd = None
