"""Tournament throughput: matches/s and moves/s of whole tournaments, 1 or more worker processes.

Every row runs a real tournament in this process through the arena's own code:
:func:`arena.tournament.session.open_new` (bot discovery, handshake, a fresh SQLite database in a
temporary folder), then :class:`arena.tournament.runner.TournamentRun` with a
:class:`~arena.tournament.live.PlainReporter` writing to ``os.devnull``, under ``trio.run``,
exactly as ``arena tournament`` runs it (worker processes from
:mod:`arena.tournament.pool`, replays written, every result recorded in the database, standings
recomputed after each match). Round robin, two players per table (both seatings of every pair),
fixed seed, generous time limits (30 s start-up, 10 s per move): the benchmark measures the
arena, not the bots.

The rows:

- ``C instant x4``: four entrants that are all ``benchmarks/c_bot/instant_bot.c`` (built with
  gcc into ``benchmarks/build/`` by ``referee_bench.build_c_bot``; each command carries a dummy
  argument ``seat-N`` so the commands differ), which answer every request at once with the
  first legal move: nearly all the CPU is the arena's. Measured with 1 and with 2 worker
  processes at concurrency 2, 4 and 8; the best concurrency of each worker count gives the
  ratio the target is about.
- ``samples``: the sample bots (``random_bot.py`` and ``greedy.py`` under this interpreter,
  ``greedy.js`` under node if node is installed) at concurrency 1, 2 and 4 with
  ``workers = min(concurrency, CPUs)``.

Columns:

- ``matches``, ``moves``: the tournament's matches and the sum of their ``summary.moves``
  (every ``Action`` of every replay, draws and passes included);
- ``wall s``: ``TournamentRun.run`` from start to end: worker start-up, every match, the
  database writes, worker shut-down (the bots' handshake in ``open_new`` is not in it);
- ``matches/s``, ``moves/s``: matches and moves over that wall time;
- ``steady``: moves/s between the first match's start on a worker and the last result, i.e.
  without the workers' start-up (interpreter and imports) and shut-down;
- ``ref µs/mv``: the referee's CPU per move as the arena itself reports it:
  ``RunProgress.referee_cpu_s`` after the run (the sum over the workers of the
  ``JobDone.referee_cpu_s`` of their last match), divided by the moves. What it includes is the
  worker's choice (at first the worker's whole process CPU; later its CPU since start-up less
  the files it writes), hence the next column;
- ``worker µs/mv``: the worker processes' whole own CPU (user + system from
  ``/proc/PID/stat``, read just before the pool stops them): start-up, imports, refereeing,
  replays and viewer pages;
- ``parent µs/mv``: this process's own CPU (``getrusage(RUSAGE_SELF)``, all threads, so the
  SQLite writer thread too) over the run, divided by the moves;
- ``bots µs/mv``: the CPU of the bots, which the workers start and reap (the workers' children
  time from ``/proc/PID/stat``), per move;
- ``CPU use``: all of that CPU (parent + workers + bots) over the wall time, in CPUs: a value
  near the machine's CPU count means the machine, not the arena's parallelism, is the limit;
- ``others``: CPUs kept busy by everything else on the machine during the run (busy time of
  ``/proc/stat`` over the wall time, less ``CPU use``). The VM is shared: other work takes
  whatever CPU the run leaves idle (so with one worker it is often ~0.9), and when it is high
  in a row that needed both CPUs, that row was slowed down by it;
- ``worst mv/s``: the slowest of the ``--repeat`` runs of that row (the spread of the noise).

Each configuration is run ``--repeat`` times, interleaved with the others (the VM is shared),
and the run with the most moves/s is kept (the least disturbed). After the table: the ratio
moves/s (2 workers) / moves/s (1 worker) for the C bots against the target, and a breakdown of
the fixed and per-match costs measured apart (``--no-costs`` skips it).

Usage::

    python3 benchmarks/tournament_bench.py                 # best of 3, ~2.5 min
    python3 benchmarks/tournament_bench.py --repeat 5      # what docs/performance.md shows, ~4 min
    python3 benchmarks/tournament_bench.py --hands 20 --repeat 3 --json

Target (issue 3, section 3): with instant bots, 2 workers give at least 1.8x the moves/s of
1 worker on a 2-core machine.
"""

from __future__ import annotations

