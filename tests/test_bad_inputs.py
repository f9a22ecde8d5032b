"""Every subcommand over a corpus of bad inputs: never a traceback, only the documented exit
codes, and one line naming the file (or flag) and the problem.

Each case runs ``python3 -m arena ...`` as a real subprocess; the cases run in parallel. The
bot commands of the cases are a spy that leaves a file behind when it starts: a command that
must fail on its input fails before any bot starts. Read-only locations are a real read-only
bind mount (``unshare -m``) when the tests run as root, a folder without write permission
otherwise, and paths under /proc (a file where a folder is needed, a folder nothing can be
created in).
"""

from __future__ import annotations

import contextlib
import copy
import json
import os
import random
import shutil
import sqlite3
import subprocess
import sys
import threading
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from arena import cli
from arena.cli.errors import DEBUG_VARIABLE
from arena.replay import MAX_REPLAY_BYTES, ReplayError, decode_replay, read_replay_bytes
from arena.verify import verify_replay
from arena.view.steps import StepsError, build_steps

ROOT = Path(__file__).resolve().parent.parent
PY = sys.executable
PLAYER = ROOT / "tests" / "bots" / "player.py"

#: The exit codes each command documents (README, "Exit codes").
DOCUMENTED = {
    "play": {0, 1, 2},
    "rematch": {0, 1, 2},
    "check": {0, 1, 2},
    "tournament": {0, 1, 2},
    "sprt": {0, 2},
    "standings": {0, 2},
    "report": {0, 1, 2},
    "verify": {0, 1, 2},
    "view": {0, 1, 2},
    "schema": {0, 2},
    "analyze": {0, 1, 2},
}


@dataclass(frozen=True)
class Case:
    """One bad input: the arguments after ``arena``, the exit code, and the exact message.

    In ``argv``, ``message`` and ``absent``: ``{D}`` is the corpus folder, ``{RO}`` a read-only
    folder in it, ``{BOT}`` a spy bot command. ``message`` is the one line expected on stderr
    (``stdout`` says where it is printed instead); ``None`` checks only that there is one
    line. ``absent`` lists paths the command must not have created.
    """

    id: str
    argv: tuple[str, ...]
    code: int = 2
    message: str | None = None
    stream: str = "stderr"
    absent: tuple[str, ...] = ()


