"""What a plan enforces and what it does not, in sentences for people: `Report` collects them
while `arena.referee.sandbox.plan.plan_sandbox` works the plan out, and `report_limits` words
the processes, memory, CPU, files, network and environment parts."""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from arena.referee.sandbox.config import Mechanism, SandboxConfig


@dataclass
class Report:
    """What a plan enforces, does not enforce, and warns about, as it is worked out."""

    enforced: list[str] = field(default_factory=list)
    not_enforced: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)


def report_limits(
    config: SandboxConfig,
    mechanism: Mechanism,
    controllers: frozenset[str],
    report: Report,
    *,
    view: bool = False,
) -> int | None:
    """Reports processes, memory, CPU, files, network and environment; returns RLIMIT_AS (MB)."""
    enforced, not_enforced = report.enforced, report.not_enforced
    # -- processes
    if mechanism is Mechanism.RLIMITS:
        if controllers:
            enforced.append(
                "cleanup: the process group is killed, then every process left in the bot's"
                " cgroup (setsid escapers included)"
            )
        else:
            enforced.append("cleanup: the bot's process group is killed")
            not_enforced.append(
                "a process that calls setsid() leaves the bot's process group and survives cleanup"
            )
        not_enforced.append(
            "if the referee is killed, only the bot's main process dies with it; what it forked"
            + (
                " is killed when the next referee starts (it finds the dead referee's cgroup)"
                if controllers
                else " survives"
            )
        )
    else:
        how = (
            "bwrap --unshare-pid --die-with-parent"
            if mechanism is Mechanism.BWRAP
            else "unshare --pid --fork --kill-child"
        )
        enforced.append(
            f"cleanup: a PID namespace ({how}): when the bot ends every process it started ends,"
            " double forks and setsid escapers included, and so it does if the referee is"
            " killed; bots cannot see or signal other processes"
        )
    if "pids" in controllers and config.max_processes is not None:
        enforced.append(
            f"at most {config.max_processes} processes and threads at once (cgroup pids.max)"
        )
    elif config.max_processes is not None:
        not_enforced.append("process count (no pids cgroup; RLIMIT_NPROC does nothing for root)")

    # -- memory
    address_space = config.address_space_mb
    if config.memory_mb is not None and "memory" in controllers:
        enforced.append(
            f"memory: {config.memory_mb} MB for the whole process tree, its tmpfs files and its"
            " swap where the kernel accounts it (cgroup); an OOM kill is reported as memory_limit"
        )
    elif config.memory_mb is not None:
        address_space = address_space or config.memory_mb
        report.warnings.append(
            f"no memory cgroup: memory is capped as {address_space} MB of address space per"
            " process (RLIMIT_AS), which node needs ~1 GB and Java ~4 GB of just to start"
        )
        not_enforced.append(
            "memory of the whole tree (each process is capped on its own); OOM is not reported"
        )
    else:
        not_enforced.append("memory (no limit was set)")
    if address_space is not None:
        enforced.append(f"address space: {address_space} MB per process (RLIMIT_AS)")

    # -- CPU
    if config.cpu_seconds is not None:
        per_process = max(1, math.ceil(config.cpu_seconds))
        if "cpu" in controllers:
            enforced.append(
                f"CPU: {config.cpu_seconds:g} s for the whole tree in a match, checked every"
                f" {config.cpu_poll_s:g} s (cgroup accounting); reported as cpu_limit"
            )
            enforced.append(
                f"CPU backstop: {per_process + 1} s per process (RLIMIT_CPU: SIGXCPU, then SIGKILL)"
            )
        else:
            enforced.append(
                f"CPU: {per_process} s per process (RLIMIT_CPU: SIGXCPU, then SIGKILL a second"
                " later); reported as cpu_limit"
            )
            not_enforced.append(
                "CPU time of the whole tree (no cgroup accounting): each process has its own"
            )
    else:
        not_enforced.append("CPU time (no limit was set)")

    # -- files
    if config.file_size_mb is not None:
        enforced.append(
            f"files: at most {config.file_size_mb} MB each (RLIMIT_FSIZE: EFBIG or SIGXFSZ)"
        )
    if config.open_files is not None:
        enforced.append(f"open files: {config.open_files} per process (RLIMIT_NOFILE)")
    enforced.append("no core dumps (RLIMIT_CORE 0)")
    if mechanism is Mechanism.BWRAP:
        scratch = (
            f"a private {config.scratch_mb} MB tmpfs, in RAM and charged to the memory limit"
            if config.scratch == "tmpfs"
            else "a host directory, removed when the bot ends"
        )
        enforced.append(
            "files: bots see only the system directories (/usr, /etc), their own folder and the"
            " files their command names, all read-only; other bots' folders, working"
            " directories and the replays are not mounted"
        )
        enforced.append(
            f"files: bots may write only their working directory ({scratch}) and /tmp (a private"
            f" {config.scratch_mb} MB tmpfs)"
        )
        if config.scratch == "disk":
            not_enforced.append(
                "total size of the working directory (it is on disk: only each file is capped)"
            )
        if config.hidden_paths:
            enforced.append(f"hidden even inside bound folders: {', '.join(config.hidden_paths)}")
        not_enforced.append(
            "/etc and /usr are readable (world-readable files only, as the bot's user)"
        )
    else:
        enforced.append("files: each bot starts in its own working directory, removed when it ends")
        not_enforced.append(
            "filesystem view: bots see the whole filesystem; what they may read or write is"
            " decided by file permissions for their user (/tmp and /dev/shm are writable), and"
            " bots running at the same time share that user"
        )
        not_enforced.append("total size of the working directory (only each file is capped)")
        if view:
            enforced.append(
                "files: in each bot's own mount namespace, folders closed to its user on the"
                " way to what it needs (an interpreter in root's home, a venv in a private"
                " folder) show only that, read-only"
            )
        if config.hidden_paths and view:
            enforced.append(
                "files: the run's output folder, database and replays and other bots' folders"
                f" are masked in each bot's mount namespace: {', '.join(config.hidden_paths)}"
            )
        elif config.hidden_paths:
            report.warnings.append(
                "without bubblewrap (or unshare as root) the run's output and other bots'"
                " folders cannot be hidden: bots can read them where file permissions allow"
                " (install bubblewrap)"
            )

    # -- network, IPC, environment
    if config.allow_network:
        not_enforced.append("network: allowed (--allow-network)")
    elif mechanism is Mechanism.RLIMITS:
        not_enforced.append("network: no network namespace, bots keep the host's network")
    else:
        enforced.append(
            "network: none (a new network namespace: no interface is up; loopback TCP and"
            " abstract unix sockets are unreachable)"
        )
    if mechanism is not Mechanism.RLIMITS:
        enforced.append("IPC and hostname: new IPC and UTS namespaces")
    enforced.append(
        "environment: only PATH, HOME (the working directory), LANG and TMPDIR"
        + (f", plus {', '.join(config.env_allow)}" if config.env_allow else "")
    )
    not_enforced.append("system calls are not filtered (no seccomp profile)")
    return address_space