import argparse
import contextlib
import gc
import json
import os
import platform
import resource
import shlex
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import AsyncIterator, Iterator
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
# The checkout this file is in, before any installed copy: the worker processes run
# ``python -m arena.tournament.worker`` from ROOT (see ``main``), so they import it too.
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

import msgspec  # noqa: E402
import referee_bench  # noqa: E402
import trio  # noqa: E402
from referee_bench import build_c_bot  # noqa: E402

import arena  # noqa: E402
import arena.tournament.pool as pool_module  # noqa: E402
import arena.tournament.worker as worker_module  # noqa: E402
from arena.tournament.jobs import JobDone, decode_from_worker, encode, summarize  # noqa: E402
from arena.tournament.live import PlainReporter  # noqa: E402
from arena.tournament.runner import RunOptions, TournamentRun  # noqa: E402
from arena.tournament.session import open_new  # noqa: E402
from arena.tournament.settings import TournamentSettings  # noqa: E402

TARGET_RATIO = 1.8
TARGET_LINE = f"target: >= {TARGET_RATIO}x with 2 workers"
SAMPLE_BOTS = ROOT / "sample_bots"
GAME = "matador"
C_ENTRANTS = 4
C_WORKERS = (1, 2)
C_CONCURRENCY = (2, 4, 8)
SAMPLE_CONCURRENCY = (1, 2, 4)
WHAT_IF_CONCURRENCY = (2, 4)
WHAT_IF_LABEL = "what-if: C, no page"


# -- measuring ----------------------------------------------------------------------------------


def cpu_self() -> float:
    """User + system CPU seconds of this process (all its threads)."""
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def machine_busy_s() -> float:
    """CPU seconds every CPU of the machine spent busy (not idle, not waiting for I/O) since
    boot, from ``/proc/stat``; 0 where there is none."""
    try:
        fields = Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:]
    except OSError:
        return 0.0
    ticks = [int(x) for x in fields[:8]]
    busy = sum(ticks) - ticks[3] - ticks[4]
    return busy / os.sysconf("SC_CLK_TCK")


def cpu_children() -> float:
    """User + system CPU seconds of the descendants reaped so far."""
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


@dataclass
class Row:
    """One tournament run."""

    bots: str
    workers: int
    concurrency: int
    matches: int
    moves: int
    wall_s: float
    referee_cpu_s: float
    parent_cpu_s: float
    children_cpu_s: float
    worker_cpu_s: float | None = None
    bots_cpu_s: float | None = None
    machine_busy_s: float = 0.0
    first_start_s: float = 0.0
    after_last_done_s: float = 0.0
    all_moves_per_s: list[float] = field(default_factory=list)

    @property
    def matches_per_s(self) -> float:
        return self.matches / self.wall_s

    @property
    def moves_per_s(self) -> float:
        return self.moves / self.wall_s

    @property
    def referee_us_per_move(self) -> float:
        return self.referee_cpu_s / self.moves * 1e6

    @property
    def worker_us_per_move(self) -> float | None:
        return None if self.worker_cpu_s is None else self.worker_cpu_s / self.moves * 1e6

    @property
    def parent_us_per_move(self) -> float:
        return self.parent_cpu_s / self.moves * 1e6

    @property
    def bots_us_per_move(self) -> float | None:
        return None if self.bots_cpu_s is None else self.bots_cpu_s / self.moves * 1e6

    @property
    def cpus_used(self) -> float:
        return (self.parent_cpu_s + self.children_cpu_s) / self.wall_s

    @property
    def steady_moves_per_s(self) -> float:
        """Moves per second between the first match's start and the last result (without
        the workers' start-up and shut-down)."""
        return self.moves / (self.wall_s - self.first_start_s - self.after_last_done_s)

    @property
    def others_cpus(self) -> float:
        """CPUs the rest of the machine (other work on the shared VM) kept busy meanwhile."""
        return max(0.0, self.machine_busy_s / self.wall_s - self.cpus_used)

    def as_dict(self) -> dict[str, Any]:
        data = asdict(self)
        for name in (
            "matches_per_s",
            "moves_per_s",
            "referee_us_per_move",
            "worker_us_per_move",
            "parent_us_per_move",
            "bots_us_per_move",
            "cpus_used",
            "others_cpus",
            "steady_moves_per_s",
        ):
            data[name] = getattr(self, name)
        return data


