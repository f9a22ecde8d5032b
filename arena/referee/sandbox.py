"""Containment for untrusted bots: what this machine allows, and how each bot is wrapped.

Three mechanisms, strongest first; `plan_sandbox` picks the strongest one that works here and
says, in `SandboxPlan.describe`, exactly what it enforces and what it does not:

``bwrap``
    bubblewrap: new PID, network, IPC, UTS and cgroup namespaces; a private filesystem view
    (system directories, the bot's folder and its command's files read-only, a private working
    directory and ``/tmp`` writable); the bot runs as an unprivileged user without
    capabilities and with ``no_new_privs``.
``unshare``
    util-linux ``unshare``: new PID, network, IPC and UTS namespaces and a private ``/proc``,
    but the whole filesystem stays visible (what the bot may read or write is decided by file
    permissions for its unprivileged user).
``rlimits``
    No namespace: resource limits, an unprivileged user and a process group only.

Any of them is combined with a cgroup when one is writable (v2 with the ``memory`` and ``pids``
controllers delegated, or v1 ``memory``/``pids``/``cpuacct`` hierarchies): a memory limit whose
OOM kills are counted, a process-count limit, whole-tree CPU accounting, and a kill that
reaches every process of the bot, ``setsid`` escapers included. Resource limits (``setrlimit``
in the child) are always set: CPU seconds per process, file size, open files, no core dumps.

The per-bot object is `BotSandbox`: `SandboxPlan.prepare` creates the bot's working directory,
cgroup and (under a wrapper) the FIFOs that become its stdin and stdout, and returns the argv,
environment and ``preexec_fn`` to start it with; `BotSandbox.close` removes them.
`SandboxPlan.prepare_build` does the same for a bot's build, which works on a private, writable
copy of the bot's folder that `BotSandbox.commit` copies back when the build succeeds. The FIFOs
exist because a wrapper process (bwrap, unshare) would otherwise hold the bot's pipes open, and
a bot closing its stdout would never show EOF. Only `arena.referee.process` starts processes: it
runs the detection probes (`detect_capabilities` imports its runner lazily) and forks sandboxed
bots from threads that live as long as the referee, so that the parent-death signals, which
follow the forking thread, fire when the referee dies and not before.

docs/security.md says what each mechanism enforces and what was measured on this machine;
``python3 -m arena.referee.sandbox`` prints both for the machine it runs on.
"""

from __future__ import annotations

import contextlib
import ctypes
import dataclasses
import enum
import itertools
import logging
import math
import os
import resource
import shlex
import shutil
import signal
import stat
import tempfile
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Literal

from arena.referee import sandbox_copy as copying
from arena.referee.sandbox_paths import (
    SANDBOX_PATH,
    SYSTEM_DIRS,
    in_hidden,
    plan_view,
    reachable_by,
)
from arena.referee.sandbox_paths import ancestors as _ancestors
from arena.referee.sandbox_paths import inside as _inside
from arena.referee.sandbox_paths import outermost as _outermost
from arena.referee.sandbox_paths import readable_by as _readable_by
from arena.referee.sandbox_paths import resolve_command as _resolve_command

__all__ = [
    "NOBODY",
    "SANDBOX_PATH",
    "BotSandbox",
    "Capabilities",
    "CgroupSupport",
    "Mechanism",
    "ResourceLimit",
    "ResourceOutcome",
    "ResourceUsage",
    "SandboxConfig",
    "SandboxError",
    "SandboxPathError",
    "SandboxPlan",
    "classify_outcome",
    "detect_capabilities",
    "plan_sandbox",
]

log = logging.getLogger(__name__)
#: Warnings about one bot (its paths), each logged once per referee process.
bot_log = logging.getLogger(__name__ + ".bots")
_warned: set[str] = set()

MB = 1 << 20
NOBODY = 65534
"""The uid and gid bots run as when the referee is root (Debian's ``nobody``/``nogroup``)."""

#: Top-level names that are symlinks into /usr on merged-/usr systems, or real directories.
MERGED_DIRS = ("/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32")
#: Name prefix of the cgroups created here: ``matador-arena.<referee pid>.<n>``.
CGROUP_PREFIX = "matador-arena"

#: Paths that exist in every bwrap sandbox without a bind of their own.
VISIBLE_DIRS = (*SYSTEM_DIRS, *MERGED_DIRS, "/proc", "/dev")

_PR_SET_NO_NEW_PRIVS = 38
_PR_SET_PDEATHSIG = 1
_PR_CAPBSET_DROP = 24
_SHELL = "/bin/sh"

#: Runs a probe command: (return code, or None if it could not run or timed out; its output).
ProbeRunner = Callable[[Sequence[str]], tuple[int | None, str]]


class SandboxError(Exception):
    """The sandbox cannot be set up: a forced mechanism is missing, or a cgroup cannot be made."""


class SandboxPathError(SandboxError):
    """A file the bot needs (its folder, its program) cannot be read by the bot's user."""


class Mechanism(enum.Enum):
    """How a bot is contained, strongest first."""

    BWRAP = "bwrap"
    UNSHARE = "unshare"
    RLIMITS = "rlimits"


class ResourceLimit(enum.Enum):
    """A resource limit that ended a bot (the value is the outcome's name for the referee)."""

    MEMORY = "memory_limit"
    CPU = "cpu_limit"


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


# -- detection ------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class CgroupSupport:
    """A cgroup hierarchy where bots' cgroups can be created.

    Attributes:
        version: 1 or 2.
        parents: For each controller used, the directory the bots' cgroups are created in
            (v2: one entry, ``"unified"``).
        controllers: What works: ``memory`` (limit and OOM count), ``pids`` (process limit)
            and ``cpu`` (whole-tree CPU time).
    """

    version: int
    parents: tuple[tuple[str, str], ...]
    controllers: frozenset[str]

    def describe(self) -> str:
        """Names the version, the controllers and where the cgroups go.

        Returns:
            For example ``"cgroup v1 (cpu, memory, pids) under /sys/fs/cgroup/memory/x, ..."``.
        """
        where = ", ".join(sorted({path for _name, path in self.parents}))
        return f"cgroup v{self.version} ({', '.join(sorted(self.controllers))}) under {where}"


@dataclass(frozen=True, slots=True)
class Capabilities:
    """What this machine allows, as measured by `detect_capabilities`.

    Attributes:
        euid: The referee's effective uid.
        bwrap: The bubblewrap program, if it runs a sandbox here.
        bwrap_version: Its version line.
        bwrap_problem: Why bubblewrap cannot be used, if it cannot.
        unshare: The unshare program, if it creates PID and network namespaces here.
        unshare_problem: Why unshare cannot be used, if it cannot.
        setpriv: The setpriv program (drops the uid inside bwrap), if present.
        cgroup: The usable cgroup hierarchy, if any.
        cgroup_problem: Why no cgroup (or only part of one) can be used.
        mount: The mount program, when it mounts inside unshare's namespace here (as root:
            the bots' view of the filesystem is then fixed up there, `sandbox_paths`).
    """

    euid: int
    bwrap: str | None
    bwrap_version: str | None
    bwrap_problem: str | None
    unshare: str | None
    unshare_problem: str | None
    setpriv: str | None
    cgroup: CgroupSupport | None
    cgroup_problem: str | None
    mount: str | None = None

    def describe(self) -> str:
        """Lists each mechanism and whether it works, for people.

        Returns:
            One line per mechanism.
        """
        lines = [f"running as uid {self.euid}" + (" (root)" if self.euid == 0 else "")]
        if self.bwrap:
            lines.append(f"bwrap: works ({self.bwrap_version or 'bubblewrap'} at {self.bwrap})")
        else:
            lines.append(f"bwrap: unavailable: {self.bwrap_problem}")
        if self.unshare:
            lines.append(
                f"unshare: works (PID, network, IPC, UTS and mount namespaces) at {self.unshare}"
            )
        else:
            lines.append(f"unshare: unavailable: {self.unshare_problem}")
        if self.unshare and self.euid == 0:
            works = f"mounts in unshare's namespace ({self.mount})"
            lines.append(f"mount: {works if self.mount else 'cannot mount in that namespace'}")
        lines.append(f"setpriv: {self.setpriv or 'not found (util-linux)'}")
        if self.cgroup:
            lines.append(f"cgroups: {self.cgroup.describe()}")
            if self.cgroup_problem:
                lines.append(f"cgroups: also: {self.cgroup_problem}")
        else:
            lines.append(f"cgroups: unusable: {self.cgroup_problem}")
        lines.append("rlimits: always (setrlimit in the child)")
        return "\n".join(lines)


