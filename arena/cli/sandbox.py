"""What the command line adds to the sandbox: its flags, their configuration and its plan.

Also the warning of ``--sandbox none``, the printing of warnings about one bot, and what a match
writes (hidden from its bots). docs/security.md ("How the arena uses it") says the rules.
"""

from __future__ import annotations

import argparse
import logging
import os
import sys
from collections.abc import Sequence
from pathlib import Path

from arena.cli.arg_types import _positive
from arena.cli.errors import UsageError
from arena.failure_report import bundle_path
from arena.referee.sandbox import SandboxConfig, SandboxError, SandboxPlan, plan_sandbox

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


SANDBOX_CHOICES = ("auto", "bwrap", "unshare", "rlimits", "none")
_LIMIT_FLAGS = {
    "memory_mb": "--memory-mb",
    "cpu_seconds": "--cpu-seconds",
    "max_processes": "--max-processes",
    "file_size_mb": "--file-size-mb",
}


def _add_sandbox_flags(
    parser: argparse.ArgumentParser, default: str, *, stdout_cap: bool = True
) -> None:
    """``--sandbox`` and the limits of the sandbox (docs/security.md); ``--max-stdout-mb``
    too, unless ``stdout_cap`` is false."""
    box = parser.add_argument_group(
        "containment (docs/security.md)",
        f"--sandbox defaults to {default} for this command; the limits apply only in a sandbox"
        + (" (except --max-stdout-mb)" if stdout_cap else ""),
    )
    box.add_argument(
        "--sandbox",
        choices=SANDBOX_CHOICES,
        default=default,
        help=f"how bots are contained: auto = the strongest that works here (default {default})",
    )
    box.add_argument("--memory-mb", type=_positive, help="memory per bot's process tree (1024)")
    box.add_argument("--cpu-seconds", type=_positive, help="CPU seconds per bot per match (300)")
    box.add_argument("--max-processes", type=_positive, help="processes per bot at once (128)")
    box.add_argument("--file-size-mb", type=_positive, help="largest file a bot may write (64)")
    if stdout_cap:
        box.add_argument(
            "--max-stdout-mb",
            type=_positive,
            help="most a bot may write to stdout in a match: output_limit (default: no cap)",
        )
    box.add_argument("--allow-network", action="store_true", help="let bots use the host's network")


def _sandbox_config(args: argparse.Namespace) -> SandboxConfig | None:
    """The sandbox configuration the flags ask for, or ``None`` for ``--sandbox none``."""
    given = {field: getattr(args, field) for field in _LIMIT_FLAGS}
    given = {field: value for field, value in given.items() if value is not None}
    if args.sandbox == "none":
        named = [_LIMIT_FLAGS[f] for f in given] + (["--allow-network"] * args.allow_network)
        if named:
            raise UsageError(f"{', '.join(named)}: only in a sandbox (--sandbox auto, say)")
        return None
    from arena.tournament.settings import PROTOCOL_DIR

    return SandboxConfig(
        **given,
        allow_network=args.allow_network,
        mechanism=args.sandbox,
        read_only_paths=(PROTOCOL_DIR,),
    )


def _max_stdout_bytes(args: argparse.Namespace) -> int | None:
    return None if args.max_stdout_mb is None else args.max_stdout_mb << 20


def _sandbox_plan(
    config: SandboxConfig | None, prog: str, hidden: Sequence[str] = ()
) -> SandboxPlan | None:
    """Plans the sandbox (a forced mechanism missing here is a usage error) and says on stderr
    which mechanism contains the bots and what falls back; ``hidden``: what the run writes,
    which bots must not see (`arena.tournament.settings.run_outputs`)."""
    if config is None:
        print(f"{prog}: warning: {UNCONTAINED_WARNING}", file=sys.stderr)
        return None
    # The warnings are printed here, once, and not by the logger's last-resort handler.
    logging.getLogger("arena.referee.sandbox").addHandler(logging.NullHandler())
    print_bot_warnings(prog)
    try:
        plan = plan_sandbox(config)
    except SandboxError as error:
        raise UsageError(f"--sandbox {config.mechanism}: {error}") from None
    print(f"{prog}: {plan.describe().splitlines()[0]}", file=sys.stderr)
    for warning in plan.warnings:
        print(f"{prog}: sandbox warning: {warning}", file=sys.stderr)
    return plan.with_hidden(hidden)