def settings_for(hands: int, seed: int, rounds: int) -> TournamentSettings:
    from arena.games.registry import get_game

    game = get_game(GAME)
    return TournamentSettings(
        game=GAME,
        rules=game.rules_dict(game.parse_rules({})),
        players=2,
        format="round-robin",
        rounds=rounds,
        hands=hands,
        target=None,
        startup_ms=30_000,
        move_ms=10_000,
        bank_ms=0,
        seed=seed,
    )


def run_tournament(
    label: str,
    commands: list[str],
    settings: TournamentSettings,
    workers: int,
    concurrency: int,
    worker_argv: list[str] | None = None,
) -> Row:
    """One whole tournament in a temporary folder; fails loudly if any bot failed.

    ``worker_argv``: start the workers with this command instead of the arena's (a what-if).
    """
    with (
        tempfile.TemporaryDirectory(prefix="tournament-bench-") as tmp,
        open(os.devnull, "w", encoding="utf-8") as null,
    ):
        out = Path(tmp)
        opened = open_new(commands, settings, out / "tournament.db")
        if opened.excluded:
            reasons = "; ".join(f"{x.entrant.name}: {x.reason}" for x in opened.excluded)
            raise RuntimeError(f"bots left out of the benchmark tournament: {reasons}")
        try:
            options = RunOptions(out_dir=out, concurrency=concurrency, workers=workers)
            runner = TournamentRun(opened.settings, opened.store, options, PlainReporter(null))
            marks = _mark_first_start_last_done(runner)
            gc.collect()
            w0, c0, k0, m0 = time.perf_counter(), cpu_self(), cpu_children(), machine_busy_s()
            with _watch_workers(worker_argv) as usage:
                trio.run(runner.run)
            w1, c1, k1, m1 = time.perf_counter(), cpu_self(), cpu_children(), machine_busy_s()
        finally:
            opened.store.close()
    failed = [
        f"table {r.table.idx} seat {s.seat} ({s.name}): {s.status.value} {s.detail}"
        for r in runner.rows
        for s in r.summary.seats
        if s.failure is not None
    ]
    if failed:
        raise RuntimeError("a bot failed during the benchmark: " + "; ".join(failed[:5]))
    moves = sum(r.summary.moves for r in runner.rows)
    assert moves == runner.progress.moves
    return Row(
        bots=label,
        workers=len(_capacities(concurrency, workers)),
        concurrency=concurrency,
        matches=len(runner.rows),
        moves=moves,
        wall_s=w1 - w0,
        referee_cpu_s=runner.progress.referee_cpu_s,
        parent_cpu_s=c1 - c0,
        children_cpu_s=k1 - k0,
        worker_cpu_s=None if None in usage else sum(u[0] for u in usage if u is not None),
        bots_cpu_s=None if None in usage else sum(u[1] for u in usage if u is not None),
        machine_busy_s=m1 - m0,
        first_start_s=marks["first_start"] - w0,
        after_last_done_s=w1 - marks["last_done"],
    )


ARENA_WORKER = [sys.executable, "-m", "arena.tournament.worker"]
#: A what-if worker: the arena's own worker, except that it writes no viewer page per match.
NO_PAGE_WORKER = [
    sys.executable,
    "-c",
    "import sys, arena.tournament.worker as w; "
    "w.write_viewer_page = lambda *_: None; sys.exit(w.main())",
]


@contextlib.contextmanager
def _watch_workers(argv: list[str] | None) -> Iterator[list[tuple[float, float] | None]]:
    """While the block runs, the pool's workers are started with ``argv`` (``None``: the
    arena's own command), and just before the pool stops each one, its own CPU and its reaped
    children's (the bots') are read from ``/proc``: the list yielded gets one
    ``(own, children)`` pair in seconds per worker (``None`` where ``/proc`` could not say)."""
    usage: list[tuple[float, float] | None] = []
    original = pool_module.open_bot_process  # type: ignore[attr-defined]

    @contextlib.asynccontextmanager
    async def watched(command: Any, **kwargs: Any) -> AsyncIterator[Any]:
        if argv is not None and list(command) == ARENA_WORKER:
            command = argv
        async with original(command, **kwargs) as process:
            try:
                yield process
            finally:
                usage.append(_proc_cpu(process.pid))

    setattr(pool_module, "open_bot_process", watched)  # noqa: B010
    try:
        yield usage
    finally:
        setattr(pool_module, "open_bot_process", original)  # noqa: B010