_detected: dict[str | None, Capabilities] = {}


def detect_capabilities(
    *, cgroup_parent: str | None = None, refresh: bool = False, run: ProbeRunner | None = None
) -> Capabilities:
    """Finds out which containment mechanisms work here (cached per ``cgroup_parent``).

    Runs bubblewrap and unshare once each with the options the sandbox uses, and creates and
    removes a probe cgroup in each hierarchy. Takes some tens of milliseconds: call it (or
    `plan_sandbox`) once at start-up, not per bot. It also removes empty cgroups left by
    referees that were killed.

    Args:
        cgroup_parent: As `SandboxConfig.cgroup_parent`.
        refresh: Measure again instead of returning the cached result.
        run: The probe runner (default: `arena.referee.process.run_probe`).

    Returns:
        What works and, for what does not, why.
    """
    if not refresh and cgroup_parent in _detected:
        return _detected[cgroup_parent]
    if run is None:
        # Imported here: process.py imports this module, and it is the one that runs processes.
        from arena.referee.process import run_probe

        run = run_probe
    euid = os.geteuid()
    true = shutil.which("true") or "/bin/true"
    bwrap, bwrap_version, bwrap_problem = _probe_bwrap(run, true, euid)
    unshare, unshare_problem = _probe_unshare(run, true, euid)
    mount = _probe_mount(run, unshare, euid) if unshare is not None else None
    cgroup, cgroup_problem = _probe_cgroups(cgroup_parent)
    found = Capabilities(
        euid=euid,
        bwrap=bwrap,
        bwrap_version=bwrap_version,
        bwrap_problem=bwrap_problem,
        unshare=unshare,
        unshare_problem=unshare_problem,
        setpriv=shutil.which("setpriv"),
        cgroup=cgroup,
        cgroup_problem=cgroup_problem,
        mount=mount,
    )
    _detected[cgroup_parent] = found
    return found


def _probe_bwrap(
    run: ProbeRunner, true: str, euid: int
) -> tuple[str | None, str | None, str | None]:
    path = shutil.which("bwrap")
    if path is None:
        return None, None, "bwrap is not installed (Debian package 'bubblewrap')"
    code, output = run([path, "--version"])
    version = output.strip() if code == 0 else None
    argv = [
        path,
        *_bwrap_namespace_args(allow_network=False),
        *_bwrap_system_args(),
        "--tmpfs",
        "/tmp",
    ]
    if euid == 0:
        argv += ["--cap-drop", "ALL"]
    code, output = run([*argv, "--", true])
    if code != 0:
        why = output.strip().splitlines()[-1] if output.strip() else f"exit code {code}"
        return None, version, f"bwrap cannot create a sandbox here: {why}"
    return path, version, None


def _probe_unshare(run: ProbeRunner, true: str, euid: int) -> tuple[str | None, str | None]:
    path = shutil.which("unshare")
    if path is None:
        return None, "unshare is not installed (util-linux)"
    code, output = run(
        [path, *_unshare_args(allow_network=False, euid=euid, drop=None), "--", true]
    )
    if code != 0:
        why = output.strip().splitlines()[-1] if output.strip() else f"exit code {code}"
        return None, f"unshare cannot create PID and network namespaces here: {why}"
    return path, None


def _probe_mount(run: ProbeRunner, unshare: str, euid: int) -> str | None:
    """The mount program, if root can bind and mount a tmpfs inside unshare's namespace."""
    mount, umount = shutil.which("mount"), shutil.which("umount")
    if euid != 0 or mount is None or umount is None or not os.path.exists(_SHELL):
        return None
    # The namespace's propagation is private: the probe's mounts never reach the host.
    where = shlex.quote(tempfile.gettempdir())
    script = (
        f"{mount} -t tmpfs -o size=4k matador-probe {where} && : > {where}/f"
        f" && {mount} --bind /dev/null {where}/f"
    )
    argv = [unshare, *_unshare_args(allow_network=False, euid=euid, drop=None)]
    code, _output = run([*argv, "--", _SHELL, "-c", script])
    return mount if code == 0 else None


def _unescape(text: str) -> str:
    # /proc/self/mountinfo writes space, tab, newline and backslash as octal escapes.
    for code, char in (("\\040", " "), ("\\011", "\t"), ("\\012", "\n"), ("\\134", "\\")):
        text = text.replace(code, char)
    return text


def _mounts() -> list[tuple[str, str, str, set[str]]]:
    """Returns (root, mount point, fs type, super options) of every mount we can see."""
    found = []
    try:
        with open("/proc/self/mountinfo", encoding="utf-8") as lines:
            for line in lines:
                left, _sep, right = line.partition(" - ")
                fields, tail = left.split(), right.split()
                if len(fields) < 5 or len(tail) < 3:
                    continue
                found.append(
                    (_unescape(fields[3]), _unescape(fields[4]), tail[0], set(tail[2].split(",")))
                )
    except OSError:
        return []
    return found


def _own_cgroups() -> dict[str, str]:
    """Maps each v1 controller (and ``""`` for v2) to the referee's cgroup path in it."""
    own: dict[str, str] = {}
    try:
        with open("/proc/self/cgroup", encoding="utf-8") as lines:
            for line in lines:
                parts = line.rstrip("\n").split(":", 2)
                if len(parts) == 3:
                    for name in parts[1].split(",") if parts[1] else [""]:
                        own[name] = parts[2]
    except OSError:
        pass
    return own


def _cgroup_dir(mount_root: str, mount_point: str, own: str, parent: str | None) -> str | None:
    wanted = own if parent is None else parent
    # The mount may show only part of the hierarchy (a container): map our path into it.
    if parent is None and mount_root != "/":
        if own != mount_root and not own.startswith(mount_root.rstrip("/") + "/"):
            return None
        wanted = own[len(mount_root.rstrip("/")) :]
    return os.path.join(mount_point, wanted.lstrip("/")).rstrip("/") or "/"


def _pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def _remove_stale(parent: str) -> None:
    """Kills what is left in cgroups of referees that no longer run, and removes them.

    A referee killed with SIGKILL cannot clean up; its bots' namespaces die with it, but a
    process of an rlimits-only bot may remain. The referee's pid is in the cgroup's name.
    """
    try:
        entries = os.listdir(parent)
    except OSError:
        return
    for name in entries:
        parts = name.split(".")
        stale = len(parts) == 3 and parts[0] == CGROUP_PREFIX and parts[1].isdigit()
        if not stale or _pid_alive(int(parts[1])):
            continue
        path = os.path.join(parent, name)
        for _attempt in range(100):
            try:
                with open(os.path.join(path, "cgroup.procs"), encoding="ascii") as f:
                    pids = [int(p) for p in f.read().split()]
            except OSError:
                break
            for pid in pids:
                with contextlib.suppress(OSError):
                    os.kill(pid, signal.SIGKILL)
            with contextlib.suppress(OSError):
                os.rmdir(path)
                break
            time.sleep(0.002)


def _probe_dir(parent: str, needed: Sequence[str]) -> str | None:
    """Creates and removes a probe cgroup in ``parent``; returns why it failed, or None."""
    if not os.path.isdir(parent):
        return f"{parent} does not exist"
    _remove_stale(parent)
    probe = os.path.join(parent, f"{CGROUP_PREFIX}.probe.{os.getpid()}")
    try:
        os.mkdir(probe)
    except FileExistsError:
        pass
    except OSError as exc:
        return f"cannot create a cgroup in {parent}: {exc.strerror or exc}"
    try:
        missing = [name for name in needed if not os.path.exists(os.path.join(probe, name))]
    finally:
        with contextlib.suppress(OSError):
            os.rmdir(probe)
    if missing:
        return f"a cgroup in {parent} has no {', '.join(missing)}"
    return None


