"""The tournament database: one SQLite file, written as matches finish.

Every write is one transaction (WAL journal, ``synchronous=FULL``), so an interruption at any
moment (Ctrl-C, ``kill -9``, power loss) leaves the database as it was after the last
committed transaction, and ``--resume`` continues from there. Results that arrive while one
transaction is being written share the next one (`Store.record_many`, group commit). The
runner calls the store from one worker thread at a time (:class:`AsyncStore`), so writes never
block the trio event loop.
"""

from __future__ import annotations

import functools
import json
import sqlite3
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import msgspec
import trio

from arena.tournament.jobs import MatchSummary, SeatSummary
from arena.tournament.store_file import (
    DiskFullError,
    StoreError,
    WriterLock,
    connect_read_only,
    damaged,
    existing_file,
    schema_version,
    translated,
)

__all__ = [
    "AsyncStore",
    "DiskFullError",
    "EntrantRow",
    "MatchRow",
    "Result",
    "Store",
    "StoreError",
]

#: Schema 2 added each seat's strikes and restarts (failure policies); a schema-1 database is
#: migrated when it is opened (its seats get 0 of both, which is what they had).
SCHEMA_VERSION = 2

_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS entrants (
    id INTEGER PRIMARY KEY,
    name TEXT NOT NULL UNIQUE,
    command TEXT NOT NULL,
    cwd TEXT,
    language TEXT,
    excluded TEXT
);
CREATE TABLE IF NOT EXISTS tables (
    idx INTEGER PRIMARY KEY,
    round INTEGER NOT NULL,
    seed INTEGER NOT NULL,
    deal_group INTEGER NOT NULL,
    rotation INTEGER NOT NULL,
    seats TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS matches (
    table_idx INTEGER PRIMARY KEY REFERENCES tables(idx),
    finished_at TEXT NOT NULL,
    winner_seat INTEGER,
    reason TEXT NOT NULL,
    scores TEXT NOT NULL,
    ranking TEXT NOT NULL,
    hand_scores TEXT NOT NULL,
    hands INTEGER NOT NULL,
    moves INTEGER NOT NULL,
    duration_s REAL NOT NULL,
    replay TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS seats (
    table_idx INTEGER NOT NULL REFERENCES matches(table_idx),
    seat INTEGER NOT NULL,
    entrant INTEGER NOT NULL REFERENCES entrants(id),
    name TEXT NOT NULL,
    status TEXT NOT NULL,
    detail TEXT NOT NULL,
    score INTEGER NOT NULL,
    rank INTEGER NOT NULL,
    response_ms TEXT NOT NULL,
    strikes INTEGER NOT NULL DEFAULT 0,
    restarts INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (table_idx, seat)
);
"""


@dataclass(frozen=True)
class EntrantRow:
    """An entrant as stored."""

    id: int
    name: str
    command: str
    cwd: str | None
    language: str | None
    excluded: str | None


@dataclass(frozen=True)
class TableRow:
    """A scheduled table as stored: seats are entrant ids in seat order."""

    idx: int
    round: int
    seed: int
    deal_group: int
    rotation: int
    seats: tuple[int, ...]


@dataclass(frozen=True)
class MatchRow:
    """A finished match as stored."""

    table: TableRow
    summary: MatchSummary
    replay: str


#: A finished match to store: its table, summary, replay path and finish time (ISO 8601).
Result = tuple[TableRow, MatchSummary, str, str]


class Store:
    """The database of one tournament (synchronous; use :class:`AsyncStore` from trio).

    ``read_only`` opens an existing tournament database for reading only (``standings``,
    ``report``): nothing is written, also not a schema-1 migration, and a read-only mount
    works. Otherwise the database is made if missing, migrated if schema 1, and this run holds
    its lock (`WriterLock`) until :meth:`close`. Either way an existing file is recognised
    before anything is written to it (`existing_file`, `schema_version`).

    Raises:
        StoreError: naming the file and the problem (`DiskFullError` for a full disk).
    """

    def __init__(self, path: str | Path, *, read_only: bool = False) -> None:
        self.path = Path(path)
        self.read_only = read_only
        self._lock: WriterLock | None = None
        exists = existing_file(self.path)
        if read_only:
            if not exists:
                raise StoreError(f"{self.path}: no tournament database there")
            self.db = connect_read_only(self.path, probe=True)
            try:
                self.version = self._check_version(schema_version(self.db, self.path))
            except StoreError:
                self.db.close()
                raise
            return
        if exists:
            probe = connect_read_only(self.path, probe=True)
            try:
                self._check_version(schema_version(probe, self.path))
            finally:
                probe.close()
        with translated(self.path):
            self.path.parent.mkdir(parents=True, exist_ok=True)
        self._lock = WriterLock(self.path)
        try:
            self._open_for_writing()
        except BaseException:
            self._lock.release()
            raise

    def _check_version(self, version: int) -> int:
        if version not in (1, SCHEMA_VERSION):
            raise StoreError(
                f"{self.path} has database schema {version}; this arena reads schema "
                f"{SCHEMA_VERSION}"
            )
        return version

    def _open_for_writing(self) -> None:
        """Connect; a new database gets the schema, a schema-1 one is migrated."""
        fresh = not existing_file(self.path)  # checked again: now under the lock
        with translated(self.path):
            self.db = sqlite3.connect(self.path, check_same_thread=False, isolation_level=None)
        try:
            with translated(self.path):
                self.db.execute("PRAGMA journal_mode=WAL")
                self.db.execute("PRAGMA synchronous=FULL")
                self.db.execute("PRAGMA foreign_keys=ON")
                if fresh:
                    with self.db:
                        self.db.execute("BEGIN")
                        for statement in _SCHEMA.split(";"):
                            if statement.strip():
                                self.db.execute(statement)
                        self.db.execute(
                            "INSERT INTO meta (key, value) VALUES ('schema_version', ?)",
                            (str(SCHEMA_VERSION),),
                        )
            version = self._check_version(schema_version(self.db, self.path))
            if version == 1:
                with translated(self.path):
                    self._migrate_from_1()
            self.version = SCHEMA_VERSION
        except BaseException:
            self.db.close()
            raise

    def _migrate_from_1(self) -> None:
        """Schema 1 to 2, in one transaction: the seats' strikes and restarts columns."""
        columns = {row[1] for row in self.db.execute("PRAGMA table_info(seats)")}
        with self.db:
            self.db.execute("BEGIN")
            for name in ("strikes", "restarts"):
                if name not in columns:
                    self.db.execute(
                        f"ALTER TABLE seats ADD COLUMN {name} INTEGER NOT NULL DEFAULT 0"
                    )
            self.db.execute(
                "UPDATE meta SET value = ? WHERE key = 'schema_version'", (str(SCHEMA_VERSION),)
            )

    def close(self) -> None:
        """Close the database (and release this run's lock)."""
        self.db.close()
        if self._lock is not None:
            self._lock.release()
            self._lock = None

    def check_integrity(self) -> None:
        """Refuse a damaged database (SQLite's ``quick_check``) before a run writes to it."""
        with translated(self.path):
            problems = [str(row[0]) for row in self.db.execute("PRAGMA quick_check(3)")]
        if problems != ["ok"]:  # the details (pages, cells) would not help: SQLite's words
            raise damaged(self.path, sqlite3.DatabaseError("database disk image is malformed"))

    # -- settings ------------------------------------------------------------------------------

    def get_meta(self, key: str) -> str | None:
        """A stored setting, or ``None``."""
        with translated(self.path, contents=True):
            row = self.db.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
            return None if row is None else str(row[0])

    def set_meta(self, key: str, value: str) -> None:
        """Store a setting."""
        with translated(self.path), self.db:
            self.db.execute("BEGIN")
            self.db.execute(
                "INSERT INTO meta (key, value) VALUES (?, ?) "
                "ON CONFLICT (key) DO UPDATE SET value = excluded.value",
                (key, value),
            )

    def config(self) -> dict[str, Any] | None:
        """The tournament's settings as created, or ``None`` for a new database."""
        with translated(self.path, contents=True):
            text = self.get_meta("config")
            return None if text is None else dict(json.loads(text))

    # -- creation ------------------------------------------------------------------------------

    def create(
        self,
        config: dict[str, Any],
        entrants: list[EntrantRow],
        tables: list[TableRow],
        meta: dict[str, str] | None = None,
    ) -> None:
        """Store a new tournament: its settings, entrants and (initial) schedule, and the other
        ``meta`` settings given (e.g. ``out_dir``, ``builds``), in one transaction."""
        with translated(self.path):
            if self.config() is not None:
                raise StoreError(
                    f"{self.path} already holds a tournament: use --resume to continue it, or "
                    "give another --db or --out"
                )
            with self.db:
                self.db.execute("BEGIN")
                self.db.executemany(
                    "INSERT INTO meta (key, value) VALUES (?, ?)",
                    [("config", json.dumps(config)), *sorted((meta or {}).items())],
                )
                self.db.executemany(
                    "INSERT INTO entrants (id, name, command, cwd, language, excluded) "
                    "VALUES (?, ?, ?, ?, ?, ?)",
                    [(e.id, e.name, e.command, e.cwd, e.language, e.excluded) for e in entrants],
                )
                self._insert_tables(tables)

    def add_tables(self, tables: list[TableRow]) -> None:
        """Store more tables (the next Swiss round)."""
        with translated(self.path), self.db:
            self.db.execute("BEGIN")
            self._insert_tables(tables)

    def _insert_tables(self, tables: list[TableRow]) -> None:
        self.db.executemany(
            "INSERT INTO tables (idx, round, seed, deal_group, rotation, seats) "
            "VALUES (?, ?, ?, ?, ?, ?)",
            [
                (t.idx, t.round, t.seed, t.deal_group, t.rotation, json.dumps(t.seats))
                for t in tables
            ],
        )

    # -- results -------------------------------------------------------------------------------

    def record(
        self,
        table: TableRow,
        summary: MatchSummary,
        replay: str,
        finished_at: str,
        *,
        new_table: bool = False,
    ) -> None:
        """Store one finished match and its seats, in one transaction (with its table too when
        ``new_table``: the SPRT schedules tables as it goes)."""
        with translated(self.path), self.db:
            self.db.execute("BEGIN")
            if new_table:
                self._insert_tables([table])
            self._insert_match(table, summary, replay, finished_at)

    def record_many(self, results: list[Result]) -> None:
        """Store several finished matches in one transaction (group commit): all of them or,
        after an interruption, none."""
        with translated(self.path), self.db:
            self.db.execute("BEGIN")
            for result in results:
                self._insert_match(*result)

    def _insert_match(
        self, table: TableRow, summary: MatchSummary, replay: str, finished_at: str
    ) -> None:
        self.db.execute(
            "INSERT INTO matches (table_idx, finished_at, winner_seat, reason, scores, "
            "ranking, hand_scores, hands, moves, duration_s, replay) "
            "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (
                table.idx,
                finished_at,
                summary.winner,
                summary.reason,
                _json(summary.scores),
                _json(summary.ranking),
                _json(summary.hand_scores),
                summary.hands,
                summary.moves,
                summary.duration_s,
                replay,
            ),
        )
        self.db.executemany(
            "INSERT INTO seats (table_idx, seat, entrant, name, status, detail, score, "
            "rank, response_ms, strikes, restarts) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            [
                (
                    table.idx,
                    s.seat,
                    table.seats[s.seat],
                    s.name,
                    s.status.value,
                    s.detail,
                    s.score,
                    s.rank,
                    _json(s.response_ms),
                    s.strikes,
                    s.restarts,
                )
                for s in summary.seats
            ],
        )

    # -- reading -------------------------------------------------------------------------------

    def entrants(self) -> list[EntrantRow]:
        """Every entrant, excluded ones included, by id."""
        with translated(self.path, contents=True):
            rows = self.db.execute(
                "SELECT id, name, command, cwd, language, excluded FROM entrants ORDER BY id"
            ).fetchall()
            return [EntrantRow(*row) for row in rows]

    def tables(self) -> list[TableRow]:
        """Every scheduled table, in order."""
        with translated(self.path, contents=True):
            rows = self.db.execute(
                "SELECT idx, round, seed, deal_group, rotation, seats FROM tables ORDER BY idx"
            ).fetchall()
            return [TableRow(r[0], r[1], r[2], r[3], r[4], tuple(json.loads(r[5]))) for r in rows]

    def finished(self) -> set[int]:
        """The indices of the tables whose match is recorded."""
        with translated(self.path, contents=True):
            return {row[0] for row in self.db.execute("SELECT table_idx FROM matches")}

    def matches(self) -> list[MatchRow]:
        """Every recorded match with its seats, in table order."""
        with translated(self.path, contents=True):
            tables = {t.idx: t for t in self.tables()}
            seats: dict[int, list[Any]] = {}
            for row in self.db.execute(
                "SELECT table_idx, seat, name, status, detail, score, rank, response_ms, "
                + ("strikes, restarts" if self.version >= 2 else "0, 0")  # schema 1: none
                + " FROM seats ORDER BY table_idx, seat"
            ):
                seats.setdefault(row[0], []).append(row)
            out = []
            for row in self.db.execute(
                "SELECT table_idx, winner_seat, reason, scores, ranking, hand_scores, hands, "
                "moves, duration_s, replay FROM matches ORDER BY table_idx"
            ):
                summary = MatchSummary(
                    winner=row[1],
                    reason=row[2],
                    scores=json.loads(row[3]),
                    ranking=json.loads(row[4]),
                    hand_scores=json.loads(row[5]),
                    hands=row[6],
                    moves=row[7],
                    duration_s=row[8],
                    seats=[
                        msgspec.convert(
                            {
                                "seat": s[1],
                                "name": s[2],
                                "status": s[3],
                                "detail": s[4],
                                "score": s[5],
                                "rank": s[6],
                                "failure": None if s[3] == "ok" else s[3],
                                "response_ms": json.loads(s[7]),
                                "strikes": s[8],
                                "restarts": s[9],
                            },
                            SeatSummary,
                        )
                        for s in seats.get(row[0], [])
                    ],
                )
                out.append(MatchRow(tables[row[0]], summary, row[9]))
            return out


