"""``arena sprt``: play two bots on duplicate deals until the SPRT decides.

Bot A (the candidate) and bot B (the baseline) play pairs of games: each deal once with A in
seat 0 and once with B in seat 0, so the luck of the deal cancels; each pair is one pentanomial
sample of :class:`~arena.tournament.sprt.Sprt`. New games are started only while the test is
undecided; the games already running when it decides still finish and are recorded (and
counted, as fishtest does), and every match goes to the tournament database like any other.
"""

from __future__ import annotations

import datetime
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

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
    """How the test ended: the decision, the LLR and its bounds, the pairs and their counts."""

    status: str
    llr: float
    lower: float
    upper: float
    pairs: int
    counts: tuple[int, ...]
    games: int
    stopped_at_max: bool


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
        self.tables: dict[int, TableRow] = {}
        self.halves: dict[int, dict[int, float]] = {}
        self.pairs_started = 0
        self.games = 0
        self.errors: list[str] = []
        # Moves played, those the referee took up late and accepted, the worst lateness (ms).
        self.moves = 0
        self.late_moves = 0
        self.late_max_ms = 0.0

    def _jobs(self) -> Iterator[Job]:
        replays = self.out_dir / "replays"
        replays.mkdir(parents=True, exist_ok=True)
        outputs = run_outputs(self.out_dir, self.db_path)
        folders = (self.a.cwd, self.b.cwd)
        sandbox = job_sandbox(self.settings.sandbox, self.out_dir, folders, outputs)
        while self.sprt.status == "continue" and self.pairs_started < self.max_pairs:
            pair = self.pairs_started
            self.pairs_started += 1
            seed = derive_seed(self.settings.seed, "sprt", pair)
            for rotation, seats in enumerate(((self.a, self.b), (self.b, self.a))):
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
        halves = self.halves.setdefault(table.deal_group, {})
        halves[table.rotation] = score
        if len(halves) == 2:
            status = self.sprt.add_pair(halves[0], halves[1])
            self.say(
                f"pair {self.sprt.n:>4}: {self.a.name} scored {halves[0] + halves[1]:g}/2  "
                f"LLR {self.sprt.llr:+.3f}  bounds [{self.sprt.lower:+.3f}, "
                f"{self.sprt.upper:+.3f}]  {status}"
            )

    async def run(self) -> SprtOutcome:
        """Play until the test decides; the outcome."""
        async with open_worker_pool(self.concurrency, self.workers) as pool:
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
        )
