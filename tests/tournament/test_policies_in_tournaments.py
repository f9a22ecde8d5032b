"""Failure policies in tournaments: ``arena tournament --policy lenient`` end to end (standings
JSON, CSV and text, the failure bundles, the web report), ``--resume`` keeping the stored policy,
a schema-1 database migrated when opened, and a stored policy that is not one.

The tournament is real: three copies of the test bot ``tests/bots/player.py`` under
``--policy lenient`` (3 strikes, 1 restart), one match at a time so that the bot that crashes
once crashes in exactly one match. The expected numbers follow from what each bot does:

- ``player`` (``illegal_from 1``) plays an illegal move at every request: strikes 1 and 2, and
  the third forfeits (the strike that forfeits is counted): 3 strikes and an ``illegal_move``
  forfeit in each of its 4 matches.
- ``player-2`` (``crash_once 1 FLAG``) crashes at its first request unless FLAG exists (it makes
  it first): it is restarted once in the whole tournament and never fails after.
- ``player-3`` (``illegal 1``) plays one illegal move, at its first request, which comes in every
  match before its opponent can forfeit: 1 strike in each of its 4 matches.
"""

from __future__ import annotations

import csv
import io
import json
import re
import sqlite3
import subprocess
import sys
import urllib.parse
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from arena.replay import Action, Restart, read_replay
from arena.tournament.html_report import find_replay
from arena.view.steps import StepKind, build_steps

ROOT = Path(__file__).parents[2]
PY = sys.executable
PLAYER = f"{PY} tests/bots/player.py"

#: Per bot: (strikes, restarts, failures), as explained in the module's docstring.
EXPECTED = {
    "player": (12, 0, {"illegal_move": 4}),
    "player-2": (0, 1, {}),
    "player-3": (4, 0, {}),
}


@dataclass(frozen=True)
class Played:
    """A finished tournament: its folder, database, and what ``arena tournament`` printed."""

    out: Path
    db: Path
    stdout: str


def arena(*args: str, timeout: float = 300) -> subprocess.CompletedProcess[str]:
    """Run ``python -m arena ARGS`` from the repository; it must succeed."""
    run = subprocess.run(
        [PY, "-m", "arena", *args], cwd=ROOT, capture_output=True, text=True, timeout=timeout
    )
    assert run.returncode == 0, run.stdout + run.stderr
    return run


@pytest.fixture(scope="module")
def lenient(tmp_path_factory: pytest.TempPathFactory) -> Played:
    """The tournament of the module's docstring: 6 matches, round robin, both seatings."""
    base = tmp_path_factory.mktemp("lenient")
    out = base / "out"
    run = arena(
        "tournament", f"{PLAYER} illegal_from 1", f"{PLAYER} crash_once 1 {base / 'crashed'}",
        f"{PLAYER} illegal 1", "--hands", "2", "--seed", "5", "--out", str(out),
        "--concurrency", "1", "--workers", "1", "--sandbox", "none", "--policy", "lenient",
    )  # fmt: skip
    return Played(out, out / "tournament.db", run.stdout)


def standings_json(db: Path) -> dict[str, Any]:
    """``arena standings --json``."""
    document: dict[str, Any] = json.loads(arena("standings", "--db", str(db), "--json").stdout)
    return document


def stored_replays(db: Path) -> list[Path]:
    """The replay of every recorded match, in table order, by plain SQL."""
    with sqlite3.connect(db) as conn:
        rows = conn.execute("SELECT replay FROM matches ORDER BY table_idx").fetchall()
    found = [find_replay(str(r[0]), db.parent) for r in rows]
    assert None not in found
    return [p for p in found if p is not None]


# -- standings --------------------------------------------------------------------------------


def test_standings_json_has_each_bots_strikes_and_restarts(lenient: Played) -> None:
    """``arena standings --json`` gives every bot's exact strikes and restarts, the forfeits by
    kind, and the tournament's policy; the counts agree with the replays' seat records."""
    document = standings_json(lenient.db)
    assert document["policy"] == {"name": "lenient", "strikes": 3, "restarts": 1}
    shown = {
        line["name"]: (line["strikes"], line["restarts"], line["failures"])
        for line in document["standings"]
    }
    assert shown == EXPECTED
    from_replays = {"strikes": 0, "restarts": 0}
    for path in stored_replays(lenient.db):
        replay = read_replay(path)
        assert replay.policy.describe() == "lenient (3 strikes, 1 restart)"
        from_replays["strikes"] += sum(s.strikes for s in replay.seats)
        from_replays["restarts"] += sum(s.restarts for s in replay.seats)
    assert from_replays == {"strikes": 16, "restarts": 1}


