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
copy of the bot's folder that `BotSandbox.commit` copies back when the build succeeds. Nothing
here starts a process: `arena.referee.spawn` does (the detection probes included), and it forks
sandboxed bots from threads that live as long as the referee, so that the parent-death
signals, which follow the forking thread, fire when the referee dies and not before.

One module per job, each importing only those listed before it (and `arena.referee.spawn`;
`bot` names `plan`'s `SandboxPlan` as a type only, under ``TYPE_CHECKING``):

- `config`: `SandboxConfig`, the mechanisms, the errors;
- `paths`: what a bot's command needs to read, and the mount view under unshare as root;
- `filecopy`: a build's private copy of its folder, and the copy back;
- `wrappers`: the bwrap and unshare options;
- `limits`: rlimits, the child's ``preexec_fn``, resource usage and outcomes;
- `cgroups`: finding a cgroup hierarchy, and one bot's cgroup;
- `probes`: `detect_capabilities`;
- `report`: the sentences of what a plan enforces and does not;
- `bot`: `BotSandbox`;
- `plan`: `SandboxPlan` and `plan_sandbox`.

This package exports what the rest of the arena uses. docs/security.md says what each
mechanism enforces and what was measured on this machine; ``python3 -m arena.referee.sandbox``
prints both for the machine it runs on.
"""

from __future__ import annotations

from arena.referee.sandbox.bot import BotSandbox
from arena.referee.sandbox.cgroups import CgroupSupport
from arena.referee.sandbox.config import (
    NOBODY,
    Mechanism,
    SandboxConfig,
    SandboxError,
    SandboxPathError,
)
from arena.referee.sandbox.limits import (
    ResourceLimit,
    ResourceOutcome,
    ResourceUsage,
    classify_outcome,
)
from arena.referee.sandbox.paths import SANDBOX_PATH
from arena.referee.sandbox.plan import SandboxPlan, plan_sandbox
from arena.referee.sandbox.probes import Capabilities, detect_capabilities

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
