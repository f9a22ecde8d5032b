"""The referee's cost per move: whole matches through ``play_match``, real bot processes.

Each match row plays ``--matches`` two-player matches of ``--hands`` hands (fixed seeds,
generous time limits: 30 s start-up, 10 s per move) with :func:`arena.referee.match.play_match`
under ``trio.run``, ``--repeat`` times, and keeps the run with the least referee CPU (the VM is
shared; the least-disturbed run is the most faithful). Columns:

- ``moves``: the ``Action`` events of the replays (every move a bot made, draws included);
- ``wall s`` and ``moves/s``: wall-clock time of the matches, start-up and shutdown included;
- ``ref CPU µs/move``: the referee process's own CPU (``getrusage(RUSAGE_SELF)``, user + sys,
  every thread of this process, so trio's spawn thread too) over the matches, divided by the
  moves; ``(sys)`` is its system part and ``(gc)`` the CPU spent in garbage collections
  (``gc.callbacks``). The bots are child processes and are not in it; their CPU
  (``RUSAGE_CHILDREN``, counted once they are reaped) is the ``bots µs/move`` column;
- ``marginal`` (µs/move) and ``fixed ms`` (per match, ``(wall)`` for wall time): the CPU split
  into a per-move and a per-match part (spawn, hello, ``gc.collect()``, shutdown, ``trio.run``)
  with a second run of one-hand matches, same seeds: cost = fixed * matches + marginal * moves.

The rows (every one runs the arena's own code; nothing here re-implements a rule):

- ``C instant x2``: two copies of ``benchmarks/c_bot/instant_bot.c`` (built here with gcc into
  ``benchmarks/build/``), which answer every request at once with the first legal move. Nearly
  all the time is the referee's: this is the row the target is about. ``all on one CPU``: the
  same with the referee and its bots pinned to one CPU (the first row itself with ``--pin``).
- ``C instant x2, one referee per CPU``: one such benchmark process per allowed CPU, each pinned
  to its CPU with its own two bots, all started together (the tournament's plan: one referee
  process per core, its bots beside it). ``moves/s`` is the total over the processes.
- ``engine + codec only``: no processes, no trio: the same games (first legal move, so the same
  moves as the C row) driven synchronously through the calls the runner makes per move
  (``hand.view(seat)``, ``RequestBuilder.request_line``, ``judge_move`` of the reply (its
  decoding, id and legality check against the view, as `arena.judge` does), the ``Action`` record,
  ``match.apply``) and per hand (``RequestBuilder.new_hand``, the ``hand_start``/``hand_end``
  messages, ``next_hand``, the runner's own ``_record_hand``).
- ``play_match, in-memory instant bots``: the real runner and trio, but the bots are objects in
  this process (`InstantMemoryBot`, answering like the C bot): no pipes, no epoll waits. Their
  own parsing (~1.5 µs/move) is measured apart and subtracted in the attribution.
- ``pipe round trip ...`` / ``in-memory round trip ...``: no engine: one instant bot answering
  the same request line (the median one of the C row's games) again and again, bare, with two
  fresh cancel scopes per move (``move_on_after`` around ``send_line``, ``move_on_at`` around
  ``receive_line``: the runner before its watchdog), inside one long-lived scope whose
  deadline is set before the request and reset to infinity after the reply (the runner's
  watchdog until it got its own task), or under the runner's own watchdog (`Watchdog`: one
  long-lived scope, a task that sleeps to the deadline, and per move only the request written
  down and cleared, as ``_MatchRunner._request`` does).
- ``py random + py greedy`` and ``node greedy x2``: the sample bots (node only if installed).
- ``minimal trio referee (C instant x2, no engine)``: what any referee must do per move and
  nothing more (`referee_ratios`): the same two C bots started the same way, the same moves per
  match, a msgspec message of the request's typical size encoded, one line back under a
  deadline, a typed decode; run alternately with ``play_match`` C-bot matches.

After the table, the two ratios of issue 15, each from this run (`referee_ratios`): the engine +
codec row against the engine's own random playouts (timed here after each run of the row,
2 players, default rules: target at most 3x), and ``play_match`` with the C bots against the
minimal trio referee in moves/s (target at least 0.85).

The attribution printed under the table splits the C rows' marginal cost into engine + codec,
trio (scheduler passes + the watchdog), the rest of the runner, and the pipes
(C row minus in-memory ``play_match``).

``--breakdown`` adds CPU per move of each stage of the engine + codec row, each timed in bulk
over the C row's positions with the collector off. Every stage sees its inputs as the runner
does: ``view()`` runs on states fresh from ``apply`` whose parent's public record was already
built (so it extends the record by one action), ``RequestBuilder`` sees the views of a hand in
order. Bulk timings run hot in the caches: in a match the same code can cost more.
``--profile`` runs a C-bot match under cProfile with a CPU timer (call counts and ranking: its
overhead inflates every call ~5x) and, if ``py-spy`` is installed (``pip install py-spy``),
samples matches with in-memory bots from outside the process and prints the share of samples
per category (view, request build, watchdog, per hand, ...) scaled to that run's measured CPU
per move. (py-spy on the C-bot matches is misleading here: see `referee_profile.pyspy_profile`.)

``--pin CPU`` runs the referee and its bots on one CPU (sched_setaffinity, inherited by the
bots): on these VMs a bot woken on the other vCPU costs ~70 µs of wall time per round trip
(/work/shared/FACTS.md), so wall times depend on where the scheduler puts things.

Usage::

    python3 benchmarks/referee_bench.py                      # 3 matches of 50 hands per row
    python3 benchmarks/referee_bench.py --hands 50 --matches 3 --json
    python3 benchmarks/referee_bench.py --repeat 5 --breakdown
    python3 benchmarks/referee_bench.py --profile
    python3 benchmarks/referee_bench.py --pin 0

Target: the referee's CPU per move is at most 40 µs with the C bots.
"""