_V1_CONTROLLERS = {
    # controller -> (what it gives, the files it needs)
    "memory": ("memory", ("memory.limit_in_bytes", "memory.oom_control", "cgroup.procs")),
    "pids": ("pids", ("pids.max", "cgroup.procs")),
    "cpuacct": ("cpu", ("cpuacct.usage", "cgroup.procs")),
}


def _probe_cgroups(parent: str | None) -> tuple[CgroupSupport | None, str | None]:
    mounts = _mounts()
    own = _own_cgroups()
    problems: list[str] = []
    v2: CgroupSupport | None = None
    v1: CgroupSupport | None = None
    # cgroup v2: one hierarchy; controllers must be enabled for children in the parent.
    for root, point, fstype, _opts in mounts:
        if fstype != "cgroup2" or "" not in own:
            continue
        directory = _cgroup_dir(root, point, own[""], parent)
        if directory is None:
            continue
        problem = _probe_dir(directory, ("cgroup.procs", "cpu.stat"))
        if problem:
            problems.append(f"v2: {problem}")
            continue
        try:
            with open(os.path.join(directory, "cgroup.subtree_control"), encoding="utf-8") as f:
                enabled = set(f.read().split())
        except OSError:
            enabled = set()
        controllers = frozenset({"cpu"} | (enabled & {"memory", "pids"}))
        missing = sorted({"memory", "pids"} - enabled)
        if missing:
            problems.append(
                f"v2 at {directory}: controllers {', '.join(missing)} not enabled for children"
                f" (echo '{' '.join('+' + m for m in missing)}'"
                f" > {directory}/cgroup.subtree_control)"
            )
        v2 = CgroupSupport(2, (("unified", directory),), controllers)
        break
    # cgroup v1: one hierarchy per controller (or a few co-mounted).
    parents: list[tuple[str, str]] = []
    gives: set[str] = set()
    for controller, (what, needed) in _V1_CONTROLLERS.items():
        mount = next((m for m in mounts if m[2] == "cgroup" and controller in m[3]), None)
        if mount is None:
            problems.append(f"v1: no {controller} hierarchy mounted")
            continue
        if controller not in own:
            problems.append(f"v1: not in a {controller} cgroup")
            continue
        directory = _cgroup_dir(mount[0], mount[1], own[controller], parent)
        problem = None if directory is None else _probe_dir(directory, needed)
        if directory is None or problem:
            problems.append(f"v1 {controller}: {problem or 'our cgroup is outside the mount'}")
            continue
        parents.append((controller, directory))
        gives.add(what)
    if parents:
        v1 = CgroupSupport(1, tuple(parents), frozenset(gives))
    # Prefer v2 when it does as much as v1 (the modern interface), else whichever does more.
    candidates = [c for c in (v2, v1) if c is not None]
    if not candidates:
        return None, "; ".join(problems) or "no cgroup hierarchy is mounted"
    best = max(
        candidates,
        key=lambda c: (len(c.controllers & {"memory", "pids"}), len(c.controllers), c.version),
    )
    relevant = [p for p in problems if p.startswith(f"v{best.version}")]
    return best, "; ".join(relevant) or None


# -- the plan -------------------------------------------------------------------------------------


def _bwrap_namespace_args(*, allow_network: bool) -> list[str]:
    args = ["--unshare-pid", "--unshare-ipc", "--unshare-uts", "--unshare-cgroup-try"]
    if not allow_network:
        args.append("--unshare-net")
    return [*args, "--die-with-parent", "--new-session"]


def _bwrap_system_args() -> list[str]:
    args: list[str] = []
    for directory in SYSTEM_DIRS:
        if os.path.isdir(directory):
            args += ["--ro-bind", directory, directory]
    for directory in MERGED_DIRS:
        if os.path.islink(directory):
            args += ["--symlink", os.readlink(directory), directory]
        elif os.path.isdir(directory):
            args += ["--ro-bind", directory, directory]
    return [*args, "--proc", "/proc", "--dev", "/dev"]


def _unshare_args(*, allow_network: bool, euid: int, drop: tuple[int, int] | None) -> list[str]:
    args = ["--pid", "--fork", "--kill-child", "--mount-proc", "--ipc", "--uts"]
    if not allow_network:
        args.append("--net")
    if euid != 0:
        args.append("--map-root-user")  # without root, namespaces need a user namespace
    if drop is not None:
        args += ["--setuid", str(drop[0]), "--setgid", str(drop[1])]
    return args