def _replay_cases() -> list[Case]:
    # file, problem (after the path), which commands
    unreadable = [
        ("missing.json", "cannot read replay {P}: No such file or directory"),
        ("adir", "cannot read replay {P}: it is a folder, not a file"),
        ("/dev/zero", "cannot read replay {P}: not a regular file (a device)"),
        ("huge.json", "cannot read replay {P}: larger than 256 MiB, the most a replay may be"),
        ("fifo", "{P} is not a replay file (it is empty)"),
        ("empty.json", "{P} is not a replay file (it is empty)"),
        ("garbage.bin", "{P} is not a replay file (not UTF-8 text: byte 128 is 0x80)"),
        ("badutf.json", "{P} is not a replay file (not UTF-8 text: byte 23 is 0xff)"),
        ("trunc.json", "{P} is not a replay file (not JSON: Input data was truncated)"),
        ("list.json", "{P} is not a replay file (not a JSON object)"),
        ("nested.json", "{P} is not a replay file (its JSON is nested too deeply to read)"),
        ("format99.json", "{P} has replay format 99; this arena reads formats 1 and 2"),
        ("shape.json", "{P} is not a valid replay: Expected `int`, got `str` - at `$.seed`"),
    ]
    every = {"missing.json", "adir", "/dev/zero", "nested.json"}
    cases = []
    for name, problem in unreadable:
        path = name if name.startswith("/") else "{D}/" + name
        message = problem.replace("{P}", repr(path))
        commands: list[tuple[str, ...]] = [("verify",)]
        if name in every:
            commands += [("view", "--all"), ("view", "--html", "{D}/v.html"), ("rematch",)]
            commands += [("analyze", "--html", "{D}/v.html")]
        for command in commands:
            argv = (*command[:1], path, *command[1:])
            cases.append(
                Case(
                    f"{'-'.join(command)}-{Path(name).name}",
                    argv,
                    message=f"arena {command[0]}: error: {message}",
                    absent=("{D}/v.html",),
                )
            )
    invalid = {
        "p7.json": "players: matador is for 2 to 4 players, not 7",
        "seats1.json": "seats: 1 seats recorded for 2 players",
        "nolen.json": "match: a match is played either to a target score or for a number of hands",
        "mlb0.json": "max_line_bytes: must be at least 1, not 0",
        "policy.json": "policy: strikes must be at least 1 (the strike that forfeits), not 0",
    }
    for name, problem in invalid.items():
        path = "{D}/" + name
        cases.append(
            Case(
                f"rematch-{name}",
                ("rematch", path),
                message=f"arena rematch: error: {path!r}: the recorded settings are invalid: "
                + problem,
            )
        )
    settings = "the replay's settings are invalid: players: matador is for 2 to 4 players, not 7"
    cases += [
        Case(
            "verify-p7",
            ("verify", "{D}/p7.json"),
            1,
            f"FAILED: {{D}}/p7.json: {settings}",
            "stdout",
        ),
        Case(
            "view-p7",
            ("view", "{D}/p7.json", "--all"),
            1,
            f"arena view: cannot show this replay: {settings} (see arena verify)",
        ),
        Case(
            "verify-players-huge",
            ("verify", "{D}/players_huge.json"),
            1,
            "FAILED: {D}/players_huge.json: the replay's settings are invalid: players: matador "
            "is for 2 to 4 players, not 9223372036854775808",
            "stdout",
        ),
        Case(
            "verify-seat-huge",
            ("verify", "{D}/seat_huge.json"),
            1,
            "FAILED: {D}/seat_huge.json: the replay's settings are invalid: seats[1]: numbered "
            "9223372036854775808, not 1",
            "stdout",
        ),
        Case(
            "rematch-sandbox",
            ("rematch", "{D}/sandbox.json"),
            message="arena rematch: error: '{D}/sandbox.json': the recorded sandbox is invalid: "
            "unknown sandbox setting 'tunnel'",
        ),
        Case(
            "verify-json-nested",
            ("verify", "--json", "{D}/nested.json"),
            message="arena verify: error: '{D}/nested.json' is not a replay file (its JSON is "
            "nested too deeply to read)",
        ),
    ]
    return cases


