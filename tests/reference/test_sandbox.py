"""A reference bot runs inside the sandbox: its command names the arena's own packages, which
the sandbox shows it read-only (and, under unshare as root, makes reachable), with the
``PYTHONPATH`` of the arena the referee runs."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import pytest

import arena
import protocol
from arena.referee.commands import parse_command
from arena.referee.sandbox import detect_capabilities
from arena.referee.sandbox.paths import resolve_command
from tests.reference.test_commands import arena as run_arena

ROOT = str(Path(arena.__file__).resolve().parents[1])


def test_a_reference_command_needs_the_arena_packages_and_its_python() -> None:
    """`ref:search` is this Python running `-m arena.reference`; the sandbox's list of what it
    reads holds the interpreter, the `arena` and `protocol` folders, and its PYTHONPATH."""
    argv = parse_command("ref:search")
    assert argv == [sys.executable, "-m", "arena.reference", "search"]
    resolved = resolve_command(argv, None, os.environ.get("PATH", ""))
    assert sys.executable in resolved.program
    assert os.path.dirname(os.path.abspath(arena.__file__)) in resolved.arguments
    assert os.path.dirname(os.path.abspath(protocol.__file__)) in resolved.arguments
    assert resolved.python_path == [ROOT]


def test_an_ordinary_python_command_gets_no_python_path() -> None:
    """Only the arena's own modules get the arena's PYTHONPATH."""
    resolved = resolve_command([sys.executable, "-c", "pass"], None, "")
    assert resolved.python_path == []


def _mechanisms() -> list[str]:
    found = []
    caps = detect_capabilities()
    if caps.bwrap is not None:
        found.append("bwrap")
    if caps.unshare is not None and caps.euid == 0:
        found.append("unshare")
    return found


@pytest.mark.parametrize("mechanism", ["bwrap", "unshare"])
def test_reference_bots_play_in_each_sandbox(tmp_path: Path, mechanism: str) -> None:
    """`arena play ref:greedy ref:search` under bwrap and under unshare: both seats finish ok
    (the bot imports this checkout's arena, though the sandbox scrubs the environment)."""
    if mechanism not in _mechanisms():
        pytest.skip(f"{mechanism} does not work here")
    run = run_arena(
        "play", "ref:greedy", "ref:search:samples=2", "--hands", "1", "--seed", "4",
        "--sandbox", mechanism, "--json", "--replay", "r.json", cwd=tmp_path,
    )  # fmt: skip
    assert run.returncode == 0, run.stderr
    result = json.loads(run.stdout)
    assert [seat["status"] for seat in result["players"]] == ["ok", "ok"]