@dataclass(frozen=True, slots=True)
class SandboxPlan:
    """The mechanism chosen for a `SandboxConfig` on this machine, and what it enforces.

    Build it once with `plan_sandbox` and pass it to every `open_bot_process`; each bot gets
    its own `BotSandbox` from `prepare`.

    Attributes:
        config: The limits and policies asked for.
        mechanism: The mechanism used.
        capabilities: What the machine allows.
        cgroup: The cgroup hierarchy used, if any.
        drop: The (uid, gid) bots run as, or ``None`` when they keep the referee's.
        rlimits: ``(name, resource, soft, hard)`` set in the child before it starts.
        enforced: What is enforced, one sentence each.
        not_enforced: What is not, one sentence each.
        warnings: What fell back and why (also logged when the plan is made).
    """

    config: SandboxConfig
    mechanism: Mechanism
    capabilities: Capabilities
    cgroup: CgroupSupport | None
    drop: tuple[int, int] | None
    rlimits: tuple[tuple[str, int, int, int], ...]
    enforced: tuple[str, ...]
    not_enforced: tuple[str, ...]
    warnings: tuple[str, ...] = ()

    def describe(self) -> str:
        """Lists exactly what is enforced and what is not, for people and for the docs.

        Returns:
            A few lines: the mechanism, then ``enforced:``, ``not enforced:`` and
            ``warnings:`` lists.
        """
        head = f"sandbox: {self.mechanism.value}"
        if self.cgroup is not None:
            head += f" + {self.cgroup.describe()}"
        lines = [head, "enforced:"]
        lines += [f"  - {item}" for item in self.enforced]
        lines.append("not enforced:")
        lines += [f"  - {item}" for item in self.not_enforced] or ["  - (nothing listed)"]
        if self.warnings:
            lines.append("warnings:")
            lines += [f"  - {item}" for item in self.warnings]
        return "\n".join(lines)

    @property
    def cgroup_controllers(self) -> frozenset[str]:
        """The cgroup controllers in use (empty without a cgroup)."""
        return self.cgroup.controllers if self.cgroup is not None else frozenset()

    def prepare(
        self,
        argv: Sequence[str],
        *,
        cwd: str | None = None,
        env: Mapping[str, str] | None = None,
    ) -> BotSandbox:
        """Creates one bot's working directory and cgroup, and the command that starts it.

        Relative paths in the command that name existing files (relative to ``cwd``) are
        made absolute, since the bot starts in its own working directory. Under bwrap the
        bot sees, read-only: the system directories, ``cwd`` (its folder), the files its
        command names (only those inside ``cwd`` for a folder bot), the installation
        directory of its program when that is a ``bin/`` directory outside the system ones,
        and `SandboxConfig.read_only_paths`.

        Args:
            argv: The bot's command as `arena.referee.process.parse_command` returns it.
            cwd: The bot's folder, or ``None`` for a command-line bot.
            env: The environment to take allowed variables from (default: ours).

        Returns:
            The per-bot sandbox; call `BotSandbox.close` when the bot is gone.

        Raises:
            SandboxError: If a path the bot needs cannot be read by the bot's user, or the
                working directory or the cgroup cannot be created.
        """
        return BotSandbox(self, argv, cwd, env)

    def with_hidden(self, paths: Iterable[str]) -> SandboxPlan:
        """The same plan with more `SandboxConfig.hidden_paths` (nothing is detected again).

        Args:
            paths: Host paths bots must not see, such as the other entrants' folders (a bot's
                own folder stays visible: the sandbox never hides a path that holds what the
                bot needs).

        Returns:
            A plan whose configuration hides ``paths`` too (``self`` if they add nothing).
        """
        hidden = {*self.config.hidden_paths, *(os.path.abspath(p) for p in paths)}
        if hidden == set(self.config.hidden_paths):
            return self
        config = dataclasses.replace(self.config, hidden_paths=tuple(sorted(hidden)))
        return dataclasses.replace(self, config=config)

    def for_build(self, timeout_s: float) -> SandboxPlan:
        """The plan a bot's build runs under: this one with a build's CPU time and scratch.

        The mechanism, user, network, cgroup, memory, process, file-size and open-file limits
        are this plan's; the CPU time is bounded by the build's time limit instead of the
        match's (``RLIMIT_CPU`` per process; the wall-clock limit already bounds the whole
        tree), and the scratch directory (``HOME`` and ``TMPDIR``) is on disk, since
        compilers' caches outgrow a small tmpfs. Nothing is detected again.

        Args:
            timeout_s: The build's time limit, in seconds.

        Returns:
            The derived plan (use it with `prepare_build`).

        Raises:
            ValueError: If ``timeout_s`` is not positive.
        """
        if timeout_s <= 0:
            raise ValueError(f"a build's time limit must be positive, not {timeout_s}")
        config = dataclasses.replace(self.config, cpu_seconds=timeout_s, scratch="disk")
        seconds = max(1, math.ceil(timeout_s)) + (1 if "cpu" in self.cgroup_controllers else 0)
        rlimits = tuple(
            (name, which, seconds, seconds + 1) if name == "CPU" else (name, which, soft, hard)
            for name, which, soft, hard in self.rlimits
        )
        if not any(name == "CPU" for name, *_rest in rlimits):
            rlimits += (("CPU", resource.RLIMIT_CPU, seconds, seconds + 1),)
        if self.capabilities.euid != 0:
            rlimits = tuple(
                (n, r, _within_hard(r, s), _within_hard(r, h)) for n, r, s, h in rlimits
            )
        enforced = [item for item in self.enforced if not item.startswith("CPU")]
        enforced.append(
            f"CPU: {seconds} s per process (RLIMIT_CPU), within the build's {timeout_s:g} s"
            " time limit, which bounds the whole tree"
        )
        return dataclasses.replace(self, config=config, rlimits=rlimits, enforced=tuple(enforced))

    def prepare_build(
        self,
        argv: Sequence[str],
        *,
        folder: str,
        env: Mapping[str, str] | None = None,
    ) -> BotSandbox:
        """Sets up the sandbox of one bot's build: like `prepare`, but its folder is writable.

        The build runs as the bots' user, on a private copy of ``folder`` that it owns (files
        and folders that user could not read, and `SandboxConfig.hidden_paths`, are left
        out). Under bwrap the copy is mounted at the folder's own path, so the build sees its
        folder where it is and may write nowhere else but its scratch directory (``HOME``
        and ``TMPDIR``) and a private ``/tmp``; without bwrap it runs in the copy. When the
        build has succeeded, `BotSandbox.commit` copies what it changed back into
        ``folder``; `BotSandbox.close` removes the copy. The plan's limits apply: derive the
        plan with `for_build` to give the build its own CPU time.

        Args:
            argv: The build's command as `arena.referee.process.parse_command` returns it.
            folder: The bot's folder.
            env: The environment to take allowed variables from (default: ours).

        Returns:
            The build's sandbox; call `BotSandbox.close` when the build is gone.

        Raises:
            SandboxError: If the folder or a file the build needs cannot be read by the
                bots' user (`SandboxPathError`), or the copy, the scratch directory or the
                cgroup cannot be made.
        """
        return BotSandbox(self, argv, folder, env, build=True)


@dataclass
class _Report:
    """What a plan enforces, does not enforce, and warns about, as it is worked out."""

    enforced: list[str] = field(default_factory=list)
    not_enforced: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)


def plan_sandbox(
    config: SandboxConfig | None = None, capabilities: Capabilities | None = None
) -> SandboxPlan:
    """Picks the strongest mechanism that works here for ``config`` and says what it enforces.

    It also removes working directories left by referees that were killed.

    Args:
        config: The limits and policies (default: `SandboxConfig()`).
        capabilities: What the machine allows (default: `detect_capabilities`).

    Returns:
        The plan. Its ``warnings`` (also logged on the ``arena.referee.sandbox`` logger) name
        every mechanism that was missing and what is therefore not enforced.

    Raises:
        SandboxError: If ``config.mechanism`` insists on a mechanism that does not work here.
    """
    config = config or SandboxConfig()
    caps = capabilities or detect_capabilities(cgroup_parent=config.cgroup_parent)
    report = _Report()
    mechanism = _choose_mechanism(config, caps, report)
    cgroup = caps.cgroup if config.use_cgroups else None
    controllers = cgroup.controllers if cgroup is not None else frozenset()
    if config.use_cgroups and cgroup is None:
        report.warnings.append(f"no usable cgroup ({caps.cgroup_problem})")
    elif cgroup is not None and caps.cgroup_problem and controllers != {"memory", "pids", "cpu"}:
        report.warnings.append(f"cgroup partly usable: {caps.cgroup_problem}")
    drop = _plan_user(config, caps, mechanism, report)
    view = _has_view(mechanism, caps)
    address_space = _report_limits(config, mechanism, controllers, report, view=view)
    plan = SandboxPlan(
        config=config,
        mechanism=mechanism,
        capabilities=caps,
        cgroup=cgroup,
        drop=drop,
        rlimits=_rlimits(config, caps, controllers, address_space),
        enforced=tuple(report.enforced),
        not_enforced=tuple(report.not_enforced),
        warnings=tuple(report.warnings),
    )
    for warning in report.warnings:
        log.warning("sandbox: %s", warning)
    _remove_stale_dirs(config.workdir_root)
    return plan


def _choose_mechanism(config: SandboxConfig, caps: Capabilities, report: _Report) -> Mechanism:
    available = {
        Mechanism.BWRAP: (caps.bwrap, caps.bwrap_problem),
        Mechanism.UNSHARE: (caps.unshare, caps.unshare_problem),
        Mechanism.RLIMITS: ("setrlimit", None),
    }
    if config.mechanism != "auto":
        mechanism = Mechanism(config.mechanism)
        program, problem = available[mechanism]
        if program is None:
            raise SandboxError(f"sandbox mechanism {mechanism.value!r} was asked for but {problem}")
        return mechanism
    mechanism = next(m for m, (program, _problem) in available.items() if program is not None)
    if mechanism is not Mechanism.BWRAP and _has_view(mechanism, caps):
        report.warnings.append(
            f"{caps.bwrap_problem}: no private filesystem view; bots can read every file that"
            " their user may read (the run's output and other bots' folders are masked)"
        )
    elif mechanism is not Mechanism.BWRAP:
        report.warnings.append(
            f"{caps.bwrap_problem}: no private filesystem view; bots can read every file that"
            " their user may read, including other bots' folders and replays"
        )
    if mechanism is Mechanism.RLIMITS:
        report.warnings.append(
            f"{caps.unshare_problem}: no PID or network namespace; bots keep the network"
            " and can signal processes of their own user"
        )
    return mechanism


def _has_view(mechanism: Mechanism, caps: Capabilities) -> bool:
    """Whether each bot's mount namespace is fixed up (unshare as root: `sandbox_paths`)."""
    return (
        mechanism is Mechanism.UNSHARE
        and caps.euid == 0
        and caps.mount is not None
        and caps.setpriv is not None
    )