def test_standings_csv_has_strikes_and_restarts_columns(lenient: Played) -> None:
    """``arena standings --csv`` has a ``strikes`` and a ``restarts`` column after the
    failures."""
    text = arena("standings", "--db", str(lenient.db), "--csv").stdout
    rows = list(csv.DictReader(io.StringIO(text)))
    header = text.splitlines()[0].split(",")
    assert header[-3:] == ["failures", "strikes", "restarts"]
    shown = {r["name"]: (int(r["strikes"]), int(r["restarts"]), r["failures"]) for r in rows}
    assert shown == {
        "player": (12, 0, "illegal_move=4"),
        "player-2": (0, 1, ""),
        "player-3": (4, 0, ""),
    }


def test_the_text_says_the_policy_the_counts_and_where_the_bundles_are(lenient: Played) -> None:
    """The end of ``arena tournament`` names the policy and counts the forfeits, strikes and
    restarts, pointing at the failure bundles, which exist beside every replay with a failure;
    ``arena standings`` names the policy and shows strikes and restarts in the failures
    column."""
    assert "policy:   lenient (3 strikes, 1 restart)" in lenient.stdout
    assert (
        "failures: 4 forfeits, 16 strikes, 1 restart in 6 matches (each failed match has a "
        "NAME.failures/ folder beside its replay: README.txt explains it)"
    ) in lenient.stdout
    assert "[illegal_move, 3 strikes]" in lenient.stdout  # the line per match
    for path in stored_replays(lenient.db):
        replay = read_replay(path)
        failed = any(s.failure or s.strikes or s.restarts for s in replay.seats)
        readme = path.with_name(f"{path.stem}.failures") / "README.txt"
        assert readme.is_file() == failed, path
    text = arena("standings", "--db", str(lenient.db)).stdout
    assert text.startswith("failure policy: lenient (3 strikes, 1 restart)\n")
    rows = {line.split("│")[2].strip(): line.split("│")[7].strip() for line in _table_rows(text)}
    assert rows == {
        "player": "illegal_move 4 strikes=12",
        "player-2": "restarts=1",
        "player-3": "strikes=4",
    }


def _table_rows(text: str) -> list[str]:
    """The body rows of the first table drawn in ``text`` (the standings)."""
    lines = text.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("┡"))
    end = next(i for i in range(start, len(lines)) if lines[i].startswith("└"))
    return lines[start + 1 : end]


def test_a_strict_tournament_shows_no_policy_and_no_strike_columns(tmp_path: Path) -> None:
    """Under the default policy the text names no policy and keeps the failures column as it
    was; the JSON still has the keys, at 0; the failure line points at the bundles."""
    out = tmp_path / "out"
    run = arena(
        "tournament", f"{PLAYER} ok", f"{PLAYER} illegal 1", "--hands", "1", "--seed", "2",
        "--out", str(out), "--workers", "1", "--sandbox", "none",
    )  # fmt: skip
    assert "policy:" not in run.stdout
    assert (
        "failures: 2 (each failed match has a NAME.failures/ folder beside its replay: "
        "README.txt explains it)"
    ) in run.stdout
    text = arena("standings", "--db", str(out / "tournament.db")).stdout
    assert "policy" not in text
    assert "strikes=" not in text
    document = standings_json(out / "tournament.db")
    assert document["policy"] == {"name": "strict", "strikes": 0, "restarts": 0}
    assert {(line["strikes"], line["restarts"]) for line in document["standings"]} == {(0, 0)}
    report = (out / "report.html").read_text(encoding="utf-8")
    assert "c-strikes" not in report  # no strikes and restarts columns
    assert "stat-failure-policy" not in report  # no policy card
    assert 'chip">policy' not in report


# -- the web report ---------------------------------------------------------------------------

_ATTRIBUTE = re.compile(r'([\w-]+)="([^"]*)"')


def _elements(page: str, pattern: str) -> list[tuple[dict[str, str], str]]:
    """Every element whose opening tag matches ``pattern`` (attributes, inner HTML)."""
    return [
        (dict(_ATTRIBUTE.findall(m.group(1))), m.group(2)) for m in re.finditer(pattern, page, re.S)
    ]


def _target(report: Path, href: str) -> tuple[Path, str]:
    """The file a relative link of the report names, and its fragment."""
    assert not re.match(r"^[a-z]+:|^/", href), href
    path, _, fragment = href.partition("#")
    return (report.parent / urllib.parse.unquote(path)).resolve(), fragment


