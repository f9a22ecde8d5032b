"""``arena check BOT``: the scripted positions, and real bot processes judged step by step.

The sample bots pass every step of both games; each misbehaving bot (tests/bots/, and a few
small bots written to a temporary folder here) fails at the step it should, with a message a
student can act on. Most tests run the command as a user does, through :func:`arena.cli.main`,
and read its ``--json`` document.
"""

from __future__ import annotations

import json
import shlex
import shutil
import uuid
from pathlib import Path
from typing import Any

import pytest

from arena.check import positions, runner, session
from arena.check.runner import ResponseTimes
from arena.cli import main
from arena.games.registry import get_game
from arena.referee import failures as referee_failures
from arena.referee import match as referee_match
from tests.helpers import PY
from tests.helpers import bot_command as bot
from tests.helpers import player_command as player
from tests.processes import live_processes_with

ROOT = Path(__file__).resolve().parents[2]
SAMPLES = ROOT / "sample_bots"
NODE = shutil.which("node")
#: The move limit of the tests that expect a timeout (the sample bots answer in a few ms).
FAST_MS = "300"

MATADOR_KEYS = [
    "handshake",
    "request_id",
    "first_move",
    "hand_end",
    "match_end",
    "lead",
    "blank_ends",
    "matador_orientation",
    "draw_chain",
    "forced_matador",
    "forced_pass",
    "stop",
    "response_times",
]
FIVES_KEYS = [
    "handshake",
    "request_id",
    "first_move",
    "hand_end",
    "match_end",
    "spinner_arms",
    "scoring",
    "draw_until_playable",
    "pass",
    "stop",
    "response_times",
]
BLOCK_KEYS = [
    "handshake",
    "request_id",
    "first_move",
    "hand_end",
    "match_end",
    "two_ends",
    "forced_pass",
    "stop",
    "response_times",
]
KEYS = {"matador": MATADOR_KEYS, "fives": FIVES_KEYS, "block": BLOCK_KEYS}

#: A bot that plays the first legal move and misbehaves in one way chosen by argv[1].
MODE_BOT = r"""
import json
import sys
import time

mode = sys.argv[1]


def send(message):
    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()


for line in sys.stdin.buffer:
    msg = json.loads(line)
    kind = msg["type"]
    if kind == "hello":
        ready = {"type": "ready", "name": "mode-" + mode}
        if mode == "protocol2":
            ready["protocol"] = 2
        send(ready)
    elif kind == "hand_start" and mode == "answer_hand_start":
        send({"type": "ready", "name": "again"})
    elif kind == "hand_end" and mode == "answer_hand_end":
        send({"type": "move", "id": 0, "move": {"action": "pass"}})
    elif kind == "hand_end" and mode == "exit_at_hand_end":
        sys.exit(0)
    elif kind == "request":
        if mode == "small_array" and len(msg["hand"]) > 20:
            raise IndexError("my hand array holds 20 tiles")
        move = msg["legal"][0]
        if mode == "never_pass" and move["action"] == "pass":
            move = {"action": "draw"}
        send({"type": "move", "id": msg["id"], "move": move})
    elif kind == "error":
        sys.exit(0)
    elif kind == "match_end":
        if mode == "exit_1_at_match_end":
            sys.exit(1)
        if mode == "chatty_match_end":
            send({"type": "ready", "name": "bye"})
        sys.exit(0)
if mode == "stubborn":
    time.sleep(60)
"""


@pytest.fixture
def mode_bot(tmp_path: Path) -> Any:
    """A function giving the command line of :data:`MODE_BOT` in a given mode."""
    script = tmp_path / "mode_bot.py"
    script.write_text(MODE_BOT)
    return lambda mode: f"{PY} {shlex.quote(str(script))} {mode}"


def check(capsys: pytest.CaptureFixture[str], command: str, *flags: str) -> tuple[int, Any]:
    """Run ``arena check COMMAND --json FLAGS``; returns the exit code and the document."""
    code = main(["check", command, "--json", *flags])
    out = capsys.readouterr().out
    return code, json.loads(out)


def by_key(document: Any) -> dict[str, Any]:
    """The steps of a ``--json`` document by key."""
    return {step["key"]: step for step in document["steps"]}


def first_failure(document: Any) -> Any:
    """The first failing step of a ``--json`` document."""
    return next(step for step in document["steps"] if step["status"] == "fail")


# -- the positions ---------------------------------------------------------------------------------


@pytest.mark.parametrize("game_name", ["matador", "fives", "block"])
def test_every_scenario_is_the_position_it_describes(game_name: str) -> None:
    """Each scripted deal and line, run through the engine, reaches the position its step tests."""
    game = get_game(game_name)
    first, rules = positions.scenarios_of(game_name)
    for scenario in (first, *rules):
        assert scenario.expect is not None, scenario.key
        assert positions.check_scenario(game, scenario) is None, scenario.key