from __future__ import annotations

import argparse
import contextlib
import functools
import gc
import json
import os
import platform
import resource
import shlex
import shutil
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, NamedTuple

ROOT = Path(__file__).resolve().parents[1]
try:
    import arena  # noqa: F401
except ImportError:  # run from a checkout that was not pip-installed: use the repo root
    sys.path.insert(0, str(ROOT))

import msgspec  # noqa: E402
import trio  # noqa: E402
from referee_memory import (  # noqa: E402
    MEMORY_TRIP_ROW,
    connect_in_memory,
    cpu_self,
    instant_reply_cost,
    round_trips,
    sys_self,
    typical_request,
)

# benchmarks/ is sys.path[0] when this file runs as a script.
from referee_ratios import (  # noqa: E402
    ENGINE_RATIO_TARGET,
    MINIMAL_RATIO_TARGET,
    MINIMAL_ROW,
    alternate,
    floor_ratios,
    minimal_matches,
    playout_cpu_us,
)
from referee_report import TARGET_US, print_report  # noqa: E402

from arena.games.api import Move, SeatView  # noqa: E402
from arena.games.match import Match, MatchLength, start_match  # noqa: E402
from arena.games.registry import get_game  # noqa: E402
from arena.judge import Accepted, judge_move  # noqa: E402
from arena.referee.channel import BotSpec, Connector  # noqa: E402
from arena.referee.clock import TimeLimits  # noqa: E402
from arena.referee.match import (  # noqa: E402
    MatchConfig,
    _MatchRunner,
    play_match,
)
from arena.replay import Action, Replay  # noqa: E402
from arena.wire import (  # noqa: E402
    RequestBuilder,
    hand_end,
    hand_start,
    move_to_wire,
)
from protocol.codec import encode  # noqa: E402

C_SOURCE = ROOT / "benchmarks" / "c_bot" / "instant_bot.c"
BUILD_DIR = ROOT / "benchmarks" / "build"
C_BINARY = BUILD_DIR / "instant_bot"
SAMPLE_BOTS = ROOT / "sample_bots"

#: Generous limits: the benchmark measures the referee, not the bots' speed.
TIME_LIMITS = TimeLimits(startup_ms=30_000, move_ms=10_000, bank_ms=0)
PLAYERS = 2
SEED_BASE = 20_261_100
#: Round trips per pipe micro-benchmark.
ROUND_TRIPS = 20_000

ENGINE_ROW = "engine + codec only (no processes, no trio)"
MEMORY_ROW = "play_match, in-memory instant bots"
PINNED_ROW = "C instant x2, all on one CPU"


@contextlib.contextmanager
def on_one_cpu() -> Iterator[int]:
    """Runs the block (and the bots it starts: affinity is inherited) on one allowed CPU.

    Every thread of this process is pinned, not only this one: trio spawns the bots from its
    worker threads, which may predate the call.
    """
    allowed = os.sched_getaffinity(0)
    cpu = min(allowed)
    _set_affinity_all_threads({cpu})
    try:
        yield cpu
    finally:
        _set_affinity_all_threads(allowed)


