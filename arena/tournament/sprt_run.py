"""``arena sprt``: play two bots on duplicate deals until the SPRT decides.

Bot A (the candidate) and bot B (the baseline) play pairs of games: each deal once with A in
seat 0 and once with B in seat 0, so the luck of the deal cancels; each pair is one pentanomial
sample of :class:`~arena.tournament.sprt.Sprt`.

Pairs are counted in deal order, whatever order their games finish in: pair ``k`` is counted
once its two games and every earlier pair's are in, so the test's sequence, its decision and
the pair it stops at are a function of the seed and the bots, not of the machine's timing.
Once the LLR crosses a bound no new game starts; the games still running then finish and are
recorded in the database like any other match, but they are not counted (nor are pairs that
finished ahead of an earlier one still running): the verdict is the test's at the pair that
crossed the bound. `SprtOutcome.discarded_pairs` says how many were left out.
"""

from __future__ import annotations

import datetime
from collections.abc import Awaitable, Callable, Iterable, Iterator
from contextlib import AbstractAsyncContextManager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from arena.games.api import derive_seed
from arena.tournament.jobs import Job, JobDone
from arena.tournament.pool import open_worker_pool
from arena.tournament.ratings_view import seat_ranks
from arena.tournament.runner import make_job
from arena.tournament.settings import TournamentSettings, job_sandbox, run_outputs
from arena.tournament.sprt import Sprt
from arena.tournament.store import AsyncStore, EntrantRow, MatchRow, Store, TableRow


@dataclass(frozen=True)
class SprtOutcome:
    """How the test ended: the decision, the LLR and its bounds, the pairs counted and their
    frequencies, the games played (all recorded), and the pairs played but not counted."""

    status: str
    llr: float
    lower: float
    upper: float
    pairs: int
    counts: tuple[int, ...]
    games: int
    stopped_at_max: bool
    discarded_pairs: int = 0
    discarded_games: int = 0


class JobRunner(Protocol):
    """What plays the games: `arena.tournament.pool.WorkerPool`, or a test's stand-in."""

    async def run(
        self,
        jobs: Iterable[Job],
        on_started: Callable[[int], Awaitable[None]],
        on_done: Callable[[JobDone], Awaitable[None]],
    ) -> None: ...


#: Opens a `JobRunner` for ``(concurrency, workers)``.
RunnerFactory = Callable[[int, int], AbstractAsyncContextManager[JobRunner]]


def _worker_pool(concurrency: int, workers: int) -> AbstractAsyncContextManager[JobRunner]:
    return open_worker_pool(concurrency, workers)