def _plan_user(
    config: SandboxConfig, caps: Capabilities, mechanism: Mechanism, report: _Report
) -> tuple[int, int] | None:
    """Decides which (uid, gid) bots run as, if not the referee's, and reports it."""
    drop: tuple[int, int] | None = None
    if caps.euid == 0 and config.run_as_uid is not None and config.run_as_gid is not None:
        if mechanism is Mechanism.BWRAP and caps.setpriv is None:
            report.warnings.append(
                "setpriv not found (util-linux): under bwrap bots run as uid 0 without capabilities"
            )
        else:
            drop = (config.run_as_uid, config.run_as_gid)
    if drop is not None:
        report.enforced.append(
            f"bots run as uid {drop[0]}, gid {drop[1]}, no supplementary groups, no capabilities,"
            " no_new_privs (setuid programs cannot raise them)"
        )
    elif caps.euid == 0 and mechanism is Mechanism.BWRAP:
        report.enforced.append("bots run as uid 0 with every capability dropped and no_new_privs")
        report.not_enforced.append(
            "bots keep uid 0: files only root may read stay readable inside the view"
        )
    elif caps.euid == 0:
        report.not_enforced.append("bots run as root, as configured: nothing stops them")
    else:
        report.enforced.append(f"bots run as the referee's uid {caps.euid} (no_new_privs)")
    return drop