def test_the_plan_names_every_step_in_order() -> None:
    """The steps of each game, numbered from 1, match the documented lists."""
    assert [s.key for s in runner.plan("matador")] == MATADOR_KEYS
    assert [s.key for s in runner.plan("fives")] == FIVES_KEYS
    assert [s.key for s in runner.plan("block")] == BLOCK_KEYS


def test_the_grace_periods_are_the_referees() -> None:
    """The checker gives a bot the same time to exit and to read as the referee does."""
    assert runner.EXIT_GRACE_S == referee_match.EXIT_GRACE_S
    assert session.NOTIFY_TIMEOUT_S == referee_match.NOTIFY_TIMEOUT_S
    assert session.EXIT_WAIT_S == referee_failures.EXIT_WAIT_S


def test_the_guide_explains_every_step() -> None:
    """docs/checking-a-bot.md lists every step of both games by number and name, and its key."""
    guide = (ROOT / "docs" / "checking-a-bot.md").read_text(encoding="utf-8")
    for game_name in ("matador", "fives", "block"):
        for number, step in enumerate(runner.plan(game_name), start=1):
            assert f"| {number} | {step.name} |" in guide, (game_name, step.name)
            assert f"`{step.key}`" in guide, step.key


def test_response_time_statistics() -> None:
    """The median, nearest-rank 95th percentile and maximum are computed in milliseconds."""
    times = ResponseTimes.of([i / 1000 for i in range(1, 21)])
    assert (times.count, times.median_ms, times.p95_ms, times.max_ms) == (20, 10.5, 19.0, 20.0)
    assert ResponseTimes.of([]) == ResponseTimes(0, None, None, None)


# -- the sample bots -------------------------------------------------------------------------------

SAMPLE_BOTS = [
    pytest.param(f"{PY} {shlex.quote(str(SAMPLES / 'random_bot.py'))}", id="random_bot.py"),
    pytest.param(f"{PY} {shlex.quote(str(SAMPLES / 'greedy.py'))}", id="greedy.py"),
    pytest.param(
        f"node {shlex.quote(str(SAMPLES / 'greedy.js'))}",
        id="greedy.js",
        marks=pytest.mark.skipif(NODE is None, reason="node is not on PATH"),
    ),
]


@pytest.mark.parametrize("game_name", ["matador", "fives", "block"])
@pytest.mark.parametrize("command", SAMPLE_BOTS)
def test_every_sample_bot_passes_every_step(
    capsys: pytest.CaptureFixture[str], command: str, game_name: str
) -> None:
    """A sample bot passes all the steps of both games, and the exit code is 0."""
    code, document = check(capsys, command, "--game", game_name)
    failed = [(s["number"], s["detail"]) for s in document["steps"] if s["status"] != "pass"]
    assert code == 0, failed
    assert document["passed"] is True
    assert [s["status"] for s in document["steps"]] == ["pass"] * len(document["steps"])
    assert [s["key"] for s in document["steps"]] == KEYS[game_name]
    # Block's hands are short (seven tiles each, no drawing).
    assert document["response_times"]["requests"] > (10 if game_name == "block" else 20)


