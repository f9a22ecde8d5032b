"""`DaskPool`: a tournament's matches as Dask tasks, with the local pool's interface.

`open_dask_pool` connects to the scheduler, ships the bots (`arena.cluster.ship`, through the
`arena.cluster.bootstrap.BotArchives` plugin, so workers that join later get them too), and
checks every worker before the first match: the arena's version, the sandbox, each bot's build
and handshake there (`arena.cluster.checks`). A worker refused then stops the start with one
line naming it; one refused later (it joined since, or a bot fails on its host) is retired
and its match given to another.

`DaskPool.run` has the contract of `arena.tournament.pool.WorkerPool.run`: jobs are taken
lazily (at most twice as many in flight as the cluster runs at once, so the scheduler always
has the next match ready; the cluster's size is looked at every second, so workers that join
during the run take matches at once), ``on_started`` is awaited when a worker begins a match and
``on_done`` for each result as its task finishes, before the next job is taken; ``on_event``
with each live event of a job marked ``live`` (`arena.cluster.live`). The
coordinator writes each replay (and failure bundle) into its out folder; Dask runs a match
again elsewhere when its worker dies, and its result is taken once.
"""

from __future__ import annotations

import contextlib
import os
import sys
import uuid
from collections.abc import AsyncIterator, Awaitable, Callable, Iterable, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import trio

from arena import SLUG
from arena.cluster import bootstrap, checks
from arena.cluster.connect import ClusterError, connect
from arena.cluster.live import batch_interval, events_of
from arena.cluster.lost import (
    SchedulerLostError,
    client_status,
    lost_text,
    no_workers_text,
    retry_while_reconnecting,
    scheduler_lost,
    wait_for_scheduler,
    wait_for_workers,
)
from arena.cluster.messages import (
    ClusterJob,
    Played,
    Preflight,
    Refused,
    ShippedBot,
    WorkerReport,
    decode_from_task,
    encode,
)
from arena.cluster.options import ClusterOptions
from arena.cluster.ship import Archive, pack_command, pack_folder
from arena.cluster.version import DISTRIBUTION, arena_version
from arena.errors import ArenaError
from arena.failure_report import write_failure_bundle
from arena.live_events import MatchBegan, MatchOver
from arena.replay import decode_replay, write_replay_bytes
from arena.tournament.entrants import Entrant
from arena.tournament.jobs import Job, JobDone, JobEvent

if TYPE_CHECKING:
    # Dask's client is untyped for the most part: it is handled as Any here.
    Client = Any
    Future = Any

#: How many times one match is handed out again after workers refused it.
MAX_REFUSALS_PER_MATCH = 20
#: Seconds the start waits for a first worker when the scheduler has none.
WORKER_WAIT_S = 30.0
#: Seconds between two looks at the cluster's size during a run (workers that joined since
#: get matches at once).
CAPACITY_EVERY_S = 1.0
#: How long the end of a run waits, at least, for the last live batches of matches whose
#: results came first (four batch intervals when those are longer).
LAST_BATCH_WAIT_S = 1.0


@dataclass(frozen=True)
class Placement:
    """Where a match ran: the worker, its host, the sandbox mechanism (``None``: none)."""

    worker: str
    host: str
    mechanism: str | None


@dataclass
class _Run:
    """What every task of this run shares."""

    client: Client
    version: str
    run_id: str
    bots: dict[tuple[str, str | None], ShippedBot]
    resources: dict[str, float] | None
    build_timeout_s: float
    say: Callable[[str], None]
    refused: dict[str, str] = field(default_factory=dict)
    #: The scheduler's address, how long to wait for it when lost, and the bots' plugin (to
    #: register again with a scheduler that came back).
    address: str = ""
    timeout_s: float = 10.0
    plugin: Any = None
    plugin_name: str = ""


