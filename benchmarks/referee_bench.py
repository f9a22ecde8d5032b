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

The rows:

- ``C instant x2``: two copies of ``benchmarks/c_bot/instant_bot.c`` (built here with gcc into
  ``benchmarks/build/``), which answer every request at once with the first legal move. Nearly
  all the time is the referee's: this is the row the target is about.
- ``engine + codec only``: no processes, no trio: the same games (first legal move, so the same
  moves as the C row) driven synchronously through the calls the runner makes per move
  (``view``, ``move_request``, ``encode``, ``decode_from_bot``, ``move_from_wire``, the legal
  check, the ``Action`` record, ``Match.apply``) and per hand (``hand_start``/``hand_end``
  messages, the hand record, ``next_hand``).
- ``play_match, in-memory instant bots``: the real runner and trio, but the bots are objects in
  this process (`InstantMemoryBot`, answering like the C bot): no pipes, no epoll waits. Their
  own parsing (~1.5 µs/move) is measured apart and subtracted in the attribution.
- ``pipe round trip ...`` / ``in-memory round trip ...``: no engine: one instant bot answering
  the same request line (the median one of the C row's games) again and again, bare, with two
  fresh cancel scopes per move (``move_on_after`` around ``send_line``, ``move_on_at`` around
  ``receive_line``, as ``_MatchRunner._send``/``_receive`` do), or with one long-lived scope
  whose deadline is re-armed per move.
- ``what-if: lean runner``: not the arena's code: the C-bot match run by `_lean_match`, a
  runner with the suggested fixes (requests built incrementally by `HandWire`, one re-armed
  cancel scope, the hand state kept in a local, leaner per-hand work). Its requests are checked
  byte for byte against the arena's. It measures how far the fixes go, not a finished design.
- ``py random + py greedy`` and ``node greedy x2``: the sample bots (node only if installed).

The attribution printed under the table splits the C row's marginal cost into engine + codec,
trio (scheduler pass + scopes), the rest of the runner, and the pipes (C row minus in-memory).

``--breakdown`` adds CPU per move of each engine + codec stage, each timed in bulk over the C
row's positions with the collector off, plus a what-if: the same request lines built
incrementally instead of from ``view()`` + ``move_request()`` (checked byte for byte).
Bulk timings run hot in the caches: in a match the same code can cost more (the profile shows it).
``--profile`` runs a C-bot match under cProfile with a CPU timer (call counts and ranking: its
overhead inflates every call ~5x) and, if ``py-spy`` is installed (``pip install py-spy``),
samples matches with in-memory bots from outside the process and prints the share of samples
per category (view, move_request, scopes, per hand, ...) scaled to that run's measured CPU per
move. (py-spy on the C-bot matches is misleading here: see `pyspy_profile`.)

``--pin CPU`` runs the referee and its bots on one CPU (sched_setaffinity, inherited by the
bots): on these VMs a bot woken on the other vCPU costs ~70 µs of wall time per round trip
(/work/shared/FACTS.md), so wall times depend on where the scheduler puts things.

Usage::

    python3 benchmarks/referee_bench.py                      # 3 matches of 50 hands per row
    python3 benchmarks/referee_bench.py --hands 50 --matches 3 --json
    python3 benchmarks/referee_bench.py --breakdown --profile
    python3 benchmarks/referee_bench.py --pin 0

Target: the referee's CPU per move is at most 40 µs with the C bots.
"""

from __future__ import annotations

import argparse
import collections
import contextlib
import cProfile
import dataclasses
import functools
import gc
import json
import os
import platform
import pstats
import resource
import shlex
import shutil
import subprocess
import sys
import time
from collections.abc import AsyncIterator, Callable, Iterator
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
try:
    import arena  # noqa: F401
except ImportError:  # run from a checkout that was not pip-installed: use the repo root
    sys.path.insert(0, str(ROOT))

import msgspec  # noqa: E402
import trio  # noqa: E402

from arena.games.match import Match, MatchLength, start_match  # noqa: E402
from arena.games.registry import get_game  # noqa: E402
from arena.referee.channel import Connector  # noqa: E402
from arena.referee.clock import TimeLimits  # noqa: E402
from arena.referee.match import MatchConfig, play_match  # noqa: E402
from arena.referee.process import ExitStatus, open_bot_process  # noqa: E402
from arena.replay import Action, DealRecord, HandOutcomeRecord, HandRecord, Replay  # noqa: E402
from arena.wire import hand_end, hand_start, move_from_wire, move_request, move_to_wire  # noqa: E402
from protocol import messages as m  # noqa: E402
from protocol.codec import decode_from_bot, encode  # noqa: E402

TARGET_US = 40.0
TARGET_LINE = f"target: referee CPU per move <= {TARGET_US:.0f} µs with the C bots"

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


# -- measuring ----------------------------------------------------------------------------------


def cpu_self() -> float:
    """User + system CPU seconds of this process (all its threads), not of its children."""
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


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


def sys_self() -> float:
    """System CPU seconds of this process."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_stime


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
    row = Row(
        name=name,
        matches=long.matches,
        hands=long.hands,
        moves=long.moves,
        wall_s=long.wall_s,
        moves_per_s=long.moves / long.wall_s,
        ref_cpu_us_per_move=long.cpu_s / long.moves * 1e6,
        bots_cpu_us_per_move=long.child_cpu_s / long.moves * 1e6,
        ref_sys_us_per_move=long.sys_s / long.moves * 1e6,
        ref_gc_us_per_move=long.gc_s / long.moves * 1e6,
        gc_collections=long.gc_collections,
    )
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


# -- the engine + codec part alone ------------------------------------------------------------


def _reply_line(request_id: int, move: Any, cache: dict[Any, bytes]) -> bytes:
    """The bot's side (not the referee's): the reply to a request, built from a cache."""
    tail = cache.get(move)
    if tail is None:
        tail = cache[move] = msgspec.json.encode(move_to_wire(move)) + b"}"
    return b'{"type":"move","id":%d,"move":%b' % (request_id, tail)


def engine_loop(seed: int, hands: int, lines: list[bytes] | None = None) -> tuple[int, int]:
    """Plays one match in-process as the runner would with two first-legal-move bots.

    Per move it makes the calls ``_MatchRunner._turn`` makes, minus trio, the clock and the
    pipes; per hand the ``hand_start``/``hand_end`` messages, the hand record and
    ``next_hand``. Returns (hands, moves); ``lines`` collects the encoded requests when given.
    """
    config = match_config(seed, hands)
    match: Match = start_match(config.game, config.rules, PLAYERS, seed, config.length)
    cache: dict[Any, bytes] = {}
    request_id = 0
    moves = 0
    hand_records: list[HandRecord] = []
    while not match.over:
        hand = match.hand
        number = match.hand_number
        deal = hand.deal()
        leader: Any = hand.to_move
        for seat in range(PLAYERS):
            encode(hand_start(hand.view(seat), number, leader))
        events: list[Any] = []
        while match.hand.outcome() is None:
            hand = match.hand
            seat_no: Any = hand.to_move
            request_id += 1
            view = hand.view(seat_no)
            message = encode(move_request(view, request_id, number, 10_000, 0))
            reply = decode_from_bot(_reply_line(request_id, view.legal[0], cache))
            assert isinstance(reply, m.MoveReply)
            assert reply.id == request_id
            move = move_from_wire(reply.move)
            if move not in view.legal:
                raise AssertionError(f"illegal move {move}")
            events.append(
                Action(
                    seat=seat_no,
                    move=move_to_wire(move),
                    request_id=request_id,
                    time_left_ms=10_000,
                    elapsed_ms=0.01,
                    debug=reply.debug,
                )
            )
            match = match.apply(move)
            if lines is not None:
                lines.append(message)
            moves += 1
        hand_records.append(_hand_record(match, number, deal, leader, events))
        match = _end_hand(match, number)
    return len(hand_records), moves


def _hand(match: Match) -> Any:
    """The hand of ``match`` as the concrete engine state (Matador's extra methods)."""
    return match.hand


def _hand_record(match: Match, number: int, deal: Any, leader: Any, events: list[Any]) -> Any:
    outcome = match.hand.outcome()
    assert outcome is not None
    return HandRecord(
        hand_number=number,
        deal=DealRecord(hands=[list(h) for h in deal.hands], boneyard=list(deal.boneyard)),
        leader=leader,
        events=events,
        outcome=HandOutcomeRecord(
            kind=outcome.kind.value,
            winners=list(outcome.winners),
            award=list(outcome.award),
            scores=list(outcome.scores),
            pips=list(outcome.pips),
        ),
    )


def _end_hand(match: Match, number: int) -> Match:
    outcome = match.hand.outcome()
    assert outcome is not None
    final = match.hand
    hands_left = [list(final.view(s).hand) for s in range(PLAYERS)]
    encode(hand_end(outcome, number, hands_left, final.view(0).layout))
    return match.next_hand()


def engine_row(matches: int, hands: int, repeat: int) -> Row:
    best: Run | None = None
    for _ in range(repeat):
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
        if best is None or run.cpu_s < best.cpu_s:
            best = run
    assert best is not None
    return Row(
        name="engine + codec only (no processes, no trio)",
        matches=best.matches,
        hands=best.hands,
        moves=best.moves,
        wall_s=best.wall_s,
        moves_per_s=best.moves / best.wall_s,
        ref_cpu_us_per_move=best.cpu_s / best.moves * 1e6,
        note="same games as the C row (first legal move)",
    )


_END_CACHE: dict[tuple[str, int], m.End] = {}


class HandWire:
    """What-if (not the arena's code): one hand's public wire state, kept incrementally.

    History, layout, draws and passes grow by one step per move, so a request is built straight
    from the state in O(hand) list copies instead of rebuilding ``SeatView`` (a ``PublicEvent``
    per past move, the layout re-walked from the history) and then converting the whole
    history again in ``move_request()``. The requests are byte-for-byte the arena's.
    """

    __slots__ = ("draws", "history", "layout", "passes")

    def __init__(self) -> None:
        self.history: list[m.Event] = []
        self.layout: collections.deque[tuple[int, int]] = collections.deque()
        self.draws = [0] * PLAYERS
        self.passes = [0] * PLAYERS

    def request(
        self, state: Any, seat: int, request_id: int, number: int, time_left_ms: int, bank_ms: int
    ) -> m.MoveRequest:
        ends = []
        for end in state.ends:
            wire_end = _END_CACHE.get(end)
            if wire_end is None:
                wire_end = _END_CACHE[end] = m.End(position=end[0], value=end[1])
            ends.append(wire_end)
        return m.MoveRequest(
            id=request_id,
            hand_number=number,
            seat=seat,
            hand=list(state.hand_tiles(seat)),
            layout=list(self.layout),
            ends=ends,
            hand_counts=[h.bit_count() for h in state.hands],
            boneyard_size=state.boneyard_size,
            scores=list(state.scores),
            draws=self.draws,
            passes=self.passes,
            history=self.history,
            legal=[move_to_wire(mv) for mv in state.legal_moves()],
            time_left_ms=time_left_ms,
            bank_ms=bank_ms,
            retired=[],
        )

    def record(self, seat: int, move: Any, wire: m.WireMove) -> None:
        """After a move: O(1) updates instead of a rebuild at the next request."""
        self.history.append(m.Event(seat=seat, move=wire))
        kind = move.kind
        if kind == "draw":
            self.draws[seat] += 1
        elif kind == "pass":
            self.passes[seat] += 1
        else:
            a, b = move.tile
            other = a + b - move.out
            if move.end is None:
                self.layout.append((a, b))
            elif move.end == "left":
                self.layout.appendleft((move.out, other))
            else:
                self.layout.append((other, move.out))


def lean_requests(items: list[tuple[Any, int, int, int, Any, bool]]) -> list[bytes]:
    """The request lines of ``items`` built with `HandWire` (the what-if of ``--breakdown``).

    ``items`` are (state, seat, request id, hand number, move made, first of its hand) in
    play order.
    """
    out = []
    wire = HandWire()
    for state, seat, request_id, number, move, first in items:
        if first:
            wire = HandWire()
        out.append(encode(wire.request(state, seat, request_id, number, 10_000, 0)))
        wire.record(seat, move, move_to_wire(move))
    return out


def stage_breakdown(matches: int, hands: int, repeat: int) -> dict[str, float]:
    """CPU µs per move of each stage of the engine + codec loop, each timed in bulk.

    The positions of the C row's games are collected first; then each stage runs over all of
    them in one loop between two ``getrusage`` readings (best of ``repeat``), so no timer runs
    inside the loop, and with the garbage collector off (the collected inputs are thousands of
    live objects that would make every collection slow; the runner's real gc cost is the
    ``(gc)`` column of the match rows). Per-hand work is divided by the moves too.
    """
    game_positions: list[tuple[Match, int, int]] = []  # (match, seat, request id) per move
    hand_ends: list[tuple[Match, int]] = []
    hand_starts: list[Match] = []
    for i in range(matches):
        config = match_config(SEED_BASE + i, hands)
        match = start_match(config.game, config.rules, PLAYERS, SEED_BASE + i, config.length)
        request_id = 0
        while not match.over:
            hand_starts.append(match)
            while match.hand.outcome() is None:
                request_id += 1
                seat: Any = match.hand.to_move
                game_positions.append((match, seat, request_id))
                match = match.apply(match.hand.legal_moves()[0])
            hand_ends.append((match, match.hand_number))
            match = match.next_hand()
    moves = len(game_positions)
    states = [(mt.hand, seat) for mt, seat, _ in game_positions]
    lean_items = [
        (mt.hand, seat, rid, mt.hand_number, mt.hand.legal_moves()[0], not _hand(mt).history())
        for mt, seat, rid in game_positions
    ]
    views = [state.view(seat) for state, seat in states]
    requests = [
        move_request(v, rid, mt.hand_number, 10_000, 0)
        for v, (mt, _, rid) in zip(views, game_positions, strict=True)
    ]
    cache: dict[Any, bytes] = {}
    lines = [
        _reply_line(rid, v.legal[0], cache)
        for v, (_, _, rid) in zip(views, game_positions, strict=True)
    ]
    replies = [decode_from_bot(line) for line in lines]
    engine_moves = [v.legal[0] for v in views]
    pairs = list(zip(views, replies, strict=True))
    applies = [(mt, mv) for (mt, _, _), mv in zip(game_positions, engine_moves, strict=True)]
    state_applies = [(mt.hand, mv) for mt, mv in applies]
    action_args = [
        (seat, mv, rid) for (_, seat, rid), mv in zip(game_positions, engine_moves, strict=True)
    ]
    matches_only = [mt for mt, _, _ in game_positions]

    def hand_start_work() -> None:
        for mt in hand_starts:
            hand = mt.hand
            hand.deal()
            for seat in range(PLAYERS):
                encode(hand_start(hand.view(seat), mt.hand_number, _hand(mt).to_move))

    def hand_end_work() -> None:
        for mt, number in hand_ends:
            _hand_record(mt, number, mt.hand.deal(), 0, [])
            _end_hand(mt, number)

    real_lines = [encode(r) for r in requests]
    if lean_requests(lean_items) != real_lines:
        raise AssertionError("the what-if request builder does not reproduce the real requests")
    stages: dict[str, Callable[[], Any]] = {
        "hand.view(seat)": lambda: [st.view(seat) for st, seat in states],
        "move_request()": lambda: [move_request(v, 1, 1, 10_000, 0) for v in views],
        "encode(request)": lambda: [encode(r) for r in requests],
        "decode_from_bot(reply)": lambda: [decode_from_bot(line) for line in lines],
        "move_from_wire + legal check": lambda: [
            move_from_wire(r.move) in v.legal  # type: ignore[union-attr]
            for v, r in pairs
        ],
        "Action record (move_to_wire)": lambda: [
            Action(
                seat=s,
                move=move_to_wire(mv),
                request_id=rid,
                time_left_ms=10_000,
                elapsed_ms=0.01,
                debug=None,
            )
            for s, mv, rid in action_args
        ],
        "match.apply(move)": lambda: [mt.apply(mv) for mt, mv in applies],
        "  of which state.apply(move)": lambda: [st.apply(mv) for st, mv in state_applies],
        "match.hand.outcome()": lambda: [mt.hand.outcome() for mt in matches_only],
        "per hand: deal + 2 hand_start": hand_start_work,
        "per hand: record + hand_end + next_hand": hand_end_work,
        " what-if: view + move_request + encode, built incrementally": lambda: lean_requests(
            lean_items
        ),
    }
    result: dict[str, float] = {}
    for name, work in stages.items():
        best = float("inf")
        for _ in range(repeat):
            gc.collect()
            gc.disable()  # the inputs are thousands of live objects: no collections inside
            try:
                c0 = cpu_self()
                work()
                best = min(best, cpu_self() - c0)
            finally:
                gc.enable()
        result[name] = best / moves * 1e6
    return result


# -- the runner with in-memory bots ------------------------------------------------------------


def instant_reply(line: bytes) -> bytes | None:
    """What instant_bot.c answers to ``line`` (same shortcuts), or None for no answer."""
    if line.startswith(b'{"type":"request"'):
        start = line.index(b'"id":') + 5
        request_id = line[start : line.index(b",", start)]
        legal = line.index(b'"legal":[')
        open_ = line.index(b"{", legal)
        close = line.index(b"}", open_)
        return b'{"type":"move","id":' + request_id + b',"move":' + line[open_ : close + 1] + b"}"
    if line.startswith(b'{"type":"hello"'):
        return b'{"type":"ready","name":"instant-mem"}'
    return None


class InstantMemoryBot:
    """A `BotChannel` in this process that answers like instant_bot.c, with no pipes.

    ``receive_line`` passes through the trio scheduler once, as ``BotProcess.receive_line``
    does when a line is already buffered; ``send_line`` only checks for cancellation, as
    ``BotProcess.send_line`` does when the pipe has room.
    """

    def __init__(self) -> None:
        self._pending: collections.deque[bytes] = collections.deque()
        self._exit = ExitStatus(None, None)

    async def send_line(self, line: bytes) -> None:
        await trio.lowlevel.checkpoint_if_cancelled()
        reply = instant_reply(line)
        if reply is not None:
            self._pending.append(reply)
        elif line.startswith((b'{"type":"match_end"', b'{"type":"error"')):
            self._exit = ExitStatus(0, None)

    async def receive_line(self) -> bytes:
        await trio.lowlevel.checkpoint_if_cancelled()
        if not self._pending:
            await trio.sleep_forever()
        await trio.lowlevel.cancel_shielded_checkpoint()
        return self._pending.popleft()

    def poll_line_nowait(self) -> bytes | None:
        return self._pending.popleft() if self._pending else None

    def stderr_text(self) -> str:
        return ""

    def stderr_tail(self, max_chars: int = 2000) -> str:
        return ""

    def exit_status(self) -> ExitStatus:
        return self._exit

    async def wait_exit(self) -> ExitStatus:
        if self._exit.running:
            await trio.sleep_forever()
        return self._exit

    async def aclose(self) -> None:
        if self._exit.running:
            self._exit = ExitStatus(-9, 9)


@contextlib.asynccontextmanager
async def _connect_in_memory(command: str) -> AsyncIterator[InstantMemoryBot]:
    bot = InstantMemoryBot()
    try:
        yield bot
    finally:
        await bot.aclose()


def instant_reply_cost(matches: int, hands: int) -> float:
    """CPU µs per move of ``instant_reply`` (the in-memory bots' share of their row)."""
    lines: list[bytes] = []
    for i in range(matches):
        engine_loop(SEED_BASE + i, hands, lines=lines)
    best = float("inf")
    for _ in range(3):
        c0 = cpu_self()
        for line in lines:
            instant_reply(line)
        best = min(best, cpu_self() - c0)
    return best / len(lines) * 1e6


# -- pipe round trips alone ----------------------------------------------------------------------


# -- what-if: a lean runner ----------------------------------------------------------------------


async def _lean_match(
    binary: str, seed: int, hands: int, lines: list[bytes] | None = None
) -> tuple[int, int]:
    """What-if (not the arena's code): one match against C bots, run the lean way.

    The same protocol, engine and checks as ``_MatchRunner`` on the success path (request,
    reply decoded strictly, id and legality checked, clock measured, ``Action`` and hand records
    kept, ``hand_start``/``hand_end`` sent), but with the measured fixes applied: requests from
    `HandWire`; one long-lived cancel scope re-armed per move instead of two fresh ones; the
    hand state kept in a local (``state.apply``) and put back in the ``Match`` once per hand;
    ``hand_end`` from ``hand_tiles``/``layout`` instead of full views. Failures are not handled
    (a bot failure would raise). Returns (hands, moves).
    """
    config = match_config(seed, hands)
    now = trio.current_time
    async with contextlib.AsyncExitStack() as stack:
        bots = [await stack.enter_async_context(open_bot_process([binary])) for _ in range(PLAYERS)]
        for bot in bots:
            await bot.send_line(b'{"type":"hello"}')
        for bot in bots:
            await bot.receive_line()
        gc.collect()
        gc.freeze()
        try:
            match = start_match(config.game, config.rules, PLAYERS, seed, config.length)
            request_id = 0
            moves = 0
            records: list[HandRecord] = []
            allowance = TIME_LIMITS.move_ms / 1000
            with trio.CancelScope() as scope:
                while not match.over:
                    state: Any = match.hand
                    number = match.hand_number
                    deal = state.deal()
                    leader: Any = state.to_move
                    for seat_no, bot in enumerate(bots):
                        scope.deadline = now() + 5.0
                        message = encode(hand_start(state.view(seat_no), number, leader))
                        await bot.send_line(message)
                    wire = HandWire()
                    events: list[Any] = []
                    while state.outcome() is None:
                        seat = state.to_move
                        bot = bots[seat]
                        request_id += 1
                        line = encode(
                            wire.request(state, seat, request_id, number, TIME_LIMITS.move_ms, 0)
                        )
                        if lines is not None:
                            lines.append(line)
                        started = now()
                        scope.deadline = started + allowance
                        await bot.send_line(line)
                        reply = decode_from_bot(await bot.receive_line())
                        elapsed = now() - started
                        if not isinstance(reply, m.MoveReply) or reply.id != request_id:
                            raise RuntimeError(f"bad reply {reply!r}")
                        move = move_from_wire(reply.move)
                        if move not in state.legal_moves():
                            raise RuntimeError(f"illegal move {move}")
                        wired = move_to_wire(move)
                        events.append(
                            Action(
                                seat=seat,
                                move=wired,
                                request_id=request_id,
                                time_left_ms=TIME_LIMITS.move_ms,
                                elapsed_ms=round(elapsed * 1000, 3),
                                debug=reply.debug,
                            )
                        )
                        wire.record(seat, move, wired)
                        state = state.apply(move)
                        moves += 1
                    match = dataclasses.replace(match, hand=state)
                    records.append(_hand_record(match, number, deal, leader, events))
                    outcome = state.outcome()
                    assert outcome is not None
                    hands_left = [list(state.hand_tiles(s)) for s in range(PLAYERS)]
                    message = encode(hand_end(outcome, number, hands_left, state.layout()))
                    match = match.next_hand()
                    for bot in bots:
                        scope.deadline = now() + 5.0
                        await bot.send_line(message)
        finally:
            gc.unfreeze()
        for bot in bots:
            await bot.send_line(b'{"type":"match_end"}')
        for bot in bots:
            with trio.move_on_after(0.5):
                await bot.wait_exit()
    return len(records), moves


def _lean_run(binary: str, matches: int, hands: int) -> Run:
    run = Run()
    for i in range(matches):
        gc.collect()
        w0, c0, k0, s0 = time.perf_counter(), cpu_self(), cpu_children(), sys_self()
        played, moves = trio.run(_lean_match, binary, SEED_BASE + i, hands)
        run.wall_s += time.perf_counter() - w0
        run.cpu_s += cpu_self() - c0
        run.sys_s += sys_self() - s0
        run.child_cpu_s += cpu_children() - k0
        run.matches += 1
        run.hands += played
        run.moves += moves
    return run


def lean_row(binary: Path, matches: int, hands: int, repeat: int) -> Row:
    """The lean runner's row, split into marginal and fixed cost like `match_row`."""
    # Its requests must be the arena's, byte for byte (same games, same ids).
    mine: list[bytes] = []
    trio.run(_lean_match, str(binary), SEED_BASE, min(hands, 5), mine)
    theirs: list[bytes] = []
    engine_loop(SEED_BASE, min(hands, 5), lines=theirs)
    if mine != theirs:
        raise AssertionError("the lean runner's requests differ from the arena's")
    long = min((_lean_run(str(binary), matches, hands) for _ in range(repeat)), key=_cpu)
    row = Row(
        name="what-if: lean runner, C instant x2",
        matches=long.matches,
        hands=long.hands,
        moves=long.moves,
        wall_s=long.wall_s,
        moves_per_s=long.moves / long.wall_s,
        ref_cpu_us_per_move=long.cpu_s / long.moves * 1e6,
        bots_cpu_us_per_move=long.child_cpu_s / long.moves * 1e6,
        ref_sys_us_per_move=long.sys_s / long.moves * 1e6,
        note="not the arena's runner: the suggested fixes, measured",
    )
    if hands > 1:
        short = min((_lean_run(str(binary), matches, 1) for _ in range(repeat)), key=_cpu)
        if long.moves > short.moves:
            per_move = (long.cpu_s - short.cpu_s) / (long.moves - short.moves)
            row.marginal_us_per_move = per_move * 1e6
            row.fixed_ms_per_match = (short.cpu_s - per_move * short.moves) / matches * 1e3
    return row


def _cpu(run: Run) -> float:
    return run.cpu_s


def typical_request(hands: int) -> bytes:
    """The median-length request line of the first C-row match (a realistic payload)."""
    lines: list[bytes] = []
    engine_loop(SEED_BASE, min(hands, 10), lines=lines)
    return sorted(lines, key=len)[len(lines) // 2]


async def _round_trips(
    binary: str, line: bytes, n: int, mode: str, transport: str
) -> tuple[float, float, float]:
    """(wall s, referee CPU s, of which system s) of ``n`` round trips with one instant bot:
    the C bot behind pipes (``transport="pipe"``) or `InstantMemoryBot`."""
    async with contextlib.AsyncExitStack() as stack:
        if transport == "pipe":
            bot: Any = await stack.enter_async_context(open_bot_process([binary]))
        else:
            bot = InstantMemoryBot()
        await bot.send_line(b'{"type":"hello"}')
        await bot.receive_line()
        send, receive = bot.send_line, bot.receive_line
        for _ in range(200):  # warm-up
            await send(line)
            await receive()
        gc.collect()
        w0, c0, s0 = time.perf_counter(), cpu_self(), sys_self()
        if mode == "bare":
            for _ in range(n):
                await send(line)
                await receive()
        elif mode == "fresh":  # what _MatchRunner._send / _receive do per move
            now = trio.current_time
            for _ in range(n):
                deadline = now() + 10.0
                with trio.move_on_after(deadline - now()):
                    await send(line)
                with trio.move_on_at(deadline):
                    await receive()
        elif mode == "rearm":  # one long-lived scope, its deadline moved per move
            now = trio.current_time
            with trio.CancelScope() as scope:
                for _ in range(n):
                    scope.deadline = now() + 10.0
                    await send(line)
                    await receive()
        else:
            raise ValueError(mode)
        w1, c1, s1 = time.perf_counter(), cpu_self(), sys_self()
        await send(b'{"type":"match_end"}')
    return w1 - w0, c1 - c0, s1 - s0


ROUND_TRIP_ROWS = (
    ("pipe", "bare", "pipe round trip, bare (no engine)"),
    ("pipe", "fresh", "pipe round trip + 2 fresh cancel scopes"),
    ("pipe", "rearm", "pipe round trip + 1 re-armed scope"),
    ("memory", "bare", "in-memory round trip, bare"),
    ("memory", "fresh", "in-memory round trip + 2 fresh scopes"),
    ("memory", "rearm", "in-memory round trip + 1 re-armed scope"),
)


def round_trip_rows(binary: Path, line: bytes, n: int, repeat: int, parse_us: float) -> list[Row]:
    rows = []
    for transport, mode, label in ROUND_TRIP_ROWS:
        wall, cpu, sys_s = min(
            (trio.run(_round_trips, str(binary), line, n, mode, transport) for _ in range(repeat)),
            key=lambda wc: wc[1],
        )
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


def profile_c_match(commands: list[str], hands: int, top: int) -> dict[str, Any]:
    """One C-bot match under cProfile: the top functions by own time, in µs per move."""
    config = match_config(SEED_BASE, hands)
    # A CPU-time timer: with the default wall-clock timer, an os.write that wakes a bot and is
    # preempted by it looks like hundreds of µs spent in write().
    profiler = cProfile.Profile(time.thread_time)
    gc.collect()
    profiler.enable()
    replay = trio.run(play_match, config, commands)
    profiler.disable()
    moves = count_moves(replay)
    stats = pstats.Stats(profiler)
    rows = []
    for (filename, line, func), (_cc, nc, tt, ct, _callers) in stats.stats.items():  # type: ignore[attr-defined]
        short = filename
        for prefix in (str(ROOT) + "/", str(Path(trio.__file__).parent.parent) + "/"):
            if short.startswith(prefix):
                short = short[len(prefix) :]
        rows.append(
            {
                "function": f"{short}:{line}({func})",
                "calls_per_move": nc / moves,
                "own_us_per_move": tt / moves * 1e6,
                "cum_us_per_move": ct / moves * 1e6,
            }
        )
    total = sum(r["own_us_per_move"] for r in rows)
    by_own = sorted(rows, key=lambda r: -r["own_us_per_move"])[:top]
    interesting = (
        "_turn",
        "move_request",
        "view",
        "encode",
        "decode_from_bot",
        "_send",
        "_receive",
        "send_line",
        "receive_line",
        "apply",
        "__enter__",
        "__exit__",
        "move_on_at",
        "move_on_after",
        "_decode",
        "move_from_wire",
        "wait_readable",
        "run_once",
        "get_events",
        "process_events",
        "_notify",
        "hand_start",
    )
    by_cum = sorted(
        (
            r
            for r in rows
            if r["cum_us_per_move"] >= 1.0
            and any(r["function"].endswith(f"({name})") for name in interesting)
        ),
        key=lambda r: -r["cum_us_per_move"],
    )
    return {"moves": moves, "total_us_per_move": total, "by_own": by_own, "by_cum": by_cum}


#: Categories of the py-spy samples taken inside ``_MatchRunner._turn``: the first frame under
#: ``_turn`` (or under ``_send``/``_receive``) decides. (function, file suffix) -> category.
_TURN_RULES = {
    ("MatadorState.view", "matador.py"): "state.view() -> SeatView",
    ("move_request", "wire.py"): "wire.move_request() (message build)",
    ("encode", "codec.py"): "msgspec encode",
    ("_MatchRunner._decode", "match.py"): "decode reply + move_from_wire",
    ("move_from_wire", "wire.py"): "decode reply + move_from_wire",
    ("Match.apply", "match.py"): "Match.apply (dataclasses.replace + state.apply)",
    ("current_time", "_generated_run.py"): "trio.current_time x3, SeatClock",
    ("SeatClock.time_left_ms", "clock.py"): "trio.current_time x3, SeatClock",
    ("SeatClock.allowance_s", "clock.py"): "trio.current_time x3, SeatClock",
    ("SeatClock.bank_ms", "clock.py"): "trio.current_time x3, SeatClock",
    ("SeatClock.charge", "clock.py"): "trio.current_time x3, SeatClock",
    ("move_to_wire", "wire.py"): "_turn own code (Action record, checks)",
}
_SCOPE_FUNCS = {
    "CancelScope.__enter__",
    "CancelScope.__exit__",
    "CancelScope._close",
    "move_on_after",
    "move_on_at",
    "CancelScope.__init__",
    "__init__",
}
_IO_FUNCS = {
    "BotProcess.send_line": "pipe I/O: send_line (os.write)",
    "BotProcess.receive_line": "pipe I/O: receive_line (os.read, framing)",
    "BotProcess.poll_line_nowait": "pipe I/O: receive_line (os.read, framing)",
    "InstantMemoryBot.send_line": "the in-memory bots' own work (not the referee's)",
    "InstantMemoryBot.receive_line": "in-memory receive_line (one scheduler checkpoint)",
}


def _parse_frame(text: str) -> tuple[str, str]:
    name, _, where = text.rpartition(" (")
    return name, where.rstrip(")").rsplit(":", 1)[0]


def _categorise(frames: list[tuple[str, str]]) -> str:
    names = [name for name, _ in frames]
    if "_MatchRunner._turn" in names:
        i = names.index("_MatchRunner._turn")
        rest = frames[i + 1 :]
        if not rest:
            return "_turn own code (Action record, checks)"
        name, file = rest[0]
        if name in ("_MatchRunner._send", "_MatchRunner._receive"):
            inner = rest[1:]
            if not inner:
                return "_send/_receive own code"
            inner_name, inner_file = inner[0]
            if inner_name in _SCOPE_FUNCS and "trio" in inner_file:
                return "trio cancel scopes (2 fresh per move)"
            if inner_name in _IO_FUNCS:
                return _IO_FUNCS[inner_name]
            return f"other under {name}: {inner_name}"
        for (rule_name, suffix), category in _TURN_RULES.items():
            if name == rule_name and file.endswith(suffix):
                return category
        return f"other under _turn: {name}"
    if "_MatchRunner._play" in names:
        return "per hand: deal, hand_start/hand_end, records, next_hand, notify"
    if "_MatchRunner._start_bots" in names or "_MatchRunner._finish" in names:
        return "start-up and end of match (spawn, hello, match_end, exit)"
    if names[-1] == "_MatchRunner.run":
        return "_MatchRunner.run own code (gc.collect() before gc.freeze(), replay)"
    if "_MatchRunner.run" in names or "play_match" in names:
        return "match set-up, replay, bot shutdown"
    if any(name.endswith("_drain_stderr") for name in names):
        return "stderr drain tasks"
    if "unrolled_run" in names:
        return "trio scheduler and epoll (between tasks)"
    # A truncated stack: the outermost frame that names a category decides.
    for name, file in frames:
        if name in _IO_FUNCS:
            return _IO_FUNCS[name]
        if "trio" in file and (
            name in _SCOPE_FUNCS
            or "_might_change_registered_deadline" in name
            or name.startswith(("CancelStatus", "Deadlines"))
        ):
            return "trio cancel scopes (2 fresh per move)"
        if name in ("cancel_shielded_checkpoint", "checkpoint_if_cancelled"):
            return "trio scheduler and epoll (between tasks)"
        if name in ("_MatchRunner._send", "_MatchRunner._receive"):
            return "_send/_receive own code"
        for (rule_name, suffix), category in _TURN_RULES.items():
            if name == rule_name and file.endswith(suffix):
                return category
        if name.startswith("MatadorState.view"):
            return "state.view() -> SeatView"
        if name.startswith("move_request"):
            return "wire.move_request() (message build)"
    return "unattributed (truncated stacks)"


def pyspy_profile(hands: int, matches: int, rate: int) -> dict[str, Any] | None:
    """Samples matches with in-memory instant bots from outside with py-spy; returns the
    categories in µs per move.

    The matches run in a child interpreter (``--profile-target``) that reports its own CPU
    per move; each category's share of the samples taken inside ``trio.run`` is scaled to it.
    py-spy reads the interpreter's memory from outside, so the profiled code runs at full
    speed. It samples a thread while it is runnable, not only while it runs: with real pipes,
    each ``os.write`` that wakes a bot often preempts the referee, and the samples then pile up
    on ``send_line`` (from 3% to 73% between two runs here). With in-memory bots there is no
    such wake-up, so the shares are CPU shares; the pipes' own cost is the difference between
    the C row and the in-memory row.
    """
    spy = shutil.which("py-spy")
    if spy is None:
        return None
    BUILD_DIR.mkdir(parents=True, exist_ok=True)
    raw = BUILD_DIR / "referee_pyspy.txt"
    argv = [
        spy, "record", "--nonblocking", "--rate", str(rate), "--format", "raw",
        "--output", str(raw), "--",
        sys.executable, str(Path(__file__).resolve()),
        "--profile-target", "--hands", str(hands), "--matches", str(matches),
    ]  # fmt: skip
    done = subprocess.run(argv, capture_output=True, text=True, check=False)
    if done.returncode != 0 or not raw.exists():
        return {"error": f"py-spy failed ({done.returncode}): {done.stderr.strip()[-500:]}"}
    # py-spy writes its own "py-spy>" lines to the same stdout: take the target's JSON line.
    target = json.loads([t for t in done.stdout.splitlines() if t.startswith("{")][-1])
    counts: dict[str, int] = {}
    for text in raw.read_text().splitlines():
        stack, _, count = text.rpartition(" ")
        if not stack.strip():
            continue  # py-spy could not read the stack at all
        frames = [_parse_frame(f) for f in stack.split(";")]
        in_trio = any(
            name in ("run", "unrolled_run") and file.endswith("_run.py") for name, file in frames
        )
        if not in_trio and frames[0][0] == "<module>":
            continue  # outside trio.run: imports and the benchmark's own set-up
        # Non-blocking sampling sometimes reads a truncated stack (no root frames): those are
        # categorised by the frames they do have.
        category = _categorise(frames)
        counts[category] = counts.get(category, 0) + int(count)
    total = sum(counts.values())
    per_move = target["cpu_us_per_move"]
    categories = {
        name: {"samples": n, "share": n / total, "us_per_move": n / total * per_move}
        for name, n in sorted(counts.items(), key=lambda kv: -kv[1])
    }
    return {
        "moves": target["moves"],
        "cpu_us_per_move": per_move,
        "samples": total,
        "rate_hz": rate,
        "categories": categories,
    }


def profile_target(hands: int, matches: int) -> int:
    """Child mode of ``--profile``: plays in-memory matches, prints its CPU per move as JSON."""
    bots = ["memory-bot"] * PLAYERS
    play_matches(bots, 1, 1, _connect_in_memory)  # warm-up
    run = play_matches(bots, matches, hands, _connect_in_memory)
    print(json.dumps({"moves": run.moves, "cpu_us_per_move": run.cpu_s / run.moves * 1e6}))
    return 0


# -- output --------------------------------------------------------------------------------------


def fmt(value: float | None, spec: str) -> str:
    return "-" if value is None else format(value, spec)


def print_table(rows: list[Row]) -> None:
    header = (
        f"{'row':<44} {'matches':>7} {'hands':>5} {'moves':>6} {'wall s':>6} {'moves/s':>7} "
        f"{'ref CPU µs/move':>15} {'(sys)':>5} {'(gc)':>5} {'marginal':>8} "
        f"{'fixed ms':>8} {'(wall)':>6} {'bots µs/move':>12}"
    )
    print(header)
    print("-" * len(header))
    for r in rows:
        print(
            f"{r.name:<44} {r.matches:>7} {r.hands:>5} {r.moves:>6} {r.wall_s:>6.2f} "
            f"{r.moves_per_s:>7.0f} {r.ref_cpu_us_per_move:>15.1f} "
            f"{fmt(r.ref_sys_us_per_move, '.1f'):>5} {fmt(r.ref_gc_us_per_move, '.1f'):>5} "
            f"{fmt(r.marginal_us_per_move, '.1f'):>8} {fmt(r.fixed_ms_per_match, '.1f'):>8} "
            f"{fmt(r.fixed_wall_ms_per_match, '.0f'):>6} "
            f"{fmt(r.bots_cpu_us_per_move, '.1f'):>12}"
        )


def machine() -> dict[str, Any]:
    info: dict[str, Any] = {
        "python": platform.python_version(),
        "implementation": platform.python_implementation(),
        "platform": platform.platform(),
        "cpus": os.cpu_count(),
        "affinity": sorted(os.sched_getaffinity(0)),
        "trio": trio.__version__,
        "loadavg_1min_at_start": round(os.getloadavg()[0], 2),
    }
    try:
        import msgspec

        info["msgspec"] = msgspec.__version__
    except ImportError:  # pragma: no cover
        pass
    try:
        for text in Path("/proc/cpuinfo").read_text().splitlines():
            if text.startswith("model name"):
                info["cpu"] = text.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    return info


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
        "--skip-samples", action="store_true", help="only the C, engine and pipe rows"
    )
    parser.add_argument(
        "--breakdown", action="store_true", help="also time each stage of the engine + codec loop"
    )
    parser.add_argument(
        "--profile",
        action="store_true",
        help="also profile C-bot matches (cProfile, and py-spy sampling if installed)",
    )
    parser.add_argument("--json", action="store_true", help="print one JSON document instead")
    parser.add_argument("--profile-target", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.hands < 1 or args.matches < 1 or args.repeat < 1:
        parser.error("--hands, --matches and --repeat must be at least 1")
    if args.pin is not None:
        _set_affinity_all_threads({args.pin})
    if args.profile_target:
        return profile_target(args.hands, args.matches)

    binary = build_c_bot()
    c_commands = [shlex.quote(str(binary))] * PLAYERS
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

    play_matches(c_commands, 1, 1)  # warm-up: imports, lazily built codecs, page cache
    repeat = args.repeat
    rows = [match_row("C instant x2", c_commands, args.matches, args.hands, repeat)]
    pin_rows = args.pin is None and len(os.sched_getaffinity(0)) > 1
    if pin_rows:
        with on_one_cpu():
            rows.append(
                match_row("C instant x2, all on one CPU", c_commands, args.matches, args.hands,
                          repeat)
            )  # fmt: skip
    rows.append(engine_row(args.matches, args.hands, repeat))
    parse_us = instant_reply_cost(args.matches, args.hands)
    memory = match_row(
        "play_match, in-memory instant bots",
        ["memory-bot"] * PLAYERS,
        args.matches,
        args.hands,
        repeat,
        connect=_connect_in_memory,
    )
    memory.bots_cpu_us_per_move = None
    memory.note = f"no processes, no pipes; includes the bots' parsing ({parse_us:.1f} µs/move)"
    rows.append(memory)
    rows.append(lean_row(binary, args.matches, args.hands, repeat))
    if pin_rows:
        with on_one_cpu():
            row = lean_row(binary, args.matches, args.hands, repeat)
        row.name = "what-if: lean runner, all on one CPU"
        rows.append(row)
    line = typical_request(args.hands)
    rows.extend(round_trip_rows(binary, line, args.round_trips, repeat, parse_us))
    if not args.skip_samples:
        for name, commands in sample_rows:
            rows.append(match_row(name, commands, args.matches, args.hands, repeat))

    c_row = rows[0]
    verdict = "met" if c_row.ref_cpu_us_per_move <= TARGET_US else "NOT met"
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
        "c_ref_cpu_us_per_move": c_row.ref_cpu_us_per_move,
        "target_met": c_row.ref_cpu_us_per_move <= TARGET_US,
        "notes": notes,
    }
    by_name = {r.name: r for r in rows}
    engine = by_name.get("engine + codec only (no processes, no trio)")
    memory_row = by_name.get("play_match, in-memory instant bots")
    mem_trip = by_name.get("in-memory round trip + 2 fresh scopes")
    if engine and memory_row and mem_trip and c_row.marginal_us_per_move is not None:
        trip = mem_trip.ref_cpu_us_per_move - parse_us
        mem_marginal = memory_row.marginal_us_per_move or memory_row.ref_cpu_us_per_move
        glue = mem_marginal - parse_us - engine.ref_cpu_us_per_move - trip
        pipes = c_row.marginal_us_per_move - (mem_marginal - parse_us)
        result["attribution_us_per_move"] = {
            "engine + codec (engine row)": engine.ref_cpu_us_per_move,
            "trio: one scheduler pass + 2 fresh cancel scopes (in-memory round trip)": trip,
            "rest of the runner, gc included (in-memory play_match marginal - the two above)": glue,
            "pipes, epoll, wake-ups (C row marginal - in-memory play_match marginal)": pipes,
        }
    if args.breakdown:
        stages = stage_breakdown(args.matches, args.hands, max(repeat, 3))
        result["engine_stages_us_per_move"] = stages
    if args.profile:
        result["cprofile"] = profile_c_match(c_commands, args.hands, top=25)
        result["pyspy"] = pyspy_profile(args.hands, max(6, 2 * args.matches), rate=2500)

    if args.json:
        print(json.dumps(result, indent=2))
        return 0
    info = result["machine"]
    print(
        f"referee_bench: {PLAYERS} players, {args.matches} matches x {args.hands} hands per row, "
        f"Python {info['python']}, trio {info['trio']}, msgspec {info.get('msgspec')}, "
        f"{info['cpus']} CPUs ({info.get('cpu', '?')}), affinity {info['affinity']}"
    )
    print_table(rows)
    for note in notes:
        print(f"note: {note}")
    print(
        "columns: ref CPU = getrusage(SELF) user+sys / moves, (sys) its system part, (gc) CPU in "
        "gc collections; marginal µs/move and fixed ms/match: the CPU split with a second run of "
        "1-hand matches; (wall) = fixed wall ms per match; bots = RUSAGE_CHILDREN / moves"
    )
    print(TARGET_LINE)
    print(
        f"measured: {c_row.ref_cpu_us_per_move:.1f} µs/move with the C bots "
        f"(marginal {fmt(c_row.marginal_us_per_move, '.1f')} µs): target {verdict}"
    )
    if args.breakdown:
        print(
            "\nengine + codec stages, referee CPU µs per move (each stage timed in bulk over "
            "the C row's positions, best of runs):"
        )
        for name, us in stages.items():
            print(f"  {name:<60} {us:6.2f}")
        total = sum(us for name, us in stages.items() if not name.startswith(" "))
        # (entries starting with a blank are parts or alternatives, not summed)
        print(f"  {'sum of the stages':<60} {total:6.2f}")
    attribution = result.get("attribution_us_per_move")
    if attribution is not None:
        print(
            f"\nattribution of the C row's marginal {c_row.marginal_us_per_move:.1f} µs/move "
            f"(in-memory rows less their bots' parsing, {parse_us:.1f} µs):"
        )
        for name, us in attribution.items():
            print(f"  {us:6.1f}  {name}")
    if args.profile:
        prof = result["cprofile"]
        print(
            f"\ncProfile (thread CPU timer) of one C-bot match ({prof['moves']} moves; its "
            f"overhead inflates every call, total {prof['total_us_per_move']:.1f} µs/move: "
            f"for call counts and ranking only):"
        )
        print(f"  {'own µs/move':>11} {'cum µs/move':>11} {'calls/move':>10}  function")
        for r in prof["by_own"]:
            print(
                f"  {r['own_us_per_move']:>11.2f} {r['cum_us_per_move']:>11.2f} "
                f"{r['calls_per_move']:>10.2f}  {r['function']}"
            )
        print("\n  selected functions by cumulative time:")
        for r in prof["by_cum"]:
            print(
                f"  {r['own_us_per_move']:>11.2f} {r['cum_us_per_move']:>11.2f} "
                f"{r['calls_per_move']:>10.2f}  {r['function']}"
            )
        spy = result["pyspy"]
        if spy is None:
            print("\npy-spy not installed (pip install py-spy): no sampling profile")
        elif "error" in spy:
            print(f"\n{spy['error']}")
        else:
            print(
                f"\npy-spy sampling profile of play_match with in-memory instant bots, "
                f"{spy['moves']} moves ({spy['samples']} samples at {spy['rate_hz']} Hz; that "
                f"run's CPU {spy['cpu_us_per_move']:.1f} µs/move, split by share of samples; "
                f"pipes excluded, see the attribution):"
            )
            print(f"  {'µs/move':>7} {'share':>6}  category")
            for name, cat in spy["categories"].items():
                print(f"  {cat['us_per_move']:>7.1f} {cat['share']:>6.1%}  {name}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
