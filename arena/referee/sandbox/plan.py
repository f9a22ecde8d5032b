"""The plan: which mechanism contains the bots on this machine for a `SandboxConfig`, and
exactly what it enforces and what it does not (`plan_sandbox`, `SandboxPlan.describe`). Each
bot then gets its own `arena.referee.sandbox.bot.BotSandbox` from `SandboxPlan.prepare`."""

from __future__ import annotations

import dataclasses
import logging
import math
import os
import resource
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from arena.referee.sandbox.bot import BotSandbox, remove_stale_dirs
from arena.referee.sandbox.cgroups import CgroupSupport
from arena.referee.sandbox.config import Mechanism, SandboxConfig, SandboxError
from arena.referee.sandbox.limits import child_rlimits, within_hard
from arena.referee.sandbox.probes import Capabilities, detect_capabilities, has_view
from arena.referee.sandbox.report import Report, report_limits

log = logging.getLogger("arena.referee.sandbox")


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
            argv: The bot's command as `arena.referee.commands.parse_command` returns it.
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
            rlimits = tuple((n, r, within_hard(r, s), within_hard(r, h)) for n, r, s, h in rlimits)
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
            argv: The build's command as `arena.referee.commands.parse_command` returns it.
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
    report = Report()
    mechanism = _choose_mechanism(config, caps, report)
    cgroup = caps.cgroup if config.use_cgroups else None
    controllers = cgroup.controllers if cgroup is not None else frozenset()
    if config.use_cgroups and cgroup is None:
        report.warnings.append(f"no usable cgroup ({caps.cgroup_problem})")
    elif cgroup is not None and caps.cgroup_problem and controllers != {"memory", "pids", "cpu"}:
        report.warnings.append(f"cgroup partly usable: {caps.cgroup_problem}")
    drop = _plan_user(config, caps, mechanism, report)
    view = has_view(mechanism, caps)
    address_space = report_limits(config, mechanism, controllers, report, view=view)
    plan = SandboxPlan(
        config=config,
        mechanism=mechanism,
        capabilities=caps,
        cgroup=cgroup,
        drop=drop,
        rlimits=child_rlimits(config, caps.euid, controllers, address_space),
        enforced=tuple(report.enforced),
        not_enforced=tuple(report.not_enforced),
        warnings=tuple(report.warnings),
    )
    for warning in report.warnings:
        log.warning("sandbox: %s", warning)
    remove_stale_dirs(config.workdir_root)
    return plan


def _choose_mechanism(config: SandboxConfig, caps: Capabilities, report: Report) -> Mechanism:
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
    if mechanism is not Mechanism.BWRAP and has_view(mechanism, caps):
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


def _plan_user(
    config: SandboxConfig, caps: Capabilities, mechanism: Mechanism, report: Report
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