class DaskPool:
    """Runs jobs as Dask tasks, at most `capacity` at once (one per worker CPU or thread)."""

    def __init__(self, run: _Run, capacity: int, reports: Sequence[WorkerReport]) -> None:
        self._run = run
        self._capacity = capacity
        self.reports = list(reports)
        #: The referee CPU of every match played, summed (the local pool's per-worker list).
        self.cpu_s = [0.0]
        #: Where each table's match ran (by table index).
        self.placements: dict[int, Placement] = {}
        self._registered_again: set[str] = set()
        #: How many matches the cluster runs at once now (`current_capacity`, during a run).
        self._running_at_once = capacity
        self._on_event: Callable[[tuple[float, Any]], None] = lambda _event: None

    @property
    def capacity(self) -> int:
        """How many matches run at once on the cluster as the start found it."""
        return self._capacity

    def current_capacity(self) -> int | None:
        """How many matches the cluster runs at once now (workers join and leave during a
        run; refused ones do not count); ``None`` when the scheduler does not answer. Blocks:
        call it in a thread."""
        run = self._run
        try:
            workers = run.client.scheduler_info()["workers"]
        except Exception:  # lost: the run's own handling of a lost scheduler says so
            return None
        total = 0
        for address, info in workers.items():
            if address in run.refused:
                continue
            if run.resources is not None:
                total += int(info.get("resources", {}).get(checks.CPU, 0))
            else:
                total += int(info.get("nthreads", 0))
        return total

    def where_played(self) -> list[str]:
        """How many matches each worker played, with its host and sandbox mechanism."""
        counts: dict[Placement, int] = {}
        for placement in self.placements.values():
            counts[placement] = counts.get(placement, 0) + 1
        return [
            f"{n} match{'es' if n != 1 else ''} played on {checks.worker_name(p.worker, p.host)}"
            f" in sandbox {p.mechanism or 'none'}"
            for p, n in sorted(counts.items(), key=lambda item: item[0].worker)
        ]

    def _live_every_s(self) -> float:
        return batch_interval(self._running_at_once)

    def _payload(self, job: Job) -> bytes:
        run = self._run
        seats = [run.bots[(b.command, b.cwd)] for b in job.bots]
        message = ClusterJob(
            job=job,
            seats=seats,
            workdir=os.getcwd(),
            build_timeout_s=run.build_timeout_s,
            topic=run.run_id,
            live_every_s=self._live_every_s(),
        )
        return encode(message)

    async def run(
        self,
        jobs: Iterable[Job],
        on_started: Callable[[int], Awaitable[None]],
        on_done: Callable[[JobDone], Awaitable[None]],
        on_event: Callable[[JobEvent], None] | None = None,
    ) -> None:
        """Play every job (see the module's docstring for the contract); ``on_event`` is fed
        the live events of the jobs marked ``live``, as their workers send them in batches
        (`arena.cluster.live`)."""
        run = self._run
        token = trio.lowlevel.current_trio_token()
        finished_send, finished = trio.open_memory_channel[tuple[Job, Any]](float("inf"))
        started_send, started = trio.open_memory_channel[int](float("inf"))
        batch_send, batches = trio.open_memory_channel[bytes](float("inf"))
        done_tables: set[int] = set()
        # Matches whose live events began and did not end yet (their last batch may come
        # after their result: it travels through the scheduler, the result does not).
        open_tables: set[int] = set()
        played_tables: set[int] = set()
        live_ended = trio.Event()  # set (and replaced) when a match's live events end
        pending: dict[str, tuple[Job, Future]] = {}
        refusals: dict[int, int] = {}

        def from_dask(channel: Any, item: object) -> None:
            # Once the run is over nobody waits for this any more.
            with contextlib.suppress(
                trio.RunFinishedError, trio.ClosedResourceError, trio.BrokenResourceError
            ):
                trio.from_thread.run_sync(channel.send_nowait, item, trio_token=token)

        def on_topic(event: tuple[float, Any]) -> None:
            message = event[1]
            if isinstance(message, bytes):
                from_dask(batch_send, message)
            elif isinstance(message, int):
                from_dask(started_send, message)

        def submit(job: Job) -> None:
            key = f"{run.run_id}-match-{job.table}-{uuid.uuid4().hex[:8]}"
            graph = bootstrap.task_graph(key, DISTRIBUTION, run.version, self._payload(job))
            future = run.client.get(graph, key, sync=False, resources=run.resources)
            pending[future.key] = (job, future)
            future.add_done_callback(lambda f: from_dask(finished_send, (job, f)))

        async def tell_started() -> None:
            async for table in started:
                if table not in done_tables:
                    await on_started(table)

        async def feed_live() -> None:
            nonlocal live_ended
            async for batch in batches:
                for message in events_of(batch):
                    if on_event is None or not _fed(message, done_tables):
                        continue
                    if isinstance(message.event, MatchBegan):
                        open_tables.add(message.table)
                    elif isinstance(message.event, MatchOver):
                        open_tables.discard(message.table)
                        live_ended.set()
                        live_ended = trio.Event()
                    on_event(message)

        async def last_batches() -> None:
            with trio.move_on_after(max(LAST_BATCH_WAIT_S, 4 * self._live_every_s())):
                while open_tables & played_tables:
                    await live_ended.wait()

        run.client.subscribe_topic(run.run_id, on_topic)
        self._on_event = on_topic
        source = iter(jobs)
        exhausted = False
        # Twice as many in flight as the cluster runs at once, so that every worker has its
        # next match queued; the cluster's size is looked at again every second.
        limit = 2 * max(1, self._capacity)
        filling = trio.Lock()

        async def fill() -> None:
            nonlocal exhausted
            async with filling:
                while not exhausted and len(pending) < limit:
                    job = next(source, None)
                    if job is None:
                        exhausted = True
                        break
                    await trio.to_thread.run_sync(submit, job)

        async def follow_capacity() -> None:
            nonlocal limit
            while not exhausted:
                await trio.sleep(CAPACITY_EVERY_S)
                now = await trio.to_thread.run_sync(self.current_capacity, abandon_on_cancel=True)
                if now is not None and 2 * max(1, now) != limit:
                    self._running_at_once = max(1, now)
                    limit = 2 * max(1, now)
                    await fill()

        try:
            async with trio.open_nursery() as nursery:
                nursery.start_soon(tell_started)
                nursery.start_soon(feed_live)
                nursery.start_soon(follow_capacity)
                while True:
                    await fill()
                    if not pending:
                        break
                    job, future = await finished.receive()
                    del pending[future.key]
                    result = await self._result(job, future)
                    if result is _LOST:  # every task was cancelled: submitted again
                        await self._scheduler_back()
                        await trio.to_thread.run_sync(submit, job)
                        continue
                    if result is None:  # refused: the match goes to another worker
                        refusals[job.table] = refusals.get(job.table, 0) + 1
                        if refusals[job.table] > MAX_REFUSALS_PER_MATCH:
                            raise ClusterError(_refused_text(run.refused))
                        await trio.to_thread.run_sync(submit, job)
                        continue
                    assert isinstance(result, JobDone)
                    done_tables.add(job.table)
                    if result.summary is not None:
                        played_tables.add(job.table)
                    await on_done(result)
                await last_batches()
                nursery.cancel_scope.cancel()
        except BaseExceptionGroup as group:
            lone = _lone_arena_error(group)
            if lone is None:
                raise
            raise lone from None  # said as itself (exit 2), not in an exception group
        finally:
            with trio.CancelScope(shield=True):
                futures = [f for _, f in pending.values()]
                await trio.to_thread.run_sync(_forget, run.client, run.run_id, futures)

    async def _scheduler_back(self) -> None:
        """Wait for the lost scheduler (`arena.cluster.lost`); register the bots' plugin with
        it again. Raises `SchedulerLostError` when it does not come back in time."""
        run = self._run
        back = await trio.to_thread.run_sync(wait_for_scheduler, run.client, run.timeout_s)
        if not back:
            raise SchedulerLostError(lost_text(run.address, run.timeout_s))
        if not await trio.to_thread.run_sync(wait_for_workers, run.client, run.timeout_s):
            raise SchedulerLostError(no_workers_text(run.address, run.timeout_s))
        if run.plugin is not None and run.plugin_name not in self._registered_again:
            self._registered_again.add(run.plugin_name)
            for call in (
                lambda: run.client.register_plugin(run.plugin, name=run.plugin_name),
                lambda: run.client.subscribe_topic(run.run_id, self._on_event),
            ):
                await trio.to_thread.run_sync(retry_while_reconnecting, call, run.timeout_s)

    async def _result(self, job: Job, future: Future) -> JobDone | object | None:
        """The job's result, its replay written; ``None`` when the worker refused it, `_LOST`
        when the scheduler was lost."""
        try:
            kind, worker, host, detail = await trio.to_thread.run_sync(future.result)
        except Exception as error:  # the task failed: Dask gave up on it (a worker died often)
            if scheduler_lost(error, self._run.client):
                return _LOST
            return JobDone(
                table=job.table,
                replay=job.replay,
                referee_cpu_s=0.0,
                error=f"the cluster could not play this match: {type(error).__name__}: {error}",
            )
        refusal = checks.refusal(kind, worker, host, detail, self._run.version)
        if refusal is not None:
            await self._refuse(worker, refusal)
            return None
        answer = decode_from_task(detail)
        if isinstance(answer, Refused):
            texts = [checks.problem_text(p, worker, host) for p in answer.problems]
            name = checks.worker_name(worker, host)
            await self._refuse(worker, "; ".join(texts) or f"{name}: {answer.reason}")
            return None
        if not isinstance(answer, Played):
            raise ClusterError(f"{checks.worker_name(worker, host)} answered a match with nonsense")
        done = answer.done
        if answer.replay is not None:
            try:
                await trio.to_thread.run_sync(_write, done, answer.replay)
            except OSError as error:  # as a local worker says it: a full disk stops the run
                return JobDone(
                    table=job.table,
                    replay=job.replay,
                    referee_cpu_s=done.referee_cpu_s,
                    error=f"cannot write the replay {job.replay}: OSError: {error}",
                )
        self.placements[job.table] = Placement(worker, host, answer.mechanism)
        self.cpu_s[0] += done.referee_cpu_s
        return done

    async def _refuse(self, worker: str, reason: str) -> None:
        """Retire a refused worker (once) and say why; stop when none is left."""
        run = self._run
        if worker in run.refused:
            return
        run.refused[worker] = reason
        run.say(f"refused {reason}; retiring it")
        client = run.client
        await trio.to_thread.run_sync(
            lambda: client.retire_workers(workers=[worker], close_workers=True)
        )
        info = await trio.to_thread.run_sync(client.scheduler_info)
        if not set(info["workers"]) - set(run.refused):
            raise ClusterError(_refused_text(run.refused))


