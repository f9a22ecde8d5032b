"""The worker's side: one match per Dask task, and the check a worker passes before it plays.

A task runs in one of the Dask worker's threads: it plays its match with
:func:`~arena.referee.match.play_match` in its own ``trio.run``, its bots contained by the
worker's sandbox plan exactly as on a local worker process (the sandbox, not Dask, owns each
bot's process tree, so a killed worker leaves no bot behind). The replay goes back to the
coordinator as bytes, with the bots' folders and the working folder written as the
coordinator's, so a rematch there plays the same match. Nothing is written on the worker but
the unpacked bots and their builds. A job marked ``live`` sends its match's live events to the
run's event topic as it plays (`arena.cluster.live`).
"""

from __future__ import annotations

import dataclasses
import json
import os
import threading
import time
import traceback
from collections.abc import Callable
from typing import Any

import msgspec
import trio

from arena.cluster import ship
from arena.cluster.live import LiveBatches, play_live
from arena.cluster.messages import (
    BotProblem,
    ClusterJob,
    FromTask,
    Played,
    Preflight,
    Refused,
    ShippedBot,
    WorkerReport,
    decode_to_task,
    encode,
)
from arena.cluster.version import arena_version
from arena.games.match import MatchLength
from arena.games.registry import get_game
from arena.referee.channel import BotSpec
from arena.referee.clock import TimeLimits
from arena.referee.match import MatchConfig, freeze_startup_objects, play_match
from arena.referee.sandbox import SandboxError, SandboxPlan, plan_sandbox
from arena.replay import encode_replay
from arena.tournament.entrants import Entrant, prepare
from arena.tournament.jobs import JobDone, summarize
from arena.tournament.settings import PROTOCOL_DIR, sandbox_from_dict, sandbox_to_dict

_lock = threading.Lock()
#: This process's sandbox plans, by configuration (the same one in every task of a run).
_plans: dict[str, SandboxPlan] = {}
#: The bots this process has checked (build on this host, handshake here): their problem.
_ready: dict[tuple[str, str | None, str], BotProblem | None] = {}
#: Whether this worker process's objects were moved out of the collector's reach.
_frozen = False


def run_message(payload: bytes, worker: str, host: str) -> bytes:
    """Run one message from the coordinator on this worker; the answer's bytes."""
    message = decode_to_task(payload)
    answer: FromTask
    if isinstance(message, Preflight):
        answer = _preflight(message, worker, host)
    else:
        answer = _play(message, worker, host)
    return encode(answer)


def _worker_config(sandbox: dict[str, object]) -> dict[str, object]:
    """The coordinator's sandbox for this host: this installation's ``protocol`` package may
    be read."""
    config = sandbox_from_dict(dict(sandbox))
    read_only = tuple(dict.fromkeys([*config.read_only_paths, PROTOCOL_DIR]))
    return sandbox_to_dict(dataclasses.replace(config, read_only_paths=read_only))


def _plan(sandbox: dict[str, object] | None) -> SandboxPlan | None:
    """This process's plan for the sandbox asked for (made once).

    Raises:
        SandboxError: the mechanism asked for does not work on this worker.
    """
    if sandbox is None:
        return None
    config = _worker_config(sandbox)
    key = json.dumps(config, sort_keys=True)
    with _lock:
        plan = _plans.get(key)
        if plan is None:
            plan = _plans[key] = plan_sandbox(sandbox_from_dict(config))
    return plan


def _hiding_others(plan: SandboxPlan | None, bots: list[ShippedBot]) -> SandboxPlan | None:
    """The plan with every bot unpacked on this host hidden, but ``bots``' own files."""
    if plan is None:
        return None
    keep = {ship.bot_dir(b.sha256) for b in bots}
    return plan.with_hidden(d for d in ship.unpacked() if d not in keep)


def _check_bot(
    bot: ShippedBot, plan: SandboxPlan | None, startup_ms: int, build_timeout_s: float
) -> BotProblem | None:
    """Build the bot once on this host and check its handshake once in this process."""
    mechanism = "none" if plan is None else plan.mechanism.value
    key = (bot.sha256, bot.build, mechanism)
    with _lock:
        if key in _ready:
            return _ready[key]
        problem: BotProblem | None
        if not os.path.isdir(ship.bot_dir(bot.sha256)):
            problem = BotProblem(bot.name, "ship", "its archive was not unpacked on this host")
        else:
            problem = _prepare(bot, _hiding_others(plan, [bot]), startup_ms, build_timeout_s)
        _ready[key] = problem
    return problem


def _launch(bot: ShippedBot) -> tuple[str, str | None]:
    """The command and folder that start a shipped bot here: a bot folder runs in its
    unpacked folder; a command-line bot runs as one, its shipped files named by their paths
    here."""
    folder = ship.bot_dir(bot.sha256)
    if bot.folder:
        return bot.command, folder
    return ship.localized_command(bot.command, folder), None


