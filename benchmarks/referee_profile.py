"""The referee's profile for `referee_bench.py --profile`: where the CPU of C-bot matches goes,
by cProfile (own time per function) and, when py-spy is installed, by sampling the running
referee (its frames sorted into the stages of a move).

Imported by `referee_bench.main` only when ``--profile`` is given.
"""

from __future__ import annotations

import cProfile
import gc
import json
import pstats
import shutil
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import trio

# benchmarks/ is sys.path[0] when referee_bench.py runs as a script.
from referee_bench import BUILD_DIR, ROOT, SEED_BASE, Run, count_moves, match_config

from arena.referee.match import play_match

_PROFILED = (
    "_play",
    "_turn",
    "_move_nowait",
    "_request",
    "_notify",
    "_send",
    "_record_hand",
    "request",
    "view",
    "_public_record",
    "legal_moves",
    "encode",
    "decode_from_bot",
    "_decode",
    "move_from_wire",
    "send_line",
    "receive_line",
    "apply",
    "next_hand",
    "deadline",
    "wait_readable",
    "run_once",
    "get_events",
    "process_events",
    "hand_start",
    "hand_end",
)


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
    by_cum = sorted(
        (
            r
            for r in rows
            if r["cum_us_per_move"] >= 1.0
            and any(r["function"].endswith(f"({name})") for name in _PROFILED)
        ),
        key=lambda r: -r["cum_us_per_move"],
    )
    return {"moves": moves, "total_us_per_move": total, "by_own": by_own, "by_cum": by_cum}


# Categories of the py-spy samples. Under ``_MatchRunner._turn`` (or ``_move_nowait``, the turn
# without an await), the first frame below it decides (below ``_request`` for the I/O and the
# watchdog): (function, file suffix) -> category.
_VIEW = "hand.view(seat) -> SeatView"
_REQUEST = "RequestBuilder.request_line() (build + encode)"
_DECODE = "judge_move (decode reply, id, legality)"
_CLOCK = "clock: trio.current_time, SeatClock"
_TURN_OWN = "_turn own code (Action record, checks, Pending)"
_WATCHDOG = "watchdog (its task, or a CancelScope.deadline setter)"
_SCOPES = "trio cancel scopes (truncated stacks)"
_SCHEDULER = "trio scheduler and epoll (between tasks)"
_APPLY = "Match.apply (copy + state.apply)"
_TURN_RULES = {
    ("MatadorState.view", "matador.py"): _VIEW,
    ("RequestBuilder.request_line", "wire.py"): _REQUEST,
    ("judge_move", "judge.py"): _DECODE,
    ("move_from_wire", "wire.py"): _DECODE,
    ("Match.apply", "match.py"): _APPLY,
    ("MatadorState.apply", "matador.py"): _APPLY,  # Match.apply's frame sometimes missed
    ("__create_fn__.<locals>.__init__", "<string>"): _TURN_OWN,  # Pending(...)
    ("current_time", "_generated_run.py"): _CLOCK,
    ("SeatClock.time_left_ms", "clock.py"): _CLOCK,
    ("SeatClock.allowance_s", "clock.py"): _CLOCK,
    ("SeatClock.bank_ms", "clock.py"): _CLOCK,
    ("SeatClock.charge", "clock.py"): _CLOCK,
    ("move_to_wire", "wire.py"): _TURN_OWN,
}
_IO_FUNCS = {
    "BotProcess.send_line": "pipe I/O: send_line (os.write)",
    "BotProcess.receive_line": "pipe I/O: receive_line (os.read, framing)",
    "BotProcess.poll_line_nowait": "pipe I/O: receive_line (os.read, framing)",
    "InstantMemoryBot.send_line": "the in-memory bots' own work (not the referee's)",
    "InstantMemoryBot.receive_line": "in-memory receive_line (scheduler passes)",
}
_SCOPE_FUNCS = {
    "CancelScope.__enter__",
    "CancelScope.__exit__",
    "CancelScope._close",
    "CancelScope.__init__",
    "move_on_after",
    "move_on_at",
}