#: What `DaskPool._result` answers for a task the lost scheduler took with it.
_LOST = object()


def _fed(message: JobEvent, done_tables: set[int]) -> bool:
    """Whether a live event goes to the live view: a match already recorded is not begun
    again (a copy of its task that Dask ran twice); its last batch may come after its result,
    and is fed."""
    return not (message.table in done_tables and isinstance(message.event, MatchBegan))


def _lone_arena_error(group: BaseExceptionGroup[BaseException]) -> ArenaError | None:
    """The one `ArenaError` a nursery's group holds (a refused cluster), else ``None``."""
    if len(group.exceptions) != 1:
        return None
    inner = group.exceptions[0]
    if isinstance(inner, BaseExceptionGroup):
        return _lone_arena_error(inner)
    return inner if isinstance(inner, ArenaError) else None


def _refused_text(refused: dict[str, str]) -> str:
    return "no worker of the cluster can play: " + "; ".join(refused.values())


def _write(done: JobDone, replay: bytes) -> None:
    """Write a match's replay (as the worker encoded it) and, when a seat failed, its bundle."""
    write_replay_bytes(done.replay, replay)
    summary = done.summary
    failed = summary is not None and any(
        s.failure is not None or s.strikes or s.restarts for s in summary.seats
    )
    if failed:
        try:
            write_failure_bundle(decode_replay(replay), done.replay)
        except OSError as error:  # the replay holds the same evidence: the match counts
            print(
                f"arena: cannot write the failure bundle of {done.replay}: {error}",
                file=sys.stderr,
                flush=True,
            )


