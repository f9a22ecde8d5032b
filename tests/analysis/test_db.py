"""``arena analyze --db``: every replay of a real tournament analysed in worker processes, and
the report's accuracy column."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from arena.replay import read_replay
from arena.tournament.report_analysis import bot_accuracy
from arena.tournament.report_matches import collect_matches
from arena.tournament.store import Store
from arena.verify import verify_replay
from tests.analysis.conftest import BOT

REPO = Path(__file__).resolve().parents[2]
GREEDY = f"{sys.executable} {REPO / 'sample_bots' / 'greedy.py'}"
RANDOM = f"{sys.executable} {REPO / 'sample_bots' / 'random_bot.py'}"


def arena(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    """``python3 -m arena ARGS`` in ``cwd``, this checkout first on the path."""
    env = {"PYTHONPATH": str(REPO), "PATH": "/usr/bin:/bin:/usr/local/bin"}
    return subprocess.run(
        [sys.executable, "-m", "arena", *args],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )


def test_db_analyses_every_replay_and_the_report_shows_accuracy(tmp_path: Path) -> None:
    """Two bots, one hand per match: every replay gets its section and still verifies, each
    viewer page is made again with it, the report gets an accuracy column, and the summary per
    bot pools its seats."""
    played = arena(
        "tournament", GREEDY, RANDOM, "--hands", "1", "--seed", "4", "--sandbox", "none",
        "--out", "t", cwd=tmp_path,
    )  # fmt: skip
    assert played.returncode == 0, played.stderr
    db = tmp_path / "t" / "tournament.db"
    report = tmp_path / "t" / "report.html"
    assert "c-accuracy" not in report.read_text(encoding="utf-8")
    run = arena("analyze", "--db", str(db), "--bot", BOT, "--workers", "2", cwd=tmp_path)
    assert run.returncode == 0, run.stderr
    store = Store(db, read_only=True)
    try:
        entries = collect_matches(store)
        replays = [e.replay for e in entries]
        assert replays
        assert all(path is not None for path in replays)
        for path in replays:
            assert path is not None
            replay = read_replay(path)
            assert replay.analysis is not None
            assert replay.analysis.bot == BOT
            assert verify_replay(replay).ok
            assert '"analysis":{"bot":' in path.with_suffix(".html").read_text(encoding="utf-8")
        accuracy = bot_accuracy(entries)
        names = {e.id: e.name for e in store.entrants()}
    finally:
        store.close()
    lines = run.stdout.splitlines()
    assert lines[: len(replays)] == [f"analysed {path}" for path in replays]
    assert lines[len(replays)] == f"{len(replays)} replays analysed with {BOT}"
    assert sorted(lines[len(replays) + 1 : -1]) == sorted(
        f"  {names[e]}: accuracy {a.accuracy:.1f}% over {a.decisions} decisions, mean loss "
        f"{a.mean_loss:.2f}, {a.inaccuracies} inaccuracies, {a.mistakes} mistakes, "
        f"{a.blunders} blunders"
        for e, a in accuracy.items()
    )
    assert lines[-1] == f"wrote {report} (an accuracy column per bot)"
    page = report.read_text(encoding="utf-8")
    for entrant, summary in accuracy.items():
        assert f'data-entrant="{entrant}"' in page
        assert f'data-sort="{summary.accuracy}" title="{summary.decisions} decisions">' in page
    again = arena("analyze", "--db", str(db), "--bot", BOT, "--json", cwd=tmp_path)
    assert again.returncode == 0, again.stderr
    document = json.loads(again.stdout)
    assert (document["bot"], document["replays"]) == (BOT, len(replays))
    assert sorted((b["name"], b["accuracy"]) for b in document["bots"]) == sorted(
        (names[e], a.accuracy) for e, a in accuracy.items()
    )


def test_db_refuses_a_missing_database(tmp_path: Path) -> None:
    """A database that is not there: one line, exit 2."""
    missing = tmp_path / "none.db"
    run = arena("analyze", "--db", str(missing), cwd=tmp_path)
    assert run.returncode == 2
    assert run.stderr == f"arena analyze: error: no tournament database at {str(missing)!r}\n"