class SprtRun:
    """Plays A against B on duplicate deals until ``sprt`` decides (or ``max_pairs``)."""

    def __init__(
        self,
        settings: TournamentSettings,
        store: Store,
        candidate: EntrantRow,
        baseline: EntrantRow,
        sprt: Sprt,
        *,
        out_dir: Path,
        concurrency: int,
        workers: int,
        max_pairs: int,
        say: Callable[[str], None] = print,
        runner: RunnerFactory = _worker_pool,
    ) -> None:
        self.settings = settings
        self.store = AsyncStore(store)
        self.db_path = store.path
        self.a = candidate
        self.b = baseline
        self.sprt = sprt
        self.out_dir = out_dir
        self.concurrency = concurrency
        self.workers = workers
        self.max_pairs = max_pairs
        self.say = say
        self.runner = runner
        self.tables: dict[int, TableRow] = {}
        self.halves: dict[int, dict[int, float]] = {}
        self.pairs_started = 0
        self.next_pair = 0  # the deal whose pair the test counts next
        self.games = 0
        self.errors: list[str] = []
        # Moves played, those the referee took up late and accepted, the worst lateness (ms).
        self.moves = 0
        self.late_moves = 0
        self.late_max_ms = 0.0

    def job_sandbox(self) -> dict[str, Any] | None:
        """The sandbox of every game: the settings', hiding what the run writes and the other
        bot's folder."""
        outputs = run_outputs(self.out_dir, self.db_path)
        folders = (self.a.cwd, self.b.cwd)
        return job_sandbox(self.settings.sandbox, self.out_dir, folders, outputs)

    def _jobs(self) -> Iterator[Job]:
        replays = self.out_dir / "replays"
        replays.mkdir(parents=True, exist_ok=True)
        sandbox = self.job_sandbox()
        while self._open() and self.pairs_started < self.max_pairs:
            pair = self.pairs_started
            self.pairs_started += 1
            seed = derive_seed(self.settings.seed, "sprt", pair)
            for rotation, seats in enumerate(((self.a, self.b), (self.b, self.a))):
                if rotation and not self._open():  # decided: not even a pair's second game
                    return
                index = 2 * pair + rotation
                table = self.tables[index] = TableRow(
                    index, pair + 1, seed, pair, rotation, (seats[0].id, seats[1].id)
                )
                replay = replays / f"pair{pair:05d}-{rotation}.json"
                yield make_job(self.settings, table, list(seats), replay, sandbox)

    async def _started(self, table: int) -> None:
        return None

    async def _done(self, result: JobDone) -> None:
        table = self.tables[result.table]
        if result.summary is None:
            self.errors.append(result.error or "unknown error")
            return
        finished_at = datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds")
        await self.store.record(table, result.summary, result.replay, finished_at, new_table=True)
        self.games += 1
        self.moves += result.summary.moves
        self.late_moves += result.summary.late_moves
        self.late_max_ms = max(self.late_max_ms, result.summary.late_max_ms)
        ranks = seat_ranks(MatchRow(table, result.summary, result.replay))
        seat_a = table.seats.index(self.a.id)
        mine, theirs = ranks[seat_a], ranks[1 - seat_a]
        score = 1.0 if mine < theirs else 0.5 if mine == theirs else 0.0
        self.halves.setdefault(table.deal_group, {})[table.rotation] = score
        self._count_ready_pairs()

    def _open(self) -> bool:
        """Whether new games may start: the test is undecided and no game failed to run."""
        return self.sprt.status == "continue" and not self.errors

    def _count_ready_pairs(self) -> None:
        """Count, in deal order, every complete pair whose earlier pairs are all counted, until
        the test decides; one line per pair counted."""
        while self.sprt.status == "continue":
            halves = self.halves.get(self.next_pair, {})
            if len(halves) < 2:
                return
            self.next_pair += 1
            status = self.sprt.add_pair(halves[0], halves[1])
            self.say(
                f"pair {self.sprt.n:>4}: {self.a.name} scored {halves[0] + halves[1]:g}/2  "
                f"LLR {self.sprt.llr:+.3f} over {self.sprt.n} pairs  bounds "
                f"[{self.sprt.lower:+.3f}, {self.sprt.upper:+.3f}]  {status}"
            )

    async def run(self) -> SprtOutcome:
        """Play until the test decides; the outcome."""
        async with self.runner(self.concurrency, self.workers) as pool:
            await pool.run(self._jobs(), self._started, self._done)
        if self.errors:
            raise RuntimeError(
                f"{len(self.errors)} game(s) could not be played (internal error):\n"
                + self.errors[0]
            )
        sprt = self.sprt
        return SprtOutcome(
            status=sprt.status,
            llr=sprt.llr,
            lower=sprt.lower,
            upper=sprt.upper,
            pairs=sprt.n,
            counts=sprt.counts,
            games=self.games,
            stopped_at_max=sprt.status == "continue",
            discarded_pairs=self.pairs_started - sprt.n,
            discarded_games=self.games - 2 * sprt.n,
        )


def sprt_discarded_text(outcome: SprtOutcome) -> str:
    """What the test left out, or ``""``: ``not counted: 3 pairs (5 games) still in flight
    when the test decided ...``."""
    pairs, games = outcome.discarded_pairs, outcome.discarded_games
    if not games:
        return ""
    return (
        f"not counted: {pairs} pair{'s' if pairs != 1 else ''} ({games} "
        f"game{'s' if games != 1 else ''}) still in flight when the test decided, recorded in "
        "the database (the test counts pairs in deal order and stops at the pair that decides)"
    )
