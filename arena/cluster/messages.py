"""What the coordinator sends a worker's task and what the task answers, as msgspec Structs.

They travel as msgpack bytes (`encode`, the decoders), so a task's argument and result are
plain bytes to Dask, and a replay travels as the bytes the worker wrote, never re-encoded.
"""

from __future__ import annotations

from typing import Any

import msgspec

from arena.tournament.jobs import Job, JobDone


class ShippedBot(msgspec.Struct, frozen=True):
    """One seat's bot as a worker finds it: its archive (by sha256), its build command, and
    whether the arena runs it in its folder (a bot folder) or as a command line (the files its
    command names, shipped in an archive of their own)."""

    sha256: str
    name: str
    command: str
    build: str | None = None
    folder: bool = True


class Preflight(msgspec.Struct, frozen=True, tag="preflight"):
    """Check a worker before it plays: its sandbox, and every bot's build and handshake."""

    sandbox: dict[str, Any] | None
    bots: list[ShippedBot]
    startup_ms: int
    build_timeout_s: float = 300.0


class ClusterJob(msgspec.Struct, frozen=True, tag="match"):
    """Play ``job`` with the seats' bots from their archives; ``workdir`` is the coordinator's
    working folder (recorded in the replay, where relative commands start for a rematch)."""

    job: Job
    seats: list[ShippedBot]
    workdir: str
    build_timeout_s: float = 300.0
    #: The run's Dask event topic: the task says there when its match starts, and (a job
    #: marked ``live``) sends its live events there in batches (`arena.cluster.live`).
    topic: str = ""
    #: Seconds between two batches of a live job's events (the coordinator widens it for a
    #: large cluster, so that the scheduler forwards a bounded number of batches a second).
    live_every_s: float = 0.1


class BotProblem(msgspec.Struct, frozen=True):
    """A bot that failed its build or its handshake on a worker host."""

    name: str
    stage: str
    reason: str


class WorkerReport(msgspec.Struct, frozen=True, tag="report"):
    """What a worker is: its address and host, its sandbox (mechanism, cgroups), its CPUs, and
    the bots that failed there (the preflight's answer)."""

    worker: str
    host: str
    version: str
    mechanism: str | None
    cgroups: str | None
    cpus: int
    nthreads: int
    resources: dict[str, float]
    sandbox_error: str | None = None
    problems: list[BotProblem] = []


class Played(msgspec.Struct, frozen=True, tag="played"):
    """A match played on ``worker`` (``host``) under ``mechanism``, with its replay's bytes
    (``None`` when the match could not be played: ``done.error`` says why)."""

    done: JobDone
    worker: str
    host: str
    mechanism: str | None
    replay: bytes | None = None


class Refused(msgspec.Struct, frozen=True, tag="refused"):
    """The worker cannot play: its sandbox is weaker than asked, or a bot failed there."""

    worker: str
    host: str
    reason: str
    problems: list[BotProblem] = []


ToTask = Preflight | ClusterJob
FromTask = WorkerReport | Played | Refused

_ENCODER = msgspec.msgpack.Encoder()
_TO_TASK = msgspec.msgpack.Decoder(ToTask)
_FROM_TASK = msgspec.msgpack.Decoder(FromTask)


def encode(message: ToTask | FromTask) -> bytes:
    """One message as msgpack bytes."""
    return _ENCODER.encode(message)


def decode_to_task(data: bytes) -> ToTask:
    """A message for a task (raises msgspec errors on nonsense)."""
    return _TO_TASK.decode(data)


def decode_from_task(data: bytes) -> FromTask:
    """A task's answer (raises msgspec errors on nonsense)."""
    return _FROM_TASK.decode(data)
