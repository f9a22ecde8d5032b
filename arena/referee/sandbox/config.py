"""The sandbox's settings and vocabulary: `SandboxConfig` (every limit and policy), the
mechanisms, and the errors raised when a sandbox cannot be set up."""

from __future__ import annotations

import enum
from dataclasses import dataclass
from typing import Literal

from arena.errors import ArenaError

MB = 1 << 20
NOBODY = 65534
"""The uid and gid bots run as when the referee is root (Debian's ``nobody``/``nogroup``)."""


class SandboxError(ArenaError):
    """The sandbox cannot be set up: a forced mechanism is missing, or a cgroup cannot be made
    (an :class:`ArenaError`: the person running the arena fixes it; the CLI exits with 2)."""


class SandboxPathError(SandboxError):
    """A file the bot needs (its folder, its program) cannot be read by the bot's user."""


class Mechanism(enum.Enum):
    """How a bot is contained, strongest first."""

    BWRAP = "bwrap"
    UNSHARE = "unshare"
    RLIMITS = "rlimits"


@dataclass(frozen=True, slots=True)
class SandboxConfig:
    """Every limit and policy of the sandbox; the defaults suit a contest.

    Attributes:
        memory_mb: Memory (RSS, page cache and tmpfs files) of the bot's whole process tree,
            enforced by a cgroup; ``None`` for no limit. Without a memory cgroup it becomes an
            address-space limit (``RLIMIT_AS``), which node and Java do not tolerate.
        cpu_seconds: CPU time of the whole match (all the bot's processes together under a
            cgroup, each process on its own under ``RLIMIT_CPU``); ``None`` for no limit.
        max_processes: Processes and threads the bot may have at once (cgroup ``pids.max``).
        file_size_mb: Largest file the bot may write (``RLIMIT_FSIZE``).
        open_files: Most file descriptors per process (``RLIMIT_NOFILE``).
        address_space_mb: An explicit ``RLIMIT_AS``; ``None`` sets one only when there is no
            memory cgroup (then it is ``memory_mb``).
        allow_network: Whether the bot keeps the host's network (default: no network at all).
        scratch: ``"tmpfs"``: under bwrap the working directory is a private tmpfs of
            ``scratch_mb`` (charged to the memory limit; nothing reaches the disk).
            ``"disk"``: it is a host directory, removed when the bot ends (the total size is
            then not capped, only each file). Without bwrap it is always ``"disk"``.
        scratch_mb: Size of each private tmpfs under bwrap (the working directory in
            ``"tmpfs"`` mode, and ``/tmp``).
        run_as_uid: The user bots run as when the referee is root; ``None`` keeps root (with
            every capability dropped under bwrap).
        run_as_gid: The group bots run as when the referee is root.
        read_only_paths: More host paths a bot may read (bound read-only under bwrap).
        hidden_paths: Host paths a bot must not see even inside a bound directory, such as
            the replay directory or other bots' folders (masked under bwrap only).
        env_allow: Names of variables passed through from the given environment, besides
            ``PATH``, ``HOME``, ``LANG`` and ``TMPDIR``, which the sandbox sets.
        mechanism: ``"auto"`` (the strongest that works) or one to insist on.
        use_cgroups: Whether to use a cgroup when one is writable.
        cgroup_parent: Where to create the bots' cgroups, as a path inside each cgroup
            hierarchy (``"/"`` is the root); ``None``: below the referee's own cgroup.
        workdir_root: Host directory for the working directories (default: the temp dir).
        cpu_poll_s: How often the whole-tree CPU time is checked against ``cpu_seconds``.
    """

    memory_mb: int | None = 1024
    cpu_seconds: float | None = 300.0
    max_processes: int | None = 128
    file_size_mb: int | None = 64
    open_files: int | None = 512
    address_space_mb: int | None = None
    allow_network: bool = False
    scratch: Literal["tmpfs", "disk"] = "tmpfs"
    scratch_mb: int = 64
    run_as_uid: int | None = NOBODY
    run_as_gid: int | None = NOBODY
    read_only_paths: tuple[str, ...] = ()
    hidden_paths: tuple[str, ...] = ()
    env_allow: tuple[str, ...] = ()
    mechanism: Literal["auto", "bwrap", "unshare", "rlimits"] = "auto"
    use_cgroups: bool = True
    cgroup_parent: str | None = None
    workdir_root: str | None = None
    cpu_poll_s: float = 0.5

    def __post_init__(self) -> None:
        positive = {
            "memory_mb": self.memory_mb,
            "cpu_seconds": self.cpu_seconds,
            "max_processes": self.max_processes,
            "file_size_mb": self.file_size_mb,
            "open_files": self.open_files,
            "address_space_mb": self.address_space_mb,
            "scratch_mb": self.scratch_mb,
            "cpu_poll_s": self.cpu_poll_s,
        }
        bad = [
            f"{name}={value}"
            for name, value in positive.items()
            if value is not None and value <= 0
        ]
        if bad:
            raise ValueError(f"sandbox limits must be positive: {', '.join(bad)}")
        if self.scratch not in ("tmpfs", "disk"):
            raise ValueError(f"scratch must be 'tmpfs' or 'disk', not {self.scratch!r}")
        if self.mechanism not in ("auto", "bwrap", "unshare", "rlimits"):
            raise ValueError(f"unknown sandbox mechanism {self.mechanism!r}")
        if (self.run_as_uid is None) != (self.run_as_gid is None):
            raise ValueError("run_as_uid and run_as_gid must both be set or both be None")