def test_the_report_links_every_failed_match_to_its_bundle(lenient: Played) -> None:
    """Each failed match links to its failure bundle's README.txt by a relative link to a file
    that exists, in the match list and under every failure; the policy is in the summary and
    the standings have the strikes and restarts."""
    report = lenient.out / "report.html"
    page = report.read_text(encoding="utf-8")
    rows = _elements(page, r'<tr class="match[^"]*" ([^>]*)>(.*?)</tr>')
    assert len(rows) == 6
    for attributes, inner in rows:
        links = re.findall(r'class="bundle-link" href="([^"]+)"', inner)
        assert attributes["data-failed"] == "1"  # every match had a strike, a restart or both
        (href,) = links
        target, _ = _target(report, href)
        assert target.name == "README.txt"
        assert target.is_file()
        assert target.parent.name.endswith(".failures")
        assert "Failures in the match of" in target.read_text()
    for _, inner in _elements(page, r'<li class="failure" ([^>]*)>(.*?)</li>'):
        (href,) = re.findall(r'class="bundle-link" href="([^"]+)"', inner)
        assert _target(report, href)[0].is_file()
    summary = page[page.index('id="summary"') : page.index('id="standings"')]
    assert "stat-failure-policy" in summary
    assert '<span class="chip">policy lenient (3 strikes, 1 restart)</span>' in page
    assert '<div class="value">lenient</div>' in summary
    assert "strike 3 forfeits; 1 restart after a crash" in summary
    standings = {
        a["data-name"]: (int(a["data-strikes"]), int(a["data-restarts"]))
        for a, _ in _elements(page, r'<tr class="standing" ([^>]*)>(.*?)</tr>')
    }
    assert standings == {name: (s, r) for name, (s, r, _) in EXPECTED.items()}
    assert '<td class="num c-strikes">12</td>' in page


def test_the_report_lists_each_strike_and_restart_at_its_step(lenient: Played) -> None:
    """Every strike and restart of every replay is a failure entry of the report, in match
    order, linking to the viewer page at the strike's move or the restart; forfeits link to
    the retirement as before."""
    report = lenient.out / "report.html"
    page = report.read_text(encoding="utf-8")
    listed = _elements(page, r'<li class="failure" ([^>]*)>(.*?)</li>')
    by_table: dict[int, list[tuple[dict[str, str], str]]] = {}
    for attributes, inner in listed:
        by_table.setdefault(int(attributes["data-table"]), []).append((attributes, inner))
    for table, path in enumerate(stored_replays(lenient.db)):
        replay = read_replay(path)
        steps = build_steps(replay)
        expected = []  # (seat, cost, status) of each strike and restart, from the events
        for hand in replay.hands:
            for event in hand.events:
                if isinstance(event, Action) and event.strike is not None:
                    expected.append((event.seat, "strike", event.strike.status.value))
                elif isinstance(event, Restart):
                    expected.append((event.seat, "restart", event.failure.status.value))
        mine = by_table.get(table, [])
        shown = [
            (int(a["data-seat"]), a["data-cost"], a["data-status"])
            for a, _ in mine
            if a["data-cost"] != "forfeit"
        ]
        assert sorted(shown) == sorted(expected), table  # cards are per bot: compare as sets
        forfeits = [
            (int(a["data-seat"]), a["data-status"]) for a, _ in mine if a["data-cost"] == "forfeit"
        ]
        assert forfeits == [(s.seat, s.status.value) for s in replay.seats if s.failure is not None]
        for attributes, inner in mine:
            number = int(attributes["data-step"])
            step = steps[number - 1]
            assert step.seat == int(attributes["data-seat"])
            if attributes["data-cost"] == "strike":
                assert step.kind is StepKind.MOVE
                assert step.action is not None
                assert step.action.strike is not None
            elif attributes["data-cost"] == "restart":
                assert step.kind is StepKind.RESTART
            else:
                assert step.kind is StepKind.RETIRE
            (href,) = re.findall(r'class="button evidence-link" href="([^"]+)"', inner)
            target, fragment = _target(report, href)
            assert target == path.with_suffix(".html").resolve()
            assert fragment == f"move={number}"


# -- resume -------------------------------------------------------------------------------------


