"""The two ratios of issue 15, each measured in one run of ``referee_bench.py``.

1. ``engine + codec only`` (the referee's calls per move, no processes, no trio) against the
   engine's own random playouts (`benchmarks/engine_bench.py`'s loop: 2 players, default
   Matador rules), both CPU µs per move, timed here in the same process, alternately: target at
   most ``ENGINE_RATIO_TARGET`` (3x).
2. ``play_match`` with the two instant C bots against a *minimal trio referee*: the same two C
   bots started the same way (`open_bot_process`, the hello and its ready, ``match_end`` and the
   shutdown at the end), the same number of moves per match, and per move only what any
   referee must do: a msgspec message of the request's typical size encoded (the C row's median
   request, its id changed each move), written to the seat to move, one line read back under a
   deadline (``trio.move_on_after`` around the round trip) and decoded with the typed decoder.
   No engine, no view, no record. Both in moves/s of wall time, whole matches (spawn and
   shutdown included in both), alternately, best of each: target at least
   ``MINIMAL_RATIO_TARGET`` (0.85).

The pairs alternate (a run of one, then of the other, ``repeat`` times) so that a burst of load
from the other engineers' benchmarks falls on both sides alike.
"""

from __future__ import annotations

import contextlib
import gc
import random
import statistics
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import msgspec
import trio

from arena.games import matador
from arena.referee.process import open_bot_process
from protocol import messages as m
from protocol.codec import decode_from_bot, encode

ENGINE_RATIO_TARGET = 3.0
MINIMAL_RATIO_TARGET = 0.85
MINIMAL_ROW = "minimal trio referee (C instant x2, no engine)"
#: The per-move allowance of the minimal referee (the benchmark's generous move limit).
MOVE_DEADLINE_S = 10.0
_HELLO = b'{"type":"hello"}'
_MATCH_END = b'{"type":"match_end","scores":[0,0],"winner":null,"reason":"hands","results":[]}'


def playout_cpu_us(seconds: float, seed: int) -> tuple[float, int]:
    """CPU µs per move of the engine's own random playouts for about ``seconds`` of CPU:
    ``engine_bench.matador_player``'s loop (deal, ``start_hand``, then ``apply(choice(legal))``
    to the end; 2 players, default rules). Returns (µs per move, moves)."""
    rules = matador.parse_rules({})
    rng = random.Random(seed)
    choice = rng.choice
    deal, start_hand = matador.deal, matador.start_hand
    moves = games = 0
    clock = time.process_time
    c0 = clock()
    deadline = c0 + seconds
    while True:
        state = start_hand(rules, 2, deal(rules, 2, seed + games))
        while state.outcome() is None:
            state = state.apply(choice(state.legal_moves()))
            moves += 1
        games += 1
        now = clock()
        if now >= deadline:
            return (now - c0) / moves * 1e6, moves


#: The engine row's variants of `floor_ratios`: a name, and what ``engine_loop`` leaves out.
FLOOR_VARIANTS: dict[str, dict[str, bool]] = {
    "engine + codec row": {},
    "  without the request line": {"request": False},
    "  without the view and the request line": {"view": False, "request": False},
}


def floor_ratios(
    loop: Callable[..., tuple[int, int]], matches: int, hands: int, seed: int, repeat: int
) -> dict[str, Any]:
    """How far ratio 1 could go if the view and the request line cost nothing: the engine row
    (``loop``: ``referee_bench.engine_loop``) whole and with those calls left out, each run
    followed at once by as much CPU of the engine's random playouts, ``repeat`` rounds. By
    `FLOOR_VARIANTS` name: the least µs/move, and the ratio of each run to the playouts timed
    right after it (their median is the figure: the VM's speed changes within seconds, so the
    least of one side and the least of the other can come from different moments)."""
    rows: dict[str, dict[str, Any]] = {
        name: {"us_per_move": float("inf"), "pairs": []} for name in FLOOR_VARIANTS
    }
    for r in range(repeat):
        for name, leave_out in FLOOR_VARIANTS.items():
            gc.collect()
            c0 = time.process_time()
            moves = sum(loop(seed + i, hands, **leave_out)[1] for i in range(matches))
            cpu = time.process_time() - c0
            us = cpu / moves * 1e6
            engine_us, _ = playout_cpu_us(max(0.5, cpu), seed + 1000 * r)
            row = rows[name]
            row["us_per_move"] = min(row["us_per_move"], us)
            row["pairs"].append(us / engine_us)
    for row in rows.values():
        row["ratio"] = statistics.median(row["pairs"])
    return {"rows": rows}


async def _minimal_match(binary: str, request: m.MoveRequest, moves: int) -> None:
    """One match of the minimal referee: two C bots, ``moves`` requests alternating seats."""
    async with contextlib.AsyncExitStack() as stack:
        bots = [await stack.enter_async_context(open_bot_process([binary])) for _ in range(2)]
        for bot in bots:
            with trio.move_on_after(MOVE_DEADLINE_S):
                await bot.send_line(_HELLO)
                decode_from_bot(await bot.receive_line())
        replace = msgspec.structs.replace
        for i in range(moves):
            bot = bots[i & 1]
            line = encode(replace(request, id=i + 1, seat=i & 1))
            with trio.move_on_after(MOVE_DEADLINE_S) as scope:
                await bot.send_line(line)
                reply = decode_from_bot(await bot.receive_line())
            if scope.cancelled_caught or not isinstance(reply, m.MoveReply):
                raise RuntimeError(f"the minimal referee's bot failed at move {i}: {reply!r}")
        for bot in bots:
            with trio.move_on_after(MOVE_DEADLINE_S):
                await bot.send_line(_MATCH_END)
                await bot.wait_exit()


def minimal_matches(
    binary: Path, request_line: bytes, moves_per_match: list[int]
) -> tuple[float, float]:
    """(wall s, this process's CPU s) of the minimal referee's matches (one ``trio.run`` each,
    as the C row)."""
    request = msgspec.json.decode(request_line, type=m.MoveRequest)
    wall = cpu = 0.0
    for moves in moves_per_match:
        gc.collect()
        w0, c0 = time.perf_counter(), time.process_time()
        trio.run(_minimal_match, str(binary), request, moves)
        wall += time.perf_counter() - w0
        cpu += time.process_time() - c0
    return wall, cpu


def alternate(
    first: Callable[[], float], second: Callable[[], float], repeat: int
) -> tuple[float, float, list[float]]:
    """``first`` and ``second`` (each returning a cost) run one after the other ``repeat``
    times: (the least of the first, the least of the second, the ratio of each pair)."""
    a_best = b_best = float("inf")
    pairs = []
    for _ in range(repeat):
        a = first()
        b = second()
        a_best, b_best = min(a_best, a), min(b_best, b)
        pairs.append(a / b)
    return a_best, b_best, pairs


def verdict(met: bool) -> str:
    return "met" if met else "NOT met"