def _json(value: object) -> str:
    """``value`` as compact JSON text: msgspec's encoder, about 5x faster than ``json.dumps``
    on a seat's response times (the biggest part of a result's write)."""
    return _ENCODE(value).decode()


_ENCODE = msgspec.json.Encoder().encode


class AsyncStore:
    """The store for trio code: each call runs in a worker thread, one at a time."""

    def __init__(self, store: Store) -> None:
        self.store = store
        self._limiter = trio.CapacityLimiter(1)

    async def record(
        self,
        table: TableRow,
        summary: MatchSummary,
        replay: str,
        finished_at: str,
        *,
        new_table: bool = False,
    ) -> None:
        """:meth:`Store.record` off the event loop."""
        await trio.to_thread.run_sync(
            functools.partial(
                self.store.record, table, summary, replay, finished_at, new_table=new_table
            ),
            limiter=self._limiter,
        )

    async def record_many(self, results: list[Result]) -> None:
        """:meth:`Store.record_many` off the event loop."""
        await trio.to_thread.run_sync(self.store.record_many, results, limiter=self._limiter)

    async def add_tables(self, tables: list[TableRow]) -> None:
        """:meth:`Store.add_tables` off the event loop."""
        await trio.to_thread.run_sync(self.store.add_tables, tables, limiter=self._limiter)