def test_resume_plays_under_the_stored_policy(tmp_path: Path) -> None:
    """A tournament created with lenient's numbers changed (2 strikes, no restart) and resumed
    with no policy flag plays every match under the stored policy."""
    from arena.tournament.session import open_new
    from arena.tournament.settings import TournamentSettings

    out = tmp_path / "out"
    db = out / "tournament.db"
    settings = TournamentSettings(
        game="matador", hands=1, target=None, seed=3,
        policy={"name": "lenient", "strikes": 2, "restarts": 0},
    )  # fmt: skip
    with pytest.MonkeyPatch.context() as patch:
        patch.chdir(ROOT)
        opened = open_new([f"{PLAYER} illegal_from 1", f"{PLAYER} ok"], settings, db)
    opened.store.close()
    run = arena("tournament", "--resume", "--db", str(db))
    assert "0 of 2 matches already played" in run.stdout
    assert "policy:   lenient (2 strikes, 0 restarts)" in run.stdout
    replays = stored_replays(db)
    assert len(replays) == 2
    for path in replays:
        assert read_replay(path).policy.describe() == "lenient (2 strikes, 0 restarts)"
    document = standings_json(db)
    assert document["policy"] == {"name": "lenient", "strikes": 2, "restarts": 0}
    shown = {line["name"]: (line["strikes"], line["failures"]) for line in document["standings"]}
    # A strike at request 1, and the 2nd (request 2) forfeits: 2 strikes in each match.
    assert shown == {"player": (4, {"illegal_move": 2}), "player-2": (0, {})}


# -- the database -------------------------------------------------------------------------------

#: The tournament database as schema 1 made it (before strikes and restarts).
SCHEMA_1 = """
CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE entrants (
    id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE, command TEXT NOT NULL, cwd TEXT,
    language TEXT, excluded TEXT
);
CREATE TABLE tables (
    idx INTEGER PRIMARY KEY, round INTEGER NOT NULL, seed INTEGER NOT NULL,
    deal_group INTEGER NOT NULL, rotation INTEGER NOT NULL, seats TEXT NOT NULL
);
CREATE TABLE matches (
    table_idx INTEGER PRIMARY KEY REFERENCES tables(idx), finished_at TEXT NOT NULL,
    winner_seat INTEGER, reason TEXT NOT NULL, scores TEXT NOT NULL, ranking TEXT NOT NULL,
    hand_scores TEXT NOT NULL, hands INTEGER NOT NULL, moves INTEGER NOT NULL,
    duration_s REAL NOT NULL, replay TEXT NOT NULL
);
CREATE TABLE seats (
    table_idx INTEGER NOT NULL REFERENCES matches(table_idx), seat INTEGER NOT NULL,
    entrant INTEGER NOT NULL REFERENCES entrants(id), name TEXT NOT NULL, status TEXT NOT NULL,
    detail TEXT NOT NULL, score INTEGER NOT NULL, rank INTEGER NOT NULL,
    response_ms TEXT NOT NULL, PRIMARY KEY (table_idx, seat)
);
"""


def schema_1_database(path: Path) -> None:
    """A schema-1 tournament database with one recorded match: ``alpha`` beat ``beta``, who
    timed out (settings as stored then: no policy)."""
    config = {
        "game": "matador", "rules": {}, "players": 2, "format": "round-robin", "rounds": 1,
        "hands": 1, "target": None, "startup_ms": 5000, "move_ms": 1000, "bank_ms": 0,
        "seed": 7, "sandbox": None, "max_stdout_bytes": None,
    }  # fmt: skip
    with sqlite3.connect(path) as conn:
        conn.executescript(SCHEMA_1)
        conn.executemany(
            "INSERT INTO meta (key, value) VALUES (?, ?)",
            [("schema_version", "1"), ("config", json.dumps(config))],
        )
        conn.executemany(
            "INSERT INTO entrants VALUES (?, ?, ?, NULL, NULL, NULL)",
            [(1, "alpha", "python3 alpha.py"), (2, "beta", "python3 beta.py")],
        )
        conn.executemany(
            "INSERT INTO tables VALUES (?, 1, ?, ?, ?, ?)",
            [(0, 11, 0, 0, "[1, 2]"), (1, 11, 0, 1, "[2, 1]")],
        )
        conn.execute(
            "INSERT INTO matches VALUES (0, '2026-01-01T00:00:00', 0, 'forfeit', '[12, 0]', "
            "'[0, 1]', '[[12, 0]]', 1, 9, 0.25, 'replays/t00000.json')"
        )
        conn.executemany(
            "INSERT INTO seats VALUES (0, ?, ?, ?, ?, ?, ?, ?, ?)",
            [
                (0, 1, "alpha", "ok", "", 12, 1, "[1.0, 3.0]"),
                (1, 2, "beta", "timeout", "no reply within 1000 ms", 0, 2, "[2.0]"),
            ],
        )


