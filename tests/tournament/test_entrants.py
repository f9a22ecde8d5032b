"""Tests for arena.tournament.entrants: finding bots, building them, checking their handshake.

The sample bot folders live in tests/tournament/bots/: ``league/`` is a directory of bot
folders (a plain bot, one with a build step, one whose build fails, one that fails the
handshake, and a folder without a manifest), ``broken/`` holds bad manifests, ``twins/`` two
bots with the same name, and ``scripts/misbehave.py`` misbehaves at the handshake on demand.
Tests that build copy the folders to a temporary directory, so the checkout stays clean.
"""

from __future__ import annotations

import dataclasses
import json
import re
import shlex
import shutil
import time
import uuid
from collections.abc import Sequence
from pathlib import Path

import pytest
import trio

from arena.tournament.entrants import (
    OUTPUT_TAIL_CHARS,
    Entrant,
    EntrantError,
    Excluded,
    Skipped,
    discover,
    handshake_hello,
    prepare,
    scan,
)
from protocol.codec import ProtocolError, decode_from_bot
from protocol.messages import PROTOCOL_VERSION
from tests.processes import live_processes_with

BOTS = Path(__file__).resolve().parent / "bots"
LEAGUE = BOTS / "league"
MISBEHAVE = BOTS / "scripts" / "misbehave.py"

pytestmark = pytest.mark.timeout(30)


def misbehave(mode: str, *extra: str) -> str:
    """Returns the command line that runs scripts/misbehave.py in ``mode``."""
    return shlex.join(["python3", str(MISBEHAVE), mode, *extra])


def run_prepare(
    entrants: Sequence[Entrant], *, startup_ms: int = 10_000, build_timeout_s: float = 10.0
) -> tuple[list[Entrant], list[Excluded]]:
    """Runs `prepare` under trio with generous limits unless told otherwise."""

    async def main() -> tuple[list[Entrant], list[Excluded]]:
        return await prepare(entrants, startup_ms=startup_ms, build_timeout_s=build_timeout_s)

    return trio.run(main)


def make_bot(root: Path, folder: str, **fields: str) -> Path:
    """Writes ``root/folder/bot.toml`` with the given string fields and returns the folder."""
    path = root / folder
    path.mkdir(parents=True)
    lines = [f"{key} = {json.dumps(value)}" for key, value in fields.items()]
    (path / "bot.toml").write_text("\n".join(lines) + "\n")
    return path


@pytest.fixture
def league(tmp_path: Path) -> Path:
    """A copy of the sample league in a temporary directory (builds write into it)."""
    copy = tmp_path / "league"
    shutil.copytree(LEAGUE, copy)
    return copy


def by_name(entrants: Sequence[Entrant]) -> dict[str, Entrant]:
    """Indexes bots by name."""
    return {entrant.name: entrant for entrant in entrants}


# -- discovery ----------------------------------------------------------------------------------


def test_directory_of_bot_folders() -> None:
    """A directory yields every subfolder with a manifest, sorted, and skips the others."""
    found = scan([str(LEAGUE)])
    source = str(LEAGUE)
    assert found.entrants == [
        Entrant("alpha", "python3 bot.py", str(LEAGUE / "alpha"), "Python 3", None, source),
        Entrant(
            "broken-build",
            "python3 bot.py",
            str(LEAGUE / "broken_build"),
            None,
            "python3 build.py",
            source,
        ),
        Entrant(
            "built",
            "python3 bot.py",
            str(LEAGUE / "built"),
            "Python 3",
            "python3 build.py",
            source,
        ),
        Entrant("mute", "python3 bot.py", str(LEAGUE / "mute"), None, None, source),
    ]
    assert found.skipped == [Skipped(str(LEAGUE / "notes"), "no bot.toml")]


def test_single_bot_folder_and_manifest_path() -> None:
    """A bot folder, or its bot.toml, yields that one bot with the folder as cwd."""
    folder = str(LEAGUE / "alpha")
    manifest = str(LEAGUE / "alpha" / "bot.toml")
    expected = Entrant("alpha", "python3 bot.py", folder, "Python 3", None, folder)
    assert discover([folder]) == [expected]
    assert discover([manifest]) == [dataclasses.replace(expected, source=manifest)]


def test_relative_folder_gets_an_absolute_cwd(monkeypatch: pytest.MonkeyPatch) -> None:
    """A folder given relative to the current directory is stored with an absolute cwd."""
    monkeypatch.chdir(LEAGUE)
    assert discover(["alpha"]) == [
        Entrant("alpha", "python3 bot.py", str(LEAGUE / "alpha"), "Python 3", None, "alpha")
    ]


