"""The referee's cost per move: whole matches through ``play_match``, real bot processes.

Each row plays ``--matches`` two-player matches of ``--hands`` hands (fixed seeds, generous
time limits) with :func:`arena.referee.match.play_match` under ``trio.run`` and reports:

- ``moves``: the ``Action`` events of the replays (every move a bot made, draws included);
- ``wall s`` and ``moves/s``: wall-clock time of the matches, start-up and shutdown included;
- ``ref CPU µs/move``: the referee process's own CPU (``getrusage(RUSAGE_SELF)``, user + sys,
  every thread of this process, so trio's spawn thread too) over the matches, divided by the
  moves. The bots are child processes and are not in it; their CPU (``RUSAGE_CHILDREN``,
  counted once they are reaped at the end of each match) is the ``bots µs/move`` column;
- ``marginal µs/move`` and ``fixed ms/match``: the same CPU split into a per-move part and a
  per-match part (start-up, shutdown, ``trio.run``) by a second run of one-hand matches with the
  same seeds: cost = fixed * matches + marginal * moves, solved from the two runs.

The rows:

- ``C instant x2``: two copies of ``benchmarks/c_bot/instant_bot.c`` (built here with gcc into
  ``benchmarks/build/``), which answer every request at once with the first legal move. Almost
  all the time is the referee's: this is the row the target is about.
- ``py random + py greedy`` and ``node greedy x2``: the sample bots (node only if installed).
- ``engine + codec only``: no processes and no trio: the same games (first legal move, so the
  same moves as the C row) driven synchronously through exactly the calls the runner makes per
  move (view, ``move_request``, ``encode``, ``decode_from_bot``, ``move_from_wire``, the legal
  check, the ``Action`` record, ``apply``) and per hand (``hand_start``/``hand_end`` messages,
  the hand record). What is left of the C row beyond it is trio, the pipes and the runner.
- ``pipe round trip, bare`` / ``+ 2 fresh cancel scopes`` / ``+ 1 re-armed scope``: no engine:
  one C bot behind ``open_bot_process`` answering the same request line (a typical one from the
  C row's games) again and again. The second variant wraps ``send_line`` in ``move_on_after``
  and ``receive_line`` in ``move_on_at`` as ``_MatchRunner._send``/``_receive`` do; the third
  re-arms the deadline of one long-lived scope per move instead.

``--breakdown`` adds the per-stage times of the engine + codec loop (``perf_counter_ns`` around
each stage, ~0.1 µs of timer overhead per stage included); ``--profile`` runs one C-bot match
under cProfile (and under pyinstrument when it is installed) and prints the top functions per
move. cProfile roughly doubles the cost of small Python calls: read it for ranking, and the
rows above for absolute figures.

``--pin CPU`` runs the referee and its bots on one CPU (sched_setaffinity, inherited by the
bots): on these VMs a bot woken on the other vCPU costs ~70 µs of wall time per round trip
(docs: /work/shared/FACTS.md), so the wall-time columns depend on where the scheduler puts
things; the referee's CPU per move barely does.

Usage::

    python3 benchmarks/referee_bench.py                      # 3 matches of 50 hands per row
    python3 benchmarks/referee_bench.py --hands 50 --matches 3 --json
    python3 benchmarks/referee_bench.py --breakdown --profile
    python3 benchmarks/referee_bench.py --pin 0

Target: the referee's CPU per move is at most 40 µs with the C bots.
"""

from __future__ import annotations

import argparse
import cProfile
import gc
import io
import json
import os
import platform
import pstats
import resource
import shlex
import shutil
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
try:
    import arena  # noqa: F401
except ImportError:  # run from a checkout that was not pip-installed: use the repo root
    sys.path.insert(0, str(ROOT))

import trio

from arena.games.match import Match, MatchLength, start_match
from arena.games.registry import get_game
from arena.referee.clock import TimeLimits
from arena.referee.match import MatchConfig, play_match
from arena.referee.process import open_bot_process
from arena.replay import Action, DealRecord, HandOutcomeRecord, HandRecord, Replay
from arena.wire import hand_end, hand_start, move_from_wire, move_request, move_to_wire
from protocol import messages as m
from protocol.codec import decode_from_bot, encode

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


# -- building the C bot -----------------------------------------------------------------------