def _prepare(
    bot: ShippedBot, plan: SandboxPlan | None, startup_ms: int, build_timeout_s: float
) -> BotProblem | None:
    build = bot.build
    command, folder = _launch(bot)
    if build is not None:
        with ship.host_lock(bot.sha256):
            outcome = ship.build_outcome(bot.sha256, build)
            if outcome is None:
                entrant = Entrant(bot.name, command, folder, build=build)
                problem = _run_prepare(entrant, plan, startup_ms, build_timeout_s)
                # Only a build that passed is kept for the host's other workers (and later
                # runs): a failed one is tried again, so a host that was fixed is seen.
                if problem is None or problem.stage != "build":
                    ship.keep_build_outcome(bot.sha256, build, {})
                return problem
        if outcome:
            return BotProblem(bot.name, outcome["stage"], outcome["reason"])
    entrant = Entrant(bot.name, command, folder)
    return _run_prepare(entrant, plan, startup_ms, build_timeout_s)


def _run_prepare(
    entrant: Entrant, plan: SandboxPlan | None, startup_ms: int, build_timeout_s: float
) -> BotProblem | None:
    _, excluded = trio.run(
        lambda: prepare(
            [entrant], startup_ms=startup_ms, build_timeout_s=build_timeout_s, sandbox=plan
        )
    )
    if not excluded:
        return None
    return BotProblem(entrant.name, excluded[0].stage, excluded[0].reason)


def _mechanism(plan: SandboxPlan | None) -> str | None:
    return None if plan is None else plan.mechanism.value


def _worker() -> Any:
    from distributed import get_worker

    return get_worker()


def _topic_sender(topic: str) -> Callable[[bytes], None]:
    """Sends a message to the run's event topic (Dask queues it: the match never waits)."""
    worker = _worker()
    return lambda data: worker.log_event(topic, data)


def _worker_state() -> tuple[int, dict[str, float]]:
    state = _worker().state
    return state.nthreads, dict(state.total_resources)


def _preflight(message: Preflight, worker: str, host: str) -> WorkerReport:
    nthreads, resources = _worker_state()
    report = WorkerReport(
        worker=worker,
        host=host,
        version=arena_version(),
        mechanism=None,
        cgroups=None,
        cpus=os.cpu_count() or 1,
        nthreads=nthreads,
        resources=resources,
    )
    try:
        plan = _plan(message.sandbox)
    except SandboxError as error:
        return msgspec.structs.replace(report, sandbox_error=str(error))
    problems = [
        p
        for b in message.bots
        if (p := _check_bot(b, plan, message.startup_ms, message.build_timeout_s)) is not None
    ]
    return msgspec.structs.replace(
        report,
        mechanism=_mechanism(plan),
        cgroups=None if plan is None or plan.cgroup is None else plan.cgroup.describe(),
        problems=problems,
    )


def _freeze_once() -> None:
    """Freeze the worker process's objects once, before its first match (as a local worker
    does after its imports): Dask's own heap is large, and a cyclic collection that walks it
    while a match allocates made every move cost about a third more."""
    global _frozen
    with _lock:
        if not _frozen:
            _frozen = True
            freeze_startup_objects()


def _play(message: ClusterJob, worker: str, host: str) -> Played | Refused:
    job = message.job
    try:
        plan = _plan(job.sandbox)
    except SandboxError as error:
        return Refused(worker, host, f"its sandbox cannot be what --sandbox asks: {error}")
    problems = [
        p
        for b in message.seats
        if (p := _check_bot(b, plan, job.startup_ms, message.build_timeout_s)) is not None
    ]
    if problems:
        return Refused(worker, host, "a bot failed there", problems)
    _freeze_once()
    if message.topic:
        _worker().log_event(message.topic, job.table)
    started = time.thread_time()
    try:
        game = get_game(job.game)
        config = MatchConfig(
            game=game,
            rules=game.parse_rules(dict(job.rules)),
            players=len(job.bots),
            seed=job.seed,
            length=MatchLength(target=job.target, hands=job.hands),
            time=TimeLimits(startup_ms=job.startup_ms, move_ms=job.move_ms, bank_ms=job.bank_ms),
            sandbox=_hiding_others(plan, message.seats),
            max_stdout_bytes=job.max_stdout_bytes,
            policy=job.policy,
            sandbox_settings=job.sandbox,
        )
        bots = [BotSpec(*_launch(s), b.name) for b, s in zip(job.bots, message.seats, strict=True)]
        if job.live and message.topic:
            batches = LiveBatches(job.table, _topic_sender(message.topic), message.live_every_s)
            replay = trio.run(play_live, config, bots, batches)
        else:
            replay = trio.run(play_match, config, bots)
        # The replay says where the bots and the arena ran on the coordinator, as a local
        # run would: `arena rematch` there plays the same match.
        seats = [
            msgspec.structs.replace(
                s, command=job.bots[s.seat].command, folder=job.bots[s.seat].cwd
            )
            for s in replay.seats
        ]
        replay = msgspec.structs.replace(
            replay,
            seats=seats,
            workdir=message.workdir,
            host=host,
            mechanism=_mechanism(plan) or "",
        )
        done = JobDone(
            table=job.table,
            replay=job.replay,
            referee_cpu_s=time.thread_time() - started,
            summary=summarize(replay),
        )
        return Played(done, worker, host, _mechanism(plan), encode_replay(replay))
    except Exception:  # reported to the coordinator, which records the match as not played
        done = JobDone(
            table=job.table,
            replay=job.replay,
            referee_cpu_s=time.thread_time() - started,
            error=f"on worker {worker} ({host}):\n{traceback.format_exc(limit=8)}",
        )
        return Played(done, worker, host, _mechanism(plan))
