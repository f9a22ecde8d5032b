"""The arena's exception families (arena/errors.py): one base for what a person fixes (the CLI's
exit 2), one for a bot's broken I/O; and ``arena check`` catching the latter itself."""

from __future__ import annotations

import pickle
import shlex
import sys
from pathlib import Path

import pytest
import trio

import arena.cli
from arena.check import Launcher, check_bot
from arena.cli.errors import UsageError
from arena.errors import (
    ArenaError,
    BotCommandError,
    BotEOFError,
    BotGoneError,
    BotIOError,
    LineTooLongError,
    OutputLimitError,
)
from arena.out_paths import OutputPathError
from arena.referee import framing, process
from arena.referee.process import BotProcess, open_bot_process
from arena.referee.sandbox import SandboxError, SandboxPathError
from arena.replay import ReplayError
from arena.replay_settings import ReplaySettingsError
from arena.tournament.entrants import EntrantError
from arena.tournament.session import SessionError
from arena.tournament.store_file import DiskFullError, StoreError

SAMPLE = Path(__file__).resolve().parent.parent / "sample_bots" / "random_bot.py"


@pytest.mark.parametrize(
    "error",
    [
        BotCommandError,
        OutputPathError,
        ReplayError,
        ReplaySettingsError,
        EntrantError,
        SessionError,
        StoreError,
        DiskFullError,
        SandboxError,
        SandboxPathError,
        UsageError,
    ],
)
def test_every_error_a_person_fixes_is_an_arena_error(error: type[Exception]) -> None:
    assert issubclass(error, ArenaError)
    assert not issubclass(error, BotIOError)


def test_the_cli_says_any_arena_error_in_one_line_and_exits_2(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """An ArenaError out of a handler is caught once, in main: its message, exit 2."""

    def damaged(args: object) -> int:
        raise StoreError("'t.db' is damaged")

    monkeypatch.setitem(arena.cli._HANDLERS, "schema", damaged)
    assert arena.cli.main(["schema"]) == 2
    assert capsys.readouterr().err == "arena schema: error: 't.db' is damaged\n"


@pytest.mark.parametrize("error", [BotEOFError, BotGoneError, LineTooLongError, OutputLimitError])
def test_the_bot_io_errors_share_one_base(error: type[Exception]) -> None:
    assert issubclass(error, BotIOError)
    assert not issubclass(error, ArenaError)


def test_the_referee_modules_raise_the_same_classes() -> None:
    """process.py and framing.py re-export arena.errors' classes (no second definition)."""
    assert process.BotEOFError is BotEOFError
    assert process.BotCommandError is BotCommandError
    assert framing.LineTooLongError is LineTooLongError


def test_the_errors_with_evidence_survive_pickling() -> None:
    """Tournament workers send errors across processes: their evidence must survive."""
    long = pickle.loads(pickle.dumps(LineTooLongError(b"abc", 64)))
    assert (long.prefix, long.limit) == (b"abc", 64)
    over = pickle.loads(pickle.dumps(OutputLimitError(10, 12)))
    assert (over.limit, over.received) == (10, 12)
    eof = BotEOFError("closed", b"tail")
    assert eof.unterminated == b"tail"


def test_check_needs_no_exception_classes_from_its_caller() -> None:
    """A Launcher of just open and close_input: the checker catches arena.errors itself (a
    missing program is a BotCommandError, reported as the handshake's failure)."""

    def close_input(link: object) -> None:
        assert isinstance(link, BotProcess)
        link.close_input()

    launcher = Launcher(open=open_bot_process, close_input=close_input)  # type: ignore[arg-type]
    report = trio.run(check_bot, "/nonexistent/bot", "matador", launcher)
    first = report.steps[0]
    assert first.status == "fail"
    assert first.detail.startswith("cannot start your bot: bot command '/nonexistent/bot'")
    command = f"{shlex.quote(sys.executable)} {shlex.quote(str(SAMPLE))}"
    report = trio.run(check_bot, command, "matador", launcher)
    assert report.passed, [s.detail for s in report.steps if s.status != "pass"]
