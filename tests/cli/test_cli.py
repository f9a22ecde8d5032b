"""The ``arena`` command as a user runs it: output, exit codes and error messages."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest

from arena.cli import main
from arena.replay import Action, Replay, read_replay
from tests.helpers import bot_command
from tests.processes import live_processes_with


def player(mode: str = "ok", at: int = 1) -> str:
    """The command line of the test player bot (no argument after ``at``)."""
    return bot_command("player.py", mode, str(at))


def test_play_json_prints_exactly_one_result_object(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``play --json`` prints one JSON object with the documented keys and writes the replay."""
    replay = tmp_path / "r.json"
    code = main(
        [
            "play",
            player(),
            player(),
            "--seed",
            "5",
            "--hands",
            "2",
            "--json",
            "--replay",
            str(replay),
        ]
    )
    assert code == 0
    out = capsys.readouterr().out
    result = json.loads(out)
    assert out.count("\n") == 1
    assert set(result) == {
        "game",
        "seed",
        "winner",
        "scores",
        "players",
        "replay",
        "failure_bundle",
    }
    assert result["failure_bundle"] is None  # nobody failed
    assert set(result["players"][0]) == {
        "seat", "name", "arena_name", "status", "detail", "strikes", "restarts",
    }  # fmt: skip
    assert (result["players"][0]["name"], result["players"][0]["arena_name"]) == (
        "player-ok",
        "player",
    )
    assert result["game"] == "matador"
    assert result["seed"] == 5
    assert result["replay"] == str(replay)
    assert [p["status"] for p in result["players"]] == ["ok", "ok"]
    assert [p["seat"] for p in result["players"]] == [0, 1]
    assert result["scores"] == read_replay(replay).result.scores


