"""What the command line adds to the sandbox: the warning of ``--sandbox none``, the printing
of warnings about one bot, and what a match writes (hidden from its bots). `arena.cli` wires
these in; docs/security.md ("How the arena uses it") says the rules."""

from __future__ import annotations

import logging
import os
import sys
from pathlib import Path

from arena.failure_report import bundle_path

UNCONTAINED_WARNING = (
    "--sandbox none: bots run uncontained, as your user: they can read other processes'"
    " command lines (the referee's holds the seed, which decides every deal), signal your"
    " processes and read every file you can"
)


class _BotWarnings(logging.Handler):
    """Prints the sandbox's warnings about one bot (each comes once) on the current stderr."""

    def __init__(self, prog: str) -> None:
        super().__init__(logging.WARNING)
        self.prog = prog

    def emit(self, record: logging.LogRecord) -> None:
        print(f"{self.prog}: sandbox warning: {record.getMessage()}", file=sys.stderr)


def print_bot_warnings(prog: str) -> None:
    """From now on, the sandbox's warnings about one bot (a path its user cannot read) are
    printed as ``PROG: sandbox warning: ...``."""
    bots = logging.getLogger("arena.referee.sandbox.bots")
    for handler in [h for h in bots.handlers if isinstance(h, _BotWarnings)]:
        bots.removeHandler(handler)
    bots.addHandler(_BotWarnings(prog))


def match_outputs(replay: Path) -> list[str]:
    """What a match writes, hidden from its bots: the replay and its failure bundle."""
    return [os.path.abspath(p) for p in (replay, bundle_path(replay))]
