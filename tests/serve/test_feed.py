"""The tournament's parent takes a worker's live events that are already there in one go:
no other task runs between them (with a hundred clients of the live server, each pass
through the scheduler waited for a round of their writes)."""

from __future__ import annotations

from collections import deque
from typing import Any

import trio

from arena.referee.process import BotEOFError
from arena.replay import read_replay
from arena.tournament.jobs import FromWorker, Job, JobDone, JobEvent, JobStarted, encode
from arena.tournament.pool import EVENTS_AT_ONCE, WorkerPool, _Slot
from tests.serve.test_follow import GOLDEN, live_events

EVENTS = live_events(read_replay(GOLDEN / "matador-2p-hands.replay.json"))
#: The job the pool sends (the stand-in worker plays its lines whatever it is sent).
JOB = Job(1, "matador", {}, 1, None, 1, 5000, 2000, 0, [], "r.json", live=True)


class _Worker:
    """A worker's pipe holding a match's lines, all of them there already."""

    def __init__(self, lines: list[bytes]) -> None:
        self.lines = deque(lines)
        self.passes = 0  # lines taken through the scheduler

    async def send_line(self, line: bytes) -> None:
        await trio.lowlevel.checkpoint()

    async def receive_line(self) -> bytes:
        await trio.lowlevel.checkpoint()
        self.passes += 1
        if not self.lines:
            raise BotEOFError("no more")
        return self.lines.popleft()

    def poll_line_nowait(self) -> bytes | None:
        return self.lines.popleft() if self.lines else None


def _as_process(worker: _Worker) -> Any:
    return worker


def _run(count: int) -> tuple[list[tuple[int, int]], _Worker]:
    """A match of ``count`` live events played by a :class:`_Worker`: for each event, how
    often another task had run before it, and the worker."""
    events = [JobEvent(1, EVENTS[i % len(EVENTS)], float(i)) for i in range(count)]
    done = JobDone(table=1, replay="r.json", referee_cpu_s=0.0, error="not played")
    messages: list[FromWorker] = [JobStarted(table=1), *events, done]
    lines = [encode(m).rstrip(b"\n") for m in messages]
    worker = _Worker(lines)
    other = [0]
    seen: list[tuple[int, int]] = []

    async def on_started(table: int) -> None:
        return None

    async def on_done(message: JobDone) -> None:
        return None

    def on_event(message: JobEvent) -> None:
        seen.append((int(message.at), other[0]))

    async def main() -> None:
        async def spin() -> None:
            while True:
                other[0] += 1
                await trio.lowlevel.checkpoint()

        async with trio.open_nursery() as nursery:
            nursery.start_soon(spin)
            slot = _Slot(_as_process(worker), capacity=1)
            await WorkerPool([slot]).run([JOB], on_started, on_done, on_event)
            nursery.cancel_scope.cancel()

    trio.run(main)
    return seen, worker


def test_events_already_there_are_taken_without_another_task_running() -> None:
    """Every event of a burst reaches ``on_event`` in order, with no other task run between
    the first and the last, and only the first came through the scheduler."""
    seen, worker = _run(300)
    assert [at for at, _ in seen] == list(range(300))
    assert len({ran for _, ran in seen}) == 1
    assert worker.passes == 2  # the start and the first event (the result was there too)


def test_a_long_burst_lets_other_tasks_run_now_and_then() -> None:
    """After :data:`EVENTS_AT_ONCE` events the next goes through the scheduler."""
    seen, worker = _run(EVENTS_AT_ONCE + 10)
    assert [at for at, _ in seen] == list(range(EVENTS_AT_ONCE + 10))
    assert worker.passes == 3
