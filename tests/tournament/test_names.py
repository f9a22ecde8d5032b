"""One name per bot: the arena's (its bot.toml ``name`` or its command's file), with the name
it says in ``ready`` beside it where the two differ, in every output; replays keep both."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from arena.replay import Failure, SeatRecord, Status, read_replay
from arena.text import bot_label, seat_name

ROOT = Path(__file__).parents[2]
PY = sys.executable
PLAYER = f"{PY} tests/bots/player.py ok 1 ''"


def arena(*args: str) -> subprocess.CompletedProcess[str]:
    """``python3 -m arena ARGS`` from the checkout."""
    return subprocess.run(
        [PY, "-m", "arena", *args], cwd=ROOT, capture_output=True, text=True, timeout=120
    )


def test_a_tournament_names_bots_the_arenas_way_everywhere(tmp_path: Path) -> None:
    """Standings (the table names ``player``, the line under it what each bot said), the JSON,
    the replays' seats and the viewer agree: ``player (ready: player-ok)``; the replay's
    ``name`` stays what the bot said."""
    out = tmp_path / "t"
    run = arena("tournament", PLAYER, PLAYER, "--hands", "1", "--seed", "1", "--out", str(out),
                "--workers", "1", "--sandbox", "none")  # fmt: skip
    assert run.returncode == 0, run.stderr
    said = "names said in ready: player (ready: player-ok), player-2 (ready: player-ok)"
    assert said in run.stdout.splitlines()
    text = arena("standings", "--db", str(out / "tournament.db")).stdout
    assert said in text.splitlines()
    document = json.loads(arena("standings", "--db", str(out / "tournament.db"), "--json").stdout)
    assert {(b["name"], b["ready_name"]) for b in document["standings"]} == {
        ("player", "player-ok"),
        ("player-2", "player-ok"),
    }
    replay = sorted((out / "replays").glob("*.json"))[0]
    seats = read_replay(replay).seats
    assert [s.name for s in seats] == ["player-ok", "player-ok"]
    assert sorted(s.arena_name or "" for s in seats) == ["player", "player-2"]
    view = arena("view", str(replay), "--all").stdout
    assert f"seat 0 ({seat_name(seats[0])})" in view
    assert "(ready: player-ok)" in view


def test_a_label_shows_one_name_when_both_agree() -> None:
    """The same name twice is shown once; an unknown arena name (an old replay) shows the
    ready name alone."""
    assert bot_label("greedy", "greedy") == "greedy"
    assert bot_label(None, "greedy-py") == "greedy-py"
    assert bot_label("greedy", "greedy-py") == "greedy (ready: greedy-py)"
    assert bot_label("greedy", "\x1b[31m") == "greedy (ready: \\x1b[31m)"


def test_a_bot_that_never_said_ready_is_shown_by_the_arenas_name() -> None:
    """A start-up failure left the referee's ``seatN``: not shown as the bot's own name."""
    failure = Failure(status=Status.CRASH, phase="startup", detail="exited")
    seat = SeatRecord(0, "./bot", "seat0", Status.CRASH, failure=failure, arena_name="bot")
    assert seat_name(seat) == "bot"