def test_a_schema_1_database_is_migrated_when_opened(tmp_path: Path) -> None:
    """A schema-1 database is read as it is by ``arena standings`` (read-only: the file is not
    changed); opened for writing (a run, ``--resume``) it becomes schema 2 (its seats with 0
    strikes and 0 restarts), its standings are the same as before, and it opens again as
    schema 2."""
    from arena.tournament.store import Store

    db = tmp_path / "tournament.db"
    schema_1_database(db)
    before = db.read_bytes()
    read = standings_json(db)  # read-only: nothing written
    assert db.read_bytes() == before
    Store(db).close()  # opened for writing: migrated here
    document = standings_json(db)
    assert document == read
    with sqlite3.connect(db) as conn:
        version = conn.execute("SELECT value FROM meta WHERE key = 'schema_version'").fetchone()
        seats = conn.execute(
            "SELECT name, status, strikes, restarts FROM seats ORDER BY seat"
        ).fetchall()
    assert version == ("2",)
    assert seats == [("alpha", "ok", 0, 0), ("beta", "timeout", 0, 0)]
    assert document["matches"] == 1
    assert document["policy"] == {"name": "strict", "strikes": 0, "restarts": 0}
    lines = [
        {k: line[k] for k in ("name", "matches", "wins", "losses", "points", "failures")}
        | {"lenient": (line["strikes"], line["restarts"])}
        for line in document["standings"]
    ]
    assert lines == [
        {"name": "alpha", "matches": 1, "wins": 1, "losses": 0, "points": 1.0, "failures": {},
         "lenient": (0, 0)},
        {"name": "beta", "matches": 1, "wins": 0, "losses": 1, "points": 0.0,
         "failures": {"timeout": 1}, "lenient": (0, 0)},
    ]  # fmt: skip
    store = Store(db)  # a second open finds schema 2 and changes nothing
    try:
        assert store.get_meta("schema_version") == "2"
        assert [s.strikes for m in store.matches() for s in m.summary.seats] == [0, 0]
        assert len(store.finished()) == 1
    finally:
        store.close()
    assert standings_json(db) == document


def test_a_stored_policy_that_is_not_one_is_refused_by_name() -> None:
    """Settings whose policy is unknown, or has a setting no policy has, raise ValueError
    naming it."""
    from arena.tournament.settings import TournamentSettings

    with pytest.raises(ValueError, match="unknown failure policy 'harsh'"):
        TournamentSettings(game="matador", policy={"name": "harsh"})
    with pytest.raises(ValueError, match="unknown failure policy settings: lives"):
        TournamentSettings(game="matador", policy={"name": "lenient", "lives": 9})
    with pytest.raises(ValueError, match="strikes must be at least 1"):
        TournamentSettings(game="matador", policy={"name": "lenient", "strikes": 0})
    with pytest.raises(ValueError, match="apply to the lenient policy, not 'strict'"):
        TournamentSettings(game="matador", policy={"name": "strict", "strikes": 2})
    settings = TournamentSettings(game="matador", policy={"name": "lenient"})
    assert settings.failure_policy().describe() == "lenient (3 strikes, 1 restart)"
    assert TournamentSettings.from_dict(settings.to_dict()) == settings


def test_a_classroom_tournament_ends_with_each_bots_first_failure_explained(
    tmp_path: Path,
) -> None:
    """Under classroom the end of the tournament explains each failing bot's first failure at
    length, says how many more it had, and gives the line that plays that match again."""
    out = tmp_path / "out"
    run = arena(
        "tournament", f"{PLAYER} illegal 2", f"{PLAYER} ok", f"{PLAYER} garbage 1",
        "--hands", "1", "--seed", "3", "--out", str(out), "--workers", "1",
        "--sandbox", "none", "--policy", "classroom",
    )  # fmt: skip
    text = run.stdout
    assert "policy:   classroom" in text
    assert "player: its first failure, explained" in text
    assert "player-3: its first failure, explained" in text
    assert "player-2: its first failure" not in text  # it never failed
    assert "=== seat " in text
    assert "): ILLEGAL_MOVE ===" in text
    assert "): BAD_MESSAGE ===" in text
    assert "What to do:      Answer with one of the moves listed" in text
    # player fails in its 2 matches with player-2 (player-3 fails first against it), player-3
    # in all 4 of its matches.
    assert "... and 1 more failure of player (each failed match's" in text
    assert "... and 3 more failures of player-3 (each failed match's" in text
    rematch = re.findall(r"arena rematch (\S+)", text)
    assert len(rematch) == 2
    assert all(Path(p).is_file() and p.endswith(".failures/replay.json") for p in rematch)