def test_command_line_bots_are_named_after_their_script() -> None:
    """A command line is kept as given, runs in no folder, and is named after its script."""
    command = "python3 sample_bots/greedy.py"
    assert discover([command]) == [Entrant("greedy", command, None, None, None, command)]


@pytest.mark.parametrize(
    ("command", "name"),
    [
        ("python3 sample_bots/greedy.py", "greedy"),
        ("node sample_bots/greedy.js", "greedy"),
        ("./mybot --level 3", "mybot"),
        ("/usr/bin/env python3.11 -u bots/smart_bot.py fast", "smart_bot"),
        ("java -jar build/Bot.jar", "Bot"),
        ("deno run bots/clever.ts", "clever"),
        ("python3", "python3"),
        ("'./my bot!'", "my-bot-"),
    ],
)
def test_name_from_command(command: str, name: str) -> None:
    """The name is the stem of the first argument that is not an interpreter or an option."""
    assert [entrant.name for entrant in discover([command])] == [name]


def test_command_line_names_are_deduplicated() -> None:
    """Command-line bots with the same stem: another extension names the language (greedy-js),
    the same one is numbered (greedy-2), in argument order."""
    commands = ["python3 a/greedy.py", "node b/greedy.js", "python3 c/greedy.py"]
    assert [e.name for e in discover(commands)] == ["greedy", "greedy-js", "greedy-2"]


def test_manifest_names_win_over_derived_names() -> None:
    """A command-line bot yields its name to a bot folder even when it comes first."""
    entrants = discover(["python3 other/alpha.py", str(LEAGUE / "alpha")])
    assert [(e.name, e.cwd) for e in entrants] == [
        ("alpha-2", None),
        ("alpha", str(LEAGUE / "alpha")),
    ]
    assert [e.key for e in entrants] == ["alpha-2", "alpha"]


def test_mixed_arguments_keep_their_order() -> None:
    """Folders, directories and command lines are listed in the order given."""
    entrants = discover([misbehave("ok"), str(LEAGUE), str(BOTS / "twins" / "one")])
    assert [(e.name, e.source) for e in entrants] == [
        ("misbehave", misbehave("ok")),
        ("alpha", str(LEAGUE)),
        ("broken-build", str(LEAGUE)),
        ("built", str(LEAGUE)),
        ("mute", str(LEAGUE)),
        ("twin", str(BOTS / "twins" / "one")),
    ]


def test_bad_manifests_are_all_reported() -> None:
    """Every problem of every manifest is reported, each naming its file."""
    broken = BOTS / "broken"
    with pytest.raises(EntrantError) as caught:
        discover([str(broken)])
    assert caught.value.problems == [
        f"{broken}/missing/bot.toml: missing required field 'command'",
        f"{broken}/syntax/bot.toml: invalid TOML: Expected '=' after a key in a key/value pair"
        " (at line 2, column 9)",
        f"{broken}/types/bot.toml: 'name' must be a string, not an integer",
        f"{broken}/types/bot.toml: 'command' must be a string, not an array",
        f"{broken}/unknown/bot.toml: unknown field 'comand'; did you mean 'command'? (the fields"
        " are name, command, build, language)",
        f"{broken}/unknown/bot.toml: missing required field 'command'",
    ]
    assert str(caught.value) == "\n".join(caught.value.problems)


def test_bad_field_values(tmp_path: Path) -> None:
    """A name with a space, an empty command and an unparsable build are each reported."""
    folder = make_bot(tmp_path, "odd", name="my bot", command=" ", build="make 'all")
    with pytest.raises(EntrantError) as caught:
        discover([str(folder)])
    manifest = folder / "bot.toml"
    assert caught.value.problems == [
        f"{manifest}: 'name' must be 1 to 64 letters, digits, '_', '-', '+' or '.' (not first),"
        " got 'my bot'",
        f"{manifest}: 'command' is empty",
        f"{manifest}: 'build' cannot be parsed: No closing quotation",
    ]


def test_duplicate_manifest_names() -> None:
    """Two bot folders with the same name are an error naming both manifests."""
    twins = BOTS / "twins"
    with pytest.raises(EntrantError) as caught:
        discover([str(twins)])
    assert str(caught.value) == (
        f"duplicate bot name 'twin': {twins}/one/bot.toml and {twins}/two/bot.toml"
    )