def test_text_output_lists_every_step_and_the_verdict(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """Without --json, one PASS line per step and a final verdict are printed."""
    code = main(["check", f"{PY} {shlex.quote(str(SAMPLES / 'random_bot.py'))}"])
    out = capsys.readouterr().out
    assert code == 0
    assert out.startswith("arena check: ")
    for number, key in enumerate(MATADOR_KEYS, start=1):
        assert f"PASS  step {number} (" in out, key
    assert "PASS  step 13 (response times): median " in out
    assert out.rstrip().endswith("PASSED: all 13 steps passed.")


# -- misbehaving bots ------------------------------------------------------------------------------

MISBEHAVING = [
    pytest.param(
        bot("crash_at_start.py"),
        "handshake",
        ["your bot exited with exit code 3 instead of answering hello"],
        id="crash_at_start",
    ),
    pytest.param(
        bot("hang.py"),
        "handshake",
        ["no answer to hello within 300 ms", '{"type": "ready", "name": "..."}'],
        id="never_ready",
    ),
    pytest.param(
        bot("echo.py"),
        "handshake",
        ["your answer to hello is not a valid ready message", "at `$.type`"],
        id="echo",
    ),
    pytest.param(
        player("hang"),
        "request_id",
        ["no answer to request 2 within 300 ms", "flush stdout"],
        id="hang",
    ),
    pytest.param(
        player("late", arg="1.0"),
        "request_id",
        ["no answer to request 2 within 300 ms"],
        id="late",
    ),
    pytest.param(
        player("crash"),
        "request_id",
        ["your bot exited with exit code 3 instead of answering request 2"],
        id="crash",
    ),
    pytest.param(
        player("silent_exit"),
        "request_id",
        ["your bot exited (exit code 0) instead of answering request 2", "until match_end"],
        id="silent_exit",
    ),
    pytest.param(
        player("wrong_id"),
        "request_id",
        [
            "your reply had id 1002 but the request's id was 2 — copy the id of the request "
            "you answer"
        ],
        id="wrong_id",
    ),
    pytest.param(
        player("garbage"),
        "request_id",
        ["your answer to request 2 is not a valid move message: not valid JSON"],
        id="garbage",
    ),
    pytest.param(
        player("unknown_field"),
        "request_id",
        ["unknown field `mvoe`", "type, id, move"],
        id="unknown_field",
    ),
    pytest.param(
        player("endless"),
        "request_id",
        ["your bot sent a line longer than 65536 bytes"],
        id="endless",
    ),
]


@pytest.mark.parametrize(("command", "step", "phrases"), MISBEHAVING)
def test_a_bot_that_fails_early_stops_the_check_there(
    capsys: pytest.CaptureFixture[str], command: str, step: str, phrases: list[str]
) -> None:
    """A bot failing the handshake or its first request fails that step, and nothing else runs."""
    code, document = check(capsys, command, "--move-ms", FAST_MS, "--startup-ms", FAST_MS)
    assert code == 1
    assert document["passed"] is False
    failed = first_failure(document)
    assert failed["key"] == step
    for phrase in phrases:
        assert phrase in failed["detail"]
    assert failed["sent"] is not None
    later = document["steps"][failed["number"] :]
    assert {s["status"] for s in later} == {"skip"}
    assert all(s["detail"].startswith("not run: ") for s in later)


def test_crash_evidence_includes_the_stderr(capsys: pytest.CaptureFixture[str]) -> None:
    """A crash carries the end of the bot's stderr, in the JSON and in the text."""
    _code, document = check(capsys, player("crash"))
    assert "deliberately crashed" in first_failure(document)["stderr"]
    main(["check", player("crash")])
    out = capsys.readouterr().out
    assert "stderr:   Traceback: player.py deliberately crashed" in out


@pytest.mark.parametrize("game_name", ["matador", "fives", "block"])
def test_an_illegal_move_fails_the_first_legal_move_step(
    capsys: pytest.CaptureFixture[str], game_name: str
) -> None:
    """An illegal reply fails the first legal-move step, naming the move and the legal ones,
    and the other rule steps still run (each in its own match)."""
    code, document = check(capsys, player("illegal"), "--game", game_name)
    assert code == 1
    steps = by_key(document)
    assert steps["request_id"]["status"] == "pass"
    failed = first_failure(document)
    assert (failed["number"], failed["key"]) == (3, "first_move")
    assert "is not legal in request" in failed["detail"]
    assert "the legal moves were: " in failed["detail"]
    assert "echoing one element of the request's legal list is always right" in failed["detail"]
    assert json.loads(failed["received"])["type"] == "move"
    assert steps["hand_end"]["status"] == steps["match_end"]["status"] == "skip"
    rule_keys = [k for k in steps if k not in ("handshake", "request_id", "first_move")]
    rules = [k for k in rule_keys if k not in ("hand_end", "match_end", "stop", "response_times")]
    assert all(steps[k]["status"] == "fail" for k in rules)
    assert steps["stop"]["status"] == "pass"


def test_garbage_later_fails_the_step_where_it_happens(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """Garbage at the bot's second request fails the step whose hand it is in, saying so."""
    code, document = check(capsys, player("garbage", at=2))
    assert code == 1
    failed = first_failure(document)
    assert (failed["key"], failed["number"]) == ("first_move", 3)
    assert failed["detail"].startswith(
        "the position itself went well (you played 1-2 on left, 2 out); later in hand 1: your "
        "answer to request "
    )
    assert failed["received"] == "this is not json"


def test_a_bot_that_stays_after_match_end_fails_the_exit_step(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """A bot still running after match_end fails step 5 only, and no process of it is left."""
    marker = f"arena-check-{uuid.uuid4().hex}"
    code, document = check(capsys, player("ignore_term", marker=marker))
    assert code == 1
    failed = [s for s in document["steps"] if s["status"] != "pass"]
    assert [s["key"] for s in failed] == ["match_end"]
    assert "still running 500 ms after match_end" in failed[0]["detail"]
    assert json.loads(failed[0]["sent"])["type"] == "match_end"
    assert live_processes_with(marker) == []


@pytest.mark.parametrize(
    ("mode", "step", "phrase"),
    [
        ("protocol2", "handshake", "your ready says protocol 2, but the arena speaks protocol 1"),
        ("answer_hand_start", "request_id", "your bot answered hand_start, which needs no answer"),
        ("answer_hand_end", "hand_end", "your bot answered hand_end, which needs no answer"),
        ("exit_at_hand_end", "hand_end", "your bot exited (exit code 0) after hand_end"),
        ("exit_1_at_match_end", "match_end", "your bot exited with exit code 1 after match_end"),
        ("chatty_match_end", "match_end", "your bot answered match_end, which needs no answer"),
        ("stubborn", "stop", "still running 500 ms after its stdin was closed"),
    ],
)
def test_session_mistakes_fail_their_own_step(
    capsys: pytest.CaptureFixture[str], mode_bot: Any, mode: str, step: str, phrase: str
) -> None:
    """Answering a notification, leaving early or late, or a wrong protocol fails its step."""
    code, document = check(capsys, mode_bot(mode))
    assert code == 1
    failed = first_failure(document)
    assert failed["key"] == step
    assert phrase in failed["detail"]


def test_each_rule_is_judged_on_its_own(capsys: pytest.CaptureFixture[str], mode_bot: Any) -> None:
    """A bot that breaks only with a big hand fails the forced-matador step (23 tiles) with its
    traceback, and every other step, run in matches of their own, still passes."""
    code, document = check(capsys, mode_bot("small_array"))
    assert code == 1
    failed = [s for s in document["steps"] if s["status"] != "pass"]
    assert [s["key"] for s in failed] == ["forced_matador"]
    assert failed[0]["detail"].startswith(
        "your bot exited with exit code 1 instead of answering request 20"
    )
    assert "IndexError: my hand array holds 20 tiles" in failed[0]["stderr"]


def test_a_wrong_move_later_in_a_hand_gets_advice_for_its_own_position(
    capsys: pytest.CaptureFixture[str], mode_bot: Any
) -> None:
    """A bot that draws instead of passing is told about PASS, wherever that happens."""
    _code, document = check(capsys, mode_bot("never_pass"))
    steps = by_key(document)
    assert steps["request_id"]["status"] == "pass"
    forced = steps["forced_pass"]
    assert forced["status"] == "fail"
    assert forced["detail"].startswith("your move DRAW is not legal in request 21")
    for step in document["steps"]:
        if step["status"] == "fail":
            assert 'when PASS is the only legal move, send {"action": "pass"}' in step["detail"]


# -- the command -----------------------------------------------------------------------------------


def test_json_output_is_one_document_of_the_documented_shape(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """--json prints exactly one JSON document: the bot, the game, every step, the times."""
    code = main(["check", player("wrong_id"), "--json", "--game", "fives"])
    out = capsys.readouterr().out
    document = json.loads(out)
    assert code == 1
    assert set(document) == {"bot", "game", "passed", "limits", "steps", "response_times"}
    assert document["game"] == "fives"
    assert document["limits"] == {"move_ms": 1000, "startup_ms": 5000}
    assert [s["number"] for s in document["steps"]] == list(range(1, len(FIVES_KEYS) + 1))
    for step in document["steps"]:
        assert set(step) == {
            "number", "key", "name", "status", "detail", "sent", "received", "stderr"
        }  # fmt: skip
        assert step["status"] in {"pass", "fail", "skip"}
    assert set(document["response_times"]) == {"requests", "median_ms", "p95_ms", "max_ms"}
    failed = by_key(document)["request_id"]
    assert json.loads(failed["sent"])["id"] == 4
    assert json.loads(failed["received"])["id"] == 1004


def test_text_output_shows_what_was_sent_and_received(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """A failing step prints its verdict, what to fix, and the lines sent and received."""
    code = main(["check", player("wrong_id")])
    out = capsys.readouterr().out
    assert code == 1
    words = " ".join(out.split())
    assert (
        "FAIL step 2 (request id): your reply had id 1002 but the request's id was 2 — copy "
        "the id of the request you answer"
    ) in words
    assert '      sent:     {"type":"request","id":2,' in out
    assert '      received: {"type": "move", "id": 1002,' in out
    assert "SKIP  step 3 (first move): not run:" in out
    assert "FAILED: 1 of 13 steps failed (step 2), 11 not run; start with step 2" in out


@pytest.mark.parametrize(
    "command", ["no-such-program-xyz", f"{PY} no_such_bot.py"], ids=["program", "script"]
)
def test_a_bot_that_cannot_be_run_is_a_usage_error(
    capsys: pytest.CaptureFixture[str], command: str
) -> None:
    """A missing program or script is refused before anything runs, with exit code 2."""
    assert main(["check", command]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert "arena check: error: bot command" in captured.err
