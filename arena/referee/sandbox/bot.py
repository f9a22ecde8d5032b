"""One bot's sandbox (`BotSandbox`): its working directory, cgroup, FIFOs, wrapped command,
scrubbed environment and ``preexec_fn``; for a build, its private copy of the bot's folder.

`arena.referee.sandbox.plan.SandboxPlan.prepare` and ``prepare_build`` make one. The FIFOs
exist because a wrapper process (bwrap, unshare) would otherwise hold the bot's pipes open,
and a bot closing its stdout would never show EOF.
"""

from __future__ import annotations

import logging
import os
import shlex
import shutil
import tempfile
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

from arena import SLUG
from arena.referee.sandbox import filecopy as copying
from arena.referee.sandbox.cgroups import Cgroup, pid_alive
from arena.referee.sandbox.config import MB, Mechanism, SandboxError, SandboxPathError
from arena.referee.sandbox.limits import ResourceUsage, make_preexec
from arena.referee.sandbox.paths import (
    SANDBOX_PATH,
    SYSTEM_DIRS,
    ancestors,
    in_hidden,
    inside,
    outermost,
    plan_view,
    reachable_by,
    readable_by,
    resolve_command,
)
from arena.referee.sandbox.probes import has_view
from arena.referee.sandbox.wrappers import (
    MERGED_DIRS,
    SHELL,
    VISIBLE_DIRS,
    bwrap_namespace_args,
    bwrap_system_args,
    unshare_args,
)

if TYPE_CHECKING:
    # Only a type: the plan makes its bots' sandboxes, so plan.py imports this module.
    from arena.referee.sandbox.plan import SandboxPlan

log = logging.getLogger("arena.referee.sandbox")
#: Warnings about one bot (its paths), each logged once per referee process.
bot_log = logging.getLogger("arena.referee.sandbox.bots")
_warned: set[str] = set()
#: Seconds a wrapped bot's shell waits for the referee to open the bot's FIFOs before it ends
#: itself: a little more than the referee waits for it (`arena.referee.spawn`, 10 s).
SANDBOX_CONNECT_TIMEOUT_S = 12