def _parse_frame(text: str) -> tuple[str, str]:
    name, _, where = text.rpartition(" (")
    return name, where.rstrip(")").rsplit(":", 1)[0]


def _frame_category(name: str, file: str) -> str | None:
    """The category one frame names by itself, if any."""
    if name in _IO_FUNCS:
        return _IO_FUNCS[name]
    if name == "CancelScope.deadline" or name.startswith("Watchdog."):
        return _WATCHDOG
    for (rule_name, suffix), category in _TURN_RULES.items():
        if name == rule_name and file.endswith(suffix):
            return category
    if name.startswith("MatadorState."):
        return _VIEW
    if name.startswith("RequestBuilder."):
        return _REQUEST
    return None


def _categorise(frames: list[tuple[str, str]]) -> str:
    names = [name for name, _ in frames]
    turn = next((n for n in ("_MatchRunner._turn", "_MatchRunner._move_nowait") if n in names), "")
    if turn:
        rest = frames[names.index(turn) + 1 :]
        if rest and rest[0][0] == "_MatchRunner._request":
            if len(rest) == 1:
                return "_request own code"
            rest = rest[1:]
        if not rest:
            return _TURN_OWN
        name, file = rest[0]
        return _frame_category(name, file) or f"other under _turn: {name}"
    if "Watchdog.run" in names:
        return _WATCHDOG
    if "_MatchRunner._play" in names:
        return "per hand: hand_start/hand_end, notifications, records, next_hand"
    if "_MatchRunner._start_bots" in names or "_MatchRunner._finish" in names:
        return "start-up and end of match (spawn, hello, match_end, exit)"
    if names[-1] == "_MatchRunner.run":
        return "_MatchRunner.run own code (gc.collect() before gc.freeze(), replay)"
    if "_MatchRunner.run" in names or "play_match" in names:
        return "match set-up, replay, bot shutdown"
    if "unrolled_run" in names:
        return _SCHEDULER
    # A truncated stack: the outermost frame that names a category decides.
    for name, file in frames:
        category = _frame_category(name, file)
        if category is not None:
            return category
        if "trio" in file and (
            name in _SCOPE_FUNCS
            or "_might_change_registered_deadline" in name
            or name.startswith(("CancelStatus", "Deadlines"))
        ):
            return _SCOPES
        if name in ("cancel_shielded_checkpoint", "checkpoint_if_cancelled"):
            return _SCHEDULER
    return "unattributed (truncated stacks)"


def pyspy_profile(hands: int, matches: int, rate: int) -> dict[str, Any] | None:
    """Samples matches with in-memory instant bots from outside with py-spy; returns the
    categories in µs per move.

    The matches run in a child interpreter (``--worker memory``) that reports its own CPU per
    move; each category's share of the samples taken inside ``trio.run`` is scaled to it.
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
        sys.executable, str(ROOT / "benchmarks" / "referee_bench.py"),
        "--worker", "memory", "--hands", str(hands), "--matches", str(matches),
    ]  # fmt: skip
    done = subprocess.run(argv, capture_output=True, text=True, check=False)
    if done.returncode != 0 or not raw.exists():
        return {"error": f"py-spy failed ({done.returncode}): {done.stderr.strip()[-500:]}"}
    # py-spy writes its own "py-spy>" lines to the same stdout: take the worker's JSON line.
    target = Run(**json.loads([t for t in done.stdout.splitlines() if t.startswith("{")][-1]))
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
    per_move = target.cpu_s / target.moves * 1e6
    categories = {
        name: {"samples": n, "share": n / total, "us_per_move": n / total * per_move}
        for name, n in sorted(counts.items(), key=lambda kv: -kv[1])
    }
    return {
        "moves": target.moves,
        "cpu_us_per_move": per_move,
        "samples": total,
        "rate_hz": rate,
        "categories": categories,
    }


# -- output --------------------------------------------------------------------------------------