def _proc_cpu(pid: int) -> tuple[float, float] | None:
    """(own CPU, reaped children's CPU) of a live process, in seconds, from /proc/PID/stat."""
    try:
        text = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    fields = text[text.rindex(")") + 2 :].split()
    utime, stime, cutime, cstime = (int(x) for x in fields[11:15])
    tick = os.sysconf("SC_CLK_TCK")
    return (utime + stime) / tick, (cutime + cstime) / tick


def best_per_worker_count(rows: list[Row], label: str) -> dict[int, Row]:
    """The fastest row (moves/s) of each worker count among the rows called ``label``."""
    best: dict[int, Row] = {}
    for row in rows:
        if row.bots == label and (
            row.workers not in best or row.moves_per_s > best[row.workers].moves_per_s
        ):
            best[row.workers] = row
    return best


def _mark_first_start_last_done(runner: TournamentRun) -> dict[str, float]:
    """Wraps the run's own callbacks (on this instance only) to note when the first match
    started on a worker (so the workers had started) and when the last result came in."""
    marks = {"first_start": 0.0, "last_done": 0.0}
    started, finished = runner._started, runner._finished

    async def on_started(table: int) -> None:
        if not marks["first_start"]:
            marks["first_start"] = time.perf_counter()
        await started(table)

    async def on_finished(result: JobDone) -> None:
        await finished(result)
        marks["last_done"] = time.perf_counter()

    runner._started = on_started  # type: ignore[method-assign]
    runner._finished = on_finished  # type: ignore[method-assign]
    return marks


def _capacities(concurrency: int, workers: int) -> list[int]:
    from arena.tournament.pool import split_capacity

    return split_capacity(concurrency, workers)


# -- fixed and per-match costs, measured apart ---------------------------------------------------


def idle_worker_cost(repeat: int = 5) -> tuple[float, float]:
    """(CPU s, wall s) of starting a worker process and stopping it at once (stdin closed):
    its interpreter start-up and imports. Least of ``repeat`` runs."""
    best_cpu, best_wall = float("inf"), float("inf")
    for _ in range(repeat):
        w0 = time.perf_counter()
        child = subprocess.Popen(
            [sys.executable, "-m", "arena.tournament.worker"],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            cwd=ROOT,
        )
        _pid, status, usage = os.wait4(child.pid, 0)
        wall = time.perf_counter() - w0
        child.returncode = os.waitstatus_to_exitcode(status)
        best_cpu = min(best_cpu, usage.ru_utime + usage.ru_stime)
        best_wall = min(best_wall, wall)
    return best_cpu, best_wall


def _bulk(fn: Any, n: int) -> float:
    """CPU seconds per call of ``fn()``, best of 3 batches of ``n`` calls, collector off."""
    gc.collect()
    gc.disable()
    try:
        best = float("inf")
        for _ in range(3):
            t0 = time.process_time()
            for _ in range(n):
                fn()
            best = min(best, (time.process_time() - t0) / n)
        return best
    finally:
        gc.enable()