def build_c_bot() -> Path:
    """Compiles ``instant_bot.c`` into ``benchmarks/build/`` (only when the source is newer)."""
    compiler = os.environ.get("CC") or shutil.which("gcc")
    if compiler is None or shutil.which(compiler) is None:
        sys.exit(
            "referee_bench: gcc not found: the C bot cannot be built. Install a C compiler "
            "(Debian: apt-get install -y gcc) or set CC to one."
        )
    if C_BINARY.exists() and C_BINARY.stat().st_mtime >= C_SOURCE.stat().st_mtime:
        return C_BINARY
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
    child_cpu_s: float = 0.0


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


def play_matches(commands: list[str], matches: int, hands: int) -> Run:
    """Plays ``matches`` matches of ``hands`` hands; fails loudly if any bot failed."""
    run = Run()
    for i in range(matches):
        config = match_config(SEED_BASE + i, hands)
        gc.collect()
        w0, c0, k0 = time.perf_counter(), cpu_self(), cpu_children()
        replay = trio.run(play_match, config, commands)
        w1, c1, k1 = time.perf_counter(), cpu_self(), cpu_children()
        failed = [f"seat {s.seat} ({s.command}): {s.status.value} {s.detail}"
                  for s in replay.seats if s.failure is not None]
        if failed:
            raise RuntimeError("a bot failed during the benchmark: " + "; ".join(failed))
        run.matches += 1
        run.hands += len(replay.hands)
        run.moves += count_moves(replay)
        run.wall_s += w1 - w0
        run.cpu_s += c1 - c0
        run.child_cpu_s += k1 - k0
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
    marginal_us_per_move: float | None = None
    fixed_ms_per_match: float | None = None
    fixed_wall_ms_per_match: float | None = None
    note: str = ""


def match_row(name: str, commands: list[str], matches: int, hands: int) -> Row:
    """A row of whole matches, with the per-match fixed cost from a run of one-hand matches."""
    long = play_matches(commands, matches, hands)
    row = Row(
        name=name,
        matches=long.matches,
        hands=long.hands,
        moves=long.moves,
        wall_s=long.wall_s,
        moves_per_s=long.moves / long.wall_s,
        ref_cpu_us_per_move=long.cpu_s / long.moves * 1e6,
        bots_cpu_us_per_move=long.child_cpu_s / long.moves * 1e6,
    )
    if hands > 1:
        short = play_matches(commands, matches, 1)
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

STAGES = ("view", "move_request", "encode", "decode", "from_wire+check", "Action", "apply",
          "per hand")


class _Stages:
    """Accumulates nanoseconds per stage (only when enabled: the plain row runs untimed)."""

    def __init__(self) -> None:
        self.ns = dict.fromkeys(STAGES, 0)


