"""Inputs refused before anything runs: bot commands that cannot run, replay paths, replays."""

from __future__ import annotations

import os
from pathlib import Path

from arena.cli.errors import UsageError
from arena.out_paths import Output, prepare_outputs
from arena.referee.commands import parse_command
from arena.replay import Replay, read_replay

_SCRIPT_SUFFIXES = (".py", ".js", ".mjs", ".rb", ".pl", ".sh", ".jar", ".lua", ".php")


def _check_bot_command(command: str) -> None:
    """Refuse, before any match starts, a bot command that cannot possibly run."""
    argv = parse_command(command)  # a BotCommandError is an ArenaError: main says it, exit 2
    for arg in argv[1:]:
        if arg.endswith(_SCRIPT_SUFFIXES) and not arg.startswith("-") and not os.path.exists(arg):
            raise UsageError(f"bot command {command!r}: file {arg!r} not found")


def _check_replay_path(path: Path) -> None:
    """Refuse, before the match, a replay path that cannot be written (the match would be lost)."""
    prepare_outputs([Output(path, "--replay")])


def _read(path: Path) -> Replay:
    return read_replay(path)  # a ReplayError is an ArenaError: main says it, exit 2