def per_match_costs(commands: list[str], settings: TournamentSettings) -> dict[str, float]:
    """CPU of the work done per match outside ``play_match``, each timed in bulk on a real
    replay and a real database of a finished C-bot tournament (1 worker, concurrency 2)."""
    from arena.replay import read_replay, write_replay

    costs: dict[str, float] = {}
    with (
        tempfile.TemporaryDirectory(prefix="tournament-bench-costs-") as tmp,
        open(os.devnull, "w", encoding="utf-8") as null,
    ):
        out = Path(tmp)
        opened = open_new(commands, settings, out / "tournament.db")
        try:
            runner = TournamentRun(
                opened.settings, opened.store, RunOptions(out, 2, 1), PlainReporter(null)
            )
            trio.run(runner.run)
            row = runner.rows[0]
            replay = read_replay(row.replay)
            moves = row.summary.moves
            costs["moves per match"] = float(moves)
            costs["matches"] = float(len(runner.rows))
            costs["replay bytes"] = float(Path(row.replay).stat().st_size)
            scratch = out / "scratch.json"
            costs["worker: write_replay ms/match"] = (
                _bulk(lambda: write_replay(scratch, replay), 20) * 1e3
            )
            costs["worker: summarize ms/match"] = _bulk(lambda: summarize(replay), 50) * 1e3
            page = getattr(worker_module, "write_viewer_page", None)
            if page is not None:  # the worker writes each match's viewer page too
                write_viewer_page = page
                write_viewer_page(str(scratch), replay)  # its imports, once
                costs["worker: write_viewer_page ms/match"] = (
                    _bulk(lambda: write_viewer_page(str(scratch), replay), 5) * 1e3
                )
                costs["viewer page bytes"] = float(scratch.with_suffix(".html").stat().st_size)
            done = JobDone(table=0, replay=row.replay, referee_cpu_s=1.0, summary=row.summary)
            line = encode(done)
            costs["JobDone line bytes"] = float(len(line))
            costs["worker: encode JobDone ms/match"] = _bulk(lambda: encode(done), 200) * 1e3
            costs["parent: decode JobDone ms/match"] = (
                _bulk(lambda: decode_from_worker(line), 200) * 1e3
            )
            n = len(runner.rows)
            costs[f"parent: standings() over {n} matches, ms/call"] = (
                _bulk(runner.standings, 20) * 1e3
            )
            one = runner.rows[:1]
            full = runner.rows
            runner.rows = one
            costs["parent: standings() over 1 match, ms/call"] = _bulk(runner.standings, 50) * 1e3
            runner.rows = full
            # A database write as the run does it (one transaction, synchronous=FULL), wall
            # and CPU: into a copy of the finished tournament's database.
            from arena.tournament.store import Store

            copy = Store(out / "copy.db")
            copy.create(settings.to_dict(), opened.store.entrants(), opened.store.tables())
            c0, w0 = time.process_time(), time.perf_counter()
            for r in runner.rows:
                copy.record(r.table, r.summary, r.replay, "2026-11-30T00:00:00+00:00")
            c1, w1 = time.process_time(), time.perf_counter()
            copy.close()
            costs["parent: store.record CPU ms/match"] = (c1 - c0) / n * 1e3
            costs["parent: store.record wall ms/match"] = (w1 - w0) / n * 1e3
        finally:
            opened.store.close()
    # The referee alone, for comparison: play_match for one match at a time in this process
    # (referee_bench's C row, same hands per match), best of 3 by CPU.
    pair = referee_bench.c_commands(build_c_bot())
    alone = min(
        (referee_bench.play_matches(pair, 3, settings.hands or 20) for _ in range(3)),
        key=lambda run: run.cpu_s,
    )
    costs["play_match alone (referee_bench C x2): CPU µs/move"] = alone.cpu_s / alone.moves * 1e6
    costs["play_match alone: bots' CPU µs/move"] = alone.child_cpu_s / alone.moves * 1e6
    costs["play_match alone: moves/s (one match at a time)"] = alone.moves / alone.wall_s
    return costs


# -- output ---------------------------------------------------------------------------------------

COLUMNS = (
    ("bots", 22, "s"),
    ("workers", 7, "d"),
    ("conc", 4, "d"),
    ("matches", 7, "d"),
    ("moves", 7, "d"),
    ("wall s", 7, ".2f"),
    ("matches/s", 9, ".1f"),
    ("moves/s", 8, ".0f"),
    ("steady", 6, ".0f"),
    ("ref µs/mv", 9, ".1f"),
    ("worker µs/mv", 12, ".1f"),
    ("parent µs/mv", 12, ".1f"),
    ("bots µs/mv", 10, ".1f"),
    ("CPU use", 7, ".2f"),
    ("others", 6, ".2f"),
    ("worst mv/s", 10, ".0f"),
)


def format_row(row: Row, mark: str = "") -> str:
    values: tuple[Any, ...] = (
        row.bots,
        row.workers,
        row.concurrency,
        row.matches,
        row.moves,
        row.wall_s,
        row.matches_per_s,
        row.moves_per_s,
        row.steady_moves_per_s,
        row.referee_us_per_move,
        row.worker_us_per_move,
        row.parent_us_per_move,
        row.bots_us_per_move,
        row.cpus_used,
        row.others_cpus,
        min(row.all_moves_per_s or [row.moves_per_s]),
    )
    cells = []
    for (name, width, fmt), value in zip(COLUMNS, values, strict=True):
        text = "-" if value is None else format(value, fmt)
        cells.append(text.ljust(width) if fmt == "s" else text.rjust(max(width, len(name))))
    return " ".join(cells) + mark


