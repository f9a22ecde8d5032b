"""Block through every command, with real processes: play, verify, view, tournament, sprt,
check, and the sample bots (the greedy ones lead the heaviest tile).

Each command runs as ``python3 -m arena ...`` in a subprocess, the way a student runs it.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from arena.games.block import PLUGIN, deal, start_hand
from arena.games.registry import GAMES
from arena.wire import hand_start, move_request, rules_to_wire
from protocol import messages as m
from protocol.codec import decode_from_bot, encode

REPO = Path(__file__).resolve().parent.parent
BOTS = REPO / "sample_bots"
NODE = shutil.which("node")
GREEDY = f"{sys.executable} {BOTS / 'greedy.py'}"
RANDOM = f"{sys.executable} {BOTS / 'random_bot.py'}"
GREEDY_JS = f"{NODE or 'node'} {BOTS / 'greedy.js'}"
needs_node = pytest.mark.skipif(NODE is None, reason="node is not on PATH")


def arena(*args: str, cwd: Path, timeout: float = 240) -> subprocess.CompletedProcess[str]:
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


def test_block_is_registered_with_its_plugin_data() -> None:
    """Block is a game of the registry: two players, no rules flags, nobody draws."""
    assert GAMES["block"] is PLUGIN
    assert (PLUGIN.min_players, PLUGIN.max_players, PLUGIN.rules) == (2, 2, ())
    assert not PLUGIN.features.draws
    assert not PLUGIN.automatic_opening
    assert PLUGIN.match_target is None


def test_play_verify_and_view_a_block_match(tmp_path: Path) -> None:
    """``arena play --game block`` plays a match; its replay verifies and views."""
    run = arena(
        "play", "--game", "block", "--seed", "5", "--hands", "3", "--sandbox", "none",
        "--replay", "r.json", GREEDY, RANDOM, cwd=tmp_path,
    )  # fmt: skip
    assert run.returncode == 0, run.stderr
    assert "Playing block, 2 players, seed 5" in run.stdout
    replay = json.loads((tmp_path / "r.json").read_text())
    assert (replay["game"], replay["rules"], len(replay["hands"])) == ("block", {}, 3)
    moves = [e for h in replay["hands"] for e in h["events"] if "move" in e]
    assert all(e["move"]["action"] != "draw" for e in moves)
    verified = arena("verify", "r.json", cwd=tmp_path)
    assert verified.returncode == 0, verified.stdout + verified.stderr
    assert verified.stdout.startswith("OK: r.json: 3 hands")
    shown = arena("view", "--all", "r.json", cwd=tmp_path)
    assert shown.returncode == 0, shown.stderr
    assert "Match start: block, 2 players, seed 5, 3 hands" in shown.stdout


def test_block_refuses_other_games_rules_flags(tmp_path: Path) -> None:
    """A Matador flag with ``--game block`` is a one-line usage error, exit 2."""
    run = arena("play", "--game", "block", "--hand-size", "7", GREEDY, RANDOM, cwd=tmp_path)
    assert run.returncode == 2
    assert run.stderr.strip().splitlines()[-1] == (
        "arena play: error: --hand-size is a matador rules flag; --game block takes no rules flags"
    )


def test_tournament_of_block_and_its_player_range(tmp_path: Path) -> None:
    """``arena tournament --game block`` plays every pairing; ``--players 3`` is refused by
    the plugin's player range, in one line."""
    run = arena(
        "tournament", "--game", "block", "--hands", "1", "--sandbox", "none", "--out", "t",
        GREEDY, RANDOM, cwd=tmp_path,
    )  # fmt: skip
    assert run.returncode == 0, run.stderr
    replays = sorted((tmp_path / "t" / "replays").glob("*.json"))
    assert len(replays) == 2
    for path in replays:
        assert json.loads(path.read_text())["game"] == "block"
        verified = arena("verify", str(path), cwd=tmp_path)
        assert verified.returncode == 0, verified.stdout
    refused = arena(
        "tournament", "--game", "block", "--players", "3", "--out", "t3",
        GREEDY, RANDOM, RANDOM, cwd=tmp_path,
    )  # fmt: skip
    assert refused.returncode == 2
    assert refused.stderr.strip() == (
        "arena tournament: error: block is for 2 players, not 3 (--players)"
    )


