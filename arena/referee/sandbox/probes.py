"""What this machine allows: `detect_capabilities` runs bubblewrap and unshare once each with
the options the bots' sandboxes use, checks that root can mount in unshare's namespace, and
probes the cgroup hierarchies. The probe commands are started by `arena.referee.spawn`, the
one module that starts processes."""

from __future__ import annotations

import os
import shlex
import shutil
import tempfile
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from arena.referee.sandbox.cgroups import CgroupSupport, probe_cgroups
from arena.referee.sandbox.config import Mechanism
from arena.referee.sandbox.wrappers import (
    SHELL,
    bwrap_namespace_args,
    bwrap_system_args,
    unshare_args,
)
from arena.referee.spawn import run_probe

#: Runs a probe command: (return code, or None if it could not run or timed out; its output).
ProbeRunner = Callable[[Sequence[str]], tuple[int | None, str]]


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
            the bots' view of the filesystem is then fixed up there,
            `arena.referee.sandbox.paths`).
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
        run: The probe runner (default: `arena.referee.spawn.run_probe`).

    Returns:
        What works and, for what does not, why.
    """
    if not refresh and cgroup_parent in _detected:
        return _detected[cgroup_parent]
    if run is None:
        run = run_probe
    euid = os.geteuid()
    true = shutil.which("true") or "/bin/true"
    bwrap, bwrap_version, bwrap_problem = _probe_bwrap(run, true, euid)
    unshare, unshare_problem = _probe_unshare(run, true, euid)
    mount = _probe_mount(run, unshare, euid) if unshare is not None else None
    cgroup, cgroup_problem = probe_cgroups(cgroup_parent)
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
        *bwrap_namespace_args(allow_network=False),
        *bwrap_system_args(),
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
    code, output = run([path, *unshare_args(allow_network=False, euid=euid, drop=None), "--", true])
    if code != 0:
        why = output.strip().splitlines()[-1] if output.strip() else f"exit code {code}"
        return None, f"unshare cannot create PID and network namespaces here: {why}"
    return path, None


def _probe_mount(run: ProbeRunner, unshare: str, euid: int) -> str | None:
    """The mount program, if root can bind and mount a tmpfs inside unshare's namespace."""
    mount, umount = shutil.which("mount"), shutil.which("umount")
    if euid != 0 or mount is None or umount is None or not os.path.exists(SHELL):
        return None
    # The namespace's propagation is private: the probe's mounts never reach the host.
    where = shlex.quote(tempfile.gettempdir())
    script = (
        f"{mount} -t tmpfs -o size=4k matador-probe {where} && : > {where}/f"
        f" && {mount} --bind /dev/null {where}/f"
    )
    argv = [unshare, *unshare_args(allow_network=False, euid=euid, drop=None)]
    code, _output = run([*argv, "--", SHELL, "-c", script])
    return mount if code == 0 else None


def has_view(mechanism: Mechanism, caps: Capabilities) -> bool:
    """Whether each bot's mount namespace is fixed up (unshare as root: `paths.plan_view`)."""
    return (
        mechanism is Mechanism.UNSHARE
        and caps.euid == 0
        and caps.mount is not None
        and caps.setpriv is not None
    )
