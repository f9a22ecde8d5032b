"""A tournament worker process: plays the matches its parent sends, many at once.

Run as ``python -m arena.tournament.worker``. It reads :class:`~arena.tournament.jobs.Job`
lines on stdin, plays each match with :func:`~arena.referee.match.play_match` (every match in
its own task, so one process drives many matches), writes the replay and, beside it, the match's
viewer page (the same name in ``.html``), and answers a :class:`~arena.tournament.jobs.JobDone`
line. When its stdin closes (the parent finished, was interrupted, or was killed) it cancels
every match in progress, which stops their bots, and exits.
"""

from __future__ import annotations

import json
import os
import signal
import sys
import time
import traceback
from collections.abc import AsyncIterator

import trio

from arena.failure_report import write_failure_bundle
from arena.games.match import MatchLength
from arena.games.registry import get_game
from arena.live_events import LiveEvent, MatchObserver
from arena.referee.channel import BotSpec
from arena.referee.clock import TimeLimits
from arena.referee.framing import LineBuffer
from arena.referee.match import MatchConfig, freeze_startup_objects, play_match
from arena.referee.sandbox import SandboxPlan, plan_sandbox
from arena.replay import Replay, write_replay
from arena.tournament.jobs import (
    Job,
    JobDone,
    JobEvent,
    JobStarted,
    decode_job,
    encode,
    encode_events,
    summarize,
)
from arena.tournament.settings import sandbox_from_dict

MAX_JOB_LINE = 1 << 20
#: Live events are written to the parent at most this often (seconds): one write per batch.
EVENTS_EVERY_S = 0.02


class _Worker:
    def __init__(self, out: trio.lowlevel.FdStream) -> None:
        self.out = out
        self.lock = trio.Lock()
        # CPU spent playing matches: start-up (imports) is not the referee's cost per move.
        self.cpu_at_start = time.process_time()
        self.file_cpu_s = 0.0
        # One sandbox plan per configuration (a tournament sends the same one in every job):
        # planning detects what the machine allows, once per worker.
        self.plans: dict[str, SandboxPlan] = {}
        # Live events waiting to be written (jobs marked live): the referee's observer only
        # appends here, the writer task sends them in one write per wake-up.
        self.outbox: list[JobEvent] = []
        self.wake = trio.Event()

    def plan(self, job: Job) -> SandboxPlan | None:
        """The sandbox plan for the job's bots, made the first time it is asked for."""
        if job.sandbox is None:
            return None
        key = json.dumps(job.sandbox, sort_keys=True)
        plan = self.plans.get(key)
        if plan is None:
            plan = self.plans[key] = plan_sandbox(sandbox_from_dict(job.sandbox))
        return plan

    def referee_cpu_s(self) -> float:
        """CPU this worker spent refereeing: all of it since start-up, less writing files."""
        return time.process_time() - self.cpu_at_start - self.file_cpu_s

    def _files(self, replay_path: str, replay: Replay) -> None:
        """Write the replay and, when something failed, its failure bundle (in a thread),
        timing that CPU apart.

        The viewer page is not made here: it costs about 40 ms of CPU per match, and while a
        thread builds it every other match of this worker waits, so bots would be charged
        for the referee's delay. The report, written once the tournament is over, makes the
        pages.
        """
        started = time.thread_time()
        try:
            write_replay(replay_path, replay)
            try:
                write_failure_bundle(replay, replay_path)
            except OSError as error:  # the replay holds the same evidence: the match counts
                print(
                    f"arena worker: cannot write the failure bundle of {replay_path}: {error}",
                    file=sys.stderr,
                    flush=True,
                )
        finally:
            self.file_cpu_s += time.thread_time() - started

    async def say(self, message: JobDone | JobStarted) -> None:
        async with self.lock:
            await self._flush()
            await self.out.send_all(encode(message))

    def observer(self, table: int) -> MatchObserver:
        """The referee's observer of a live job: each event becomes a line of the outbox."""

        def observe(event: LiveEvent) -> None:
            self.outbox.append(JobEvent(table, event, time.time()))
            self.wake.set()

        return observe

    async def write_events(self) -> None:
        """Send the outbox as it fills (a task of the worker)."""
        while True:
            await self.wake.wait()
            # A moment for more events, of this worker's other matches too: one write for many.
            await trio.sleep(EVENTS_EVERY_S)
            self.wake = trio.Event()
            async with self.lock:
                await self._flush()

    async def _flush(self) -> None:
        if self.outbox:
            events, self.outbox = self.outbox, []
            await self.out.send_all(encode_events(events))

    async def play(self, job: Job) -> None:
        await self.say(JobStarted(table=job.table))
        try:
            game = get_game(job.game)
            config = MatchConfig(
                game=game,
                rules=game.parse_rules(dict(job.rules)),
                players=len(job.bots),
                seed=job.seed,
                length=MatchLength(target=job.target, hands=job.hands),
                time=TimeLimits(
                    startup_ms=job.startup_ms, move_ms=job.move_ms, bank_ms=job.bank_ms
                ),
                sandbox=self.plan(job),
                max_stdout_bytes=job.max_stdout_bytes,
                policy=job.policy,
                sandbox_settings=job.sandbox,
            )
            bots = [BotSpec(b.command, b.cwd, b.name) for b in job.bots]
            observer = self.observer(job.table) if job.live else None
            replay = await play_match(config, bots, observer=observer)
            await trio.to_thread.run_sync(self._files, job.replay, replay)
            done = JobDone(
                table=job.table,
                replay=job.replay,
                referee_cpu_s=self.referee_cpu_s(),
                summary=summarize(replay),
            )
        except Exception:  # reported to the parent, which records the match as not played
            done = JobDone(
                table=job.table,
                replay=job.replay,
                referee_cpu_s=self.referee_cpu_s(),
                error=traceback.format_exc(limit=8),
            )
        await self.say(done)


async def serve(stdin_fd: int = 0, stdout_fd: int = 1) -> None:
    """Play every job read from ``stdin_fd`` until it closes; report on ``stdout_fd``.

    SIGTERM (the parent stopping us) cancels every match, which stops their bots cleanly. The
    signal stays caught until the very end, so a second SIGTERM during that clean-up cannot
    kill the worker half-way and orphan bots.
    """
    source = trio.lowlevel.FdStream(os.dup(stdin_fd))
    worker = _Worker(trio.lowlevel.FdStream(os.dup(stdout_fd)))
    buffer = LineBuffer(MAX_JOB_LINE)
    with trio.open_signal_receiver(signal.SIGTERM) as signals:
        async with trio.open_nursery() as nursery:
            nursery.start_soon(_cancel_on_signal, signals, nursery.cancel_scope)
            nursery.start_soon(worker.write_events)
            while True:
                line = buffer.next_line()
                if line is None:
                    data = await source.receive_some(65536)
                    if not data:
                        break  # the parent is gone or done: stop every match and its bots
                    buffer.feed(data)
                    continue
                nursery.start_soon(worker.play, decode_job(line))
            nursery.cancel_scope.cancel()


async def _cancel_on_signal(signals: AsyncIterator[int], scope: trio.CancelScope) -> None:
    async for _ in signals:
        scope.cancel()


def main() -> int:
    """Entry point of ``python -m arena.tournament.worker``."""
    freeze_startup_objects()
    try:
        trio.run(serve)
    except KeyboardInterrupt:
        return 130
    return 0


if __name__ == "__main__":
    sys.exit(main())
