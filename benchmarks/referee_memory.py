"""The in-memory bots and the round-trip rows of ``referee_bench.py``: a `BotChannel` in this
process that answers like ``instant_bot.c`` (the ``play_match, in-memory instant bots`` row and
py-spy's matches), and one instant bot answering the same request line again and again, with no
engine, behind pipes or in memory, bare or under each kind of deadline (the ``pipe round trip``
and ``in-memory round trip`` rows).

Imported by `referee_bench` (it imports nothing of it, so either can be loaded first).
"""

from __future__ import annotations

import collections
import contextlib
import gc
import math
import resource
import time
from collections.abc import AsyncIterator, Sequence
from typing import Any

import trio

from arena.referee.channel import BotSpec, MemoryChannel
from arena.referee.process import FAIR_SLICE_S, ExitStatus, open_bot_process
from arena.referee.seat import Pending
from arena.referee.watchdog import Watchdog


def cpu_self() -> float:
    """User + system CPU seconds of this process (all its threads), not of its children."""
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def sys_self() -> float:
    """System CPU seconds of this process."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_stime


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


class InstantMemoryBot(MemoryChannel):
    """A `BotChannel` in this process that answers like instant_bot.c, with no pipes.

    ``receive_line`` passes through the trio scheduler only once `FAIR_SLICE_S` has gone by
    since it last did, as ``BotProcess.receive_line`` does with a line that is there already;
    ``send_line`` only checks for cancellation, as ``BotProcess.send_line`` does when the pipe
    has room, and ``send_line_nowait`` always sends.
    """

    def __init__(self) -> None:
        self._pending: collections.deque[bytes] = collections.deque()
        self._exit = ExitStatus(None, None)
        self._scheduled_at = 0.0

    async def send_line(self, line: bytes) -> None:
        await trio.lowlevel.checkpoint_if_cancelled()
        self.send_line_nowait(line)

    def send_line_nowait(self, line: bytes) -> bool:
        reply = instant_reply(line)
        if reply is not None:
            self._pending.append(reply)
        elif line.startswith((b'{"type":"match_end"', b'{"type":"error"')):
            self._exit = ExitStatus(0, None)
        return True

    async def receive_line(self) -> bytes:
        await trio.lowlevel.checkpoint_if_cancelled()
        if not self._pending:
            await trio.sleep_forever()
        if time.perf_counter() - self._scheduled_at >= FAIR_SLICE_S:
            await trio.lowlevel.cancel_shielded_checkpoint()
            self._scheduled_at = time.perf_counter()
        return self._pending.popleft()

    def poll_line_nowait(self) -> bytes | None:
        return self._pending.popleft() if self._pending else None

    async def wait_exit(self) -> ExitStatus:
        if self._exit.running:
            await trio.sleep_forever()
        return self._exit


@contextlib.asynccontextmanager
async def connect_in_memory(spec: BotSpec) -> AsyncIterator[InstantMemoryBot]:
    bot = InstantMemoryBot()
    try:
        yield bot
    finally:
        await bot.aclose()


def instant_reply_cost(lines: Sequence[bytes]) -> float:
    """CPU µs per move of ``instant_reply`` over the request ``lines`` (the in-memory bots'
    share of their rows)."""
    best = float("inf")
    for _ in range(3):
        c0 = cpu_self()
        for line in lines:
            instant_reply(line)
        best = min(best, cpu_self() - c0)
    return best / len(lines) * 1e6


# -- round trips alone ---------------------------------------------------------------------------


def typical_request(lines: Sequence[bytes]) -> bytes:
    """The median-length request line of ``lines`` (the engine row's games: a realistic
    payload)."""
    ordered = sorted(lines, key=len)
    return ordered[len(ordered) // 2]


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
        now = trio.current_time
        w0, c0, s0 = time.perf_counter(), cpu_self(), sys_self()
        if mode == "bare":
            for _ in range(n):
                await send(line)
                await receive()
        elif mode == "fresh":  # the runner before the watchdog: two fresh scopes per move
            for _ in range(n):
                deadline = now() + 10.0
                with trio.move_on_after(deadline - now()):
                    await send(line)
                with trio.move_on_at(deadline):
                    await receive()
        elif mode == "rearm":  # the runner's watchdog before it had its own task
            with trio.CancelScope() as watchdog:
                for _ in range(n):
                    watchdog.deadline = now() + 10.0
                    await send(line)
                    await receive()
                    watchdog.deadline = math.inf
        elif mode == "watchdog":  # what _MatchRunner._request does with its watchdog
            dog = Watchdog()
            # The watchdog reads only the deadline (the runner makes a Pending per move anyway).
            request = Pending(None, 0, 1, 0.0, math.inf, 10_000, None)  # type: ignore[arg-type]
            async with trio.open_nursery() as nursery:
                nursery.start_soon(dog.run)
                with dog.scope:
                    for _ in range(n):
                        request.deadline = now() + 10.0
                        dog.watch(request)
                        await send(line)
                        await receive()
                        dog.pending = None
                nursery.cancel_scope.cancel()
        else:
            raise ValueError(mode)
        w1, c1, s1 = time.perf_counter(), cpu_self(), sys_self()
        await send(b'{"type":"match_end"}')
    return w1 - w0, c1 - c0, s1 - s0


ROUND_TRIP_ROWS = (
    ("pipe", "bare", "pipe round trip, bare (no engine)"),
    ("pipe", "fresh", "pipe round trip + 2 fresh cancel scopes"),
    ("pipe", "rearm", "pipe round trip + scope re-armed per move"),
    ("pipe", "watchdog", "pipe round trip + the runner's watchdog"),
    ("memory", "bare", "in-memory round trip, bare"),
    ("memory", "fresh", "in-memory round trip + 2 fresh scopes"),
    ("memory", "rearm", "in-memory round trip + scope re-armed"),
    ("memory", "watchdog", "in-memory round trip + runner's watchdog"),
)
MEMORY_TRIP_ROW = ROUND_TRIP_ROWS[-1][2]


def round_trips(
    binary: str, line: bytes, n: int, repeat: int
) -> list[tuple[str, str, float, float, float]]:
    """Each round-trip row, best of ``repeat`` by CPU: (transport, label, wall s, referee CPU
    s, of which system s) of ``n`` round trips."""
    rows = []
    for transport, mode, label in ROUND_TRIP_ROWS:
        wall, cpu, sys_s = min(
            (trio.run(_round_trips, binary, line, n, mode, transport) for _ in range(repeat)),
            key=lambda wc: wc[1],
        )
        rows.append((transport, label, wall, cpu, sys_s))
    return rows
