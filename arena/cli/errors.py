"""How the ``arena`` command reports what went wrong: always one line on stderr.

A bad flag is one line and exit code 2 (:class:`OneLineParser`; the usage is in ``--help``);
an unexpected exception, a bug of the arena, is one line asking for a report
(:func:`internal_error`), with the traceback only when ``ARENA_DEBUG`` asks for it.
"""

from __future__ import annotations

import argparse
import os
import traceback
from collections.abc import Sequence
from typing import NoReturn

from arena.errors import ArenaError

#: Set (to anything but empty or 0) to print the traceback of an internal error.
DEBUG_VARIABLE = "ARENA_DEBUG"

#: The exit code of a usage error.
EXIT_USAGE = 2
#: The exit codes of a command that did its job, and of one that failed (or a bug).
EXIT_OK = 0
EXIT_FAILED = 1


#: Flags a user may give to the wrong command, with what to say instead (command, flag).
WRONG_COMMAND_HINTS = {
    ("play", "--players"): "the number of players is the number of BOTs given (2 to 4); "
    "--players is a flag of arena tournament",
}


class OneLineParser(argparse.ArgumentParser):
    """An argument parser whose errors are one line (the usage is in ``--help``).

    Arguments no command knows are reported by the command they were given to (``arena play:
    error: unrecognized arguments: ...``), not by the top-level parser.
    """

    def error(self, message: str) -> NoReturn:
        self.exit(EXIT_USAGE, f"{self.prog}: error: {message} (see {self.prog} --help)\n")

    def parse_args(  # type: ignore[override]
        self, args: Sequence[str] | None = None, namespace: argparse.Namespace | None = None
    ) -> argparse.Namespace:
        parsed, extra = self.parse_known_args(args, namespace)
        if extra:
            command = str(getattr(parsed, "command", "") or "")
            owner = self.commands.get(command, self)
            keys = [(command, flag.split("=", 1)[0]) for flag in extra]
            hints = [WRONG_COMMAND_HINTS[k] for k in keys if k in WRONG_COMMAND_HINTS]
            message = f"unrecognized arguments: {' '.join(extra)}"
            owner.error(f"{message}: {hints[0]}" if hints else message)
        return parsed

    @property
    def commands(self) -> dict[str, argparse.ArgumentParser]:
        """The sub-command parsers by name (empty for a parser without sub-commands)."""
        for action in self._actions:
            if isinstance(action, argparse._SubParsersAction):
                return dict(action.choices)
        return {}


def internal_error(where: str, error: BaseException) -> str:
    """The one line that reports a bug of the arena; with ``ARENA_DEBUG`` set the traceback is
    printed (to stderr) first."""
    if os.environ.get(DEBUG_VARIABLE, "") not in ("", "0"):
        traceback.print_exception(error)
    text = " ".join(f"{type(error).__name__}: {error}".split())
    if len(text) > 300:
        text = text[:297] + "..."
    return (
        f"{where}: internal error: {text} (a bug in the arena: please report it, with the "
        f"traceback that {DEBUG_VARIABLE}=1 prints)"
    )


class UsageError(ArenaError):
    """A mistake in how the command was called; the message says which."""
