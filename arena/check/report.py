"""The two forms of an ``arena check`` report: lines for people, one JSON document for machines."""

from __future__ import annotations

import textwrap
from typing import Any

from arena.check.runner import CheckReport, StepResult
from arena.text import printable

#: Longest ``sent``/``received`` shown in the text form (``--json`` has them whole).
SHOWN_CHARS = 300
#: Lines of stderr shown in the text form.
STDERR_LINES = 12
_WIDTH = 100
_INDENT = " " * 6


def header(command: str, game: str, move_ms: int, startup_ms: int) -> str:
    """The first line of the text report."""
    return (
        f"arena check: {command!r} playing {game} "
        f"(move limit {move_ms} ms, startup limit {startup_ms} ms)"
    )


def _clip(text: str) -> str:
    if len(text) <= SHOWN_CHARS:
        return text
    return f"{text[:SHOWN_CHARS]}… ({len(text)} characters; --json shows it all)"


def step_lines(step: StepResult) -> list[str]:
    """One step as text: its verdict line, and on a failure the evidence."""
    verdict = step.status.upper()
    # The detail, the lines and the stderr quote the bot: escaped, so they cannot drive a terminal.
    text = f"{verdict}  step {step.number} ({step.name}): {printable(step.detail)}"
    lines = textwrap.wrap(text, _WIDTH, subsequent_indent=_INDENT, break_on_hyphens=False)
    if step.status != "fail":
        return lines
    if step.sent is not None:
        lines.append(f"{_INDENT}sent:     {printable(_clip(step.sent))}")
    if step.received is not None:
        lines.append(f"{_INDENT}received: {printable(_clip(step.received))}")
    elif step.sent is not None:
        lines.append(f"{_INDENT}received: nothing")
    if step.stderr:
        tail = [printable(line) for line in step.stderr.splitlines()[-STDERR_LINES:]]
        lines.append(f"{_INDENT}stderr:   {tail[0]}")
        lines.extend(f"{_INDENT}          {line}" for line in tail[1:])
    return lines


def summary(report: CheckReport) -> str:
    """The last line: the verdict, and which step to fix first."""
    total = len(report.steps)
    if report.passed:
        return f"PASSED: all {total} steps passed."
    failed = [s for s in report.steps if s.status == "fail"]
    skipped = [s for s in report.steps if s.status == "skip"]
    numbers = ", ".join(str(s.number) for s in failed)
    text = f"FAILED: {len(failed)} of {total} steps failed (step{'s' if len(failed) > 1 else ''} "
    text += f"{numbers})"
    if skipped:
        text += f", {len(skipped)} not run"
    if failed:
        text += f"; start with step {failed[0].number} ({failed[0].name})."
    return text


def report_text(report: CheckReport) -> str:
    """The whole report as text (what ``arena check`` prints, step by step)."""
    lines = [header(report.command, report.game, report.move_ms, report.startup_ms), ""]
    for step in report.steps:
        lines.extend(step_lines(step))
    lines += ["", summary(report)]
    return "\n".join(lines)


def report_document(report: CheckReport) -> dict[str, Any]:
    """The report as one JSON-ready document (``arena check --json``)."""
    times = report.times
    return {
        "bot": report.command,
        "game": report.game,
        "passed": report.passed,
        "limits": {"move_ms": report.move_ms, "startup_ms": report.startup_ms},
        "steps": [
            {
                "number": step.number,
                "key": step.key,
                "name": step.name,
                "status": step.status,
                "detail": step.detail,
                "sent": step.sent,
                "received": step.received,
                "stderr": step.stderr,
            }
            for step in report.steps
        ],
        "response_times": {
            "requests": times.count,
            "median_ms": times.median_ms,
            "p95_ms": times.p95_ms,
            "max_ms": times.max_ms,
        },
    }
