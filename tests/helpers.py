"""The one factory for test bots run as real subprocesses, and the trio runner the suite
repeats. Every test module takes its bot command lines from here (the root conftest re-exports
the trio clock as a fixture); a bot's behaviour lives in its script under ``tests/bots/``
(or ``tests/referee/sandbox/bots/``), never in a copy of these helpers."""

from __future__ import annotations

import shlex
import sys
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import TypeVar

import trio
import trio.testing

#: The repository's root folder.
REPO = Path(__file__).resolve().parents[1]
#: The misbehaving test bots shared by the suite.
BOTS = REPO / "tests" / "bots"
#: This interpreter, quoted for a shell-style command line.
PY = shlex.quote(sys.executable)

T = TypeVar("T")


def bot_argv(name: str, *args: str, folder: Path = BOTS, python: str = sys.executable) -> list[str]:
    """The argv that runs ``folder/<name>.py`` (``tests/bots`` by default) with ``python``."""
    return [python, str(folder / f"{name}.py"), *args]


def python_argv(code: str) -> list[str]:
    """The argv that runs a one-off Python snippet as a bot."""
    return [sys.executable, "-c", code]


def bot_command(script: str, *args: str) -> str:
    """The command line of the test bot ``tests/bots/<script>`` (file name with ``.py``)."""
    return " ".join([PY, shlex.quote(str(BOTS / script)), *map(shlex.quote, args)])


def player_command(mode: str = "ok", at: int = 1, arg: str = "", marker: str = "") -> str:
    """The command line of tests/bots/player.py misbehaving as ``mode`` at request ``at``."""
    parts = [PY, shlex.quote(str(BOTS / "player.py")), mode, str(at), shlex.quote(arg)]
    return " ".join([*parts, marker] if marker else parts)


def autojump_clock() -> trio.testing.MockClock:
    """Trio's mock clock that jumps as soon as every task sleeps: no real time passes."""
    return trio.testing.MockClock(autojump_threshold=0)


def run_on_mock_clock(fn: Callable[[], Awaitable[T]]) -> T:
    """Run ``fn`` under trio on :func:`autojump_clock` (deterministic to the move)."""
    return trio.run(fn, clock=autojump_clock())