def test_the_same_folder_twice_is_a_duplicate() -> None:
    """A folder given on its own and inside its directory is a duplicate, not two bots."""
    with pytest.raises(EntrantError) as caught:
        discover([str(LEAGUE), str(LEAGUE / "alpha")])
    assert str(caught.value) == (
        f"duplicate bot name 'alpha': {LEAGUE}/alpha/bot.toml (given as {LEAGUE}) and"
        f" {LEAGUE}/alpha/bot.toml (given as {LEAGUE}/alpha)"
    )


def test_nothing_found(tmp_path: Path) -> None:
    """No arguments, a directory without bot folders and a missing directory are errors."""
    (tmp_path / "empty").mkdir()
    (tmp_path / "empty" / "sub").mkdir()
    with pytest.raises(EntrantError) as caught:
        discover([])
    assert str(caught.value) == (
        "no bots given: name bot folders, directories of them, or commands"
    )
    with pytest.raises(EntrantError) as caught:
        discover([str(tmp_path / "empty"), str(tmp_path / "missing") + "/"])
    assert caught.value.problems == [
        f"{tmp_path}/empty: not a bot folder (no bot.toml) and no subfolder is one either",
        f"{tmp_path}/missing/: no such directory",
    ]


def test_bad_command_lines() -> None:
    """An empty or unparsable command line is an error quoting it."""
    with pytest.raises(EntrantError) as caught:
        discover(["", "python3 'bot.py"])
    assert caught.value.problems == [
        "bot command '': empty command",
        'bot command "python3 \'bot.py": cannot parse: No closing quotation',
    ]


def test_hidden_folders_are_ignored(tmp_path: Path) -> None:
    """Hidden folders and __pycache__ in a directory of bots are neither bots nor skipped."""
    make_bot(tmp_path, "b", name="b", command="python3 bot.py")
    make_bot(tmp_path, ".hidden", name="hidden", command="python3 bot.py")
    (tmp_path / "__pycache__").mkdir()
    (tmp_path / "file.txt").write_text("not a folder\n")
    found = scan([str(tmp_path)])
    assert [e.name for e in found.entrants] == ["b"]
    assert found.skipped == []


# -- builds -------------------------------------------------------------------------------------


def test_league_builds_and_handshakes(league: Path) -> None:
    """The good bots pass; the failed build and the garbled handshake are excluded."""
    started = time.monotonic()
    kept, excluded = run_prepare(discover([str(league)]))
    assert [e.name for e in kept] == ["alpha", "built"]
    assert (league / "built" / "name.txt").read_text() == "built\n"
    assert [(x.entrant.name, x.stage) for x in excluded] == [
        ("broken-build", "build"),
        ("mute", "handshake"),
    ]
    assert time.monotonic() - started < 10


def test_build_failure_reports_exit_code_and_output(league: Path) -> None:
    """A failed build names its command and exit code and quotes the end of its output."""
    entrants = by_name(discover([str(league)]))
    kept, excluded = run_prepare([entrants["broken-build"]])
    assert kept == []
    assert excluded == [
        Excluded(
            entrants["broken-build"],
            "build",
            "build 'python3 build.py' failed (exit code 3); its output ends with:\n"
            "compiling bot.py\n"
            "bot.py:3: error: expected ';'",
            "compiling bot.py\nbot.py:3: error: expected ';'\n",
        )
    ]


def test_bot_that_needs_its_build_fails_without_it(league: Path) -> None:
    """The built bot, started without its build step, crashes and is excluded with stderr."""
    built = dataclasses.replace(by_name(discover([str(league)]))["built"], build=None)
    kept, excluded = run_prepare([built])
    assert kept == []
    [failure] = excluded
    assert (failure.stage, failure.reason) == (
        "handshake",
        "exited (exit code 1) without answering 'hello'",
    )
    assert "FileNotFoundError" in failure.output_tail
    assert "name.txt" in failure.output_tail


def test_build_runs_once_in_the_bot_folder(tmp_path: Path) -> None:
    """The build runs exactly once, in the bot folder, with an empty stdin."""
    code = (
        "import os, sys; open('runs.txt', 'a').write(os.getcwd() + ' ' + repr(sys.stdin.read())"
        " + chr(10))"
    )
    folder = make_bot(
        tmp_path,
        "counter",
        name="counter",
        command=misbehave("ok"),
        build=shlex.join(["python3", "-c", code]),
    )
    kept, excluded = run_prepare(discover([str(folder)]))
    assert (excluded, [e.name for e in kept]) == ([], ["counter"])
    assert (folder / "runs.txt").read_text() == f"{folder} ''\n"