def engine_loop(
    seed: int, hands: int, stages: _Stages | None = None, lines: list[bytes] | None = None
) -> tuple[int, int]:
    """Plays one match in-process as the runner would with two first-legal-move bots.

    Returns (hands, moves). ``lines`` collects the encoded requests when given.
    """
    config = match_config(seed, hands)
    match: Match = start_match(config.game, config.rules, PLAYERS, seed, config.length)
    clock = time.perf_counter_ns
    reply_cache: dict[Any, bytes] = {}
    request_id = 0
    moves = 0
    hand_records: list[HandRecord] = []
    ns = stages.ns if stages is not None else None
    while not match.over:
        t = clock() if ns is not None else 0
        hand = match.hand
        number = match.hand_number
        deal = hand.deal()
        leader = hand.to_move
        for seat in range(PLAYERS):
            encode(hand_start(hand.view(seat), number, leader))
        if ns is not None:
            ns["per hand"] += clock() - t
        events: list[Any] = []
        while match.hand.outcome() is None:
            hand = match.hand
            seat_no = hand.to_move
            request_id += 1
            if ns is None:
                view = hand.view(seat_no)
                message = encode(move_request(view, request_id, number, 10_000, 0))
                # The bot's side (not the referee's): the reply line, from a cache.
                first = view.legal[0]
                tail = reply_cache.get(first)
                if tail is None:
                    tail = reply_cache[first] = encode(move_to_wire(first)) + b"}"
                line = b'{"type":"move","id":%d,"move":%b' % (request_id, tail)
                reply = decode_from_bot(line)
                assert isinstance(reply, m.MoveReply) and reply.id == request_id
                move = move_from_wire(reply.move)
                if move not in view.legal:
                    raise AssertionError("illegal")
                events.append(Action(seat=seat_no, move=move_to_wire(move),
                                     request_id=request_id, time_left_ms=10_000,
                                     elapsed_ms=0.01, debug=reply.debug))
                match = match.apply(move)
            else:
                t0 = clock()
                view = hand.view(seat_no)
                t1 = clock()
                request = move_request(view, request_id, number, 10_000, 0)
                t2 = clock()
                message = encode(request)
                t3 = clock()
                first = view.legal[0]
                tail = reply_cache.get(first)
                if tail is None:
                    tail = reply_cache[first] = encode(move_to_wire(first)) + b"}"
                line = b'{"type":"move","id":%d,"move":%b' % (request_id, tail)
                t4 = clock()
                reply = decode_from_bot(line)
                t5 = clock()
                assert isinstance(reply, m.MoveReply) and reply.id == request_id
                move = move_from_wire(reply.move)
                if move not in view.legal:
                    raise AssertionError("illegal")
                t6 = clock()
                events.append(Action(seat=seat_no, move=move_to_wire(move),
                                     request_id=request_id, time_left_ms=10_000,
                                     elapsed_ms=0.01, debug=reply.debug))
                t7 = clock()
                match = match.apply(move)
                t8 = clock()
                ns["view"] += t1 - t0
                ns["move_request"] += t2 - t1
                ns["encode"] += t3 - t2
                ns["decode"] += t5 - t4
                ns["from_wire+check"] += t6 - t5
                ns["Action"] += t7 - t6
                ns["apply"] += t8 - t7
            if lines is not None:
                lines.append(message)
            moves += 1
        t = clock() if ns is not None else 0
        outcome = match.hand.outcome()
        assert outcome is not None
        hand_records.append(
            HandRecord(
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
        )
        final = match.hand
        hands_left = [list(final.view(s).hand) for s in range(PLAYERS)]
        encode(hand_end(outcome, number, hands_left, final.view(0).layout))
        match = match.next_hand()
        if ns is not None:
            ns["per hand"] += clock() - t
    return len(hand_records), moves


def engine_row(matches: int, hands: int) -> Row:
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
    return Row(
        name="engine + codec only (no processes, no trio)",
        matches=run.matches,
        hands=run.hands,
        moves=run.moves,
        wall_s=run.wall_s,
        moves_per_s=run.moves / run.wall_s,
        ref_cpu_us_per_move=run.cpu_s / run.moves * 1e6,
        note="same games as the C row (first legal move)",
    )


def stage_breakdown(matches: int, hands: int) -> dict[str, float]:
    """µs per move of each stage of the engine + codec loop."""
    stages = _Stages()
    moves = 0
    for i in range(matches):
        moves += engine_loop(SEED_BASE + i, hands, stages)[1]
    return {name: ns / moves / 1000 for name, ns in stages.ns.items()}


# -- pipe round trips alone ----------------------------------------------------------------------


def typical_request(hands: int) -> bytes:
    """The median-length request line of the first C-row match (a realistic payload)."""
    lines: list[bytes] = []
    engine_loop(SEED_BASE, min(hands, 10), lines=lines)
    return sorted(lines, key=len)[len(lines) // 2]


async def _round_trips(binary: str, line: bytes, n: int, mode: str) -> tuple[float, float]:
    """(wall s, referee CPU s) of ``n`` request/reply round trips with one C bot."""
    async with open_bot_process([binary]) as bot:
        await bot.send_line(b'{"type":"hello"}')
        await bot.receive_line()
        send, receive = bot.send_line, bot.receive_line
        for _ in range(200):  # warm-up
            await send(line)
            await receive()
        gc.collect()
        w0, c0 = time.perf_counter(), cpu_self()
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
        w1, c1 = time.perf_counter(), cpu_self()
        await send(b'{"type":"match_end"}')
    return w1 - w0, c1 - c0


def pipe_rows(binary: Path, line: bytes, n: int) -> list[Row]:
    rows = []
    for mode, label in (
        ("bare", "pipe round trip, bare (no engine)"),
        ("fresh", "pipe round trip + 2 fresh cancel scopes"),
        ("rearm", "pipe round trip + 1 re-armed scope"),
    ):
        wall, cpu = trio.run(_round_trips, str(binary), line, n, mode)
        rows.append(
            Row(
                name=label,
                matches=0,
                hands=0,
                moves=n,
                wall_s=wall,
                moves_per_s=n / wall,
                ref_cpu_us_per_move=cpu / n * 1e6,
                note=f"request line of {len(line)} bytes",
            )
        )
    return rows


# -- profiling -----------------------------------------------------------------------------------


def profile_c_match(commands: list[str], hands: int, top: int) -> dict[str, Any]:
    """One C-bot match under cProfile: the top functions by own time, in µs per move."""
    config = match_config(SEED_BASE, hands)
    profiler = cProfile.Profile()
    gc.collect()
    profiler.enable()
    replay = trio.run(play_match, config, commands)
    profiler.disable()
    moves = count_moves(replay)
    stats = pstats.Stats(profiler)
    rows = []
    for (filename, line, func), (cc, nc, tt, ct, _callers) in stats.stats.items():  # type: ignore[attr-defined]
        short = filename
        for prefix in (str(ROOT) + "/", str(Path(trio.__file__).parent.parent) + "/"):
            if short.startswith(prefix):
                short = short[len(prefix):]
        rows.append({
            "function": f"{short}:{line}({func})",
            "calls_per_move": nc / moves,
            "own_us_per_move": tt / moves * 1e6,
            "cum_us_per_move": ct / moves * 1e6,
        })
    total = sum(r["own_us_per_move"] for r in rows)
    by_own = sorted(rows, key=lambda r: -r["own_us_per_move"])[:top]
    interesting = ("_turn", "move_request", "view", "encode", "decode_from_bot", "_send",
                   "_receive", "send_line", "receive_line", "apply", "__enter__", "__exit__",
                   "move_on_at", "move_on_after", "_decode", "move_from_wire", "wait_readable",
                   "run_once", "get_events", "process_events", "_notify", "hand_start")
    by_cum = sorted(
        (r for r in rows if any(r["function"].endswith(f"({name})") for name in interesting)),
        key=lambda r: -r["cum_us_per_move"],
    )
    return {"moves": moves, "total_us_per_move": total, "by_own": by_own, "by_cum": by_cum}


def pyinstrument_c_match(commands: list[str], hands: int) -> str | None:
    try:
        from pyinstrument import Profiler
    except ImportError:
        return None
    config = match_config(SEED_BASE, hands)
    profiler = Profiler(interval=0.0002, async_mode="disabled")
    profiler.start()
    replay = trio.run(play_match, config, commands)
    profiler.stop()
    moves = count_moves(replay)
    text = profiler.output_text(unicode=True, color=False, show_all=False)
    return f"(pyinstrument, {moves} moves, interval 0.2 ms)\n{text}"


# -- output --------------------------------------------------------------------------------------


def fmt(value: float | None, spec: str) -> str:
    return "-" if value is None else format(value, spec)


def print_table(rows: list[Row]) -> None:
    header = (f"{'row':<46} {'matches':>7} {'hands':>6} {'moves':>7} {'wall s':>7} "
              f"{'moves/s':>8} {'ref CPU µs/move':>15} {'marginal':>8} {'fixed ms':>8} "
              f"{'(wall)':>7} {'bots µs/move':>12}")
    print(header)
    print("-" * len(header))
    for r in rows:
        print(f"{r.name:<46} {r.matches:>7} {r.hands:>6} {r.moves:>7} {r.wall_s:>7.2f} "
              f"{r.moves_per_s:>8.0f} {r.ref_cpu_us_per_move:>15.1f} "
              f"{fmt(r.marginal_us_per_move, '.1f'):>8} {fmt(r.fixed_ms_per_match, '.1f'):>8} "
              f"{fmt(r.fixed_wall_ms_per_match, '.0f'):>7} "
              f"{fmt(r.bots_cpu_us_per_move, '.1f'):>12}")


def machine() -> dict[str, Any]:
    info: dict[str, Any] = {
        "python": platform.python_version(),
        "implementation": platform.python_implementation(),
        "platform": platform.platform(),
        "cpus": os.cpu_count(),
        "affinity": sorted(os.sched_getaffinity(0)),
        "trio": trio.__version__,
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
    parser.add_argument("--round-trips", type=int, default=ROUND_TRIPS,
                        help=f"round trips per pipe row (default {ROUND_TRIPS})")
    parser.add_argument("--pin", type=int, metavar="CPU",
                        help="run the referee and its bots on this one CPU")
    parser.add_argument("--skip-samples", action="store_true",
                        help="only the C, engine and pipe rows")
    parser.add_argument("--breakdown", action="store_true",
                        help="also time each stage of the engine + codec loop")
    parser.add_argument("--profile", action="store_true",
                        help="also profile one C-bot match (cProfile, and pyinstrument if present)")
    parser.add_argument("--json", action="store_true", help="print one JSON document instead")
    args = parser.parse_args(argv)
    if args.hands < 1 or args.matches < 1:
        parser.error("--hands and --matches must be at least 1")
    if args.pin is not None:
        os.sched_setaffinity(0, {args.pin})

    binary = build_c_bot()
    c_commands = [shlex.quote(str(binary))] * PLAYERS
    python = shlex.quote(sys.executable)
    sample_rows: list[tuple[str, list[str]]] = [
        ("py random + py greedy",
         [f"{python} {shlex.quote(str(SAMPLE_BOTS / 'random_bot.py'))}",
          f"{python} {shlex.quote(str(SAMPLE_BOTS / 'greedy.py'))}"]),
    ]
    node = shutil.which("node")
    notes: list[str] = []
    if node is None:
        notes.append("node not found: no node row")
    else:
        js = f"{shlex.quote(node)} {shlex.quote(str(SAMPLE_BOTS / 'greedy.js'))}"
        sample_rows.append(("node greedy x2", [js, js]))

    play_matches(c_commands, 1, 1)  # warm-up: imports, lazily built codecs, page cache
    rows = [match_row("C instant x2", c_commands, args.matches, args.hands)]
    rows.append(engine_row(args.matches, args.hands))
    rows.extend(pipe_rows(binary, typical_request(args.hands), args.round_trips))
    if not args.skip_samples:
        for name, commands in sample_rows:
            rows.append(match_row(name, commands, args.matches, args.hands))

    c_row = rows[0]
    verdict = "met" if c_row.ref_cpu_us_per_move <= TARGET_US else "NOT met"
    result: dict[str, Any] = {
        "benchmark": "referee_bench",
        "command": "python3 benchmarks/referee_bench.py " + shlex.join(sys.argv[1:] if argv is None else argv),
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
    if args.breakdown:
        result["engine_stages_us_per_move"] = stage_breakdown(args.matches, args.hands)
    if args.profile:
        result["cprofile"] = profile_c_match(c_commands, args.hands, top=25)
        result["pyinstrument"] = pyinstrument_c_match(c_commands, args.hands)

    if args.json:
        print(json.dumps(result, indent=2))
        return 0
    info = result["machine"]
    print(f"referee_bench: {PLAYERS} players, {args.matches} matches x {args.hands} hands per row, "
          f"Python {info['python']}, trio {info['trio']}, msgspec {info.get('msgspec')}, "
          f"{info['cpus']} CPUs ({info.get('cpu', '?')}), affinity {info['affinity']}")
    print_table(rows)
    for note in notes:
        print(f"note: {note}")
    print("columns: ref CPU = getrusage(SELF) user+sys / moves; marginal and fixed: CPU split "
          "from a second run of 1-hand matches; (wall) = fixed wall ms per match")
    print(TARGET_LINE)
    print(f"measured: {c_row.ref_cpu_us_per_move:.1f} µs/move with the C bots "
          f"(marginal {fmt(c_row.marginal_us_per_move, '.1f')} µs): target {verdict}")
    if args.breakdown:
        stages = result["engine_stages_us_per_move"]
        print("\nengine + codec stages, µs per move (perf_counter_ns, timer overhead included):")
        for name, us in stages.items():
            print(f"  {name:<16} {us:6.2f}")
        print(f"  {'total':<16} {sum(stages.values()):6.2f}")
    if args.profile:
        prof = result["cprofile"]
        print(f"\ncProfile of one C-bot match ({prof['moves']} moves; profiler overhead inflates "
              f"small calls; total own time {prof['total_us_per_move']:.1f} µs/move):")
        print(f"  {'own µs/move':>11} {'cum µs/move':>11} {'calls/move':>10}  function")
        for r in prof["by_own"]:
            print(f"  {r['own_us_per_move']:>11.2f} {r['cum_us_per_move']:>11.2f} "
                  f"{r['calls_per_move']:>10.2f}  {r['function']}")
        print("\n  selected functions by cumulative time:")
        for r in prof["by_cum"]:
            print(f"  {r['own_us_per_move']:>11.2f} {r['cum_us_per_move']:>11.2f} "
                  f"{r['calls_per_move']:>10.2f}  {r['function']}")
        if result["pyinstrument"]:
            print("\n" + result["pyinstrument"])
    return 0


if __name__ == "__main__":
    sys.exit(main())
