"""The tournament database: creation, results, reading back, refusals."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from arena.replay import Status
from arena.tournament.jobs import MatchSummary, SeatSummary
from arena.tournament.store import EntrantRow, Store, StoreError, TableRow

ENTRANTS = [
    EntrantRow(1, "alpha", "python3 a.py", None, None, None),
    EntrantRow(2, "beta", "./b", "/bots/b", "C", None),
    EntrantRow(3, "gamma", "python3 g.py", None, None, "handshake: no ready within 500 ms"),
]
TABLES = [TableRow(0, 1, 111, 0, 0, (1, 2)), TableRow(1, 1, 111, 0, 1, (2, 1))]


def summary(scores: list[int], ranks: list[int]) -> MatchSummary:
    """A two-seat match summary with the given scores and ranks."""
    return MatchSummary(
        winner=ranks.index(1) if ranks.count(1) == 1 else None,
        reason="hands",
        scores=scores,
        ranking=sorted(range(2), key=lambda s: ranks[s]),
        hand_scores=[scores],
        hands=1,
        moves=20,
        duration_s=0.5,
        seats=[
            SeatSummary(s, f"bot{s}", Status.OK, "", scores[s], ranks[s], None, [1.0, 2.0])
            for s in range(2)
        ],
    )


def test_a_new_tournament_is_stored_and_read_back(tmp_path: Path) -> None:
    """Settings, entrants (excluded ones with their reason) and tables come back as stored."""
    store = Store(tmp_path / "t.db")
    store.create({"seed": 7, "format": "round-robin"}, ENTRANTS, TABLES)
    assert store.config() == {"seed": 7, "format": "round-robin"}
    assert store.entrants() == ENTRANTS
    assert store.tables() == TABLES
    assert store.finished() == set()


def test_results_are_recorded_per_match_and_read_back(tmp_path: Path) -> None:
    """A recorded match comes back with its table, seats and replay path."""
    store = Store(tmp_path / "t.db")
    store.create({}, ENTRANTS, TABLES)
    store.record(TABLES[1], summary([30, 0], [1, 2]), "r/t1.json", "2026-11-30T12:00:00+00:00")
    assert store.finished() == {1}
    [row] = store.matches()
    assert row.table == TABLES[1]
    assert row.replay == "r/t1.json"
    assert row.summary == summary([30, 0], [1, 2])


def test_a_second_tournament_in_the_same_database_is_refused(tmp_path: Path) -> None:
    """Creating over an existing tournament says to resume or choose another file."""
    store = Store(tmp_path / "t.db")
    store.create({}, ENTRANTS, TABLES)
    with pytest.raises(StoreError, match="already holds a tournament: use --resume"):
        store.create({}, ENTRANTS, TABLES)


def test_a_match_is_recorded_at_most_once(tmp_path: Path) -> None:
    """Recording the same table twice fails and leaves the first record intact."""
    store = Store(tmp_path / "t.db")
    store.create({}, ENTRANTS, TABLES)
    store.record(TABLES[0], summary([5, 0], [1, 2]), "a.json", "now")
    with pytest.raises(sqlite3.IntegrityError):
        store.record(TABLES[0], summary([0, 5], [2, 1]), "b.json", "now")
    [row] = store.matches()
    assert row.replay == "a.json"
    assert [s.score for s in row.summary.seats] == [5, 0]


def test_results_survive_reopening(tmp_path: Path) -> None:
    """A fresh connection (as after a crash) sees every committed result."""
    store = Store(tmp_path / "t.db")
    store.create({"seed": 1}, ENTRANTS, TABLES)
    store.record(TABLES[0], summary([5, 0], [1, 2]), "a.json", "now")
    store.close()
    again = Store(tmp_path / "t.db")
    assert again.finished() == {0}
    assert again.config() == {"seed": 1}


def test_a_file_that_is_not_a_database_is_refused(tmp_path: Path) -> None:
    """Pointing --db at some other file gives a clear error naming it."""
    path = tmp_path / "notes.txt"
    path.write_text("hello, this is not sqlite\n" * 100)
    with pytest.raises(StoreError, match=r"notes\.txt: not a tournament database"):
        Store(path)