class BotSandbox:
    """One bot's sandbox: its working directory, cgroup, wrapped command and environment.

    Made by `SandboxPlan.prepare`; `arena.referee.process.open_bot_process` starts the bot
    with `argv`, `cwd`, `env` and `preexec_fn`, and calls `close` when the bot is gone.
    `SandboxPlan.prepare_build` makes the sandbox of a build instead
    (`arena.referee.capped.run_capped`): the same containment, but the build works on a
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
        self._cgroup: Cgroup | None = None
        self._final: ResourceUsage | None = None
        self._cpu_limit_hit = False
        self.fifo_dir: str | None = None
        self._stash: str | None = None
        self._view_script = ""
        self.box: str | None = None
        self.left_out: set[str] = set()
        self._copy: copying.FolderCopy | None = None
        config = plan.config
        bwrap = plan.mechanism is Mechanism.BWRAP
        source = os.environ if env is None else env
        folder = os.path.abspath(cwd) if cwd is not None else None
        if build and folder is None:
            raise ValueError("a build's sandbox needs the bot's folder")
        self.folder = folder
        resolved = resolve_command(argv, folder, source.get("PATH", os.defpath))
        bot_argv, path_dirs = resolved.argv, resolved.path_dirs
        self._refuse_hidden([*resolved.program, *resolved.named])
        read_only = [*resolved.program, *resolved.arguments]
        read_only += [os.path.abspath(p) for p in config.read_only_paths if os.path.exists(p)]
        if folder is not None and build:
            # The folder is the build's writable copy, not a read-only view of the original.
            read_only = [p for p in read_only if not inside(p, folder)]
        elif folder is not None:
            read_only.insert(0, folder)
        self.bot_argv = bot_argv
        self.read_only = outermost(read_only)
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
                self._copy = copying.FolderCopy(
                    folder, self.box, config.hidden_paths, self.left_out
                )
                self._copy_in(self._copy)
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
                self._cgroup = Cgroup(plan.cgroup, config)
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
        if resolved.python_path:
            self.env["PYTHONPATH"] = ":".join(resolved.python_path)
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
        self._preexec = make_preexec(procs, limits, drop, drop_caps=keep_root)

    def __repr__(self) -> str:
        return f"<BotSandbox {self.plan.mechanism.value} workdir={self.workdir!r}>"

    def _wants_fifos(self) -> bool:
        # A wrapper (bwrap's two processes, unshare) would hold the bot's stdin and stdout
        # open if they were its own: a bot that closes them would never show EOF or EPIPE.
        # So the bot's stdin and stdout are FIFOs that a shell opens just before it becomes
        # the bot; that shell must run before the uid drop (setpriv), so setpriv is needed.
        plan = self.plan
        if plan.mechanism is Mechanism.RLIMITS or not os.path.exists(SHELL):
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
            #
            # The timer ends this shell when the referee never connects: it died (kill -9 of
            # a tournament or cluster worker) while the wrapper was still setting up the
            # namespaces, before bwrap's pid 1 had its parent-death signal, so nothing else
            # would ever end this sandbox. A trapped signal, because under unshare this
            # shell is its namespace's pid 1, which ignores a KILL from inside: it
            # interrupts the FIFO's open, and the shell exits. The timer is killed once both
            # FIFOs are open (exec resets the trap); its `sleep`, which holds none of the
            # bot's descriptors, ends by itself.
            steps.append("trap 'exit 125' USR1")
            steps.append(
                f"{{ sleep {SANDBOX_CONNECT_TIMEOUT_S}; kill -USR1 $$; }}"
                " </dev/null >/dev/null 2>&1 &"
            )
            steps.append('exec >"$1" <"$2" && kill -KILL $! && shift 2 && exec "$@"')
            fifos = [self.stdout_fifo, self.stdin_fifo]
            return [SHELL, "-c", "\n".join(steps), "sh", *fifos, *command]
        if steps:
            steps.append('exec "$@"')
            return [SHELL, "-c", "\n".join(steps), "sh", *command]
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
        return has_view(self.plan.mechanism, self.plan.capabilities)

    def _choose_user(self, needed: Sequence[str]) -> tuple[int, int] | None:
        """The (uid, gid) this bot runs as: the plan's, or root without capabilities when the
        bots' user cannot read what it needs (one warning names the path and the fix)."""
        plan = self.plan
        if plan.drop is None:
            return None
        uid, gid = plan.drop
        # bwrap recreates the folders above a bound path world-readable, and so does the
        # unshare view (`arena.referee.sandbox.paths`); without either, a closed folder on the
        # way blocks too.
        ancestors_ok = plan.mechanism is Mechanism.BWRAP or self._view_fixes_paths()
        blocked: list[tuple[str, str | None]] = []
        for path in outermost(needed):
            closed = None if ancestors_ok else reachable_by(path, uid, gid)
            if closed is not None or not readable_by(path, uid, gid):
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
        it must not see, in its own mount namespace (`arena.referee.sandbox.paths`)."""
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
                *unshare_args(allow_network=config.allow_network, euid=caps.euid, drop=drop),
                "--",
                *self._inner(bot_argv),
            ]
        if plan.mechanism is Mechanism.RLIMITS:
            return list(bot_argv)
        assert caps.bwrap is not None
        args = [
            caps.bwrap,
            *bwrap_namespace_args(allow_network=config.allow_network),
            *bwrap_system_args(),
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
            if not own and any(inside(target, d) for d in VISIBLE_DIRS):
                continue  # already in the sandbox
            for ancestor in ancestors(target):
                if ancestor not in created and not any(inside(ancestor, b) for b in bound):
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
            if writable is not None and inside(path, writable):
                continue  # left out of the build's copy: there is nothing to mask
            visible = any(inside(path, d) for d in (*self.read_only, *VISIBLE_DIRS))
            contains_ours = any(inside(t, path) for t in targets)
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

    def _copy_in(self, copy: copying.FolderCopy) -> None:
        """Copies the folder into the build's box, owned by the bots' user."""
        try:
            copy.copy_in(self.drop)
        except OSError as exc:
            raise SandboxError(
                f"cannot copy {copy.folder!r} for its build: {copying.os_reason(exc)}"
            ) from exc

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
        if self._copy is None:
            raise SandboxError("commit() is for a build's sandbox (SandboxPlan.prepare_build)")
        try:
            self._copy.copy_back()
        except OSError as exc:
            raise SandboxError(
                f"cannot copy the build's results into {self._copy.folder!r}:"
                f" {copying.os_reason(exc)}"
            ) from exc

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
    """``<SLUG>-<kind>.<referee pid>.`` (``arena.SLUG``): the pid lets a later referee remove
    leftovers."""
    return f"{SLUG}-{kind}.{os.getpid()}."


def remove_stale_dirs(root: str | None) -> None:
    """Removes working directories and FIFO folders left by referees that no longer run."""
    root = root or tempfile.gettempdir()
    try:
        entries = os.listdir(root)
    except OSError:
        return
    for name in entries:
        parts = name.split(".")
        if len(parts) != 3 or parts[0] not in (f"{SLUG}-bot", f"{SLUG}-io", f"{SLUG}-build"):
            continue
        if parts[1].isdigit() and not pid_alive(int(parts[1])):
            shutil.rmtree(os.path.join(root, name), ignore_errors=True)
