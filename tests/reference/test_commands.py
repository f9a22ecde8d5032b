"""``ref:NAME`` wherever a bot is accepted: play (in the sandbox too), tournament, sprt, check;
and an unknown name is one line naming the known ones, exit code 2. Real processes.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]


def arena(*args: str, cwd: Path, timeout: float = 300) -> subprocess.CompletedProcess[str]:
    """``python3 -m arena ARGS`` in ``cwd``, this checkout first on the path."""
    env = {"PYTHONPATH": str(REPO), "PATH": "/usr/bin:/bin:/usr/local/bin"}
    return subprocess.run(
        [sys.executable, "-m", "arena", *args],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )


def _moves(path: Path) -> list[object]:
    replay = json.loads(path.read_text())
    return [[e.get("move") for e in hand["events"]] for hand in replay["hands"]]


def test_play_against_reference_bots_in_the_sandbox(tmp_path: Path) -> None:
    """`arena play ref:search ref:greedy` plays in the default sandbox; the seats are named
    after the bots, and nobody failed."""
    run = arena(
        "play", "ref:search:samples=4", "ref:greedy", "--hands", "1", "--seed", "5",
        "--replay", "r.json", "--json", cwd=tmp_path,
    )  # fmt: skip
    assert run.returncode == 0, run.stderr
    result = json.loads(run.stdout)
    names = [seat["arena_name"] for seat in result["players"]]
    assert names == ["ref:search:samples=4", "ref:greedy"]
    assert [seat["status"] for seat in result["players"]] == ["ok", "ok"]


def test_a_fixed_budget_match_is_the_same_twice(tmp_path: Path) -> None:
    """The same seed and a fixed budget: the same moves in both replays."""
    for name in ("a.json", "b.json"):
        run = arena(
            "play", "ref:strong:samples=4", "ref:search:samples=4", "--hands", "2",
            "--seed", "11", "--sandbox", "none", "--replay", name, cwd=tmp_path,
        )  # fmt: skip
        assert run.returncode == 0, run.stderr
    assert _moves(tmp_path / "a.json") == _moves(tmp_path / "b.json")


def test_an_unknown_reference_bot_is_one_line_and_exit_2(tmp_path: Path) -> None:
    """`ref:best` does not exist: exit 2 and one line listing the known names."""
    run = arena("play", "ref:best", "ref:greedy", "--sandbox", "none", cwd=tmp_path)
    assert run.returncode == 2
    assert run.stderr.strip().splitlines()[-1] == (
        "arena play: error: bot command 'ref:best': unknown reference bot ref:best; known: "
        "ref:random, ref:greedy, ref:search, ref:strong"
    )


def test_a_tournament_of_reference_bots(tmp_path: Path) -> None:
    """A round robin of ref:random and ref:greedy runs and names them in the standings."""
    run = arena(
        "tournament", "ref:random", "ref:greedy", "--hands", "1", "--rounds", "1",
        "--seed", "2", "--sandbox", "none", "--out", "t", cwd=tmp_path,
    )  # fmt: skip
    assert run.returncode == 0, run.stderr
    assert "ref:greedy" in run.stdout
    assert "ref:random" in run.stdout


def test_an_unknown_reference_bot_in_a_tournament_is_refused(tmp_path: Path) -> None:
    """A tournament names the unknown reference bot and exits 2 before any match."""
    run = arena("tournament", "ref:random", "ref:wise", "--sandbox", "none", cwd=tmp_path)
    assert run.returncode == 2
    assert "unknown reference bot ref:wise; known: ref:random" in run.stderr


def test_sprt_between_reference_bots(tmp_path: Path) -> None:
    """`arena sprt ref:greedy ref:random` plays pairs of games and reports the test."""
    run = arena(
        "sprt", "ref:greedy", "ref:random", "--hands", "1", "--max-pairs", "2", "--seed", "3",
        "--sandbox", "none", "--out", "s", cwd=tmp_path,
    )  # fmt: skip
    assert run.returncode == 0, run.stderr
    assert "ref:greedy" in run.stdout


@pytest.mark.parametrize(
    ("bot", "game"),
    [
        ("ref:random", "matador"),
        ("ref:greedy", "matador"),
        ("ref:search", "matador"),
        ("ref:strong", "matador"),
        ("ref:strong", "fives"),
        ("ref:strong", "block"),
    ],
)
def test_arena_check_passes_for_the_reference_bots(tmp_path: Path, bot: str, game: str) -> None:
    """Every step of `arena check` passes, in the sandbox."""
    run = arena("check", bot, "--game", game, cwd=tmp_path)
    assert run.returncode == 0, run.stdout + run.stderr
    assert "PASSED: all" in run.stdout