def _path_cases() -> list[Case]:
    t = "arena tournament: error: "
    return [
        # play
        Case(
            "play-one-bot",
            ("play", "{BOT}"),
            2,
            "arena play: error: a match needs 2 to 4 bots, 1 given",
        ),
        Case(
            "play-replay-dir",
            ("play", "{BOT}", "{BOT}", "--replay", "{D}/adir"),
            message="arena play: error: --replay '{D}/adir' is a directory; give a file name",
        ),
        Case(
            "play-replay-under-file",
            ("play", "{BOT}", "{BOT}", "--replay", "/proc/version/r.json"),
            message="arena play: error: --replay '/proc/version/r.json': '/proc/version' is a "
            "file, not a folder",
        ),
        Case(
            "play-replay-read-only",
            ("play", "{BOT}", "{BOT}", "--replay", "{RO}/r.json"),
            message="arena play: error: --replay '{RO}/r.json': cannot write in '{RO}': {WHY}",
        ),
        Case(
            "play-negative-seed",
            ("play", "{BOT}", "{BOT}", "--seed", "-1"),
            message="arena play: error: argument --seed: -1 must not be negative (see arena "
            "play --help)",
        ),
        Case(
            "play-zero-hands",
            ("play", "{BOT}", "{BOT}", "--hands", "0"),
            message="arena play: error: argument --hands: 0 must be at least 1 (see arena play "
            "--help)",
        ),
        Case("play-unknown-game", ("play", "{BOT}", "{BOT}", "--game", "chess")),
        Case(
            "play-players-flag",
            ("play", "{BOT}", "{BOT}", "--players", "3"),
            message="arena play: error: unrecognized arguments: --players 3: the number of "
            "players is the number of BOTs given (2 to 4); --players is a flag of arena "
            "tournament (see arena play --help)",
        ),
        Case(
            "tournament-unknown-flag",
            ("tournament", "{BOT}", "{BOT}", "--bogus"),
            message="arena tournament: error: unrecognized arguments: --bogus (see arena "
            "tournament --help)",
        ),
        Case(
            "play-missing-script",
            ("play", "python3 {D}/missing.py", "{BOT}"),
            message="arena play: error: bot command 'python3 {D}/missing.py': file "
            "'{D}/missing.py' not found",
        ),
        Case(
            "play-strikes-strict",
            ("play", "{BOT}", "{BOT}", "--strikes", "3"),
            message="arena play: error: --policy strict: strikes and restarts apply to the "
            "lenient policy, not 'strict'",
        ),
        # check
        Case(
            "check-missing-script",
            ("check", "python3 {D}/missing.py"),
            message="arena check: error: bot command 'python3 {D}/missing.py': file "
            "'{D}/missing.py' not found",
        ),
        Case(
            "check-empty-command",
            ("check", ""),
            2,
            "arena check: error: bot command '': empty command",
        ),
        Case("check-zero-move-ms", ("check", "{BOT}", "--move-ms", "0")),
        # tournament
        Case(
            "tournament-out-file",
            ("tournament", "{BOT}", "{BOT}", "--out", "{D}/afile"),
            message=t + "--out '{D}/afile' is a file; give a folder",
        ),
        Case(
            "tournament-out-under-file",
            ("tournament", "{BOT}", "{BOT}", "--out", "/proc/version/t"),
            message=t + "--out '/proc/version/t': '/proc/version' is a file, not a folder",
        ),
        Case(
            "tournament-out-uncreatable",
            ("tournament", "{BOT}", "{BOT}", "--out", "/proc/no-such-tournament"),
            message=t + "--out '/proc/no-such-tournament': cannot create "
            "'/proc/no-such-tournament': No such file or directory",
        ),
        Case(
            "tournament-out-read-only",
            ("tournament", "{BOT}", "{BOT}", "--out", "{RO}/t"),
            message=t + "--out '{RO}/t': cannot write in '{RO}': {WHY}",
        ),
        Case(
            "tournament-events-under-file",
            ("tournament", "{BOT}", "{BOT}", "--out", "{D}/t4", "--events", "{D}/afile/e.jsonl"),
            message=t + "--events '{D}/afile/e.jsonl': '{D}/afile' is a file, not a folder",
            absent=("{D}/t4",),
        ),
        Case(
            "tournament-events-dir",
            ("tournament", "{BOT}", "{BOT}", "--out", "{D}/t5", "--events", "{D}/adir"),
            message=t + "--events '{D}/adir' is a directory; give a file name",
            absent=("{D}/t5",),
        ),
        Case(
            "tournament-db-under-file",
            ("tournament", "{BOT}", "{BOT}", "--out", "{D}/t6", "--db", "{D}/afile/t.db"),
            message=t + "--db '{D}/afile/t.db': '{D}/afile' is a file, not a folder",
            absent=("{D}/t6",),
        ),
        Case(
            "tournament-report-dir",
            ("tournament", "{BOT}", "{BOT}", "--out", "{D}/t7"),
            message=t + "the report '{D}/t7/report.html' is a directory; give a file name",
            absent=("{D}/t7/tournament.db", "{D}/t7/replays"),
        ),
        Case(
            "tournament-bad-policy-creates-nothing",
            ("tournament", "{BOT}", "{BOT}", "--out", "{D}/t8", "--restarts", "1"),
            message=t + "--policy strict: strikes and restarts apply to the lenient policy, "
            "not 'strict'",
            absent=("{D}/t8",),
        ),
        Case("tournament-players-7", ("tournament", "{BOT}", "{BOT}", "--players", "7")),
        Case("tournament-rounds-negative", ("tournament", "{BOT}", "{BOT}", "--rounds", "-1")),
        Case(
            "tournament-no-bots",
            ("tournament", "--out", "{D}/t9"),
            message=t + "give the bots to play (command lines or bot folders)",
            absent=("{D}/t9",),
        ),
        Case(
            "tournament-resume-without-db",
            ("tournament", "--resume"),
            message=t + "--resume needs the tournament's --db (or its --out folder)",
        ),
        Case(
            "tournament-resume-events-under-file",
            ("tournament", "--resume", "--db", "{D}/missing.db", "--events", "{D}/afile/e.jsonl"),
            message=t + "--events '{D}/afile/e.jsonl': '{D}/afile' is a file, not a folder",
        ),
        # rematch (the replay itself is good)
        Case(
            "rematch-replay-dir",
            ("rematch", "{D}/here.json", "--replay", "{D}/adir"),
            message="arena rematch: error: --replay '{D}/adir' is a directory; give a file name",
        ),
        # sprt
        Case(
            "sprt-out-file",
            ("sprt", "{BOT}", "{BOT}", "--out", "{D}/afile"),
            message="arena sprt: error: --out '{D}/afile' is a file; give a folder",
        ),
        Case(
            "sprt-bad-alpha-creates-nothing",
            ("sprt", "{BOT}", "{BOT}", "--alpha", "2", "--out", "{D}/s1"),
            message="arena sprt: error: need 0 < alpha, beta and alpha + beta < 1, not 2.0, 0.05",
            absent=("{D}/s1",),
        ),
        Case("sprt-zero-pairs", ("sprt", "{BOT}", "{BOT}", "--max-pairs", "0")),
        # standings and report (the database's own cases: DATABASE_CASES)
        Case(
            "standings-missing-db",
            ("standings", "--db", "{D}/missing.db"),
            message="arena standings: error: no tournament database at '{D}/missing.db'",
        ),
        Case("standings-no-db-flag", ("standings",)),
        Case(
            "report-missing-db",
            ("report", "--db", "{D}/missing.db"),
            message="arena report: error: no tournament database at '{D}/missing.db'",
        ),
        Case(
            "report-out-dir",
            ("report", "--db", "{D}/good.json", "-o", "{D}/adir"),
            message="arena report: error: -o '{D}/adir' is a directory; give a file name",
        ),
        Case(
            "report-out-under-file",
            ("report", "--db", "{D}/good.json", "-o", "/proc/version/r.html"),
            message="arena report: error: -o '/proc/version/r.html': '/proc/version' is a file, "
            "not a folder",
        ),
        # schema
        Case(
            "schema-out-dir",
            ("schema", "--out", "{D}/adir"),
            message="arena schema: error: --out '{D}/adir' is a directory; give a file name",
        ),
        Case(
            "schema-out-under-file",
            ("schema", "--out", "/proc/version/s.json"),
            message="arena schema: error: --out '/proc/version/s.json': '/proc/version' is a "
            "file, not a folder",
        ),
        Case(
            "schema-out-read-only",
            ("schema", "--out", "{RO}/s.json"),
            message="arena schema: error: --out '{RO}/s.json': cannot write in '{RO}': {WHY}",
        ),
        Case("schema-unknown-flag", ("schema", "--bogus")),
    ]


