"""Text for a terminal: whatever a bot wrote, shown so that it cannot drive the terminal, and
command hints a person can copy into a shell.

Bots choose their ``ready`` name, their debug notes, their stderr, the lines they send and the
fields of their ``bot.toml``; every terminal output (``arena play``, ``view``, ``tournament``,
``standings``, ``sprt``, ``check``, the classroom explanations) passes them through `printable`
(or `printable_block` for multi-line text such as a stderr tail) before they reach the screen.
"""

from __future__ import annotations

import os
import shlex
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from arena.replay import SeatRecord


def printable(text: str) -> str:
    """``text`` with every control or unprintable character escaped (bots write names and
    notes; none of it may drive a terminal): ``"a\\x1b[31m"`` becomes ``a\\x1b[31m`` written
    out, a newline ``\\n``, a right-to-left override ``\\u202e``."""
    if text.isprintable():
        return text
    return "".join(ch if ch.isprintable() else ch.encode("unicode_escape").decode() for ch in text)


def printable_block(text: str) -> str:
    """Multi-line text (a stderr tail, a build's output) with every control character escaped
    but newlines and tabs."""
    return "".join(ch if ch in "\n\t" else printable(ch) for ch in text)


def shell_line(*words: str | os.PathLike[str]) -> str:
    """A command a person can paste into a POSIX shell: each word quoted where needed
    (``arena standings --db 'out dir/tournament.db'``)."""
    return " ".join(shlex.quote(os.fspath(word)) for word in words)


def bot_label(arena_name: str | None, ready_name: str | None) -> str:
    """A bot as every output names it, escaped: the arena's name (its ``bot.toml`` name, or the
    file its command runs), then the name it said in ``ready`` where that differs:
    ``greedy (ready: greedy-py)``. Either alone when the other is unknown or the same."""
    if arena_name is None or ready_name is None or ready_name == arena_name:
        return printable(arena_name or ready_name or "?")
    return f"{printable(arena_name)} (ready: {printable(ready_name)})"


def seat_name(seat: SeatRecord) -> str:
    """`bot_label` of a replay's seat (a bot that failed at start-up said no name worth
    showing: its ``name`` is the referee's ``seatN``)."""
    failed_at_start = seat.failure is not None and seat.failure.phase == "startup"
    ready = None if failed_at_start and seat.arena_name else seat.name
    return bot_label(seat.arena_name, ready)