def test_build_timeout_kills_it(tmp_path: Path) -> None:
    """A build that runs too long is stopped at the limit and excluded, its output quoted."""
    marker = f"marker-{uuid.uuid4().hex}"
    code = f"import time; print('starting', flush=True); time.sleep(60)  # {marker}"
    build = shlex.join(["python3", "-c", code])
    folder = make_bot(tmp_path, "slow", name="slow", command=misbehave("ok"), build=build)
    started = time.monotonic()
    kept, excluded = run_prepare(discover([str(folder)]), build_timeout_s=0.5)
    assert time.monotonic() - started < 3
    assert kept == []
    assert [(x.stage, x.reason, x.output_tail) for x in excluded] == [
        (
            "build",
            f"build {build!r} did not finish within 0.5 s and was stopped; its output ends"
            " with:\nstarting",
            "starting\n",
        )
    ]
    assert live_processes_with(marker) == []


def test_build_leftovers_are_killed(tmp_path: Path) -> None:
    """A build that exits while a child holds its output still finishes, and the child dies."""
    marker = f"marker-{uuid.uuid4().hex}"
    code = (
        "import subprocess, sys; subprocess.Popen([sys.executable, '-c',"
        f" 'import time; time.sleep(60)', '{marker}']); print('done')"
    )
    folder = make_bot(
        tmp_path,
        "leaky",
        name="leaky",
        command=misbehave("ok"),
        build=shlex.join(["python3", "-c", code]),
    )
    started = time.monotonic()
    kept, excluded = run_prepare(discover([str(folder)]))
    assert (excluded, [e.name for e in kept]) == ([], ["leaky"])
    assert time.monotonic() - started < 5
    assert live_processes_with(marker) == []


def test_build_output_is_bounded(tmp_path: Path) -> None:
    """A build that floods its output keeps only the tail, and the reason stays short."""
    code = "import sys; sys.stdout.write('x' * 5_000_000 + '\\nlast line\\n'); sys.exit(1)"
    build = shlex.join(["python3", "-c", code])
    folder = make_bot(tmp_path, "noisy", name="noisy", command=misbehave("ok"), build=build)
    _, [failure] = run_prepare(discover([str(folder)]))
    assert len(failure.output_tail) == OUTPUT_TAIL_CHARS
    assert failure.output_tail.endswith("x\nlast line\n")
    assert failure.reason.startswith(f"build {build!r} failed (exit code 1); its output ends")
    assert failure.reason.endswith("xxx\nlast line")
    assert len(failure.reason) < 1200


def test_build_program_not_found(tmp_path: Path) -> None:
    """A build whose program does not exist is excluded at the build stage."""
    folder = make_bot(
        tmp_path, "nomake", name="nomake", command="python3 bot.py", build="no-such-make all"
    )
    [entrant] = discover([str(folder)])
    assert run_prepare([entrant]) == (
        [],
        [
            Excluded(
                entrant,
                "build",
                "cannot run the build: bot command 'no-such-make all': program 'no-such-make'"
                " not found on PATH (give a path such as './bot' for a file in the bot's"
                " directory)",
            )
        ],
    )


# -- handshakes ---------------------------------------------------------------------------------


def test_good_bots_are_kept() -> None:
    """A command-line bot and a folder bot that answer ready are kept, in order."""
    entrants = discover([misbehave("ok"), str(LEAGUE / "alpha")])
    assert run_prepare(entrants) == (entrants, [])


@pytest.mark.parametrize(
    ("mode", "reason"),
    [
        ("crash", "exited (exit code 3) without answering 'hello'"),
        ("move", "answered 'hello' with a 'move' message, not 'ready'"),
        ("protocol", f"speaks protocol 2; this arena speaks protocol {PROTOCOL_VERSION}"),
        (
            "partial",
            "exited (exit code 0) without answering 'hello'; it wrote '{\"type\": \"rea'"
            " without a newline",
        ),
    ],
)
def test_handshake_failures(mode: str, reason: str) -> None:
    """A bot that crashes, answers the wrong message or protocol, or stops short is excluded."""
    [entrant] = discover([misbehave(mode)])
    kept, excluded = run_prepare([entrant])
    assert kept == []
    assert [(x.entrant, x.stage, x.reason) for x in excluded] == [(entrant, "handshake", reason)]


def test_crash_keeps_stderr() -> None:
    """A bot that crashes at start is excluded with its stderr as the output tail."""
    _, [failure] = run_prepare(discover([misbehave("crash")]))
    assert failure.output_tail == "misbehave: crashing on purpose\n"


