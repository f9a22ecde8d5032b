"""`arena check`: one bot through the numbered steps of the checker."""

from __future__ import annotations

import argparse
import functools
import json

from arena.cli.errors import EXIT_FAILED, EXIT_OK
from arena.cli.inputs import _check_bot_command
from arena.cli.sandbox import _sandbox_config, _sandbox_plan
from arena.stop_signals import run as _run_stoppable


def _check(args: argparse.Namespace) -> int:
    from arena.check import (
        BotLink,
        Launcher,
        StepResult,
        check_bot,
        header,
        report_document,
        step_lines,
        summary,
    )
    from arena.referee.process import BotProcess, open_bot_process

    _check_bot_command(args.bot)
    plan = _sandbox_plan(_sandbox_config(args), "arena check")

    def close_input(link: BotLink) -> None:
        # Closes stdin alone (aclose() would also signal the group); aclose() finishes later.
        assert isinstance(link, BotProcess)
        link.close_input()

    launcher = Launcher(
        open=open_bot_process
        if plan is None
        else functools.partial(open_bot_process, sandbox=plan),
        close_input=close_input,
    )

    def show(step: StepResult) -> None:
        print("\n".join(step_lines(step)), flush=True)

    if not args.json:
        print(header(args.bot, args.game, args.move_ms, args.startup_ms), flush=True)
        print(flush=True)
    report = _run_stoppable(
        lambda: check_bot(
            args.bot,
            args.game,
            launcher,
            move_ms=args.move_ms,
            startup_ms=args.startup_ms,
            on_step=None if args.json else show,
        )
    )
    if args.json:
        print(json.dumps(report_document(report), indent=2))
    else:
        print()
        print(summary(report))
    return EXIT_OK if report.passed else EXIT_FAILED
