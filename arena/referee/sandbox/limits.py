"""Resource limits: the rlimits a bot's child sets before it starts (with ``no_new_privs``, its
cgroup and its user: `make_preexec`), what a bot used (`ResourceUsage`), and whether a limit
ended it (`classify_outcome`)."""

from __future__ import annotations

import ctypes
import enum
import math
import os
import resource
import signal
from collections.abc import Callable
from dataclasses import dataclass

from arena.referee.sandbox.config import MB, SandboxConfig

_PR_SET_NO_NEW_PRIVS = 38
_PR_SET_PDEATHSIG = 1
_PR_CAPBSET_DROP = 24


class ResourceLimit(enum.Enum):
    """A resource limit that ended a bot (the value is the outcome's name for the referee)."""

    MEMORY = "memory_limit"
    CPU = "cpu_limit"


@dataclass(frozen=True, slots=True)
class ResourceUsage:
    """What a bot used, as far as the mechanism can tell (``None``: not measurable here).

    Attributes:
        cpu_seconds: CPU time of the whole tree (cgroup accounting).
        memory_peak_bytes: The highest memory use of the whole tree (cgroup).
        oom_kills: Processes the kernel killed for exceeding the memory limit (cgroup).
        pids_limit_hits: Forks refused because of the process limit (cgroup).
        cpu_limit_s: The CPU limit in force, if any.
        memory_limit_bytes: The memory limit in force, if any.
        cpu_limit_hit: Whether the sandbox killed the bot for its whole-tree CPU time.
    """

    cpu_seconds: float | None = None
    memory_peak_bytes: int | None = None
    oom_kills: int | None = None
    pids_limit_hits: int | None = None
    cpu_limit_s: float | None = None
    memory_limit_bytes: int | None = None
    cpu_limit_hit: bool = False


@dataclass(frozen=True, slots=True)
class ResourceOutcome:
    """A resource limit ended the bot: which, in a sentence, and the evidence.

    Attributes:
        limit: Which limit.
        detail: One sentence for people.
        usage: The measurements it rests on.
    """

    limit: ResourceLimit
    detail: str
    usage: ResourceUsage

    @property
    def status(self) -> str:
        """The outcome's name: ``"memory_limit"`` or ``"cpu_limit"``."""
        return self.limit.value


def classify_outcome(usage: ResourceUsage, exit_signal: int | None) -> ResourceOutcome | None:
    """Tells whether a resource limit ended a bot.

    Args:
        usage: What the bot used (`BotSandbox.usage`).
        exit_signal: The signal that ended the bot's main process, if one did.

    Returns:
        ``memory_limit`` when the cgroup counted an OOM kill; ``cpu_limit`` when the sandbox
        stopped the tree for its CPU time, or the bot died of SIGXCPU, or of SIGKILL with its
        CPU time at the limit; otherwise ``None``.
    """
    if usage.oom_kills:
        limit_mb = (usage.memory_limit_bytes or 0) / MB
        peak = (
            ""
            if usage.memory_peak_bytes is None
            else f", peak {usage.memory_peak_bytes / MB:.0f} MB"
        )
        return ResourceOutcome(
            ResourceLimit.MEMORY,
            f"the bot went over its memory limit of {limit_mb:.0f} MB and the kernel killed it"
            f" ({usage.oom_kills} OOM kill{'s' if usage.oom_kills != 1 else ''}{peak})",
            usage,
        )
    limit = usage.cpu_limit_s
    at_limit = (
        limit is not None
        and usage.cpu_seconds is not None
        and usage.cpu_seconds >= limit - 0.05
        and exit_signal == signal.SIGKILL
    )
    if usage.cpu_limit_hit or exit_signal == signal.SIGXCPU or at_limit:
        used = "" if usage.cpu_seconds is None else f" after {usage.cpu_seconds:.2f} s of CPU"
        return ResourceOutcome(
            ResourceLimit.CPU,
            f"the bot used up its CPU time for the match ({limit:g} s) and was killed{used}"
            if limit is not None
            else f"the bot was killed by SIGXCPU{used}",
            usage,
        )
    return None


