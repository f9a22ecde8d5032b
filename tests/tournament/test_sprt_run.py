"""``arena sprt``'s run: pairs counted in deal order whatever order their games finish in.

A stand-in for the worker pool (`FakeRunner`) plays no game: it takes jobs as a pool would
(lazily, up to its capacity) and finishes them in a scripted order, so the tests are exact.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable, Iterable
from contextlib import asynccontextmanager
from pathlib import Path

import trio

from arena.replay import Status
from arena.tournament.jobs import Job, JobDone, MatchSummary, SeatSummary
from arena.tournament.settings import TournamentSettings
from arena.tournament.sprt import Sprt
from arena.tournament.sprt_run import JobRunner, SprtOutcome, SprtRun, sprt_discarded_text
from arena.tournament.store import EntrantRow, Store

#: A's score (0, 0.5 or 1) in each game of deal ``pair``, game ``rotation`` (0: A in seat 0).
Score = Callable[[int, int], float]


class FakeRunner:
    """Takes up to ``capacity`` jobs, then finishes the newest one first (last in, first out),
    so a later pair often completes before an earlier one."""

    def __init__(self, capacity: int, score: Score) -> None:
        self.capacity = capacity
        self.score = score
        self.started: list[int] = []
        self.finished: list[int] = []

    async def run(
        self,
        jobs: Iterable[Job],
        on_started: Callable[[int], Awaitable[None]],
        on_done: Callable[[JobDone], Awaitable[None]],
    ) -> None:
        source = iter(jobs)
        in_flight: list[Job] = []
        while True:
            while len(in_flight) < self.capacity:
                job = next(source, None)
                if job is None:
                    break
                in_flight.append(job)
                self.started.append(job.table)
                await on_started(job.table)
            if not in_flight:
                return
            job = in_flight.pop()
            self.finished.append(job.table)
            await on_done(self._done(job))

    def _done(self, job: Job) -> JobDone:
        pair, rotation = divmod(job.table, 2)
        a_score = self.score(pair, rotation)
        a_seat = rotation  # rotation 0: A in seat 0; rotation 1: B in seat 0
        scores = [0, 0]
        scores[a_seat] = round(100 * a_score)
        scores[1 - a_seat] = round(100 * (1 - a_score))
        ranking = sorted((0, 1), key=lambda s: -scores[s])
        seats = [
            SeatSummary(s, f"bot{s}", Status.OK, "", scores[s], 1, None, [1.0]) for s in (0, 1)
        ]
        summary = MatchSummary(
            winner=None if scores[0] == scores[1] else ranking[0],
            reason="hands played",
            scores=scores,
            ranking=ranking,
            hand_scores=[scores],
            hands=1,
            moves=10,
            duration_s=0.1,
            seats=seats,
        )
        return JobDone(job.table, job.replay, 0.0, summary)


def run_sprt(
    tmp_path: Path, runner: FakeRunner, *, max_pairs: int = 100, elo1: float = 200.0
) -> tuple[SprtOutcome, list[str], Store]:
    """A whole `SprtRun` (elo0 0, elo1 200) on ``runner``: the outcome and the lines said, and
    the database it recorded the games in."""
    settings = TournamentSettings(game="matador", format="sprt", hands=1, target=None)
    store = Store(tmp_path / "tournament.db")
    rows = [
        EntrantRow(1, "cand", "cand", None, None, None),
        EntrantRow(2, "base", "base", None, None, None),
    ]
    store.create(settings.to_dict(), rows, [])
    lines: list[str] = []

    @asynccontextmanager
    async def factory(concurrency: int, workers: int) -> AsyncIterator[JobRunner]:
        yield runner

    run = SprtRun(
        settings, store, rows[0], rows[1], Sprt(0.0, elo1), out_dir=tmp_path,
        concurrency=runner.capacity, workers=1, max_pairs=max_pairs, say=lines.append,
        runner=factory,
    )  # fmt: skip
    return trio.run(run.run), lines, store


def a_wins_except_deal_zero(pair: int, rotation: int) -> float:
    """A loses both games of deal 0 and wins every other game."""
    return 0.0 if pair == 0 else 1.0


def test_pairs_are_counted_in_deal_order_when_games_finish_out_of_order(tmp_path: Path) -> None:
    """Each line is the test after counting deals 1..n in order, its LLR that of those n pairs
    (a reference test fed the same pairs in deal order agrees line by line)."""
    runner = FakeRunner(6, a_wins_except_deal_zero)
    outcome, lines, _ = run_sprt(tmp_path, runner)
    assert runner.finished[0] // 2 > 0  # a later deal's game finished first
    reference = Sprt(0.0, 200.0)
    expected = []
    for pair in range(len(lines)):
        first, second = a_wins_except_deal_zero(pair, 0), a_wins_except_deal_zero(pair, 1)
        status = reference.add_pair(first, second)
        expected.append(
            f"pair {reference.n:>4}: cand scored {first + second:g}/2  LLR "
            f"{reference.llr:+.3f} over {reference.n} pairs  bounds [{reference.lower:+.3f}, "
            f"{reference.upper:+.3f}]  {status}"
        )
    assert lines == expected
    assert lines[-1].endswith("  H1")
    assert all(not line.endswith(("H0", "H1")) for line in lines[:-1])
    assert (outcome.status, outcome.pairs, outcome.llr) == ("H1", reference.n, reference.llr)


def test_no_game_starts_once_the_test_has_decided(tmp_path: Path) -> None:
    """After the deciding pair is counted no job is taken; what was in flight is played,
    recorded, and reported as not counted."""
    runner = FakeRunner(6, a_wins_except_deal_zero)
    outcome, _lines, store = run_sprt(tmp_path, runner)
    decided_at = len(runner.finished)
    deciding_pair = outcome.pairs - 1
    # The last result taken in before the decision was a game of the deciding pair (or one that
    # completed it); the jobs started are exactly those begun before it.
    assert len(runner.started) == len(runner.finished) == decided_at
    assert max(runner.started) // 2 >= deciding_pair
    assert outcome.games == len(runner.finished) == len(store.matches())
    assert outcome.discarded_games == outcome.games - 2 * outcome.pairs
    assert outcome.discarded_pairs == (max(runner.started) // 2 + 1) - outcome.pairs
    assert outcome.discarded_games > 0
    pairs, games = outcome.discarded_pairs, outcome.discarded_games
    assert sprt_discarded_text(outcome) == (
        f"not counted: {pairs} pair{'s' if pairs != 1 else ''} ({games} "
        f"game{'s' if games != 1 else ''}) still in flight when the test decided, recorded in "
        "the database (the test counts pairs in deal order and stops at the pair that decides)"
    )


def test_the_decision_does_not_depend_on_the_finishing_order(tmp_path: Path) -> None:
    """One game at a time (in order) and six at once (newest first) count the same pairs."""
    one, lines_one, _ = run_sprt(tmp_path / "one", FakeRunner(1, a_wins_except_deal_zero))
    six, lines_six, _ = run_sprt(tmp_path / "six", FakeRunner(6, a_wins_except_deal_zero))
    assert lines_one == lines_six
    assert (one.status, one.pairs, one.llr, one.counts) == (
        six.status,
        six.pairs,
        six.llr,
        six.counts,
    )
    assert one.discarded_games == 0
    assert sprt_discarded_text(one) == ""