def test_sprt_of_block(tmp_path: Path) -> None:
    """``arena sprt --game block`` plays paired Block games and records them."""
    run = arena(
        "sprt", "--game", "block", "--hands", "1", "--sandbox", "none", "--max-pairs", "2",
        "--out", "s", GREEDY, RANDOM, cwd=tmp_path,
    )  # fmt: skip
    assert run.returncode == 0, run.stderr
    assert "no decision after 2 pairs (--max-pairs)" in run.stdout
    replays = sorted((tmp_path / "s" / "replays").glob("*.json"))
    assert len(replays) == 4
    assert {json.loads(p.read_text())["game"] for p in replays} == {"block"}


@pytest.mark.parametrize(
    "bot",
    [
        pytest.param(GREEDY, id="greedy.py"),
        pytest.param(RANDOM, id="random_bot.py"),
        pytest.param(GREEDY_JS, id="greedy.js", marks=needs_node),
    ],
)
def test_check_passes_the_sample_bots_in_block(tmp_path: Path, bot: str) -> None:
    """``arena check --game block`` passes every step, Block's own positions included."""
    run = arena("check", "--game", "block", "--sandbox", "none", bot, cwd=tmp_path)
    assert run.returncode == 0, run.stdout + run.stderr
    for step in ("first move", "a tile that fits two ends", "forced pass"):
        assert any(x.startswith("PASS") and f"({step})" in x for x in run.stdout.splitlines())
    assert "PASSED: all 9 steps passed." in run.stdout


def _greedy_reply(command: list[str]) -> m.MoveReply:
    """The greedy bot's reply to the lead of a Block hand (seat 0: 6-5 is its heaviest)."""
    rules = PLUGIN.parse_rules({})
    state = start_hand(rules, 2, deal(rules, 2, 11))
    view = state.view(0)
    hello = m.Hello(
        protocol=m.PROTOCOL_VERSION,
        game="block",
        seat=0,
        players=2,
        rules=rules_to_wire("block", {}),
        match=m.MatchLength(hands=1),
        time=m.TimeControl(startup_ms=5000, move_ms=1000),
        seed=1,
    )
    lines = [hello, hand_start(view, 1, 0), move_request(view, 1, 1, 1000, 0)]
    payload = b"".join(encode(x) + b"\n" for x in lines)
    out = subprocess.run(command, input=payload, capture_output=True, timeout=30, check=False)
    reply = decode_from_bot(out.stdout.splitlines()[1])
    assert isinstance(reply, m.MoveReply)
    return reply


@pytest.mark.parametrize(
    "command",
    [
        pytest.param([sys.executable, str(BOTS / "greedy.py")], id="greedy.py"),
        pytest.param([NODE or "node", str(BOTS / "greedy.js")], id="greedy.js", marks=needs_node),
    ],
)
def test_greedy_bots_lead_the_heaviest_tile_in_block(command: list[str]) -> None:
    """In Block the greedy bots lead the heaviest tile of this hand (it holds no double)."""
    rules = PLUGIN.parse_rules({})
    hand = start_hand(rules, 2, deal(rules, 2, 11)).view(0).hand
    heaviest = max(hand, key=lambda t: (sum(t), max(t)))
    reply = _greedy_reply(command)
    assert isinstance(reply.move, m.PlayReply)
    assert tuple(sorted(reply.move.tile)) == heaviest
    assert reply.debug == f"shed {heaviest[0]}-{heaviest[1]}, {heaviest[1]} out"