def _forget(client: Client, topic: str, futures: list[Future]) -> None:
    if client_status(client) != "running":  # the scheduler is gone: nothing to cancel there
        return
    if futures:
        client.cancel(futures)
    with contextlib.suppress(ValueError):
        client.unsubscribe_topic(topic)


def _archive(entrant: Entrant) -> Archive:
    return pack_folder(entrant.cwd) if entrant.cwd is not None else pack_command(entrant.command)


def _ship(
    entrants: Sequence[Entrant],
) -> tuple[dict[tuple[str, str | None], ShippedBot], dict[str, bytes]]:
    bots: dict[tuple[str, str | None], ShippedBot] = {}
    archives: dict[str, bytes] = {}
    for e in entrants:
        archive = _archive(e)
        archives[archive.sha256] = archive.data
        bots[(e.command, e.cwd)] = ShippedBot(
            archive.sha256, e.name, e.command, e.build, folder=e.cwd is not None
        )
    return bots, archives


def _preflight(
    client: Client,
    version: str,
    message: Preflight,
    timeout_s: float,
) -> list[tuple[str, str, str, Any]]:
    """Every worker's answer to the preflight, each task pinned to its worker."""
    try:
        client.wait_for_workers(1, timeout=max(timeout_s, WORKER_WAIT_S))
    except TimeoutError:
        raise ClusterError(
            f"--cluster {client.scheduler_info()['address']}: no worker joined the scheduler "
            f"within {max(timeout_s, WORKER_WAIT_S):g} s; start some (dask worker ADDRESS "
            "--nthreads 1)"
        ) from None
    workers = sorted(client.scheduler_info()["workers"])
    payload = encode(message)
    futures = []
    for worker in workers:
        key = f"{SLUG}-arena-preflight-{uuid.uuid4().hex}"
        graph = bootstrap.task_graph(key, DISTRIBUTION, version, payload)
        futures.append(
            client.get(graph, key, sync=False, workers=[worker], allow_other_workers=False)
        )
    answers: list[tuple[str, str, str, Any]] = client.gather(futures)
    return answers


