"""Worker processes for a tournament: each plays several matches at once.

One trio process drives pipes at roughly 30,000 round trips per second before its own core is
full, so the parent spreads matches over worker processes (default: one per core) and only
collects their results. Workers are started through the referee's process layer (their own
process group, stderr captured, killed on exit); a worker stops its matches, and so their bots,
when its stdin closes or it receives SIGTERM.
"""

from __future__ import annotations

import sys
from collections.abc import AsyncIterator, Awaitable, Callable, Iterable
from contextlib import AsyncExitStack, asynccontextmanager
from dataclasses import dataclass

import trio

from arena.referee.process import BotEOFError, BotProcess, open_bot_process
from arena.tournament.jobs import (
    FromWorker,
    Job,
    JobDone,
    JobEvent,
    JobStarted,
    decode_from_worker,
    encode,
)

#: Seconds a worker has to stop its matches (and their bots) after SIGTERM before SIGKILL.
WORKER_STOP_GRACE_S = 10.0
MAX_RESULT_LINE = 64 << 20
#: Live events a collector takes from a worker's pipe before it lets other tasks run.
EVENTS_AT_ONCE = 1000


@dataclass
class _Slot:
    process: BotProcess
    capacity: int
    in_flight: int = 0


def split_capacity(concurrency: int, workers: int) -> list[int]:
    """How many matches at once each worker gets: ``concurrency`` spread over at most
    ``workers`` processes (a worker with nothing to do is not started)."""
    workers = max(1, min(workers, concurrency))
    base, extra = divmod(concurrency, workers)
    return [base + (1 if i < extra else 0) for i in range(workers)]


class WorkerPool:
    """Runs jobs on worker processes, at most ``capacity`` at once on each."""

    def __init__(self, slots: list[_Slot]) -> None:
        self.slots = slots
        self.cpu_s = [0.0] * len(slots)

    @property
    def capacity(self) -> int:
        """How many matches run at once in all."""
        return sum(s.capacity for s in self.slots)

    async def run(
        self,
        jobs: Iterable[Job],
        on_started: Callable[[int], Awaitable[None]],
        on_done: Callable[[JobDone], Awaitable[None]],
        on_event: Callable[[JobEvent], None] | None = None,
    ) -> None:
        """Play every job; ``on_done`` is awaited for each result as it arrives.

        ``on_event`` is called with each live event of a job marked ``live`` (at once: it
        must not block). ``jobs`` is consumed lazily, one job whenever a worker has room: a
        generator may stop early (as the SPRT does once it has decided); the matches in
        progress then finish.
        """
        source = iter(jobs)
        exhausted = False
        ready = trio.Condition()

        def take() -> Job | None:
            nonlocal exhausted
            if not exhausted:
                job = next(source, None)
                if job is not None:
                    return job
                exhausted = True
            return None

        async def feed(index: int) -> None:
            slot = self.slots[index]
            while True:
                async with ready:
                    while not exhausted and slot.in_flight >= slot.capacity:
                        await ready.wait()
                    job = take()
                    if job is None:
                        ready.notify_all()  # collectors with nothing in flight may stop
                        return
                    slot.in_flight += 1
                    ready.notify_all()
                await slot.process.send_line(encode(job).rstrip(b"\n"))

        async def receive(index: int) -> FromWorker:
            slot = self.slots[index]
            try:
                line = await slot.process.receive_line()
            except BotEOFError:
                raise RuntimeError(
                    f"tournament worker {index} stopped unexpectedly: "
                    f"{slot.process.exit_status().describe()}\n{slot.process.stderr_tail()}"
                ) from None
            return decode_from_worker(line)

        async def collect(index: int) -> None:
            slot = self.slots[index]
            while True:
                async with ready:
                    while slot.in_flight == 0:
                        if exhausted:
                            return
                        await ready.wait()
                message = await receive(index)
                # A match's live events come while it is in flight: they are read one after
                # another without taking the condition (a scheduler round trip per event
                # made a live tournament's parent fall behind its workers), and those already
                # read or waiting in the pipe, up to EVENTS_AT_ONCE, without passing through
                # the scheduler at all: with a hundred clients of the live server, the
                # collector's turn comes once per round of their writes.
                taken = 0
                while isinstance(message, JobEvent):
                    if on_event is not None:
                        on_event(message)
                    taken += 1
                    line = None if taken % EVENTS_AT_ONCE == 0 else slot.process.poll_line_nowait()
                    message = await receive(index) if line is None else decode_from_worker(line)
                if isinstance(message, JobStarted):
                    await on_started(message.table)
                    continue
                self.cpu_s[index] = max(self.cpu_s[index], message.referee_cpu_s)
                # The result is taken in before the slot frees up, so a job source that decides
                # on results (the SPRT) has seen it before it is asked for the next job.
                await on_done(message)
                async with ready:
                    slot.in_flight -= 1
                    ready.notify_all()

        async with trio.open_nursery() as nursery:
            for index in range(len(self.slots)):
                nursery.start_soon(feed, index)
                nursery.start_soon(collect, index)


@asynccontextmanager
async def open_worker_pool(concurrency: int, workers: int) -> AsyncIterator[WorkerPool]:
    """Start the worker processes; on exit (also on error or Ctrl-C) every one is stopped, and
    with it every match and bot it was running."""
    async with AsyncExitStack() as stack:
        slots = []
        for capacity in split_capacity(concurrency, workers):
            process = await stack.enter_async_context(
                open_bot_process(
                    [sys.executable, "-m", "arena.tournament.worker"],
                    max_line_bytes=MAX_RESULT_LINE,
                    kill_grace=WORKER_STOP_GRACE_S,
                )
            )
            slots.append(_Slot(process, capacity))
        yield WorkerPool(slots)


__all__ = ["WorkerPool", "open_worker_pool", "split_capacity"]
