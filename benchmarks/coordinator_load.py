"""The coordinator's capacity: results recorded per second, with instant synthetic matches.

Used by ``cluster_bench.py --coordinator``. One row runs the arena's own
:class:`arena.tournament.runner.TournamentRun` (``run()`` from start to end, as
``arena tournament`` runs it: the SQLite database in a temporary folder on disk with
``synchronous=FULL``, the events file, progress, standings, the reporter), but the matches are
"played" by a stand-in pool that answers every job at once with a prepared result (a 20-hand
two-player match: 620 moves, 250 response times per seat, like a C-bot match): so the figure is
what the coordinator can take in, whatever plays the matches (local workers or Dask).

The stand-in pool delivers results one after the other from one task, as a pool's collector
does (with a checkpoint before each, where a real one reads the result), and ``on_done`` is
awaited for each; results/s is the number of results over the wall
time of ``TournamentRun.run``.
"""

from __future__ import annotations

import math
import os
import random
import resource
import sys
import tempfile
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Iterable
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import trio  # noqa: E402

import arena.tournament.runner as runner_module  # noqa: E402
from arena.games.registry import get_game  # noqa: E402
from arena.replay import Status  # noqa: E402
from arena.tournament.jobs import Job, JobDone, JobEvent, MatchSummary, SeatSummary  # noqa: E402
from arena.tournament.live import LiveReporter, PlainReporter, Reporter  # noqa: E402
from arena.tournament.runner import (  # noqa: E402
    RunOptions,
    TournamentRun,
    initial_tables,
    new_entrant_rows,
)
from arena.tournament.settings import TournamentSettings  # noqa: E402
from arena.tournament.store import Store  # noqa: E402

TARGET_RESULTS_PER_S = 2_000.0
HANDS = 20
MOVES = 620
RESPONSES_PER_SEAT = 250


@dataclass
class CoordinatorRow:
    """One run of the coordinator on synthetic results."""

    label: str
    bots: int
    results: int
    reporter: str
    events: bool
    wall_s: float
    cpu_s: float
    commits: int

    @property
    def results_per_s(self) -> float:
        return self.results / self.wall_s

    @property
    def cpu_ms_per_result(self) -> float:
        return self.cpu_s / self.results * 1e3

    @property
    def results_per_cpu_s(self) -> float:
        """Results per second of the coordinator's own CPU (all its threads): the rate with a
        core of its own, whatever else the machine runs."""
        return self.results / self.cpu_s

    @property
    def results_per_commit(self) -> float:
        return self.results / self.commits if self.commits else float("nan")


def _settings(rounds: int = 1) -> TournamentSettings:
    game = get_game("matador")
    return TournamentSettings(
        game="matador",
        rules=game.rules_dict(game.parse_rules({})),
        players=2,
        format="round-robin",
        rounds=rounds,
        hands=HANDS,
        target=None,
        startup_ms=30_000,
        move_ms=10_000,
        bank_ms=0,
        seed=1,
    )


def synthetic_summary(rng: random.Random, names: list[str]) -> MatchSummary:
    """A plausible 20-hand two-player result (the coordinator does not look inside)."""
    scores = [rng.randrange(0, 300), rng.randrange(0, 300)]
    winner = 0 if scores[0] >= scores[1] else 1
    seats = [
        SeatSummary(
            seat=i,
            name=names[i],
            status=Status.OK,
            detail="",
            score=scores[i],
            rank=1 if i == winner else 2,
            failure=None,
            response_ms=rng.choice(_response_lists(rng)),
        )
        for i in range(2)
    ]
    return MatchSummary(
        winner=winner,
        reason="hands",
        scores=scores,
        ranking=[winner, 1 - winner],
        hand_scores=[[rng.randrange(0, 30), rng.randrange(0, 30)] for _ in range(HANDS)],
        hands=HANDS,
        moves=MOVES,
        duration_s=0.02,
        seats=seats,
    )


_LISTS: list[list[float]] = []


def _response_lists(rng: random.Random) -> list[list[float]]:
    """A few dozen lists of response times, shared by the results (making one per result
    would take longer than the run)."""
    if not _LISTS:
        _LISTS.extend(
            [round(rng.random(), 3) for _ in range(RESPONSES_PER_SEAT)] for _ in range(64)
        )
    return _LISTS