def test_play_is_reproducible_by_seed(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The same seed and bots give the same deals, moves and scores."""
    for name in ("a.json", "b.json"):
        main(
            [
                "play",
                player(),
                player(),
                "--seed",
                "99",
                "--hands",
                "2",
                "--json",
                "--replay",
                str(tmp_path / name),
            ]
        )
    a, b = read_replay(tmp_path / "a.json"), read_replay(tmp_path / "b.json")

    def moves(replay: Replay) -> list[object]:
        return [
            (h.deal, [(e.seat, e.move) for e in h.events if isinstance(e, Action)])
            for h in replay.hands
        ]

    assert moves(a) == moves(b)
    assert a.result == b.result


def test_play_reports_a_failing_bot_with_exit_code_zero(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A bot's failure is a result: exit 0, its status and detail in the JSON."""
    code = main(
        [
            "play",
            player("garbage"),
            player(),
            "--seed",
            "1",
            "--json",
            "--replay",
            str(tmp_path / "r.json"),
        ]
    )
    assert code == 0
    result = json.loads(capsys.readouterr().out)
    assert result["winner"] == 1
    assert result["players"][0]["status"] == "bad_message"
    assert result["players"][0]["detail"].startswith("sent an invalid message: not valid JSON")


def test_play_text_output_names_the_winner_and_the_replay(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Without --json the result is readable and says where the replay is."""
    replay = tmp_path / "r.json"
    assert (
        main(["play", player(), player(), "--seed", "2", "--hands", "1", "--replay", str(replay)])
        == 0
    )
    out = capsys.readouterr().out
    assert out.startswith("Playing matador, 2 players, seed 2 ...\n")
    assert "hand 1: " in out
    assert f"Replay: {replay}" in out
    assert "Result: " in out


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["play", "/no/such/bot", "x"], "bot command '/no/such/bot': file not found"),
        (
            ["play", "no-such-program-xyz", "x"],
            "bot command 'no-such-program-xyz': program 'no-such-program-xyz' not found on PATH",
        ),
        (
            ["play", "python3 no/such/script.py", "python3 x.py"],
            "bot command 'python3 no/such/script.py': file 'no/such/script.py' not found",
        ),
        (["play", "python3 -c pass"], "a match needs 2 to 4 bots, 1 given"),
        (
            ["verify", "/no/such/replay.json"],
            "cannot read replay '/no/such/replay.json': No such file or directory",
        ),
    ],
)
def test_usage_errors_exit_2_naming_the_problem(
    args: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """Bad bots, bad counts and missing files are usage errors (exit 2) with a clear message."""
    assert main(args) == 2
    assert message in capsys.readouterr().err


def test_a_non_executable_bot_file_is_a_usage_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A bot given as a path that is not executable is refused with a hint."""
    script = tmp_path / "bot.py"
    script.write_text("print('hi')\n")
    assert main(["play", str(script), str(script)]) == 2
    err = capsys.readouterr().err
    assert f"bot command '{script}': file is not executable (try 'python3 {script}'" in err


@pytest.mark.parametrize(
    "args",
    [
        ["play", "a", "b", "--hands", "0"],
        ["play", "a", "b", "--hands", "2", "--target", "50"],
        ["play", "a", "b", "--hand-size", "6"],
        ["play", "a", "b", "--reserve", "1"],
        ["play", "a", "b", "--move-ms", "fast"],
        ["nonsense"],
    ],
)
def test_bad_flags_exit_2(args: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    """argparse refuses bad flag values with exit code 2."""
    with pytest.raises(SystemExit) as exit_info:
        main(args)
    assert exit_info.value.code == 2
    assert "error:" in capsys.readouterr().err


def test_verify_accepts_a_real_replay_and_names_a_tampered_score(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """verify exits 0 on a genuine replay and 1 naming the first discrepancy on a tampered one."""
    replay = tmp_path / "r.json"
    main(
        [
            "play",
            player(),
            player(),
            "--seed",
            "3",
            "--hands",
            "2",
            "--json",
            "--replay",
            str(replay),
        ]
    )
    capsys.readouterr()
    assert main(["verify", str(replay)]) == 0
    assert capsys.readouterr().out.startswith(f"OK: {replay}: 2 hands, ")
    data = json.loads(replay.read_text())
    data["hands"][0]["outcome"]["award"][0] += 1
    tampered = tmp_path / "t.json"
    tampered.write_text(json.dumps(data))
    assert main(["verify", str(tampered)]) == 1
    out = capsys.readouterr().out
    assert out.startswith(f"FAILED: {tampered}: hand 1: award recorded as ")


def test_verify_refuses_an_unknown_format_version(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A replay of another format version is refused by name, not misread."""
    path = tmp_path / "future.json"
    path.write_text(json.dumps({"format": 99}))
    assert main(["verify", str(path)]) == 2
    assert (
        f"{str(path)!r} has replay format 99; this arena reads formats 1 and 2"
        in capsys.readouterr().err
    )


def test_schema_writes_the_protocol_schema(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``arena schema --out`` writes the generated JSON Schema."""
    out = tmp_path / "schema.json"
    assert main(["schema", "--out", str(out)]) == 0
    schema = json.loads(out.read_text())
    assert schema["protocol_version"] == 1
    assert {"Hello", "MoveRequest", "MoveReply", "Ready"} <= set(schema["$defs"])


def test_ctrl_c_stops_the_match_and_every_bot(tmp_path: Path) -> None:
    """SIGINT to ``arena play`` ends it with exit 130, a message, and no bot process left."""
    import signal
    import subprocess
    import time
    import uuid

    marker = f"arena-sigint-{uuid.uuid4().hex}"
    hang = f"{player('hang')} '' {marker}"
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "arena",
            "play",
            hang,
            hang,
            "--move-ms",
            "60000",
            "--replay",
            str(tmp_path / "r.json"),
            "--sandbox",  # counts the bots' own processes (a sandbox adds its wrappers)
            "none",
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    deadline = time.monotonic() + 10

    def bots() -> list[int]:
        return [pid for pid in live_processes_with(marker) if pid != proc.pid]

    while time.monotonic() < deadline and len(bots()) < 2:
        time.sleep(0.05)
    assert len(bots()) == 2
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=10)
    assert proc.returncode == 130
    assert b"interrupted; every bot process was stopped" in err
    time.sleep(0.05)
    assert live_processes_with(marker) == []
    assert not (tmp_path / "r.json").exists()


@pytest.mark.parametrize(
    ("make", "message"),
    [
        (lambda p: p, "is a directory; give a file name"),
        (lambda p: p / "file" / "r.json", "file' is a file, not a folder"),
    ],
)
def test_an_unwritable_replay_path_is_refused_before_the_match(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], make: Any, message: str
) -> None:
    """A replay path that cannot be written is a usage error before any bot starts."""
    (tmp_path / "file").write_text("not a folder")
    assert main(["play", player(), player(), "--replay", str(make(tmp_path))]) == 2
    assert message in capsys.readouterr().err


# -- Fives ---------------------------------------------------------------------------------------


def test_play_fives_writes_a_replay_that_verifies(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``play --game fives`` plays a whole Fives match to 100; the replay verifies and views."""
    replay = tmp_path / "fives.json"
    args = ["play", player(), player(), "--game", "fives", "--seed", "21", "--json"]
    code = main([*args, "--replay", str(replay)])
    assert code == 0
    result = json.loads(capsys.readouterr().out)
    assert result["game"] == "fives"
    assert max(result["scores"]) >= 100
    recorded = read_replay(replay)
    assert recorded.rules == {"spinner_sides_first": True, "block_winner": "more_points"}
    assert (recorded.match.target, recorded.match.hands) == (100, None)
    assert recorded.result.reason == "target"
    assert main(["verify", str(replay)]) == 0
    assert main(["view", str(replay), "--all"]) == 0
    out = capsys.readouterr().out
    assert "Match start: fives, 2 players, seed 21, to 100 points" in out
    assert "opens with" in out


def test_play_fives_flags_reach_the_replay(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The Fives rules flags and --hands go into the match and its replay."""
    replay = tmp_path / "fives.json"
    args = ["play", player(), player(), "--game", "fives", "--seed", "4", "--hands", "1"]
    args += ["--no-spinner-sides-first", "--block-winner", "fewer_pips", "--replay", str(replay)]
    assert main(args) == 0
    out = capsys.readouterr().out
    assert out.startswith("Playing fives, 2 players, seed 4 ...")
    recorded = read_replay(replay)
    assert recorded.rules == {"spinner_sides_first": False, "block_winner": "fewer_pips"}
    assert recorded.match.hands == 1
    assert main(["verify", str(replay)]) == 0


@pytest.mark.parametrize(
    ("flags", "message"),
    [
        (
            ["--game", "fives", "--hand-size", "7"],
            "--hand-size is a matador rules flag; --game fives takes "
            "--spinner-sides-first/--no-spinner-sides-first and --block-winner",
        ),
        (
            ["--game", "fives", "--lead", "any", "--reserve", "0"],
            "--lead and --reserve are matador rules flags",
        ),
        (
            ["--block-winner", "fewer_pips"],
            "--block-winner is a fives rules flag; --game matador takes --hand-size, --lead, "
            "--draw-when-playable, --reserve and --draw-mode",
        ),
        (["--no-spinner-sides-first"], "is a fives rules flag"),
        (
            ["--game", "fives", "--target", "50"],
            "--target 50: fives is always played to 100 points",
        ),
    ],
)
def test_rules_flags_of_the_other_game_are_refused(
    flags: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """A rules flag of the other game, or a Fives target other than 100, is a usage error that
    names it (exit 2) before any bot starts."""
    assert main(["play", player(), player(), *flags]) == 2
    assert message in capsys.readouterr().err


def test_fives_is_for_two_players(capsys: pytest.CaptureFixture[str]) -> None:
    """Three bots for Fives are refused before the match."""
    assert main(["play", player(), player(), player(), "--game", "fives"]) == 2
    assert "fives is for 2 players, not 3 (bots)" in capsys.readouterr().err


def test_tournament_match_flags_take_the_fives_rules() -> None:
    """The tournament command reads its game, rules and players through the same flags."""
    from arena.cli import UsageError, _build_parser, _match_flags

    parser = _build_parser()
    args = parser.parse_args(
        ["tournament", "a", "b", "--game", "fives", "--block-winner", "fewer_pips"]
    )
    flags = _match_flags(args)
    assert flags.game.name == "fives"
    assert flags.game.rules_dict(flags.rules) == {
        "spinner_sides_first": True,
        "block_winner": "fewer_pips",
    }
    assert (flags.length.target, flags.length.hands) == (100, None)
    with pytest.raises(UsageError, match="fives is for 2 players, not 3 \\(--players\\)"):
        _match_flags(parser.parse_args(["tournament", "a", "--game", "fives", "--players", "3"]))
    with pytest.raises(UsageError, match="--draw-mode is a matador rules flag"):
        _match_flags(
            parser.parse_args(
                ["tournament", "a", "--game", "fives", "--draw-mode", "one_then_pass"]
            )
        )
    matador = _match_flags(parser.parse_args(["tournament", "a", "--players", "4"]))
    assert matador.game.rules_dict(matador.rules)["hand_size"] == 5


def test_a_reader_that_goes_away_is_not_an_error() -> None:
    """Output into a pipe whose reader has gone (``| head``) ends quietly with exit 0."""
    import subprocess

    process = subprocess.Popen(
        [sys.executable, "-m", "arena", "schema"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    assert process.stdout is not None
    assert process.stderr is not None
    process.stdout.close()  # before the command writes anything: its first write fails
    err = process.stderr.read().decode()
    process.stderr.close()
    assert process.wait(timeout=30) == 0
    assert "internal error" not in err
    assert "Traceback" not in err