def _database_cases() -> list[Case]:
    """Files that are not tournament databases, under every command that reads one. (A damaged
    database, a read-only mount and a full disk need a real tournament first: they are in
    tests/tournament/test_store_safety.py, with the byte-for-byte check of each file.)"""
    kinds = {
        "foreign.db": "not a tournament database (an SQLite database without the arena's tables)",
        "empty.db": "not a tournament database (the file is empty)",
        "text.db": "not a tournament database (not an SQLite file)",
    }
    commands = {
        "standings": ("standings", "--db"),
        "report": ("report", "--db"),
        "resume": ("tournament", "--resume", "--db"),
    }
    cases = []
    for name, why in kinds.items():
        for command, argv in commands.items():
            prog = "tournament" if command == "resume" else command
            cases.append(
                Case(
                    f"{command}-{name}",
                    (*argv, "{D}/" + name),
                    message=f"arena {prog}: error: {{D}}/{name}: {why}",
                )
            )
    return cases


DATABASE_CASES = _database_cases()

CASES = _replay_cases() + _path_cases() + DATABASE_CASES


# -- the corpus ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class Corpus:
    folder: Path
    read_only: Path
    why: str  #: what the messages say about the read-only folder
    wrap: tuple[str, ...]  #: the command prefix that makes ``read_only`` read-only


