"""Failure bundles and ``arena rematch``, as a bot author uses them from the command line.

A match with a failure leaves ``NAME.failures/`` next to its replay: README.txt explaining each
failure, rematch.sh with the one line that plays the same match again, a copy of the replay,
and per failure its record, the stderr slice and the last messages exchanged.
"""

from __future__ import annotations

import json
import os
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from arena.cli import main
from arena.failure_report import bundle_path, write_failure_bundle
from arena.failure_text import wire_move_text
from arena.replay import Action, Replay, read_replay
from tests.helpers import PY
from tests.helpers import player_command as player


def moves(replay: Replay) -> list[tuple[int, object]]:
    return [(e.seat, e.move) for h in replay.hands for e in h.events if isinstance(e, Action)]


def play(tmp_path: Path, *args: str) -> tuple[int, Path]:
    replay = tmp_path / "match.json"
    code = main(["play", *args, "--seed", "4", "--move-ms", "400", "--replay", str(replay)])
    return code, replay


def test_an_illegal_move_leaves_a_bundle_next_to_the_replay(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, replay_path = play(tmp_path, player("illegal", 2), player())
    assert code == 0
    out = capsys.readouterr().out
    bundle = tmp_path / "match.failures"
    assert f"Failure bundle: {bundle}" in out
    assert sorted(p.name for p in bundle.iterdir()) == [
        "1-seat0-illegal_move",
        "README.txt",
        "rematch.sh",
        "replay.json",
    ]
    part = bundle / "1-seat0-illegal_move"
    assert sorted(p.name for p in part.iterdir()) == [
        "failure.json",
        "messages.jsonl",
        "stderr.txt",
    ]
    replay = read_replay(replay_path)
    assert read_replay(bundle / "replay.json") == replay
    failure = json.loads((part / "failure.json").read_text())
    assert failure["status"] == "illegal_move"
    assert failure["detail"] == replay.seats[0].detail
    lines = [json.loads(x) for x in (part / "messages.jsonl").read_text().splitlines()]
    assert [x["direction"] for x in lines[-2:]] == ["sent", "received"]
    assert json.loads(lines[-1]["text"])["id"] == failure["request_id"]
    assert (part / "stderr.txt").read_text() == (failure.get("stderr_tail") or "")
    rematch = f"arena rematch {bundle / 'replay.json'}"
    assert (bundle / "rematch.sh").read_text() == f"#!/bin/sh\n{rematch}\n"
    assert os.access(bundle / "rematch.sh", os.X_OK)
    readme = (bundle / "README.txt").read_text()
    assert "=== seat 0 (player (ready: player-illegal)): ILLEGAL_MOVE ===" in readme
    assert f"What went wrong: {replay.seats[0].detail}" in readme
    assert "What it cost:    the bot forfeited the match" in readme
    failure_record = replay.seats[0].failure
    assert failure_record is not None
    assert failure_record.move is not None
    assert f"Move asked for: {wire_move_text(failure_record.move)}\n" in readme
    assert "Legal moves: " in readme
    assert f"  {rematch}" in readme
    # strict prints no explanation on the terminal; classroom does (next test).
    assert "What went wrong" not in out


def test_strikes_and_restarts_are_counted_in_words(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, _ = play(tmp_path, player("illegal", 2), player(), "--policy", "lenient")
    assert code == 0
    assert " points  (1 strike, 0 restarts)\n" in capsys.readouterr().out


def test_classroom_prints_every_failure_at_length(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, _ = play(tmp_path, player("garbage", 2), player(), "--policy", "classroom")
    assert code == 0
    out = capsys.readouterr().out
    assert "policy classroom" in out
    assert "=== seat 0 (player (ready: player-garbage)): BAD_MESSAGE ===" in out
    assert "What to do:      Send exactly one JSON object per line" in out
    assert "  bot -> referee: this is not json" in out
    assert "Decoder error: not valid JSON" in out
    assert f"arena rematch {tmp_path / 'match.failures' / 'replay.json'}" in out


def test_a_clean_match_leaves_no_bundle(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, _ = play(tmp_path, player(), player(), "--json")
    assert code == 0
    assert json.loads(capsys.readouterr().out)["failure_bundle"] is None
    assert not (tmp_path / "match.failures").exists()


def test_lenient_bundles_every_strike_in_order(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, replay_path = play(tmp_path, player("illegal_from", 2), player(), "--policy", "lenient")
    assert code == 0
    result = capsys.readouterr().out
    assert "(3 strikes, 0 restarts)" in result
    bundle = tmp_path / "match.failures"
    parts = sorted(p.name for p in bundle.iterdir() if p.is_dir())
    assert parts == ["1-seat0-illegal_move", "2-seat0-illegal_move", "3-seat0-illegal_move"]
    readme = (bundle / "README.txt").read_text()
    assert readme.count("What it cost:    a strike (policy lenient (3 strikes, 1 restart))") == 2
    assert readme.count("What it cost:    the bot forfeited the match") == 1
    assert read_replay(replay_path).seats[0].strikes == 3


def test_rematch_plays_the_same_match_again_from_anywhere(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The bundle's line, run from another folder, replays the same deal with the same bots:
    the same moves and the same failure at the same request."""
    code, replay_path = play(
        tmp_path, player("illegal", 3), f"{PY} sample_bots/random_bot.py", "--hands", "2"
    )
    assert code == 0
    capsys.readouterr()
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)
    again = tmp_path / "again.json"
    line = (tmp_path / "match.failures" / "rematch.sh").read_text().splitlines()[1]
    argv = shlex.split(line)
    assert argv[:2] == ["arena", "rematch"]
    assert main([*argv[1:], "--replay", str(again), "--json"]) == 0
    result = json.loads(capsys.readouterr().out)
    first, second = read_replay(replay_path), read_replay(again)
    assert [h.deal for h in second.hands] == [h.deal for h in first.hands]
    assert moves(second) == moves(first)
    assert second.seats[0].failure is not None
    assert first.seats[0].failure is not None
    assert second.seats[0].failure.request_id == first.seats[0].failure.request_id
    assert second.seats[0].detail == first.seats[0].detail
    assert result["failure_bundle"] == str(tmp_path / "again.failures")


def test_rematch_under_another_policy(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, replay_path = play(tmp_path, player("illegal", 2), player())
    assert code == 0
    capsys.readouterr()
    again = tmp_path / "again.json"
    assert main(["rematch", str(replay_path), "--policy", "lenient", "--replay", str(again)]) == 0
    replay = read_replay(again)
    assert replay.policy.name == "lenient"
    assert replay.seats[0].strikes == 1
    assert replay.seats[0].status.value == "ok"


def test_rematch_of_a_missing_file_is_a_usage_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["rematch", str(tmp_path / "nope.json")]) == 2
    err = capsys.readouterr().err
    assert "arena rematch: error: cannot read replay" in err


def test_rematch_names_a_missing_working_folder(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, replay_path = play(tmp_path, player("illegal", 2), player())
    assert code == 0
    capsys.readouterr()
    raw = json.loads(replay_path.read_text())
    raw["workdir"] = str(tmp_path / "gone")
    moved = tmp_path / "moved.json"
    moved.write_text(json.dumps(raw))
    assert main(["rematch", str(moved)]) == 2
    err = capsys.readouterr().err
    assert f"the match ran in '{tmp_path / 'gone'}', which does not exist here" in err


@pytest.mark.parametrize(
    ("flags", "message"),
    [
        (
            ["--strikes", "2"],
            "--policy strict: strikes and restarts apply to the lenient policy, not 'strict'",
        ),
        (["--policy", "lenient", "--strikes", "0"], "argument --strikes: "),
    ],
)
def test_policy_flags_are_checked(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], flags: list[str], message: str
) -> None:
    try:
        code = main(["play", player(), player(), *flags, "--replay", str(tmp_path / "r.json")])
    except SystemExit as exit:
        code = int(exit.code or 0)
    assert code == 2
    assert message in capsys.readouterr().err


def test_a_bundle_is_replaced_whole(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, replay_path = play(tmp_path, player("illegal_from", 2), player(), "--policy", "lenient")
    assert code == 0
    bundle = bundle_path(replay_path)
    assert len([p for p in bundle.iterdir() if p.is_dir()]) == 3
    lenient_run = read_replay(replay_path)
    # The same replay path, now with one failure only: no part of the old bundle remains.
    code, _ = play(tmp_path, player("illegal", 2), player())
    assert code == 0
    assert [p.name for p in bundle.iterdir() if p.is_dir()] == ["1-seat0-illegal_move"]
    assert write_failure_bundle(lenient_run, replay_path) == bundle
    assert len([p for p in bundle.iterdir() if p.is_dir()]) == 3
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".")]


def test_the_rematch_script_runs_from_a_shell(tmp_path: Path) -> None:
    """rematch.sh works as written when ``arena`` is on PATH (the installed command)."""
    code, _ = play(tmp_path, player("crash", 2), player())
    assert code == 0
    arena = Path(sys.executable).parent / "arena"
    if not arena.exists():
        pytest.skip("the arena command is not installed beside this interpreter")
    env = {**os.environ, "PATH": f"{arena.parent}:{os.environ['PATH']}"}
    done = subprocess.run(
        ["sh", str(tmp_path / "match.failures" / "rematch.sh")],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert "crash" in done.stdout


def test_failures_are_listed_in_match_order(tmp_path: Path) -> None:
    """Three players under lenient: a strike, a restart and a forfeit appear in the order they
    happened in the hand, each with what it cost."""
    import trio

    from arena.failure_text import failures_of
    from arena.games.matador import MATADOR, MatadorRules
    from arena.games.match import MatchLength
    from arena.policy import make_policy
    from arena.referee.clock import TimeLimits
    from arena.referee.match import MatchConfig, play_match
    from arena.replay import Restart, Retirement

    config = MatchConfig(
        game=MATADOR,
        rules=MatadorRules(),
        players=3,
        seed=3,
        length=MatchLength(target=None, hands=1),
        time=TimeLimits(move_ms=400),
        policy=make_policy("lenient"),
    )
    bots = [player("illegal", 2), player("crash", 1), player()]
    replay = trio.run(play_match, config, bots)
    recorded = []
    for event in replay.hands[0].events:
        if isinstance(event, Action) and event.strike is not None:
            recorded.append((event.seat, "strike"))
        elif isinstance(event, Restart):
            recorded.append((event.seat, "restart"))
        elif isinstance(event, Retirement):
            recorded.append((event.seat, "forfeit"))
    assert sorted(recorded) == [(0, "strike"), (1, "forfeit"), (1, "restart")]
    assert [(e.seat, e.cost) for e in failures_of(replay)] == recorded
    bundle = write_failure_bundle(replay, tmp_path / "three.json")
    assert bundle is not None
    names = sorted(p.name for p in bundle.iterdir() if p.is_dir())
    assert len(names) == 3


def test_rematch_contains_the_bots_as_the_match_did(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The replay records the sandbox settings and the stdout cap; a rematch plays under the
    same ones (``auto``: the strongest mechanism this machine has)."""
    code, replay_path = play(
        tmp_path,
        player("illegal", 2),
        player(),
        "--sandbox",
        "auto",
        "--memory-mb",
        "700",
        "--max-stdout-mb",
        "3",
    )
    assert code == 0
    first = read_replay(replay_path)
    assert first.sandbox is not None
    assert (first.sandbox["mechanism"], first.sandbox["memory_mb"]) == ("auto", 700)
    assert first.max_stdout_bytes == 3 << 20
    capsys.readouterr()
    again = tmp_path / "again.json"
    assert main(["rematch", str(replay_path), "--replay", str(again)]) == 0
    said = capsys.readouterr().err
    assert said.startswith("arena rematch: sandbox: ")
    assert "sandbox: sandbox" not in said
    second = read_replay(again)
    assert second.sandbox == first.sandbox
    assert second.max_stdout_bytes == first.max_stdout_bytes
    assert moves(second) == moves(first)


def test_an_unsandboxed_match_records_no_sandbox(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``--sandbox none`` warns once that bots can read the seed, and records no sandbox."""
    code, replay_path = play(tmp_path, player(), player(), "--sandbox", "none")
    assert code == 0
    err = capsys.readouterr().err
    assert err.count("warning: --sandbox none:") == 1
    assert (
        "arena play: warning: --sandbox none: bots run uncontained, as your user: they can read"
        " other processes' command lines (the referee's holds the seed, which decides every"
        " deal), signal your processes and read every file you can"
    ) in err
    replay = read_replay(replay_path)
    assert replay.sandbox is None
    assert replay.max_stdout_bytes is None
    assert replay.workdir == os.getcwd()


def test_a_rematch_of_an_unsandboxed_replay_is_sandboxed_unless_none_is_asked_for(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A replay recorded without a sandbox is played again under --sandbox auto (and says so);
    ``--sandbox none`` plays it uncontained, as recorded."""
    code, replay_path = play(tmp_path, player(), player(), "--sandbox", "none")
    assert code == 0
    capsys.readouterr()
    again = tmp_path / "again.json"
    assert main(["rematch", str(replay_path), "--replay", str(again)]) == 0
    err = capsys.readouterr().err
    assert (
        "arena rematch: the replay was recorded without a sandbox; playing it under"
        " --sandbox auto (--sandbox none plays it uncontained, as recorded)"
    ) in err
    assert "arena rematch: sandbox: " in err
    sandboxed = read_replay(again)
    assert sandboxed.sandbox is not None
    assert sandboxed.sandbox["mechanism"] == "auto"
    assert moves(sandboxed) == moves(read_replay(replay_path))
    bare = tmp_path / "bare.json"
    assert main(["rematch", str(replay_path), "--replay", str(bare), "--sandbox", "none"]) == 0
    assert "warning: --sandbox none:" in capsys.readouterr().err
    assert read_replay(bare).sandbox is None
