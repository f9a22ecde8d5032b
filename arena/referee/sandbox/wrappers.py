"""The options of the wrapper commands, bubblewrap and unshare: the probes run them exactly as
the bots' sandboxes do (`arena.referee.sandbox.probes`, `arena.referee.sandbox.bot`)."""

from __future__ import annotations

import os

from arena.referee.sandbox.paths import SYSTEM_DIRS

#: The shell that opens a wrapped bot's FIFOs and fixes its view before it becomes the bot.
SHELL = "/bin/sh"
#: Top-level names that are symlinks into /usr on merged-/usr systems, or real directories.
MERGED_DIRS = ("/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32")
#: Paths that exist in every bwrap sandbox without a bind of their own.
VISIBLE_DIRS = (*SYSTEM_DIRS, *MERGED_DIRS, "/proc", "/dev")


def bwrap_namespace_args(*, allow_network: bool) -> list[str]:
    """bwrap's namespace options: new PID, IPC, UTS and cgroup (and network) namespaces."""
    args = ["--unshare-pid", "--unshare-ipc", "--unshare-uts", "--unshare-cgroup-try"]
    if not allow_network:
        args.append("--unshare-net")
    return [*args, "--die-with-parent", "--new-session"]


def bwrap_system_args() -> list[str]:
    """bwrap's read-only system directories, merged-/usr symlinks, ``/proc`` and ``/dev``."""
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


def unshare_args(*, allow_network: bool, euid: int, drop: tuple[int, int] | None) -> list[str]:
    """unshare's options: new PID, IPC, UTS (and network) namespaces; ``drop``: its uid change."""
    args = ["--pid", "--fork", "--kill-child", "--mount-proc", "--ipc", "--uts"]
    if not allow_network:
        args.append("--net")
    if euid != 0:
        args.append("--map-root-user")  # without root, namespaces need a user namespace
    if drop is not None:
        args += ["--setuid", str(drop[0]), "--setgid", str(drop[1])]
    return args