class InstantPool:
    """A pool whose matches finish the moment they start, with prepared results."""

    def __init__(self, results: dict[int, JobDone]) -> None:
        self.results = results
        self.cpu_s = [0.0]

    async def run(
        self,
        jobs: Iterable[Job],
        on_started: Callable[[int], Awaitable[None]],
        on_done: Callable[[JobDone], Awaitable[None]],
        on_event: Callable[[JobEvent], None] | None = None,
    ) -> None:
        for job in jobs:
            await on_started(job.table)
            await trio.lowlevel.checkpoint()  # as a pool does, reading the result's line
            await on_done(self.results[job.table])


def run_coordinator(bots: int, results: int, reporter: str, events: bool) -> CoordinatorRow:
    """One run: ``bots`` entrants, the first ``results`` tables of their round robin (as many
    rounds as that takes)."""
    settings = _settings(rounds=max(1, math.ceil(results / (bots * (bots - 1)))))
    with (
        tempfile.TemporaryDirectory(prefix="coordinator-bench-") as tmp,
        open(os.devnull, "w", encoding="utf-8") as null,
    ):
        out = Path(tmp)
        names = [f"bot{i:03d}" for i in range(bots)]
        entrants = new_entrant_rows(
            names, [f"./bot {n}" for n in names], [None] * bots, [None] * bots, [None] * bots
        )
        tables = initial_tables(settings, [e.id for e in entrants])[:results]
        store = Store(out / "tournament.db")
        store.create(settings.to_dict(), entrants, tables)
        rng = random.Random(1)
        prepared = {
            t.idx: JobDone(
                table=t.idx,
                replay=str(out / "replays" / f"t{t.idx:06d}.json"),
                referee_cpu_s=0.0,
                summary=synthetic_summary(rng, [names[s - 1] for s in t.seats]),
            )
            for t in tables
        }
        shown: Reporter
        if reporter == "live":
            from rich.console import Console

            shown = LiveReporter(Console(file=null, force_terminal=True, width=120))
        else:
            shown = PlainReporter(null)
        options = RunOptions(out_dir=out, events=out / "events.jsonl" if events else None)
        run = TournamentRun(settings, store, options, shown)

        @asynccontextmanager
        async def instant(concurrency: int, workers: int) -> AsyncIterator[Any]:
            yield InstantPool(prepared)

        commits = 0

        def counting(write: Callable[..., None]) -> Callable[..., None]:
            def counted(*args: Any, **kwargs: Any) -> None:
                nonlocal commits
                commits += 1
                write(*args, **kwargs)

            return counted

        # Every transaction that records results (an arena without group commit has only
        # ``record``: one result per transaction).
        for name in ("record", "record_many"):
            if hasattr(store, name):
                setattr(store, name, counting(getattr(store, name)))
        original = runner_module.open_worker_pool
        runner_module.open_worker_pool = instant  # type: ignore[assignment]
        try:
            c0, w0 = _cpu(), time.perf_counter()
            trio.run(run.run)
            w1, c1 = time.perf_counter(), _cpu()
        finally:
            runner_module.open_worker_pool = original
            store.close()
        recorded = len(Store(out / "tournament.db", read_only=True).finished())
        assert recorded == len(tables), (recorded, len(tables))
    return CoordinatorRow(
        label="coordinator",
        bots=bots,
        results=len(tables),
        reporter=reporter,
        events=events,
        wall_s=w1 - w0,
        cpu_s=c1 - c0,
        commits=commits,
    )


def _cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def header() -> str:
    return (
        f"{'row':<12} {'bots':>5} {'results':>8} {'reporter':>8} {'events':>6} "
        f"{'wall s':>7} {'results/s':>10} {'per CPU s':>10} {'per commit':>10} "
        f"{'CPU ms/res':>10}"
    )


def format_row(row: CoordinatorRow) -> str:
    return (
        f"{row.label:<12} {row.bots:>5} {row.results:>8} {row.reporter:>8} "
        f"{'yes' if row.events else 'no':>6} {row.wall_s:>7.2f} {row.results_per_s:>10,.0f} "
        f"{row.results_per_cpu_s:>10,.0f} {row.results_per_commit:>10.1f} "
        f"{row.cpu_ms_per_result:>10.3f}"
    )