def _read_only_mount(folder: Path) -> tuple[str, ...] | None:
    """The prefix that runs a command with ``folder`` bind-mounted read-only, if root may."""
    if os.geteuid() != 0 or shutil.which("unshare") is None:
        return None
    script = 'mount --bind "$0" "$0" && mount -o remount,bind,ro "$0" && exec "$@"'
    prefix = ("unshare", "-m", "sh", "-c", script, str(folder))
    probe = subprocess.run([*prefix, "touch", str(folder / "probe")], capture_output=True)
    return prefix if probe.returncode != 0 and not (folder / "probe").exists() else None


def _write_replays(d: Path, good: dict[str, Any]) -> None:
    def variant(name: str, **changes: Any) -> None:
        (d / name).write_text(json.dumps({**good, **changes}))

    variant("p7.json", players=7)
    variant("seats1.json", seats=good["seats"][:1])
    variant("nolen.json", match={"target": None, "hands": None})
    variant("mlb0.json", max_line_bytes=0)
    variant("policy.json", policy={"name": "lenient", "strikes": 0, "restarts": 1})
    variant("sandbox.json", sandbox={"tunnel": True})
    variant("shape.json", seed="x")
    variant("here.json", workdir="")  # played here: rematch prints no "running from" line
    variant("players_huge.json", players=2**63)
    variant("seat_huge.json", seats=[good["seats"][0], {**good["seats"][1], "seat": 2**63}])
    variant("format99.json", format=99)
    text = json.dumps({**good, "zz_unknown": None})
    (d / "nested.json").write_text(
        text.replace('"zz_unknown": null', '"zz_unknown": ' + "[" * 50_000 + "]" * 50_000)
    )
    (d / "garbage.bin").write_bytes(bytes(range(256)) * 4)
    (d / "badutf.json").write_bytes(b'{"format": 2, "game": "\xff"}')
    (d / "trunc.json").write_text(json.dumps(good)[:300])
    (d / "list.json").write_text("[1, 2]")
    (d / "empty.json").write_bytes(b"")
    with (d / "huge.json").open("wb") as f:
        f.truncate(MAX_REPLAY_BYTES + 1)  # sparse: nothing is written, nothing must be read
    os.mkfifo(d / "fifo")


@pytest.fixture(scope="module")
def corpus(tmp_path_factory: pytest.TempPathFactory) -> Corpus:
    d = tmp_path_factory.mktemp("bad")
    player = f"{PY} {PLAYER} ok"
    made = subprocess.run(
        [PY, "-m", "arena", "play", player, player, "--seed", "7", "--hands", "1",
         "--sandbox", "none", "--replay", str(d / "good.json")],
        cwd=ROOT, capture_output=True, text=True, env=_env(),
    )  # fmt: skip
    assert made.returncode == 0, made.stderr
    _write_replays(d, json.loads((d / "good.json").read_text()))
    (d / "afile").write_text("a file, not a folder")
    with contextlib.closing(sqlite3.connect(d / "foreign.db")) as other:  # another program's
        other.executescript(
            "CREATE TABLE meta (key TEXT, val TEXT); INSERT INTO meta VALUES (1, 2);"
        )
        other.commit()
    (d / "empty.db").write_bytes(b"")
    (d / "text.db").write_text("name,score\nalpha,3\n")
    (d / "adir").mkdir()
    (d / "t7" / "report.html").mkdir(parents=True)
    (d / "spy.py").write_text("import pathlib, sys\npathlib.Path(sys.argv[1]).touch()\n")
    ro = d / "ro"
    ro.mkdir()
    wrap = _read_only_mount(ro)
    if wrap is None:
        if os.geteuid() == 0:
            pytest.skip("no read-only bind mount here (unshare -m)")
        ro.chmod(0o555)
    return Corpus(d, ro, "read-only file system" if wrap else "permission denied", wrap or ())


def _env() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k != DEBUG_VARIABLE}
    env["PYTHONPATH"] = str(ROOT)
    return env


def _fill(text: str, corpus: Corpus, case: Case) -> str:
    spy = f"{PY} {corpus.folder}/spy.py {corpus.folder}/started-{case.id}"
    return (
        text.replace("{BOT}", spy)
        .replace("{D}", str(corpus.folder))
        .replace("{RO}", str(corpus.read_only))
        .replace("{WHY}", corpus.why)
    )


