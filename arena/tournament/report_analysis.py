"""Each bot's accuracy over the analysed replays of a tournament (``arena analyze --db``).

The report (:mod:`arena.tournament.html_report`) shows it as a column of the standings when any
replay has an analysis section. Only that section's seat summaries are decoded (msgspec skips
the rest of the file), and each bot's summaries over every seat it played are pooled, weighted
by decisions (:func:`arena.analysis.summary.pooled_accuracy`). A replay that cannot be read or
has no analysis adds nothing.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

import msgspec

from arena.analysis.record import SeatAccuracy
from arena.analysis.summary import pooled_accuracy
from arena.replay import ReplayError, read_replay_bytes
from arena.tournament.report_matches import MatchEntry


class _Seats(msgspec.Struct):
    seats: list[SeatAccuracy] = []


class _Analysed(msgspec.Struct):
    analysis: _Seats | None = None


def replay_accuracy(path: Path) -> list[SeatAccuracy] | None:
    """The seat summaries of the replay at ``path``'s analysis, or ``None`` (none, unreadable)."""
    try:
        data = read_replay_bytes(path)
        if b'"analysis":' not in data:  # most replays: no JSON to parse at all
            return None
        found = msgspec.json.decode(data, type=_Analysed)
    except (ReplayError, msgspec.DecodeError):
        return None
    return None if found.analysis is None else found.analysis.seats


def bot_accuracy(entries: Iterable[MatchEntry]) -> dict[int, SeatAccuracy]:
    """Each entrant's pooled accuracy over the analysed replays of ``entries``."""
    per_bot: dict[int, list[SeatAccuracy]] = {}
    for entry in entries:
        if entry.replay is None:
            continue
        seats = replay_accuracy(entry.replay)
        for summary in seats or []:
            if 0 <= summary.seat < len(entry.row.table.seats):
                per_bot.setdefault(entry.row.table.seats[summary.seat], []).append(summary)
    pooled = {entrant: pooled_accuracy(items) for entrant, items in per_bot.items()}
    return {entrant: p for entrant, p in pooled.items() if p is not None}