def _report_limits(
    config: SandboxConfig,
    mechanism: Mechanism,
    controllers: frozenset[str],
    report: _Report,
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


def _rlimits(
    config: SandboxConfig,
    caps: Capabilities,
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
    if caps.euid != 0:  # without root a hard limit cannot be raised: stay within ours
        limits = [(n, r, _within_hard(r, s), _within_hard(r, h)) for n, r, s, h in limits]
    return tuple(limits)


def _within_hard(which: int, value: int) -> int:
    hard = resource.getrlimit(which)[1]
    return value if hard == resource.RLIM_INFINITY else min(value, hard)


# -- one bot --------------------------------------------------------------------------------------


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


def _load_prctl() -> Callable[..., int] | None:
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        prctl: Callable[..., int] = libc.prctl
    except (OSError, AttributeError):
        return None
    return prctl


_prctl = _load_prctl()
_counter = itertools.count(1)


def _read_int(path: str) -> int | None:
    try:
        with open(path, encoding="ascii") as f:
            return int(f.read().split()[0])
    except (OSError, ValueError, IndexError):
        return None


def _read_key(path: str, key: str) -> int | None:
    try:
        with open(path, encoding="ascii") as f:
            for line in f:
                name, _sep, value = line.partition(" ")
                if name == key:
                    return int(value)
    except (OSError, ValueError):
        return None
    return None


def _write(path: str, value: str) -> None:
    with open(path, "w", encoding="ascii") as f:
        f.write(value)


class _Cgroup:
    """The cgroup (one directory per v1 hierarchy, one for v2) of one bot."""

    def __init__(self, support: CgroupSupport, config: SandboxConfig) -> None:
        self.version = support.version
        self.controllers = support.controllers
        name = f"{CGROUP_PREFIX}.{os.getpid()}.{next(_counter)}"
        self.dirs: dict[str, str] = {}
        try:
            for controller, parent in support.parents:
                path = os.path.join(parent, name)
                os.mkdir(path)
                self.dirs[controller] = path
            self._set_limits(config)
        except OSError as exc:
            self.remove()
            raise SandboxError(f"cannot set up the bot's cgroup: {exc}") from exc
        self.procs_files = tuple(os.path.join(d, "cgroup.procs") for d in self.dirs.values())
        self.memory_limit = (
            config.memory_mb * MB if config.memory_mb and "memory" in self.controllers else None
        )

    def _dir(self, v1_controller: str) -> str | None:
        return self.dirs.get("unified" if self.version == 2 else v1_controller)

    def _set_limits(self, config: SandboxConfig) -> None:
        memory = self._dir("memory")
        if memory is not None and config.memory_mb is not None and "memory" in self.controllers:
            limit = str(config.memory_mb * MB)
            if self.version == 1:
                _write(os.path.join(memory, "memory.limit_in_bytes"), limit)
                with contextlib.suppress(OSError):  # absent when swap accounting is off
                    _write(os.path.join(memory, "memory.memsw.limit_in_bytes"), limit)
            else:
                _write(os.path.join(memory, "memory.max"), limit)
                with contextlib.suppress(OSError):
                    _write(os.path.join(memory, "memory.swap.max"), "0")
                with contextlib.suppress(OSError):  # an OOM kill takes the whole tree
                    _write(os.path.join(memory, "memory.oom.group"), "1")
        pids = self._dir("pids")
        if pids is not None and config.max_processes is not None and "pids" in self.controllers:
            _write(os.path.join(pids, "pids.max"), str(config.max_processes))

    def usage(self) -> ResourceUsage:
        cpu: float | None = None
        peak = oom = pids_hits = None
        if self.version == 1:
            if "cpuacct" in self.dirs:
                nanos = _read_int(os.path.join(self.dirs["cpuacct"], "cpuacct.usage"))
                cpu = None if nanos is None else nanos / 1e9
            if "memory" in self.dirs:
                peak = _read_int(os.path.join(self.dirs["memory"], "memory.max_usage_in_bytes"))
                oom = _read_key(os.path.join(self.dirs["memory"], "memory.oom_control"), "oom_kill")
            if "pids" in self.dirs:
                pids_hits = _read_key(os.path.join(self.dirs["pids"], "pids.events"), "max")
        else:
            unified = self.dirs["unified"]
            micros = _read_key(os.path.join(unified, "cpu.stat"), "usage_usec")
            cpu = None if micros is None else micros / 1e6
            if "memory" in self.controllers:
                peak = _read_int(os.path.join(unified, "memory.peak"))
                oom = _read_key(os.path.join(unified, "memory.events"), "oom_kill")
            if "pids" in self.controllers:
                pids_hits = _read_key(os.path.join(unified, "pids.events"), "max")
        return ResourceUsage(cpu, peak, oom, pids_hits, None, self.memory_limit)

    def cpu_seconds(self) -> float | None:
        if self.version == 1:
            if "cpuacct" not in self.dirs:
                return None
            nanos = _read_int(os.path.join(self.dirs["cpuacct"], "cpuacct.usage"))
            return None if nanos is None else nanos / 1e9
        micros = _read_key(os.path.join(self.dirs["unified"], "cpu.stat"), "usage_usec")
        return None if micros is None else micros / 1e6

    def pids(self) -> list[int]:
        for path in self.procs_files:
            try:
                with open(path, encoding="ascii") as f:
                    return [int(p) for p in f.read().split()]
            except OSError:
                continue
        return []

    def kill_pass(self) -> bool:
        """Sends SIGKILL to every process in the cgroup; returns whether it was empty."""
        if self.version == 2:
            with contextlib.suppress(OSError):  # cgroup.kill: Linux 5.14+
                _write(os.path.join(self.dirs["unified"], "cgroup.kill"), "1")
        pids = self.pids()
        for pid in pids:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.kill(pid, signal.SIGKILL)
        return not pids

    def remove(self) -> bool:
        """Removes the cgroup's directories; returns whether all of them are gone."""
        gone = True
        for path in list(self.dirs.values()):
            try:
                os.rmdir(path)
            except FileNotFoundError:
                pass
            except OSError:
                gone = False
                continue
        if gone:
            self.dirs.clear()
        return gone


class BotSandbox:
    """One bot's sandbox: its working directory, cgroup, wrapped command and environment.

    Made by `SandboxPlan.prepare`; `arena.referee.process.open_bot_process` starts the bot
    with `argv`, `cwd`, `env` and `preexec_fn`, and calls `close` when the bot is gone.
    `SandboxPlan.prepare_build` makes the sandbox of a build instead
    (`arena.referee.process.run_capped`): the same containment, but the build works on a
    private, writable copy of its folder (`box`), which `commit` copies back.

    Attributes:
        plan: The plan it follows.
        workdir: The bot's working directory (its ``HOME``), the same path inside and out;
            under bwrap with ``scratch="tmpfs"`` the bot's files live in a tmpfs mounted there.
        argv: The command to spawn (the wrapper, then the bot's command).
        cwd: The directory to spawn it in.
        env: The bot's whole, scrubbed environment.
        bot_argv: The bot's own command after its paths were made absolute.
        read_only: The host paths the bot may read under bwrap (besides the system ones).
        fifo_dir: The private directory of the FIFOs that are the bot's stdin and stdout
            under a wrapper (only the referee's user may open them), else ``None``.
        folder: The bot's folder (absolute), or ``None`` for a command-line bot.
        box: For a build, the private copy of its folder that it works on (mounted at
            ``folder`` under bwrap, its working directory without bwrap); else ``None``.
        left_out: For a build, the paths (relative to ``folder``) that were not copied into
            ``box``: hidden paths, what the bots' user cannot read, special files.
    """

    def __init__(
        self,
        plan: SandboxPlan,
        argv: Sequence[str],
        cwd: str | None,
        env: Mapping[str, str] | None,
        *,
        build: bool = False,
    ) -> None:
        """Sets up one bot's sandbox (internal: use `SandboxPlan.prepare` or
        `SandboxPlan.prepare_build`)."""
        self.plan = plan
        self._closed = False
        self._cgroup: _Cgroup | None = None
        self._final: ResourceUsage | None = None
        self._cpu_limit_hit = False
        self.fifo_dir: str | None = None
        self._stash: str | None = None
        self._view_script = ""
        self.box: str | None = None
        self.left_out: set[str] = set()
        self._copied: dict[str, copying.Stamp] = {}
        config = plan.config
        bwrap = plan.mechanism is Mechanism.BWRAP
        source = os.environ if env is None else env
        folder = os.path.abspath(cwd) if cwd is not None else None
        if build and folder is None:
            raise ValueError("a build's sandbox needs the bot's folder")
        self.folder = folder
        resolved = _resolve_command(argv, folder, source.get("PATH", os.defpath))
        bot_argv, path_dirs = resolved.argv, resolved.path_dirs
        self._refuse_hidden([*resolved.program, *resolved.named])
        read_only = [*resolved.program, *resolved.arguments]
        read_only += [os.path.abspath(p) for p in config.read_only_paths if os.path.exists(p)]
        if folder is not None and build:
            # The folder is the build's writable copy, not a read-only view of the original.
            read_only = [p for p in read_only if not _inside(p, folder)]
        elif folder is not None:
            read_only.insert(0, folder)
        self.bot_argv = bot_argv
        self.read_only = _outermost(read_only)
        self.warnings: list[str] = []
        self.drop = self._choose_user([*read_only, *([folder] if build and folder else [])])
        self.workdir = tempfile.mkdtemp(prefix=_dir_prefix("bot"), dir=config.workdir_root)
        try:
            # 0711: bwrap (root without capabilities) must be able to enter it before the
            # bot's user is taken on; nobody else can list it.
            os.chmod(self.workdir, 0o711)
            if self.drop is not None:
                os.chown(self.workdir, *self.drop)
            if build:
                assert folder is not None
                self.box = tempfile.mkdtemp(prefix=_dir_prefix("build"), dir=config.workdir_root)
                self._copy_in(folder, self.box)
                if not bwrap:  # no mount namespace to put the copy in the folder's place
                    bot_argv = [copying.moved(arg, folder, self.box) for arg in bot_argv]
                    path_dirs = [copying.moved(path, folder, self.box) for path in path_dirs]
            elif self._wants_fifos():
                # Only the referee's user may open these: the step that opens them inside the
                # sandbox runs before the bot's user is taken on.
                self.fifo_dir = tempfile.mkdtemp(prefix=_dir_prefix("io"), dir=config.workdir_root)
                os.mkfifo(os.path.join(self.fifo_dir, "stdin"), 0o600)
                os.mkfifo(os.path.join(self.fifo_dir, "stdout"), 0o600)
            if plan.cgroup is not None:
                self._cgroup = _Cgroup(plan.cgroup, config)
            self._view_script = self._make_view(read_only)
        except BaseException:
            self.close()
            raise
        # A build's temporary files go to its scratch directory on disk (a compiler's can
        # outgrow the small private /tmp).
        tmpdir = "/tmp" if bwrap and not build else self.workdir
        self.env = {
            "PATH": ":".join([*path_dirs, SANDBOX_PATH]),
            "HOME": self.workdir,
            "LANG": source.get("LANG", "C.UTF-8"),
            "TMPDIR": tmpdir,
        }
        for name in config.env_allow:
            if name in source:
                self.env[name] = source[name]
        self.cwd = self.box if self.box is not None else self.workdir
        self.argv = self._wrap(bot_argv)
        procs = self._cgroup.procs_files if self._cgroup is not None else ()
        limits = tuple((r, s, h) for _n, r, s, h in plan.rlimits)
        drop = self.drop if plan.mechanism is Mechanism.RLIMITS else None
        # Root kept without bwrap or a namespace's setpriv: its capabilities go in the child.
        kept = plan.drop is not None and self.drop is None
        keep_root = plan.mechanism is Mechanism.RLIMITS and kept
        self._preexec = _make_preexec(procs, limits, drop, drop_caps=keep_root)

    def __repr__(self) -> str:
        return f"<BotSandbox {self.plan.mechanism.value} workdir={self.workdir!r}>"

    def _wants_fifos(self) -> bool:
        # A wrapper (bwrap's two processes, unshare) would hold the bot's stdin and stdout
        # open if they were its own: a bot that closes them would never show EOF or EPIPE.
        # So the bot's stdin and stdout are FIFOs that a shell opens just before it becomes
        # the bot; that shell must run before the uid drop (setpriv), so setpriv is needed.
        plan = self.plan
        if plan.mechanism is Mechanism.RLIMITS or not os.path.exists(_SHELL):
            return False
        return self.drop is None or plan.capabilities.setpriv is not None

    @property
    def stdin_fifo(self) -> str | None:
        """The FIFO the bot reads as its stdin (the referee opens it for writing), if any."""
        return None if self.fifo_dir is None else os.path.join(self.fifo_dir, "stdin")

    @property
    def stdout_fifo(self) -> str | None:
        """The FIFO the bot writes as its stdout (the referee opens it for reading), if any."""
        return None if self.fifo_dir is None else os.path.join(self.fifo_dir, "stdout")

    def _inner(self, bot_argv: list[str]) -> list[str]:
        """The command run inside the namespaces: make the mount view, open the FIFOs, drop
        the uid (or, for root kept, every capability), run the bot."""
        plan, caps = self.plan, self.plan.capabilities
        command = list(bot_argv)
        if caps.setpriv is not None and self.drop is not None:
            uid, gid = self.drop
            command = [
                caps.setpriv,
                f"--reuid={uid}",
                f"--regid={gid}",
                "--clear-groups",
                "--inh-caps=-all",
                "--bounding-set=-all",
                # The uid change clears the parent-death signal that unshare --kill-child and
                # bwrap --die-with-parent set: keep it, so the bot dies with its wrapper.
                "--pdeathsig=keep",
                "--",
                *command,
            ]
        elif caps.setpriv and plan.drop is not None and plan.mechanism is Mechanism.UNSHARE:
            # Root kept (the bots' user cannot read what this bot needs): no capabilities.
            command = [caps.setpriv, "--inh-caps=-all", "--bounding-set=-all", "--", *command]
        steps = [self._view_script] if self._view_script else []
        if self.stdout_fifo is not None and self.stdin_fifo is not None:
            # stdout first: the referee holds its read end already, so that open returns at
            # once; the stdin open then waits for the referee, which thereby knows both are
            # connected. exec leaves no shell behind.
            steps.append('exec >"$1" <"$2" && shift 2 && exec "$@"')
            fifos = [self.stdout_fifo, self.stdin_fifo]
            return [_SHELL, "-c", "\n".join(steps), "sh", *fifos, *command]
        if steps:
            steps.append('exec "$@"')
            return [_SHELL, "-c", "\n".join(steps), "sh", *command]
        return command

    def _refuse_hidden(self, paths: Sequence[str]) -> None:
        """Refuses a command that names a path the sandbox hides (the tournament's output, a
        replay, another bot's folder): it is never shown to a bot, whatever its command says."""
        hidden = [os.path.abspath(h) for h in self.plan.config.hidden_paths]
        own = [self.folder] if self.folder is not None else []
        for path in paths:
            secret = in_hidden(path, hidden, own)
            if secret is not None:
                where = "" if secret == path else f", which is inside {secret!r}"
                raise SandboxPathError(
                    f"it names {path!r}{where}: the sandbox never shows bots the output"
                    " folder, database, replays or events of a run, nor another bot's folder;"
                    " give the bot files from elsewhere, or write the run's outputs elsewhere"
                    " (--out, --db, --events, --replay)"
                )

    def _view_fixes_paths(self) -> bool:
        """Whether folders closed to the bots' user are opened in the bot's mount namespace."""
        return _has_view(self.plan.mechanism, self.plan.capabilities)

    def _choose_user(self, needed: Sequence[str]) -> tuple[int, int] | None:
        """The (uid, gid) this bot runs as: the plan's, or root without capabilities when the
        bots' user cannot read what it needs (one warning names the path and the fix)."""
        plan = self.plan
        if plan.drop is None:
            return None
        uid, gid = plan.drop
        # bwrap recreates the folders above a bound path world-readable, and so does the
        # unshare view (sandbox_paths); without either, a closed folder on the way blocks too.
        ancestors_ok = plan.mechanism is Mechanism.BWRAP or self._view_fixes_paths()
        blocked: list[tuple[str, str | None]] = []
        for path in _outermost(needed):
            closed = None if ancestors_ok else reachable_by(path, uid, gid)
            if closed is not None or not _readable_by(path, uid, gid):
                blocked.append((path, closed))
        if not blocked:
            return plan.drop
        path, closed = blocked[0]
        fix = f"chmod o+rX {shlex.quote(closed or path)}"
        why = f"{closed!r} is closed to it" if closed else "it is not readable by others"
        weaker = plan.mechanism is not Mechanism.UNSHARE or plan.capabilities.setpriv is not None
        if not weaker:
            raise SandboxPathError(
                f"the sandbox runs bots as uid {uid}, which cannot read {path!r} ({why}):"
                f" {fix}, install bubblewrap, or run without a sandbox (--sandbox none)"
            )
        # bubblewrap opens closed folders on the way (not an unreadable path itself).
        fix += ", or install bubblewrap," if closed else ""
        warning = (
            f"uid {uid} cannot read {path!r} ({why}), so a bot that needs it runs as uid 0"
            f" without capabilities (it can read files only root may read): {fix} to run it"
            f" as uid {uid}"
        )
        self.warnings.append(warning)
        if warning not in _warned:
            _warned.add(warning)
            bot_log.warning("%s", warning)
        return None

    def _make_view(self, needed: Sequence[str]) -> str:
        """Under unshare as root: the mounts that show this bot what it needs and hide what
        it must not see, in its own mount namespace (`arena.referee.sandbox_paths`)."""
        caps = self.plan.capabilities
        if self.plan.mechanism is not Mechanism.UNSHARE or caps.euid != 0 or caps.mount is None:
            return ""
        if self.drop is not None and caps.setpriv is None:
            return ""  # unshare --setuid drops the uid before any step of ours could mount
        hidden = [os.path.abspath(h) for h in self.plan.config.hidden_paths]
        writable = [p for p in (self.workdir, self.fifo_dir, self.box) if p is not None]
        view = plan_view(needed, writable, hidden, self.drop)
        if not view:
            return ""
        self._stash = tempfile.mkdtemp(prefix=_dir_prefix("io"), dir=self.plan.config.workdir_root)
        umount = os.path.join(os.path.dirname(caps.mount), "umount")
        return view.script(self._stash, caps.mount, umount)

    def _wrap(self, bot_argv: list[str]) -> list[str]:
        plan, config = self.plan, self.plan.config
        caps = plan.capabilities
        if plan.mechanism is Mechanism.UNSHARE:
            assert caps.unshare is not None
            # unshare's own --setuid only when setpriv is missing (then there are no FIFOs).
            drop = self.drop if caps.setpriv is None else None
            return [
                caps.unshare,
                *_unshare_args(allow_network=config.allow_network, euid=caps.euid, drop=drop),
                "--",
                *self._inner(bot_argv),
            ]
        if plan.mechanism is Mechanism.RLIMITS:
            return list(bot_argv)
        assert caps.bwrap is not None
        args = [
            caps.bwrap,
            *_bwrap_namespace_args(allow_network=config.allow_network),
            *_bwrap_system_args(),
        ]
        size = str(config.scratch_mb * MB)
        args += ["--perms", "1777", "--size", size, "--tmpfs", "/tmp"]
        created = {"/", "/tmp", *SYSTEM_DIRS, *MERGED_DIRS}
        bound: list[str] = []
        # A build's folder is its private copy, mounted writable in the folder's place.
        writable = self.folder if self.box is not None else None
        targets = [*self.read_only, self.workdir]
        if writable is not None:
            targets.append(writable)
        if self.fifo_dir is not None:
            targets.append(self.fifo_dir)
        for target in sorted(targets):
            own = target in (self.workdir, writable)
            if not own and any(_inside(target, d) for d in VISIBLE_DIRS):
                continue  # already in the sandbox
            for ancestor in _ancestors(target):
                if ancestor not in created and not any(_inside(ancestor, b) for b in bound):
                    args += ["--perms", "0755", "--dir", ancestor]
                    created.add(ancestor)
            if target == writable:
                assert self.box is not None
                args += ["--bind", self.box, target]
            elif target != self.workdir:
                args += ["--ro-bind", target, target]
            elif config.scratch == "tmpfs":
                args += ["--perms", "0777", "--size", size, "--tmpfs", target]
            else:
                args += ["--bind", target, target]
            created.add(target)
            bound.append(target)
        for hidden in config.hidden_paths:
            path = os.path.abspath(hidden)
            if writable is not None and _inside(path, writable):
                continue  # left out of the build's copy: there is nothing to mask
            visible = any(_inside(path, d) for d in (*self.read_only, *VISIBLE_DIRS))
            contains_ours = any(_inside(t, path) for t in targets)
            if not visible or contains_ours or not os.path.exists(path):
                continue
            if os.path.isdir(path):
                args += ["--perms", "0555", "--tmpfs", path]
            else:
                args += ["--ro-bind", "/dev/null", path]
        args += ["--chdir", writable if writable is not None else self.workdir]
        if caps.euid == 0:
            # Root keeps every capability under bwrap unless told otherwise: keep only what
            # setpriv needs to become the bot's user, and let it drop the rest.
            args += ["--cap-drop", "ALL"]
            if self.drop is not None and caps.setpriv is not None:
                for cap in ("CAP_SETUID", "CAP_SETGID", "CAP_SETPCAP"):
                    args += ["--cap-add", cap]
        return [*args, "--", *self._inner(bot_argv)]

    def preexec_fn(self) -> None:
        """Runs in the child before it starts the wrapper: joins the cgroup, sets the rlimits
        and ``no_new_privs`` and, without namespaces, becomes the bot's user."""
        self._preexec()

    @property
    def signal_in_exit_code(self) -> bool:
        """Whether the wrapper reports a signal death as exit code 128 + signal (bwrap does)."""
        return self.plan.mechanism is Mechanism.BWRAP

    @property
    def cpu_limit_s(self) -> float | None:
        """The whole-tree CPU limit the sandbox watches, if it can (a cgroup measures it)."""
        if self._cgroup is None or "cpu" not in self._cgroup.controllers:
            return None
        return self.plan.config.cpu_seconds

    def cpu_seconds(self) -> float | None:
        """Returns the CPU time the bot's whole tree has used so far, if measurable."""
        return None if self._cgroup is None else self._cgroup.cpu_seconds()

    def mark_cpu_limit(self) -> None:
        """Records that the bot is being stopped for its whole-tree CPU time."""
        self._cpu_limit_hit = True

    def usage(self) -> ResourceUsage:
        """Returns what the bot used: live while its cgroup exists, then as it was at close.

        Returns:
            The measurements (fields are ``None`` where the mechanism cannot measure).
        """
        if self._final is not None:
            return self._final
        base = (
            self._cgroup.usage()
            if self._cgroup is not None and self._cgroup.dirs
            else ResourceUsage()
        )
        limit = self.plan.config.cpu_seconds
        return ResourceUsage(
            cpu_seconds=base.cpu_seconds,
            memory_peak_bytes=base.memory_peak_bytes,
            oom_kills=base.oom_kills,
            pids_limit_hits=base.pids_limit_hits,
            cpu_limit_s=limit,
            memory_limit_bytes=base.memory_limit_bytes,
            cpu_limit_hit=self._cpu_limit_hit,
        )

    def pids(self) -> list[int]:
        """Returns the pids in the bot's cgroup (empty without one)."""
        return [] if self._cgroup is None else self._cgroup.pids()

    def kill_pass(self) -> bool:
        """Sends SIGKILL to every process in the bot's cgroup.

        Returns:
            Whether the cgroup was already empty (always true without a cgroup).
        """
        return True if self._cgroup is None else self._cgroup.kill_pass()

    # -- a build's folder -----------------------------------------------------------------

    def _hidden(self, path: str) -> bool:
        """Whether ``path`` (relative to the folder) is hidden from the build."""
        assert self.folder is not None
        full = os.path.join(self.folder, path)
        return any(
            _inside(full, hidden) and not _inside(self.folder, hidden)
            for hidden in map(os.path.abspath, self.plan.config.hidden_paths)
        )

    def _copy_in(self, folder: str, box: str) -> None:
        """Copies the folder into the build's box, owned by the bots' user, and notes what
        the box then holds (`commit` copies back only what the build changed)."""
        drop = self.drop
        try:
            source = copying.open_dir(folder)
            try:
                target = copying.open_dir(box)
                try:
                    self._copy_dir_in(source, target, "", drop)
                    mode = os.fstat(source).st_mode
                    # Its owner (the build's user) may always write in it, as in its own folder.
                    os.fchmod(target, (mode & 0o777) | 0o700)
                    if drop is not None:
                        os.fchown(target, *drop)
                    self._copied = copying.stamps(target)
                finally:
                    os.close(target)
            finally:
                os.close(source)
        except OSError as exc:
            raise SandboxError(
                f"cannot copy {folder!r} for its build: {copying.os_reason(exc)}"
            ) from exc

    def _copy_dir_in(
        self, source: int, target: int, prefix: str, drop: tuple[int, int] | None
    ) -> None:
        for name in sorted(os.listdir(source)):
            path = prefix + name
            info = os.stat(name, dir_fd=source, follow_symlinks=False)
            kind = stat.S_IFMT(info.st_mode)
            readable = (
                drop is None
                or kind == stat.S_IFLNK
                or copying.permits(info, *drop, dir_needs_x=True)
            )
            if kind not in copying.COPIED_KINDS or not readable or self._hidden(path):
                self.left_out.add(path)
                continue
            if kind != stat.S_IFDIR:
                copying.copy_entry(source, target, name, info, drop)
                continue
            sub_source = copying.open_dir(name, source)
            try:
                os.mkdir(name, 0o700, dir_fd=target)
                sub_target = copying.open_dir(name, target)
                try:
                    self._copy_dir_in(sub_source, sub_target, path + "/", drop)
                    os.fchmod(sub_target, info.st_mode & 0o777)
                    if drop is not None:
                        os.fchown(sub_target, *drop)
                finally:
                    os.close(sub_target)
            finally:
                os.close(sub_source)

    def commit(self) -> None:
        """Copies what the build changed in its copy of the folder back into the folder.

        New and changed files, symlinks (as symlinks) and folders are written, what the
        build removed is removed; permissions are kept without setuid, setgid and sticky
        bits, and when the referee is root the folder's owner becomes the owner of what is
        written. Nothing is followed through a symlink, on either side, and nothing is
        written at a path that was left out of the copy (hidden or unreadable paths).
        Call it once the build's processes are gone.

        Raises:
            SandboxError: If this is not a build's sandbox, or the copy fails (the folder
                may then hold part of the build's changes).
        """
        if self.box is None or self.folder is None:
            raise SandboxError("commit() is for a build's sandbox (SandboxPlan.prepare_build)")
        folder = self.folder
        try:
            info = os.stat(folder)
            owner = (info.st_uid, info.st_gid) if os.geteuid() == 0 else None
            source = copying.open_dir(self.box)
            try:
                target = copying.open_dir(folder)
                try:
                    seen: set[str] = set()
                    self._copy_dir_back(source, target, "", owner, seen)
                    # What the build removed, the deepest first (a folder only once empty).
                    gone = sorted(set(self._copied) - seen, key=lambda p: -p.count("/"))
                    for path in gone:
                        copying.remove_entry(target, path)
                finally:
                    os.close(target)
            finally:
                os.close(source)
        except OSError as exc:
            raise SandboxError(
                f"cannot copy the build's results into {folder!r}: {copying.os_reason(exc)}"
            ) from exc

    def _copy_dir_back(
        self,
        source: int,
        target: int,
        prefix: str,
        owner: tuple[int, int] | None,
        seen: set[str],
    ) -> None:
        for name in sorted(os.listdir(source)):
            path = prefix + name
            if self._hidden(path) or any(_inside(path, out) for out in self.left_out):
                continue  # not the build's to write (it was left out of its copy)
            info = os.stat(name, dir_fd=source, follow_symlinks=False)
            kind = stat.S_IFMT(info.st_mode)
            if kind not in copying.COPIED_KINDS:
                continue
            seen.add(path)
            before = self._copied.get(path)
            if kind != stat.S_IFDIR:
                # A folder that holds what was left out is not the build's to replace.
                holds_left_out = any(_inside(out, path) for out in self.left_out)
                if before != copying.stamp(info) and not holds_left_out:
                    copying.copy_entry(source, target, name, info, owner)
                continue
            sub_source = copying.open_dir(name, source)
            try:
                sub_target, created = copying.ensure_dir(target, name)
                try:
                    self._copy_dir_back(sub_source, sub_target, path + "/", owner, seen)
                    if created or before != copying.stamp(info):
                        os.fchmod(sub_target, info.st_mode & 0o777)
                    if created and owner is not None:
                        os.fchown(sub_target, *owner)
                finally:
                    os.close(sub_target)
            finally:
                os.close(sub_source)

    def close(self) -> None:
        """Records the final usage, removes the cgroup and the working directory (idempotent).

        Call it after every process of the bot is gone (a cgroup with processes cannot be
        removed; it is then left for the next referee's start-up to clean up).
        """
        if self._closed:
            return
        self._closed = True
        if self._cgroup is not None:
            if self._cgroup.dirs:
                self._final = self.usage()
            self._cgroup.kill_pass()
            if not self._cgroup.remove():
                log.warning(
                    "sandbox: could not remove cgroup %s", ", ".join(self._cgroup.dirs.values())
                )
        if self._final is None:
            self._final = self.usage()
        copying.remove_tree(self.workdir)
        for private in (self.fifo_dir, self._stash):
            if private is not None:
                shutil.rmtree(private, ignore_errors=True)
        if self.box is not None:
            copying.remove_tree(self.box)


def _dir_prefix(kind: str) -> str:
    """``matador-<kind>.<referee pid>.``: the pid lets a later referee remove leftovers."""
    return f"matador-{kind}.{os.getpid()}."


def _remove_stale_dirs(root: str | None) -> None:
    """Removes working directories and FIFO folders left by referees that no longer run."""
    root = root or tempfile.gettempdir()
    try:
        entries = os.listdir(root)
    except OSError:
        return
    for name in entries:
        parts = name.split(".")
        if len(parts) != 3 or parts[0] not in ("matador-bot", "matador-io", "matador-build"):
            continue
        if parts[1].isdigit() and not _pid_alive(int(parts[1])):
            shutil.rmtree(os.path.join(root, name), ignore_errors=True)


def _make_preexec(
    procs_files: tuple[str, ...],
    limits: tuple[tuple[int, int, int], ...],
    drop: tuple[int, int] | None,
    *,
    drop_caps: bool = False,
) -> Callable[[], None]:
    prctl = _prctl

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

    return preexec


def main() -> None:
    """Prints what this machine allows and the default plan.

    Run it with ``python3 -m arena.referee.sandbox``.
    """
    logging.basicConfig(level=logging.ERROR)
    caps = detect_capabilities()
    print("detected:")
    print("  " + caps.describe().replace("\n", "\n  "))
    print()
    print(plan_sandbox(SandboxConfig(), caps).describe())


if __name__ == "__main__":
    main()