def _run(corpus: Corpus, case: Case) -> subprocess.CompletedProcess[str]:
    argv = [PY, "-m", "arena", *(_fill(a, corpus, case) for a in case.argv)]
    if "{RO}" in "".join(case.argv):
        argv = [*corpus.wrap, *argv]
    return subprocess.run(
        argv, cwd=corpus.folder, capture_output=True, text=True, env=_env(), timeout=120
    )


@pytest.fixture(scope="module")
def results(corpus: Corpus) -> dict[str, subprocess.CompletedProcess[str]]:
    """Every case run once, four at a time."""
    with ThreadPoolExecutor(max_workers=4) as pool:
        done = pool.map(lambda case: (case.id, _run(corpus, case)), CASES)
        return dict(done)


# -- the tests ----------------------------------------------------------------------------------


def test_case_ids_are_unique() -> None:
    """Each case has its own id (its spy's file and its result are keyed by it)."""
    assert len({case.id for case in CASES}) == len(CASES)


@pytest.mark.timeout(900)  # the first case runs them all (about 80 arena processes)
@pytest.mark.parametrize("case", CASES, ids=lambda case: case.id)
def test_bad_input_gives_one_line_and_a_documented_exit_code(
    case: Case, corpus: Corpus, results: dict[str, subprocess.CompletedProcess[str]]
) -> None:
    """No traceback; the case's exit code (one the command documents); exactly one line on
    stderr (or stdout) naming the problem; no bot started and nothing created."""
    run = results[case.id]
    assert "Traceback" not in run.stdout + run.stderr, run.stderr
    assert run.returncode in DOCUMENTED[case.argv[0]]
    assert run.returncode == case.code, run.stdout + run.stderr
    shown = run.stdout if case.stream == "stdout" else run.stderr
    assert shown.count("\n") == 1, shown
    assert shown.endswith("\n")
    if case.stream == "stderr":
        assert run.stdout == ""
    if case.message is not None:
        assert shown == _fill(case.message, corpus, case) + "\n"
    assert not (corpus.folder / f"started-{case.id}").exists(), "a bot was started"
    for path in case.absent:
        assert not Path(_fill(path, corpus, case)).exists(), f"{path} was created"


