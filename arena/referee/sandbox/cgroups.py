"""Cgroups, v1 and v2: finding a hierarchy where bots' cgroups can be made (`probe_cgroups`,
which also clears what killed referees left), and one bot's cgroup (`Cgroup`): its memory and
process limits, its usage counters, the kill that reaches every process in it."""

from __future__ import annotations

import contextlib
import itertools
import os
import signal
import time
from collections.abc import Sequence
from dataclasses import dataclass

from arena.referee.sandbox.config import MB, SandboxConfig, SandboxError
from arena.referee.sandbox.limits import ResourceUsage

#: Name prefix of the cgroups created here: ``matador-arena.<referee pid>.<n>``.
CGROUP_PREFIX = "matador-arena"

_counter = itertools.count(1)


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


def pid_alive(pid: int) -> bool:
    """Whether a process ``pid`` exists (a referee whose leftovers must not be removed)."""
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
        if not stale or pid_alive(int(parts[1])):
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


def probe_cgroups(parent: str | None) -> tuple[CgroupSupport | None, str | None]:
    """Finds the cgroup hierarchy that does most for bots below ``parent`` (None: below ours).

    Returns:
        The hierarchy (v2 preferred when it does as much as v1), or None; and what does not
        work in it, or why there is none.
    """
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


class Cgroup:
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