def header() -> str:
    cells = [
        name.ljust(width) if fmt == "s" else name.rjust(max(width, len(name)))
        for name, width, fmt in COLUMNS
    ]
    return " ".join(cells)


def machine() -> str:
    cpu = "?"
    with contextlib.suppress(OSError):
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    versions = f"Python {platform.python_version()}, trio {trio.__version__}, "
    versions += f"msgspec {msgspec.__version__}"
    load = ", ".join(f"{x:.2f}" for x in os.getloadavg())
    return (
        f"{versions}, {os.cpu_count()} CPUs ({cpu}), affinity "
        f"{sorted(os.sched_getaffinity(0))}, load average {load}; arena from "
        f"{Path(arena.__file__).parent}"
    )


# -- main ------------------------------------------------------------------------------------------


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--hands", type=int, default=20, help="hands per match (20)")
    parser.add_argument("--seed", type=int, default=20261130, help="tournament seed")
    parser.add_argument(
        "--rounds", type=int, default=4, help="round-robin rounds for the C bots (4: 48 matches)"
    )
    parser.add_argument(
        "--sample-rounds",
        type=int,
        default=2,
        help="round-robin rounds for the sample bots (2: 12 matches with node, 4 without)",
    )
    parser.add_argument("--repeat", type=int, default=3, help="best of N runs per row (3)")
    parser.add_argument("--skip-samples", action="store_true", help="C bots only")
    parser.add_argument("--no-costs", action="store_true", help="skip the cost breakdown")
    parser.add_argument(
        "--no-what-if",
        action="store_true",
        help="skip the what-if rows (C bots, workers that write no viewer page)",
    )
    parser.add_argument("--json", action="store_true", help="print JSON instead of a table")
    args = parser.parse_args(argv)

    os.chdir(ROOT)
    binary = build_c_bot()
    cpus = len(os.sched_getaffinity(0))
    c_bots = [f"{shlex.quote(str(binary))} seat-{i + 1}" for i in range(C_ENTRANTS)]
    python = shlex.quote(sys.executable)
    samples = [
        f"{python} {shlex.quote(str(SAMPLE_BOTS / 'random_bot.py'))}",
        f"{python} {shlex.quote(str(SAMPLE_BOTS / 'greedy.py'))}",
    ]
    notes = []
    node = shutil.which("node")
    if node is None:
        notes.append("node not found: the sample tournament has the two Python bots only")
    else:
        samples.append(f"{shlex.quote(node)} {shlex.quote(str(SAMPLE_BOTS / 'greedy.js'))}")
    sample_label = "samples py+py" + ("+node" if node else "")

    start_cpu, start_wall = idle_worker_cost()
    c_settings = settings_for(args.hands, args.seed, args.rounds)
    s_settings = settings_for(args.hands, args.seed, args.sample_rounds)
    Config = tuple[str, list[str], TournamentSettings, int, int, list[str] | None]
    configs: list[Config] = []
    c_label = f"C instant x{C_ENTRANTS}"
    for workers in C_WORKERS:
        for concurrency in C_CONCURRENCY:
            configs.append((c_label, c_bots, c_settings, workers, concurrency, None))
    if not args.skip_samples:
        for concurrency in SAMPLE_CONCURRENCY:
            workers = min(concurrency, cpus)
            configs.append((sample_label, samples, s_settings, workers, concurrency, None))
    if args.no_what_if:
        pass
    elif not hasattr(worker_module, "write_viewer_page"):
        notes.append("the worker writes no viewer page: no what-if rows")
    else:
        for workers in C_WORKERS:
            for concurrency in WHAT_IF_CONCURRENCY:
                configs.append(
                    (WHAT_IF_LABEL, c_bots, c_settings, workers, concurrency, NO_PAGE_WORKER)
                )

    runs: dict[int, list[Row]] = {i: [] for i in range(len(configs))}
    for _ in range(args.repeat):
        for index, (label, commands, settings, workers, concurrency, argv) in enumerate(configs):
            row = run_tournament(label, commands, settings, workers, concurrency, argv)
            runs[index].append(row)
    best: dict[int, Row] = {}
    for index, candidates in runs.items():
        chosen = max(candidates, key=lambda r: r.moves_per_s)
        chosen.all_moves_per_s = [r.moves_per_s for r in candidates]
        best[index] = chosen
    rows = [best[i] for i in range(len(configs))]

    best_by_workers = best_per_worker_count(rows, c_label)
    ratio = best_by_workers[2].moves_per_s / best_by_workers[1].moves_per_s
    met = ratio >= TARGET_RATIO
    what_if = best_per_worker_count(rows, WHAT_IF_LABEL)
    what_if_ratio = what_if[2].moves_per_s / what_if[1].moves_per_s if what_if else None
    marked = {id(r) for r in [*best_by_workers.values(), *what_if.values()]}

    costs = {} if args.no_costs else per_match_costs(c_bots, c_settings)

    if args.json:
        print(
            json.dumps(
                {
                    "machine": machine(),
                    "hands": args.hands,
                    "seed": args.seed,
                    "repeat": args.repeat,
                    "rows": [r.as_dict() for r in rows],
                    "ratio_2_over_1_workers": ratio,
                    "steady_ratio_2_over_1_workers": (
                        best_by_workers[2].steady_moves_per_s
                        / best_by_workers[1].steady_moves_per_s
                    ),
                    "target_ratio": TARGET_RATIO,
                    "target_met": met,
                    "what_if_no_page_ratio": what_if_ratio,
                    "idle_worker_cpu_s": start_cpu,
                    "idle_worker_wall_s": start_wall,
                    "costs": costs,
                    "notes": notes,
                },
                indent=2,
            )
        )
        return 0

    print(
        f"tournament_bench: round robin, 2 players, {args.hands} hands per match, seed "
        f"{args.seed}, best of {args.repeat}; {machine()}"
    )
    print(header())
    print("-" * len(header()))
    for row in rows:
        print(format_row(row, "  <- best" if id(row) in marked else ""))
    print(
        "columns: steady = moves/s from the first match's start to the last result (no worker "
        "start-up/shut-down); ref µs/mv = the arena's RunProgress.referee_cpu_s / moves; "
        "worker = the workers' whole own CPU (/proc) / moves; parent = RUSAGE_SELF; bots = "
        "the workers' reaped children (/proc); CPU use = parent + all children / wall, in CPUs; "
        "others = CPUs busy with other work meanwhile (/proc/stat); worst mv/s = the slowest "
        "of the repeats"
    )
    for note in notes:
        print(f"note: {note}")
    print()
    b1, b2 = best_by_workers[1], best_by_workers[2]
    print(
        f"C bots, moves/s: 2 workers {b2.moves_per_s:.0f} (concurrency {b2.concurrency}) / "
        f"1 worker {b1.moves_per_s:.0f} (concurrency {b1.concurrency}) = {ratio:.2f}x"
    )
    steady = b2.steady_moves_per_s / b1.steady_moves_per_s
    print(
        f"  same rows without worker start-up/shut-down (steady): {b2.steady_moves_per_s:.0f} / "
        f"{b1.steady_moves_per_s:.0f} = {steady:.2f}x"
    )
    print(TARGET_LINE)
    print(f"measured: {ratio:.2f}x: target {'met' if met else 'NOT met'}")
    if what_if_ratio is not None:
        w1, w2 = what_if[1], what_if[2]
        print(
            f"what-if, workers that write no viewer page: 2 workers {w2.moves_per_s:.0f} / "
            f"1 worker {w1.moves_per_s:.0f} = {what_if_ratio:.2f}x; against the arena's worker: "
            f"{w1.moves_per_s / b1.moves_per_s:.2f}x (1 worker), "
            f"{w2.moves_per_s / b2.moves_per_s:.2f}x (2 workers)"
        )
    print()
    print(
        f"fixed costs: an idle worker's start + stop (python -m arena.tournament.worker, stdin "
        f"closed) {start_cpu * 1e3:.0f} ms CPU, {start_wall * 1e3:.0f} ms wall (least of 5)"
    )
    print("  run start -> first match started on a worker, last result -> run end (ms):")
    for row in rows:
        print(
            f"  {row.bots:<22} workers {row.workers} conc {row.concurrency}: "
            f"{row.first_start_s * 1e3:6.0f}  {row.after_last_done_s * 1e3:6.0f}"
        )
    if costs:
        print("per-match costs outside play_match (C-bot tournament, bulk timings):")
        for name, value in costs.items():
            print(f"  {name:<52} {value:10.3f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
