"""``arena check BOT``: a compliance checker that runs one bot through numbered, named steps.

:mod:`arena.check.positions` holds the scripted positions (real deals and moves, started with
the engines), :mod:`arena.check.runner` runs the steps, :mod:`arena.check.session` talks to one
bot process (every answer judged by the referee's judge, :mod:`arena.judge`),
:mod:`arena.check.advice` words each failure for the student, and :mod:`arena.check.report`
prints the result. docs/checking-a-bot.md explains every step.
"""

from __future__ import annotations

from arena.check.report import header, report_document, report_text, step_lines, summary
from arena.check.runner import (
    BotLink,
    CheckReport,
    ExitInfo,
    Launcher,
    PlannedStep,
    ResponseTimes,
    StepResult,
    check_bot,
    plan,
)

__all__ = [
    "BotLink",
    "CheckReport",
    "ExitInfo",
    "Launcher",
    "PlannedStep",
    "ResponseTimes",
    "StepResult",
    "check_bot",
    "header",
    "plan",
    "report_document",
    "report_text",
    "step_lines",
    "summary",
]