def child_rlimits(
    config: SandboxConfig,
    euid: int,
    controllers: frozenset[str],
    address_space: int | None,
) -> tuple[tuple[str, int, int, int], ...]:
    """The ``(name, resource, soft, hard)`` limits the child sets before it starts."""
    limits: list[tuple[str, int, int, int]] = [("CORE", resource.RLIMIT_CORE, 0, 0)]
    if config.cpu_seconds is not None:
        # With cgroup accounting the watchdog enforces the limit for the whole tree, on the
        # same clock it reports; RLIMIT_CPU is then a backstop one second later.
        seconds = max(1, math.ceil(config.cpu_seconds)) + (1 if "cpu" in controllers else 0)
        limits.append(("CPU", resource.RLIMIT_CPU, seconds, seconds + 1))
    if config.file_size_mb is not None:
        size = config.file_size_mb * MB
        limits.append(("FSIZE", resource.RLIMIT_FSIZE, size, size))
    if config.open_files is not None:
        limits.append(("NOFILE", resource.RLIMIT_NOFILE, config.open_files, config.open_files))
    if address_space is not None:
        size = address_space * MB
        limits.append(("AS", resource.RLIMIT_AS, size, size))
    if euid != 0:  # without root a hard limit cannot be raised: stay within ours
        limits = [(n, r, within_hard(r, s), within_hard(r, h)) for n, r, s, h in limits]
    return tuple(limits)


def within_hard(which: int, value: int) -> int:
    """``value``, lowered to our own hard limit of ``which`` (without root it cannot be raised)."""
    hard = resource.getrlimit(which)[1]
    return value if hard == resource.RLIM_INFINITY else min(value, hard)


def _load_prctl() -> Callable[..., int] | None:
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        prctl: Callable[..., int] = libc.prctl
    except (OSError, AttributeError):
        return None
    return prctl


_prctl = _load_prctl()


def make_preexec(
    procs_files: tuple[str, ...],
    limits: tuple[tuple[int, int, int], ...],
    drop: tuple[int, int] | None,
    *,
    drop_caps: bool = False,
) -> Callable[[], None]:
    """The function run in a bot's child between fork and exec: it joins the cgroup (writes its
    pid to ``procs_files``), sets ``limits``, ``no_new_privs``, (``drop_caps``) an empty bounding
    set, (``drop``) the bot's uid and gid, and its parent-death signal."""
    prctl = _prctl
    parent = os.getpid()  # the referee: this closure is made there, before the fork

    def preexec() -> None:
        # Runs between fork and exec: only system calls, nothing that takes a lock.
        pid = str(os.getpid()).encode()
        for path in procs_files:
            fd = os.open(path, os.O_WRONLY)
            try:
                os.write(fd, pid)
            finally:
                os.close(fd)
        for which, soft, hard in limits:
            resource.setrlimit(which, (soft, hard))
        if prctl is not None:
            prctl(_PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0)
        if drop_caps and prctl is not None:
            # Root's capabilities after exec come from the bounding set (its inheritable set
            # is empty): emptied, the bot keeps uid 0 and nothing else.
            for cap in range(64):
                if prctl(_PR_CAPBSET_DROP, cap, 0, 0, 0) != 0:
                    break  # past the last capability this kernel knows
        if drop is not None:
            os.setgroups([])
            os.setgid(drop[1])
            os.setuid(drop[0])
        if prctl is not None:
            # Dies with the thread that forked it (the referee's spawner thread, which lives
            # as long as the referee); set after the uid change, which would clear it.
            prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
            if os.getppid() != parent:
                # The referee died between the fork and the line above: the signal it would
                # have sent is sent now.
                os.kill(os.getpid(), signal.SIGKILL)

    return preexec
