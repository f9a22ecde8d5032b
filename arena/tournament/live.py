"""What a person sees while a tournament runs: a live view on a terminal, plain lines elsewhere.

The live view (rich) shows a progress bar with the ETA, matches per second, the top of the
standings and the failures so far; redirected to a file or a pipe, the same run prints one
plain line per finished match instead.
"""

from __future__ import annotations

import sys
import time
from collections import Counter
from dataclasses import dataclass, field
from typing import Protocol, TextIO

from rich.console import Console, Group
from rich.live import Live
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)
from rich.table import Table
from rich.text import Text

from arena.text import printable
from arena.tournament.jobs import SeatSummary
from arena.tournament.standings import BotStanding, Standings
from arena.tournament.store import MatchRow

TOP_ROWS = 8


@dataclass
class RunProgress:
    """Counts of the run so far (this run only; ``done`` includes matches from before a
    resume)."""

    total: int
    done: int
    started_at: float = field(default_factory=time.monotonic)
    played: int = 0
    moves: int = 0
    failures: Counter[str] = field(default_factory=Counter)
    referee_cpu_s: float = 0.0
    #: Moves the referee took up late and accepted, and the worst lateness (ms).
    late_moves: int = 0
    late_max_ms: float = 0.0

    @property
    def matches_per_s(self) -> float:
        """Matches finished per second in this run."""
        elapsed = time.monotonic() - self.started_at
        return self.played / elapsed if elapsed > 0 else 0.0

    @property
    def cpu_us_per_move(self) -> float | None:
        """The arena's own CPU (referee workers) per move, in microseconds."""
        return self.referee_cpu_s / self.moves * 1e6 if self.moves else None


class Reporter(Protocol):
    """Receives the events of a run."""

    def begin(self, progress: RunProgress) -> None: ...

    def finished(self, row: MatchRow, progress: RunProgress, standings: Standings) -> None: ...

    def end(self) -> None: ...


def standings_table(standings: Standings, limit: int | None = None, title: str = "") -> Table:
    """The standings as a rich table (the first ``limit`` lines)."""
    table = Table(title=title or None, title_justify="left")
    for name, justify in (
        ("#", "right"),
        ("bot", "left"),
        ("points", "right"),
        ("W-D-L", "right"),
        ("matches", "right"),
        ("avg/hand", "right"),
        ("failures", "left"),
        ("median ms", "right"),
        ("p95 ms", "right"),
    ):
        table.add_column(name, justify=justify)  # type: ignore[arg-type]
    for place, bot in enumerate(standings.bots[:limit], start=1):
        table.add_row(
            str(place),
            name_cell(bot.name),
            f"{bot.points:g}",
            f"{bot.wins}-{bot.draws}-{bot.losses}",
            str(bot.matches),
            f"{bot.avg_hand_score:.1f}",
            failures_cell(bot),
            _ms(bot.median_ms),
            _ms(bot.p95_ms),
        )
    return table


def ready_names_line(standings: Standings) -> str | None:
    """``names said in ready: player (ready: player-ok), ...``: the bots whose ``ready`` name
    is not the arena's, under the standings table (in it, long labels would wrap the columns);
    ``None`` when every bot says its own name."""
    differ = [bot.label for bot in standings.bots if bot.ready_name not in (None, bot.name)]
    return f"names said in ready: {', '.join(differ)}" if differ else None


def name_cell(name: str) -> Text:
    """A bot's name for a rich table: escaped (`printable`) and never read as rich markup (a
    name a bot chose may hold ``[bold]`` or an escape sequence)."""
    return Text(printable(name))  # idempotent: an escaped label stays as it is


def failures_cell(bot: BotStanding) -> str:
    """A bot's failures in a few words: ``illegal_move 1 strikes=2 restarts=1``; strikes and
    restarts (failure policy ``lenient``) only when it had some, ``-`` when nothing failed."""
    parts = [", ".join(f"{k} {v}" for k, v in sorted(bot.failures.items()))]
    if bot.strikes:
        parts.append(f"strikes={bot.strikes}")
    if bot.restarts:
        parts.append(f"restarts={bot.restarts}")
    return " ".join(p for p in parts if p) or "-"