def test_garbage_answer() -> None:
    """A bot that answers hello with text that is not JSON is excluded with the decoder error."""
    with pytest.raises(ProtocolError) as decoded:
        decode_from_bot(b"hello to you too")
    _, [failure] = run_prepare(discover([str(LEAGUE / "mute")]))
    assert (failure.stage, failure.reason) == (
        "handshake",
        f"answered 'hello' with an invalid message: {decoded.value}",
    )


def test_handshake_timeout_kills_the_bot() -> None:
    """A bot that never answers is excluded after startup_ms, and its process is gone."""
    marker = f"marker-{uuid.uuid4().hex}"
    started = time.monotonic()
    kept, excluded = run_prepare(discover([misbehave("hang", marker)]), startup_ms=300)
    assert time.monotonic() - started < 3
    assert kept == []
    assert [(x.stage, x.reason) for x in excluded] == [
        ("handshake", "did not answer 'hello' with 'ready' within 300 ms")
    ]
    assert live_processes_with(marker) == []


def test_handshakes_run_concurrently() -> None:
    """Four silent bots are checked at the same time, not one after another."""
    entrants = discover([misbehave("hang") for _ in range(4)])
    started = time.monotonic()
    kept, excluded = run_prepare(entrants, startup_ms=600)
    elapsed = time.monotonic() - started
    assert (kept, [x.entrant.name for x in excluded]) == (
        [],
        ["misbehave", "misbehave-2", "misbehave-3", "misbehave-4"],
    )
    assert elapsed < 4 * 0.6


def test_command_that_cannot_start(tmp_path: Path) -> None:
    """A bot whose program is missing is excluded at the command stage; the others go on."""
    folder = make_bot(tmp_path, "ghost", name="ghost", command="./run")
    entrants = discover([str(folder), misbehave("ok")])
    kept, excluded = run_prepare(entrants)
    assert kept == entrants[1:]
    assert excluded == [
        Excluded(
            entrants[0], "command", f"bot command './run': file not found (relative to '{folder}')"
        )
    ]


def test_handshake_hello_is_a_real_hello() -> None:
    """The default hello is seat 0 of 2, seed 0, with the startup limit given."""
    hello = handshake_hello(250)
    assert (hello.protocol, hello.seat, hello.players, hello.seed) == (PROTOCOL_VERSION, 0, 2, 0)
    assert hello.time.startup_ms == 250


def test_limits_must_be_positive() -> None:
    """prepare refuses a zero startup time, build timeout or concurrency."""

    async def main() -> None:
        with pytest.raises(ValueError, match="must be positive"):
            await prepare([], startup_ms=0, build_timeout_s=1)
        with pytest.raises(ValueError, match="must be positive"):
            await prepare([], startup_ms=1, build_timeout_s=0)
        with pytest.raises(ValueError, match="must be positive"):
            await prepare([], startup_ms=1, build_timeout_s=1, build_concurrency=0)

    trio.run(main)


def test_doc_examples_are_valid_manifests(tmp_path: Path) -> None:
    """Every bot.toml example in docs/bot-folders.md is a manifest that discovery accepts."""
    doc = Path(__file__).resolve().parents[2] / "docs" / "bot-folders.md"
    blocks = re.findall(r"```toml\n(.*?)```", doc.read_text(), flags=re.DOTALL)
    assert len(blocks) == 2
    for number, block in enumerate(blocks):
        (tmp_path / str(number)).mkdir()
        (tmp_path / str(number) / "bot.toml").write_text(block)
    assert [e.name for e in discover([str(tmp_path)])] == ["greedy-v2", "fast-c"]


def test_manifest_with_a_byte_order_mark_is_read(tmp_path: Path) -> None:
    """A bot.toml saved with a UTF-8 byte order mark (Windows editors) is read like any other."""
    folder = tmp_path / "bom"
    folder.mkdir()
    (folder / "bot.toml").write_bytes(b'\xef\xbb\xbfname = "bom"\ncommand = "python3 bot.py"\n')
    (entrant,) = discover([str(folder)])
    assert (entrant.name, entrant.command) == ("bom", "python3 bot.py")


def test_build_output_in_a_reason_is_escaped() -> None:
    """The build output a reason quotes cannot drive a terminal: control characters escaped."""
    from arena.tournament.entrants import _with_output

    reason = _with_output("build 'make' failed", "ok\n\x1b[31mred\r\x07\n")
    # splitlines() ends a line at a bare \r too: it reaches no terminal as a carriage return.
    assert reason == "build 'make' failed; its output ends with:\nok\n\\x1b[31mred\n\\x07"