def _set_affinity_all_threads(cpus: set[int]) -> None:
    for tid in os.listdir("/proc/self/task"):
        with contextlib.suppress(ProcessLookupError):  # a thread that has just ended
            os.sched_setaffinity(int(tid), cpus)


# -- building the C bot -----------------------------------------------------------------------


def build_c_bot() -> Path:
    """Compiles ``instant_bot.c`` into ``benchmarks/build/`` (only when the source is newer)."""
    if C_BINARY.exists() and C_BINARY.stat().st_mtime >= C_SOURCE.stat().st_mtime:
        return C_BINARY
    compiler = os.environ.get("CC") or "gcc"
    if shutil.which(compiler) is None:
        sys.exit(
            f"referee_bench: {compiler!r} not found: cannot build {C_SOURCE.name}. Install gcc "
            "(Debian: apt-get install -y gcc) or set CC to a C99 compiler."
        )
    BUILD_DIR.mkdir(parents=True, exist_ok=True)
    argv = [compiler, "-std=c99", "-O2", "-Wall", "-o", str(C_BINARY), str(C_SOURCE)]
    done = subprocess.run(argv, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        sys.exit(f"referee_bench: {shlex.join(argv)} failed:\n{done.stderr}")
    return C_BINARY


def c_commands(binary: Path) -> list[str]:
    return [shlex.quote(str(binary))] * PLAYERS


# -- measuring ----------------------------------------------------------------------------------


def cpu_children() -> float:
    """User + system CPU seconds of the children waited for so far."""
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def count_moves(replay: Replay) -> int:
    return sum(isinstance(event, Action) for hand in replay.hands for event in hand.events)


@dataclass
class Run:
    """Totals over some matches."""

    matches: int = 0
    hands: int = 0
    moves: int = 0
    wall_s: float = 0.0
    cpu_s: float = 0.0
    sys_s: float = 0.0
    child_cpu_s: float = 0.0
    gc_s: float = 0.0
    gc_collections: list[int] = field(default_factory=lambda: [0, 0, 0])


class _GcMeter:
    """A ``gc.callbacks`` hook: CPU time spent in collections, and their count per generation."""

    def __init__(self) -> None:
        self.seconds = 0.0
        self.counts = [0, 0, 0]
        self._started = 0.0

    def __call__(self, phase: str, info: dict[str, int]) -> None:
        if phase == "start":
            self._started = time.process_time()
        else:
            self.seconds += time.process_time() - self._started
            self.counts[info["generation"]] += 1


def match_config(seed: int, hands: int) -> MatchConfig:
    game = get_game("matador")
    return MatchConfig(
        game=game,
        rules=game.parse_rules({}),
        players=PLAYERS,
        seed=seed,
        length=MatchLength(target=None, hands=hands),
        time=TIME_LIMITS,
    )


def play_matches(
    commands: list[str], matches: int, hands: int, connect: Connector | None = None
) -> Run:
    """Plays ``matches`` matches of ``hands`` hands; fails loudly if any bot failed."""
    run = Run()
    play = play_match if connect is None else functools.partial(play_match, connect=connect)
    for i in range(matches):
        config = match_config(SEED_BASE + i, hands)
        gc.collect()
        meter = _GcMeter()
        gc.callbacks.append(meter)
        try:
            w0, c0, k0, s0 = time.perf_counter(), cpu_self(), cpu_children(), sys_self()
            replay = trio.run(play, config, commands)
            w1, c1, k1, s1 = time.perf_counter(), cpu_self(), cpu_children(), sys_self()
        finally:
            gc.callbacks.remove(meter)
        failed = [
            f"seat {s.seat} ({s.command}): {s.status.value} {s.detail}"
            for s in replay.seats
            if s.failure is not None
        ]
        if failed:
            raise RuntimeError("a bot failed during the benchmark: " + "; ".join(failed))
        run.matches += 1
        run.hands += len(replay.hands)
        run.moves += count_moves(replay)
        run.wall_s += w1 - w0
        run.cpu_s += c1 - c0
        run.sys_s += s1 - s0
        run.child_cpu_s += k1 - k0
        run.gc_s += meter.seconds
        run.gc_collections = [a + b for a, b in zip(run.gc_collections, meter.counts, strict=True)]
    return run


@dataclass
class Row:
    name: str
    matches: int
    hands: int
    moves: int
    wall_s: float
    moves_per_s: float
    ref_cpu_us_per_move: float
    bots_cpu_us_per_move: float | None = None
    ref_sys_us_per_move: float | None = None
    ref_gc_us_per_move: float | None = None
    gc_collections: list[int] | None = None
    marginal_us_per_move: float | None = None
    fixed_ms_per_match: float | None = None
    fixed_wall_ms_per_match: float | None = None
    note: str = ""


def run_row(name: str, run: Run) -> Row:
    return Row(
        name=name,
        matches=run.matches,
        hands=run.hands,
        moves=run.moves,
        wall_s=run.wall_s,
        moves_per_s=run.moves / run.wall_s,
        ref_cpu_us_per_move=run.cpu_s / run.moves * 1e6,
        bots_cpu_us_per_move=run.child_cpu_s / run.moves * 1e6,
        ref_sys_us_per_move=run.sys_s / run.moves * 1e6,
        ref_gc_us_per_move=run.gc_s / run.moves * 1e6,
        gc_collections=run.gc_collections,
    )


def match_row(
    name: str,
    commands: list[str],
    matches: int,
    hands: int,
    repeat: int,
    connect: Connector | None = None,
) -> Row:
    """A row of whole matches (best of ``repeat`` by referee CPU), with the per-match fixed
    cost from runs of one-hand matches with the same seeds."""
    long = min(
        (play_matches(commands, matches, hands, connect) for _ in range(repeat)),
        key=lambda run: run.cpu_s,
    )
    row = run_row(name, long)
    if hands > 1:
        short = min(
            (play_matches(commands, matches, 1, connect) for _ in range(repeat)),
            key=lambda run: run.cpu_s,
        )
        if long.moves > short.moves:
            # Both runs have the same number of matches: cost = fixed * matches + c * moves.
            per_move = (long.cpu_s - short.cpu_s) / (long.moves - short.moves)
            wall_per_move = (long.wall_s - short.wall_s) / (long.moves - short.moves)
            row.marginal_us_per_move = per_move * 1e6
            row.fixed_ms_per_match = (short.cpu_s - per_move * short.moves) / matches * 1e3
            row.fixed_wall_ms_per_match = (
                (short.wall_s - wall_per_move * short.moves) / matches * 1e3
            )
    return row


# -- one referee process per CPU -----------------------------------------------------------------


def per_cpu_row(matches: int, hands: int, repeat: int) -> Row:
    """C-bot matches in one benchmark process per allowed CPU, all at once, each pinned with its
    bots (``--worker c``); best of ``repeat`` by total referee CPU.

    The workers start, warm up, say ``ready``, and all begin on one ``go`` line, so the matches
    overlap; ``wall s`` is the slowest worker's and ``moves/s`` the total moves over it.
    """
    cpus = sorted(os.sched_getaffinity(0))
    best: Run | None = None
    for _ in range(repeat):
        argv = [sys.executable, str(Path(__file__).resolve()), "--worker", "c"]
        argv += ["--hands", str(hands), "--matches", str(matches)]
        workers = [
            subprocess.Popen(
                [*argv, "--pin", str(cpu)],
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                text=True,
            )
            for cpu in cpus
        ]
        for worker in workers:
            assert worker.stdout is not None
            if worker.stdout.readline().strip() != "ready":
                raise RuntimeError("a per-CPU worker failed to start")
        for worker in workers:
            assert worker.stdin is not None
            worker.stdin.write("go\n")
            worker.stdin.flush()
        run = Run()
        for worker in workers:
            out, _ = worker.communicate()
            if worker.returncode != 0:
                raise RuntimeError(f"a per-CPU worker failed ({worker.returncode})")
            part = Run(**json.loads(out))
            run.matches += part.matches
            run.hands += part.hands
            run.moves += part.moves
            run.wall_s = max(run.wall_s, part.wall_s)
            run.cpu_s += part.cpu_s
            run.sys_s += part.sys_s
            run.child_cpu_s += part.child_cpu_s
            run.gc_s += part.gc_s
        if best is None or run.cpu_s < best.cpu_s:
            best = run
    assert best is not None
    row = run_row(f"C instant x2, one referee per CPU ({len(cpus)} at once)", best)
    row.gc_collections = None
    row.note = "each referee pinned to its own CPU with its two bots; moves/s is the total"
    return row


def worker_main(kind: str, hands: int, matches: int) -> int:
    """Child mode (``--worker``): plays matches and prints their totals as one JSON line.

    ``c``: C-bot matches, after a ``ready``/``go`` handshake (`per_cpu_row`). ``memory``: matches
    with in-memory bots, run under py-spy (`referee_profile.pyspy_profile`).
    """
    if kind == "c":
        commands = c_commands(build_c_bot())
        play_matches(commands, 1, 1)  # warm-up
        print("ready", flush=True)
        sys.stdin.readline()
        run = play_matches(commands, matches, hands)
    else:
        bots = ["memory-bot"] * PLAYERS
        play_matches(bots, 1, 1, connect_in_memory)  # warm-up
        run = play_matches(bots, matches, hands, connect_in_memory)
    print(json.dumps(asdict(run)))
    return 0


# -- the engine + codec part alone ------------------------------------------------------------

#: The time left reported in the engine row's requests and records (no clock runs there).
MOVE_MS = TIME_LIMITS.move_ms


@dataclass
class Turn:
    """One request of the engine row, as the runner meets it."""

    match: Match  # before the move (the view built its hand's public record, as in the runner)
    seat: int
    request_id: int
    hand_number: int
    first: bool  # the first request of its hand
    view: SeatView  # what the request was built from
    request: bytes  # the encoded request
    reply: bytes  # the instant bot's answer
    move: Move


@dataclass
class HandTrace:
    """One hand of the engine row."""

    start: Callable[[], Match]  # deals the hand again: the match as the hand starts
    last: Turn  # its last request: ``last.match.apply(last.move)`` is the match as it ends


@dataclass
class Trace:
    """What `engine_loop` saw, for the stage breakdown and the round-trip rows."""

    turns: list[Turn] = field(default_factory=list)
    hands: list[HandTrace] = field(default_factory=list)


def _reply_line(request_id: int, move: Move, cache: dict[Move, bytes]) -> bytes:
    """The bot's side (not the referee's): the reply to a request, built from a cache."""
    tail = cache.get(move)
    if tail is None:
        tail = cache[move] = msgspec.json.encode(move_to_wire(move)) + b"}"
    return b'{"type":"move","id":%d,"move":%b' % (request_id, tail)


def hand_recorder(config: MatchConfig) -> _MatchRunner:
    """A runner that only records hands: its ``_record_hand`` is the runner's own code, run
    here without trio or bots (the engine row measures the arena's code, not a copy of it)."""
    return _MatchRunner(config, [BotSpec("-")] * PLAYERS, connect_in_memory)


class _LegalOnly(NamedTuple):
    """What the judge reads of a view (its legal moves; the open ends name a rejection's)."""

    legal: tuple[Move, ...]
    ends: tuple[tuple[str, int], ...] = ()


def engine_loop(
    seed: int, hands: int, trace: Trace | None = None, view: bool = True, request: bool = True
) -> tuple[int, int]:
    """Plays one match in-process as the runner would with two first-legal-move bots.

    Per move it makes the calls ``_MatchRunner._turn`` makes, minus trio, the clock and the
    pipes; per hand those of ``_MatchRunner._play`` (``new_hand``, ``hand_start`` and
    ``hand_end`` messages, ``next_hand``) and the runner's own ``_record_hand``. Returns
    (hands, moves); ``trace`` collects every request and hand when given.

    ``request=False`` leaves out the request line (no bytes are made); ``view=False`` leaves
    out the seat's view and so the request line too (the judge gets the legal moves alone):
    what the row would cost if those calls cost nothing (`floor_ratios`); the same moves.
    """
    config = match_config(seed, hands)
    game, rules, length = config.game, config.rules, config.length
    start: Callable[[], Match] = functools.partial(start_match, game, rules, PLAYERS, seed, length)
    match: Match = start()
    recorder = hand_recorder(config)
    requests = RequestBuilder()
    replies: dict[Move, bytes] = {}
    request_id = 0
    moves = 0
    struck: set[int] = set()
    seen: Any = None  # SeatView, or _LegalOnly without the view
    line = b""
    while not match.over:
        hand = match.hand
        number = match.hand_number
        leader = hand.to_move
        assert leader is not None
        requests.new_hand()
        recorder.dealt = hand.deal()  # as the runner does when it announces a hand
        for seat in range(PLAYERS):
            encode(hand_start(hand.view(seat), number, leader))
        events: list[Any] = []
        first = True
        # As the runner: the moves are played on the hand's state, its match made at the end.
        while hand.outcome() is None:
            seat_no = hand.to_move
            assert seat_no is not None
            request_id += 1
            if view:
                seen = hand.view(seat_no)
                if request:
                    line = requests.request_line(seen, request_id, number, MOVE_MS, 0)
            else:  # the judge reads only the legal moves (and a rejection's open ends) of a view
                seen = _LegalOnly(hand.legal_moves())
            reply = _reply_line(request_id, seen.legal[0], replies)
            judged = judge_move(reply, request_id, seen, struck)
            if not isinstance(judged, Accepted):
                raise AssertionError(f"rejected reply {judged!r}")
            move = judged.move
            # Positionally, as the runner builds it (seat, move, id, time left, elapsed, late).
            events.append(
                Action(seat_no, move_to_wire(move), request_id, MOVE_MS, 0.01, None, judged.debug)
            )
            if trace is not None:
                trace.turns.append(
                    Turn(
                        match.with_hand(hand),
                        seat_no,
                        request_id,
                        number,
                        first,
                        seen,
                        line,
                        reply,
                        move,
                    )
                )
            first = False
            hand = hand.apply(move)
            moves += 1
        match = match.with_hand(hand)
        finished = match.hand
        outcome = finished.outcome()
        assert outcome is not None
        hands_left = [list(finished.view(s).hand) for s in range(PLAYERS)]
        encode(hand_end(outcome, number, hands_left, finished.view(0).layout))
        ended = match
        match = match.next_hand()
        recorder._record_hand(number, finished, events, [])
        if trace is not None:
            trace.hands.append(HandTrace(start, trace.turns[-1]))
            start = ended.next_hand
    return len(recorder.hands), moves


def trace_games(matches: int, hands: int) -> Trace:
    """The engine row's games (the C row's: same seeds, same moves), traced."""
    trace = Trace()
    for i in range(matches):
        engine_loop(SEED_BASE + i, hands, trace)
    return trace


def engine_row(matches: int, hands: int, repeat: int) -> tuple[Row, dict[str, Any]]:
    """The engine + codec row (best of ``repeat``), each run followed by as much CPU of the
    engine's own random playouts (`referee_ratios.playout_cpu_us`): the row, and the ratio."""
    best: Run | None = None
    playout_us = float("inf")
    pairs = []
    for r in range(repeat):
        run = Run()
        for i in range(matches):
            gc.collect()
            w0, c0 = time.perf_counter(), cpu_self()
            played, moves = engine_loop(SEED_BASE + i, hands)
            run.wall_s += time.perf_counter() - w0
            run.cpu_s += cpu_self() - c0
            run.matches += 1
            run.hands += played
            run.moves += moves
        gc.collect()
        engine_us, _ = playout_cpu_us(max(0.5, run.cpu_s), SEED_BASE + 1000 * r)
        playout_us = min(playout_us, engine_us)
        pairs.append(run.cpu_s / run.moves * 1e6 / engine_us)
        if best is None or run.cpu_s < best.cpu_s:
            best = run
    assert best is not None
    row = run_row(ENGINE_ROW, best)
    ratio = row.ref_cpu_us_per_move / playout_us
    summary = {
        "engine_row_us_per_move": row.ref_cpu_us_per_move,
        "playout_us_per_move": playout_us,
        "ratio": ratio,
        "pair_ratios": pairs,
        "target": ENGINE_RATIO_TARGET,
        "met": ratio <= ENGINE_RATIO_TARGET,
    }
    row.bots_cpu_us_per_move = row.ref_sys_us_per_move = row.ref_gc_us_per_move = None
    row.gc_collections = None
    row.note = "same games as the C row (first legal move)"
    return row, summary


def minimal_ratio(
    binary: Path, commands: list[str], line: bytes, matches: int, hands: int, repeat: int
) -> tuple[Row, dict[str, Any]]:
    """``play_match`` with the C bots against the minimal trio referee (`referee_ratios`), the
    same moves per match, alternately ``repeat`` times: the minimal row, and the ratio of
    moves/s (best wall of each)."""
    per_match = [engine_loop(SEED_BASE + i, hands)[1] for i in range(matches)]
    moves = sum(per_match)
    cpu: dict[float, float] = {}

    def minimal() -> float:
        wall, cpu[wall] = minimal_matches(binary, line, per_match)
        return wall

    c_wall, minimal_wall, pairs = alternate(
        lambda: play_matches(commands, matches, hands).wall_s, minimal, repeat
    )
    row = Row(
        name=MINIMAL_ROW,
        matches=matches,
        hands=0,
        moves=moves,
        wall_s=minimal_wall,
        moves_per_s=moves / minimal_wall,
        ref_cpu_us_per_move=cpu[minimal_wall] / moves * 1e6,
        note=f"request of {len(line)} bytes; alternated with play_match runs",
    )
    ratio = minimal_wall / c_wall  # the same moves: the ratio of the moves/s
    summary = {
        "play_match_moves_per_s": moves / c_wall,
        "minimal_moves_per_s": moves / minimal_wall,
        "ratio": ratio,
        "pair_ratios": [1 / p for p in pairs],
        "target": MINIMAL_RATIO_TARGET,
        "met": ratio >= MINIMAL_RATIO_TARGET,
    }
    return row, summary


# -- round trips alone (referee_memory) ------------------------------------------------------


def round_trip_rows(binary: Path, line: bytes, n: int, repeat: int, parse_us: float) -> list[Row]:
    rows = []
    for transport, label, wall, cpu, sys_s in round_trips(str(binary), line, n, repeat):
        note = f"request line of {len(line)} bytes"
        if transport == "memory":
            note += f"; includes the in-memory bot's parsing ({parse_us:.1f} µs)"
        rows.append(
            Row(
                name=label,
                matches=0,
                hands=0,
                moves=n,
                wall_s=wall,
                moves_per_s=n / wall,
                ref_cpu_us_per_move=cpu / n * 1e6,
                ref_sys_us_per_move=sys_s / n * 1e6,
                note=note,
            )
        )
    return rows


# -- profiling -----------------------------------------------------------------------------------


#: Functions listed by cumulative time under cProfile (when they cost >= 1 µs per move).
def machine() -> dict[str, Any]:
    info: dict[str, Any] = {
        "python": platform.python_version(),
        "implementation": platform.python_implementation(),
        "platform": platform.platform(),
        "cpus": os.cpu_count(),
        "affinity": sorted(os.sched_getaffinity(0)),
        "trio": trio.__version__,
        "msgspec": msgspec.__version__,
        "loadavg_1min_at_start": round(os.getloadavg()[0], 2),
    }
    try:
        for text in Path("/proc/cpuinfo").read_text().splitlines():
            if text.startswith("model name"):
                info["cpu"] = text.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    return info


def attribution(rows: dict[str, Row], c_rows: list[Row], parse_us: float) -> dict[str, Any]:
    """The C rows' marginal cost split into parts, from the other rows (µs per move)."""
    engine = rows[ENGINE_ROW].ref_cpu_us_per_move
    memory = rows[MEMORY_ROW]
    memory_us = (memory.marginal_us_per_move or memory.ref_cpu_us_per_move) - parse_us
    trip = rows[MEMORY_TRIP_ROW].ref_cpu_us_per_move - parse_us
    parts: dict[str, Any] = {
        "engine + codec (engine row)": engine,
        "trio: scheduler passes + the watchdog (in-memory round trip)": trip,
        "rest of the runner, gc included (in-memory play_match marginal - the two above)": (
            memory_us - engine - trip
        ),
    }
    for row in c_rows:
        if row.marginal_us_per_move is not None:
            parts[f"pipes, epoll, wake-ups: {row.name} marginal - in-memory play_match"] = (
                row.marginal_us_per_move - memory_us
            )
    return parts


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--hands", type=int, default=50, help="hands per match (default 50)")
    parser.add_argument("--matches", type=int, default=3, help="matches per row (default 3)")
    parser.add_argument(
        "--round-trips",
        type=int,
        default=ROUND_TRIPS,
        help=f"round trips per pipe row (default {ROUND_TRIPS})",
    )
    parser.add_argument(
        "--repeat",
        type=int,
        default=3,
        help="runs per row; the one with the least referee CPU is kept "
        "(default 3: the VM is shared and noisy)",
    )
    parser.add_argument(
        "--pin", type=int, metavar="CPU", help="run the referee and its bots on this one CPU"
    )
    parser.add_argument(
        "--skip-samples", action="store_true", help="no sample-bot rows (Python, node)"
    )
    parser.add_argument(
        "--breakdown", action="store_true", help="also time each stage of the engine + codec row"
    )
    parser.add_argument(
        "--profile",
        action="store_true",
        help="also profile C-bot matches (cProfile, and py-spy sampling if installed)",
    )
    parser.add_argument("--json", action="store_true", help="print one JSON document instead")
    parser.add_argument("--worker", choices=("c", "memory"), help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.hands < 1 or args.matches < 1 or args.repeat < 1:
        parser.error("--hands, --matches and --repeat must be at least 1")
    if args.pin is not None:
        _set_affinity_all_threads({args.pin})
    if args.worker is not None:
        return worker_main(args.worker, args.hands, args.matches)

    binary = build_c_bot()
    c_bots = c_commands(binary)
    python = shlex.quote(sys.executable)
    sample_rows: list[tuple[str, list[str]]] = [
        (
            "py random + py greedy",
            [
                f"{python} {shlex.quote(str(SAMPLE_BOTS / 'random_bot.py'))}",
                f"{python} {shlex.quote(str(SAMPLE_BOTS / 'greedy.py'))}",
            ],
        ),
    ]
    node = shutil.which("node")
    notes: list[str] = []
    if node is None:
        notes.append("node not found: no node row")
    else:
        js = f"{shlex.quote(node)} {shlex.quote(str(SAMPLE_BOTS / 'greedy.js'))}"
        sample_rows.append(("node greedy x2", [js, js]))

    play_matches(c_bots, 1, 1)  # warm-up: imports, lazily built codecs, page cache
    repeat = args.repeat
    name = "C instant x2" if args.pin is None else f"C instant x2, all on CPU {args.pin}"
    rows = [match_row(name, c_bots, args.matches, args.hands, repeat)]
    several_cpus = args.pin is None and len(os.sched_getaffinity(0)) > 1
    if several_cpus:
        with on_one_cpu():
            rows.append(match_row(PINNED_ROW, c_bots, args.matches, args.hands, repeat))
        rows.append(per_cpu_row(args.matches, args.hands, repeat))
    c_rows = list(rows)
    engine, engine_ratio = engine_row(args.matches, args.hands, repeat)
    rows.append(engine)
    trace = trace_games(args.matches, args.hands)
    requests = [t.request for t in trace.turns]
    parse_us = instant_reply_cost(requests)
    line = typical_request(requests)
    # Dropped before the next matches: thousands of live objects would slow the runner's own
    # gc.collect() at the start of every match.
    del trace
    memory = match_row(
        MEMORY_ROW, ["memory-bot"] * PLAYERS, args.matches, args.hands, repeat, connect_in_memory
    )
    memory.bots_cpu_us_per_move = None
    memory.note = f"no processes, no pipes; includes the bots' parsing ({parse_us:.1f} µs/move)"
    rows.append(memory)
    rows.extend(round_trip_rows(binary, line, args.round_trips, repeat, parse_us))
    minimal, ratio_minimal = minimal_ratio(binary, c_bots, line, args.matches, args.hands, repeat)
    rows.append(minimal)
    if not args.skip_samples:
        for label, commands in sample_rows:
            rows.append(match_row(label, commands, args.matches, args.hands, repeat))

    by_name = {r.name: r for r in rows}
    result: dict[str, Any] = {
        "benchmark": "referee_bench",
        "command": "python3 benchmarks/referee_bench.py "
        + shlex.join(sys.argv[1:] if argv is None else argv),
        "machine": machine(),
        "players": PLAYERS,
        "hands_per_match": args.hands,
        "time_limits_ms": asdict(TIME_LIMITS),
        "rows": [asdict(r) for r in rows],
        "target_us_per_move": TARGET_US,
        "c_rows": [
            {
                "name": r.name,
                "ref_cpu_us_per_move": r.ref_cpu_us_per_move,
                "marginal_us_per_move": r.marginal_us_per_move,
                "target_met": r.ref_cpu_us_per_move <= TARGET_US,
            }
            for r in c_rows
        ],
        "engine_us": by_name[ENGINE_ROW].ref_cpu_us_per_move,
        "bot_parse_us_per_move": parse_us,
        "attribution_us_per_move": attribution(by_name, c_rows, parse_us),
        "notes": notes,
        "ratio_engine_row_to_playouts": engine_ratio,
        "ratio_play_match_to_minimal": ratio_minimal,
    }
    if args.breakdown:
        from referee_stages import stage_breakdown

        stages = stage_breakdown(args.matches, args.hands, max(repeat, 3))
        result["engine_stages_us_per_move"] = stages
        floor = floor_ratios(engine_loop, args.matches, args.hands, SEED_BASE, max(repeat, 3))
        result["floor"] = floor
    if args.profile:
        from referee_profile import profile_c_match, pyspy_profile

        result["cprofile"] = profile_c_match(c_bots, args.hands, top=25)
        result["pyspy"] = pyspy_profile(args.hands, max(12, 4 * args.matches), rate=2500)

    if args.json:
        print(json.dumps(result, indent=2))
    else:
        print_report(result, rows, args)
    return 0


if __name__ == "__main__":
    sys.exit(main())