def test_an_internal_error_is_one_line_and_exit_1(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """An unexpected exception is exit 1 and one line asking for a report, not a traceback."""

    def broken(args: object) -> int:
        raise RuntimeError("the arena\nbroke")

    monkeypatch.setitem(cli._HANDLERS, "schema", broken)
    monkeypatch.delenv(DEBUG_VARIABLE, raising=False)
    assert cli.main(["schema"]) == 1
    err = capsys.readouterr().err
    assert err == (
        "arena schema: internal error: RuntimeError: the arena broke (a bug in the arena: "
        "please report it, with the traceback that ARENA_DEBUG=1 prints)\n"
    )


def test_arena_debug_prints_the_traceback_of_an_internal_error(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """With ARENA_DEBUG=1 the traceback is printed before the one line."""

    def broken(args: object) -> int:
        raise RuntimeError("boom")

    monkeypatch.setitem(cli._HANDLERS, "schema", broken)
    monkeypatch.setenv(DEBUG_VARIABLE, "1")
    assert cli.main(["schema"]) == 1
    err = capsys.readouterr().err
    assert err.startswith("Traceback (most recent call last):")
    assert err.splitlines()[-1].startswith("arena schema: internal error: RuntimeError: boom")


def test_a_pipe_is_read_no_further_than_the_limit() -> None:
    """A replay from a pipe is read up to the limit and one byte more, then refused."""
    read, write = os.pipe()
    path = f"/proc/self/fd/{read}"
    writer = threading.Thread(target=lambda: _feed(write, 5000))
    writer.start()
    try:
        with pytest.raises(ReplayError, match="larger than 1000 bytes, the most a replay may be"):
            read_replay_bytes(path, limit=1000)
    finally:
        os.close(read)
        writer.join()
    read, write = os.pipe()
    os.write(write, b"x" * 1000)
    os.close(write)
    try:
        assert read_replay_bytes(f"/proc/self/fd/{read}", limit=1000) == b"x" * 1000
    finally:
        os.close(read)


def _feed(fd: int, count: int) -> None:
    try:
        os.write(fd, b"x" * count)
    except OSError:  # the reader stopped reading and closed its end
        pass
    finally:
        os.close(fd)


# -- a whole tournament: a new events folder, a bad replay in the report -------------------------


@pytest.fixture(scope="module")
def tournament(corpus: Corpus) -> Path:
    out = corpus.folder / "league"
    player = f"{PY} {PLAYER} ok"
    run = subprocess.run(
        [PY, "-m", "arena", "tournament", player, player, "--hands", "1", "--seed", "3",
         "--sandbox", "none", "--workers", "1", "--out", str(out),
         "--events", str(out / "new" / "folder" / "events.jsonl")],
        cwd=ROOT, capture_output=True, text=True, env=_env(), timeout=120,
    )  # fmt: skip
    assert run.returncode == 0, run.stderr
    return out


def test_an_events_file_in_a_missing_folder_is_written(tournament: Path) -> None:
    """``--events`` in a folder that does not exist yet: the folder is made before the run."""
    lines = (tournament / "new" / "folder" / "events.jsonl").read_text().splitlines()
    assert {json.loads(line)["event"] for line in lines} == {"match_started", "match_finished"}


def test_a_bad_replay_is_named_in_the_report_which_goes_on(
    tournament: Path, corpus: Corpus
) -> None:
    """A replay with 50,000 nested arrays in an unknown field is one note of ``arena report``,
    not the end of it."""
    replays = sorted((tournament / "replays").glob("*.json"))
    bad = replays[0]
    shutil.copy(corpus.folder / "nested.json", bad)
    bad.with_suffix(".html").unlink()
    run = subprocess.run(
        [PY, "-m", "arena", "report", "--db", str(tournament / "tournament.db")],
        cwd=ROOT, capture_output=True, text=True, env=_env(), timeout=120,
    )  # fmt: skip
    assert run.returncode == 0, run.stderr
    assert run.stderr == (
        f"arena report: table 0: the replay cannot be shown ({str(bad)!r} is not a replay file "
        "(its JSON is nested too deeply to read)); linked as JSON\n"
    )
    assert run.stdout.startswith(f"wrote {tournament / 'report.html'} (2 matches")


# -- replays changed at random: only named errors ------------------------------------------------


def _mutations(good: dict[str, Any], count: int, seed: int) -> Iterator[bytes]:
    rng = random.Random(seed)

    def paths(value: Any, at: tuple[Any, ...] = ()) -> Iterator[tuple[Any, ...]]:
        yield at
        if isinstance(value, dict | list):
            items = value.items() if isinstance(value, dict) else enumerate(value)
            for key, inner in items:
                yield from paths(inner, (*at, key))

    every = [p for p in paths(good) if p]
    for _ in range(count):
        doc = copy.deepcopy(good)
        for _ in range(rng.randint(1, 3)):
            *parent_path, key = rng.choice(every)
            parent = doc
            try:
                for step in parent_path:
                    parent = parent[step]
                value = parent[key]
            except (KeyError, IndexError, TypeError):
                continue
            if isinstance(value, bool):
                new: Any = not value
            elif isinstance(value, int):
                new = rng.choice([-1, 0, 1, 3, 4, 6, 7, 99, 2**63, value + 1])
            elif isinstance(value, list):
                new = value[:-1] if value and rng.random() < 0.5 else [*value, *value[:1]]
            elif isinstance(value, str):
                new = rng.choice(["", "left", "right", "play", "draw", "pass", "crash"])
            else:
                new = rng.choice([0, 1, 5])
            parent[key] = new
        yield json.dumps(doc).encode()


def test_changed_replays_give_only_named_errors(corpus: Corpus) -> None:
    """Replays with fields changed at random are refused by name, never with another error:
    reading raises ReplayError, verifying and the viewer's steps a discrepancy."""
    good = json.loads((corpus.folder / "good.json").read_text())
    for data in _mutations(good, 150, seed=10):
        try:
            replay = decode_replay(data, "r")
        except ReplayError:
            continue
        verify_replay(replay)
        with contextlib.suppress(StepsError):
            build_steps(replay)