def _judge(
    answers: list[tuple[str, str, str, Any]], version: str, sandbox: str
) -> tuple[list[WorkerReport], list[str]]:
    reports, problems = [], []
    for kind, worker, host, detail in answers:
        refusal = checks.refusal(kind, worker, host, detail, version)
        if refusal is not None:
            problems.append(refusal)
            continue
        report = decode_from_task(detail)
        if not isinstance(report, WorkerReport):
            problems.append(f"{checks.worker_name(worker, host)} answered its check with nonsense")
            continue
        reports.append(report)
        problems += checks.report_problems(report, sandbox)
    return reports, problems


@asynccontextmanager
async def open_dask_pool(
    options: ClusterOptions,
    entrants: Sequence[Entrant],
    *,
    sandbox: dict[str, Any] | None,
    startup_ms: int,
    build_timeout_s: float = 300.0,
    say: Callable[[str], None] = lambda line: print(line, file=sys.stderr, flush=True),
) -> AsyncIterator[DaskPool]:
    """Connect, ship the bots, check every worker; the pool. On exit the run's tasks are
    cancelled, its plugin removed and the client closed.

    Raises:
        ClusterError: the scheduler cannot be reached, no worker joins, or a worker is
            refused (the message names each, with its address and host).
    """
    client = await trio.to_thread.run_sync(connect, options)
    name = f"{SLUG}-arena-bots-{uuid.uuid4().hex[:12]}"
    try:
        bootstrap.register()
        bots, archives = await trio.to_thread.run_sync(_ship, entrants)
        plugin = bootstrap.BotArchives(name, DISTRIBUTION, archives)
        await trio.to_thread.run_sync(lambda: client.register_plugin(plugin, name=name))
        version = arena_version()
        message = Preflight(
            sandbox=sandbox,
            bots=list(bots.values()),
            startup_ms=startup_ms,
            build_timeout_s=build_timeout_s,
        )
        answers = await trio.to_thread.run_sync(
            _preflight, client, version, message, options.connect_timeout_s
        )
        mechanism = "none" if sandbox is None else str(sandbox.get("mechanism", "auto"))
        reports, problems = _judge(answers, version, mechanism)
        if problems:
            raise ClusterError("; ".join(problems))
        per_match = checks.slots(reports)
        for report in reports:
            say(f"cluster: {_describe(report, per_match)}")
        for line in checks.crowded_hosts(reports, per_match):
            say(f"cluster: warning: {line}: the bots' clocks are not fair there")
        run = _Run(
            client=client,
            version=version,
            run_id=f"{SLUG}-arena-{uuid.uuid4().hex[:12]}",
            bots=bots,
            resources=per_match.resources,
            build_timeout_s=build_timeout_s,
            say=say,
            address=options.address,
            timeout_s=options.connect_timeout_s,
            plugin=plugin,
            plugin_name=name,
        )
        pool = DaskPool(run, per_match.total, reports)
        yield pool
        for line in pool.where_played():
            say(f"cluster: {line}")
    finally:
        with trio.CancelScope(shield=True):
            await trio.to_thread.run_sync(_close, client, name)


def _describe(report: WorkerReport, per_match: checks.Slots) -> str:
    at_once = (
        int(report.resources[checks.CPU]) if per_match.resources is not None else report.nthreads
    )
    box = "no sandbox" if report.mechanism is None else f"sandbox {report.mechanism}"
    if report.cgroups is not None:
        box += f" + {report.cgroups}"
    return (
        f"{checks.worker_name(report.worker, report.host)}: {box}; {at_once} "
        f"match{'es' if at_once != 1 else ''} at once on {report.cpus} "
        f"CPU{'s' if report.cpus != 1 else ''}"
    )


def _close(client: Client, name: str) -> None:
    with contextlib.suppress(Exception):  # the scheduler may be gone: nothing to unregister
        client.unregister_worker_plugin(name)
    client.close()


__all__ = ["DaskPool", "Placement", "open_dask_pool"]