def _ms(value: float | None) -> str:
    return "-" if value is None else f"{value:.1f}"


class LiveReporter:
    """The live terminal view."""

    def __init__(self, console: Console | None = None) -> None:
        self.console = console or Console()
        self.bar = Progress(
            TextColumn("matches"),
            BarColumn(),
            MofNCompleteColumn(),
            TextColumn("{task.fields[rate]}"),
            TimeElapsedColumn(),
            TextColumn("ETA"),
            TimeRemainingColumn(),
            console=self.console,
        )
        self.task = self.bar.add_task("matches", total=1, rate="")
        self.live: Live | None = None
        self.standings: Standings | None = None
        self.progress: RunProgress | None = None
        self._failures_shown = -1

    def _view(self) -> Group:
        parts: list[object] = [self.bar]
        if self.progress is not None:
            failures = sum(self.progress.failures.values())
            kinds = ", ".join(f"{k} {v}" for k, v in sorted(self.progress.failures.items()))
            parts.append(f"failures: {failures}" + (f" ({kinds})" if kinds else ""))
        if self.standings is not None and self.standings.bots:
            parts.append(standings_table(self.standings, TOP_ROWS, "top of the standings"))
        return Group(*parts)  # type: ignore[arg-type]

    def begin(self, progress: RunProgress) -> None:
        self.progress = progress
        self.bar.update(self.task, total=progress.total, completed=progress.done)
        self.live = Live(self._view(), console=self.console, refresh_per_second=4)
        self.live.start()

    def finished(self, row: MatchRow, progress: RunProgress, standings: Standings) -> None:
        self.progress = progress
        self.bar.update(self.task, completed=progress.done, rate=f"{progress.matches_per_s:.1f}/s")
        # The bar redraws itself; the rest of the view (the standings' percentiles sort every
        # response time) is rebuilt only when the standings or the failures changed.
        failures = sum(progress.failures.values())
        if self.live is not None and (
            standings is not self.standings or failures != self._failures_shown
        ):
            self.standings = standings
            self._failures_shown = failures
            self.live.update(self._view())
        self.standings = standings

    def end(self) -> None:
        if self.live is not None:
            self.live.stop()
            self.live = None


class PlainReporter:
    """One line per finished match, for logs and pipes."""

    def __init__(self, out: TextIO | None = None) -> None:
        self.out = out or sys.stdout
        self._named: Standings | None = None
        self._names: dict[int, str] = {}

    def begin(self, progress: RunProgress) -> None:
        print(f"{progress.done} of {progress.total} matches already played", file=self.out)

    def finished(self, row: MatchRow, progress: RunProgress, standings: Standings) -> None:
        summary = row.summary
        if standings is not self._named:  # a new snapshot: its names once, not per match
            self._named = standings
            self._names = {b.entrant: b.name for b in standings.bots}
        names = self._names
        order = sorted(summary.seats, key=lambda s: (s.rank, s.seat))
        who = ", ".join(
            f"{printable(names.get(row.table.seats[s.seat], s.name))} {s.score}" + _seat_note(s)
            for s in order
        )
        print(
            f"[{progress.done}/{progress.total}] table {row.table.idx}: {who}",
            file=self.out,
            flush=True,
        )

    def end(self) -> None:
        pass


def _seat_note(seat: SeatSummary) -> str:
    """`` [illegal_move, 3 strikes]``: how a seat failed, and its strikes and restarts."""
    notes = [] if seat.status.value == "ok" else [seat.status.value]
    if seat.strikes:
        notes.append(f"{seat.strikes} strike{'s' if seat.strikes != 1 else ''}")
    if seat.restarts:
        notes.append(f"{seat.restarts} restart{'s' if seat.restarts != 1 else ''}")
    return f" [{', '.join(notes)}]" if notes else ""
