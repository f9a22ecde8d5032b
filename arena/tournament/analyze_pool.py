"""``arena analyze --db``: every replay of a tournament analysed in worker processes.

The analysis is pure CPU in the engine (the evaluator's samples and playouts), one replay a
job, so it is spread over worker processes (``python -m arena.analysis.worker``), one per core
by default. They are started through the referee's process layer like the tournament's own
workers (:mod:`arena.tournament.pool`): their own process group, stderr captured, stopped on
exit or Ctrl-C; no ``multiprocessing`` (only the referee starts processes). Each worker takes
the next replay as soon as it answers the last, and writes that replay (and its viewer page,
when there is one) itself; the parent only hands out paths and collects the summaries.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Sequence
from contextlib import AsyncExitStack
from dataclasses import dataclass, field
from pathlib import Path

import msgspec
import trio

from arena.analysis.record import SeatAccuracy
from arena.referee.process import BotEOFError, open_bot_process
from arena.tournament.report_matches import find_replay, page_of
from arena.tournament.store import Store

#: The longest answer line a worker may send.
MAX_ANSWER_LINE = 1 << 20
#: Seconds a worker has to stop after SIGTERM before SIGKILL.
WORKER_STOP_GRACE_S = 2.0


@dataclass(frozen=True)
class AnalysisJob:
    """One replay to analyse: where it is, its viewer page (rewritten when it exists), the
    arena names of its seats, and the evaluator and seed."""

    replay: Path
    page: Path | None
    names: list[str]
    bot: str
    seed: int


@dataclass
class AnalysisResult:
    """A worker's answer for one job: each seat's summary, or the error (one line)."""

    replay: Path
    names: list[str]
    seats: list[SeatAccuracy] = field(default_factory=list)
    error: str | None = None


def tournament_replays(store: Store, bot: str, seed: int) -> tuple[list[AnalysisJob], list[str]]:
    """The jobs of every recorded match whose replay is found, and a note per replay not
    found."""
    entrants = {e.id: e.name for e in store.entrants()}
    jobs, missing = [], []
    for row in store.matches():
        replay = find_replay(row.replay, store.path.parent)
        if replay is None:
            missing.append(f"table {row.table.idx}: replay file not found ({row.replay})")
            continue
        page = page_of(replay)
        names = [entrants.get(e, f"#{e}") for e in row.table.seats]
        jobs.append(AnalysisJob(replay, page if page.is_file() else None, names, bot, seed))
    return jobs, missing


async def analyze_tournament(jobs: Sequence[AnalysisJob], workers: int) -> list[AnalysisResult]:
    """Analyse every job on at most ``workers`` processes; the results in job order."""
    results: list[AnalysisResult | None] = [None] * len(jobs)
    if not jobs:
        return []
    pending = iter(range(len(jobs)))
    first = jobs[0]
    argv = [sys.executable, "-m", "arena.analysis.worker", first.bot, str(first.seed)]
    async with AsyncExitStack() as stack:
        processes = [
            await stack.enter_async_context(
                open_bot_process(
                    argv, max_line_bytes=MAX_ANSWER_LINE, kill_grace=WORKER_STOP_GRACE_S
                )
            )
            for _ in range(max(1, min(workers, len(jobs))))
        ]

        async def serve(index: int) -> None:
            process = processes[index]
            for number in pending:
                job = jobs[number]
                line = json.dumps(
                    {"replay": str(job.replay), "page": None if job.page is None else str(job.page)}
                )
                await process.send_line(line.encode())
                try:
                    answer = json.loads(await process.receive_line())
                except BotEOFError:
                    raise RuntimeError(
                        f"analysis worker {index} stopped unexpectedly: "
                        f"{process.exit_status().describe()}\n{process.stderr_tail()}"
                    ) from None
                results[number] = AnalysisResult(
                    replay=job.replay,
                    names=job.names,
                    seats=msgspec.convert(answer["seats"], list[SeatAccuracy]),
                    error=answer["error"],
                )

        async with trio.open_nursery() as nursery:
            for index in range(len(processes)):
                nursery.start_soon(serve, index)
    return [r for r in results if r is not None]


__all__ = ["AnalysisJob", "AnalysisResult", "analyze_tournament", "tournament_replays"]
