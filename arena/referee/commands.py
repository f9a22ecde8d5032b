"""Bot commands: a command line split into argv, its program checked before anything is
started (`parse_command`), and the words for a command that cannot start."""

from __future__ import annotations

import os
import shlex
import shutil
from collections.abc import Mapping, Sequence

from arena.errors import BotCommandError
from arena.reference.spec import SpecError, is_ref, ref_argv

__all__ = ["BotCommandError", "display", "os_reason", "parse_command"]

_INTERPRETER_HINTS = {
    ".py": "python3",
    ".js": "node",
    ".mjs": "node",
    ".rb": "ruby",
    ".pl": "perl",
    ".sh": "sh",
    ".jar": "java -jar",
}


def display(command: str | Sequence[str]) -> str:
    """The command for people: the string given, or the argv joined shell-style."""
    return command if isinstance(command, str) else shlex.join(command)


def os_reason(exc: OSError) -> str:
    """Why an OS call failed, for people: its message and, if it has one, the file it named."""
    reason = exc.strerror or str(exc)
    if exc.filename is not None:
        reason = f"{reason}: {exc.filename!r}"
    return reason


def _interpreter_hint(program: str) -> str:
    interpreter = _INTERPRETER_HINTS.get(os.path.splitext(program)[1].lower())
    chmod = f"chmod +x {shlex.quote(program)}"
    if interpreter is None:
        return f"try '{chmod}'"
    return f"try '{interpreter} {shlex.quote(program)}' or '{chmod}'"


def parse_command(
    command: str | Sequence[str],
    *,
    cwd: str | None = None,
    env: Mapping[str, str] | None = None,
) -> list[str]:
    """Splits a bot command into argv and checks that its program can be run.

    A program name without a slash is looked up on ``PATH`` (the ``PATH`` of ``env`` when it
    is given, as the spawn will do); a path with a slash must name an executable file,
    relative to ``cwd`` when it is given.

    Args:
        command: A shell-like string (split with `shlex.split`, no shell is involved) or an
            argv sequence.
        cwd: The directory the bot will start in.
        env: The bot's environment, if it differs from ours.

    A reference bot, ``ref:NAME[:options]``, becomes ``[sys.executable, "-m",
    "arena.reference", "NAME[:options]"]``.

    Returns:
        The argv list, with the program as given (not resolved).

    Raises:
        BotCommandError: If the command is empty or unparsable, or its program is missing,
            not a file, or not executable, or it names an unknown reference bot. The message
            names the command and the reason.
    """
    shown = display(command)
    if isinstance(command, str):
        try:
            argv = shlex.split(command)
        except ValueError as exc:
            raise BotCommandError(f"bot command {shown!r}: cannot parse: {exc}") from None
    else:
        argv = [str(arg) for arg in command]
    if not argv or not argv[0]:
        raise BotCommandError(f"bot command {shown!r}: empty command")
    if len(argv) == 1 and is_ref(argv[0]):
        # A reference bot (docs/reference-bots.md): this Python running arena.reference.
        try:
            return ref_argv(argv[0])
        except SpecError as exc:
            raise BotCommandError(f"bot command {shown!r}: {exc}") from None
    program = argv[0]
    if "/" not in program:
        path = None if env is None else env.get("PATH", os.defpath)
        if shutil.which(program, path=path) is None:
            raise BotCommandError(
                f"bot command {shown!r}: program {program!r} not found on PATH"
                " (give a path such as './bot' for a file in the bot's directory)"
            )
        return argv
    full = os.path.join(cwd, program) if cwd is not None else program
    where = "" if cwd is None else f" (relative to {cwd!r})"
    if not os.path.exists(full):
        raise BotCommandError(f"bot command {shown!r}: file not found{where}")
    if os.path.isdir(full):
        raise BotCommandError(f"bot command {shown!r}: {program!r} is a directory{where}")
    if not os.access(full, os.X_OK):
        raise BotCommandError(
            f"bot command {shown!r}: file is not executable ({_interpreter_hint(program)})"
        )
    return argv
