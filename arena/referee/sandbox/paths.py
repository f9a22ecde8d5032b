"""What a sandboxed bot needs to read, who may read it, and, under ``unshare`` as root, the
mounts that show the bot exactly that in its own mount namespace.

`resolve_command` lists the paths a bot's command needs. Under bwrap those are bound into an
empty view. Under ``unshare`` the bot sees the host's filesystem, so two things can go wrong
when the referee is root and the bot runs as an unprivileged user: a needed path lies below a
folder that user may not enter (pyenv's Python in root's 0700 home, a venv in a 0700
``mktemp -d``), and a path the bot must not see (the tournament's output, another bot's
folder) is readable. `plan_view` works out, for one bot, the mounts that fix both inside the
bot's mount namespace, before its uid is dropped (`MountView.script`):

- each folder on the way that is closed to the bot's user, and each hidden folder that holds
  something the bot needs, becomes *opaque*: it is bound to a private stash, a tmpfs (mode
  0755) is mounted over it, the needed paths are recreated in it and bound from the stash
  (read-only), and the stash is unmounted;
- every other hidden path is masked: a folder by an empty read-only tmpfs, a file by
  ``/dev/null``.

The mounts live and die with the bot's mount namespace (``unshare`` makes its propagation
private): the host never sees them.
"""

from __future__ import annotations

import os
import shlex
import shutil
import stat
import sys
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

import arena
import protocol
from arena import SLUG

#: Directories that hold interpreters and libraries (not a bot's own installation prefix).
SYSTEM_DIRS = ("/usr", "/etc")
#: The ``PATH`` a sandboxed bot gets (after the bin directory of its interpreter, if any).
SANDBOX_PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"
#: Size of the tmpfs laid over an opaque folder (it holds only empty mount points).
_OPAQUE_TMPFS = "mode=0755,size=1m,nosuid,nodev"
#: The empty tmpfs that masks a hidden folder.
_MASK_TMPFS = "ro,mode=0555,size=4k,nosuid,nodev,noexec"


def inside(path: str, directory: str) -> bool:
    """Whether ``path`` is ``directory`` or below it (both absolute and normalised)."""
    return path == directory or path.startswith(directory.rstrip("/") + "/")


def _bits(info: os.stat_result, uid: int, gid: int) -> int:
    if info.st_uid == uid:
        return (info.st_mode >> 6) & 0o7
    if info.st_gid == gid:
        return (info.st_mode >> 3) & 0o7
    return info.st_mode & 0o7


def readable_by(path: str, uid: int, gid: int) -> bool:
    """Whether ``uid``/``gid`` (no supplementary groups) may read ``path`` (and list it)."""
    try:
        info = os.stat(path)
    except OSError:
        return False
    need = 0o5 if stat.S_ISDIR(info.st_mode) else 0o4
    return _bits(info, uid, gid) & need == need


def closed_ancestors(path: str, uid: int, gid: int) -> list[str]:
    """The directories on the way to ``path`` (not ``path`` itself) that ``uid`` cannot enter."""
    parts = os.path.abspath(path).split("/")[1:-1]
    found = []
    current = ""
    for part in parts:
        current += "/" + part
        try:
            info = os.stat(current)
        except OSError:
            found.append(current)
            break
        if not _bits(info, uid, gid) & 0o1:
            found.append(current)
    return found


def reachable_by(path: str, uid: int, gid: int) -> str | None:
    """Returns the first directory on the way to ``path`` that ``uid`` cannot enter, if any."""
    closed = closed_ancestors(path, uid, gid)
    return closed[0] if closed else None


def ancestors(path: str) -> list[str]:
    """The directories above ``path``, outermost first, without ``/``."""
    parts = path.split("/")[1:-1]
    return ["/" + "/".join(parts[: i + 1]) for i in range(len(parts))]


def outermost(paths: Iterable[str]) -> list[str]:
    """Drops duplicates and paths inside another path of the list, keeping the order."""
    unique = list(dict.fromkeys(paths))
    return [p for p in unique if not any(p != q and inside(p, q) for q in unique)]


def program_prefixes(program: str) -> list[str]:
    """The installation directory of an interpreter in ``.../bin/`` (as given and resolved)."""
    found = []
    for path in dict.fromkeys([os.path.abspath(program), os.path.realpath(program)]):
        directory = os.path.dirname(path)
        if os.path.basename(directory) == "bin":
            prefix = os.path.dirname(directory)
            if prefix not in ("/", "/usr", "/usr/local") and not any(
                inside(prefix, d) for d in SYSTEM_DIRS
            ):
                found.append(prefix)
    return found


@dataclass(frozen=True, slots=True)
class ResolvedCommand:
    """A bot's command with its paths made absolute, and what it needs to read.

    Attributes:
        argv: The command.
        program: What the program needs: itself and its installation prefix.
        arguments: Paths the command's arguments name (a folder bot's: only inside its
            folder).
        path_dirs: Directories to put in front of ``PATH``.
        named: The path every argument would name, whether or not it exists yet (a
            tournament's out folder may be created after its bots are checked).
        python_path: The bot's ``PYTHONPATH`` (empty: none), set for a module of the arena's
            own (``python3 -m arena.reference``), so that it imports the arena the referee runs.
    """

    argv: list[str]
    program: list[str]
    arguments: list[str]
    path_dirs: list[str]
    named: list[str]
    python_path: list[str] = field(default_factory=list)


def own_packages() -> tuple[list[str], list[str]]:
    """The folders of the arena's own packages (``arena``, ``protocol``: what a reference bot
    imports), and the folders that hold them (its ``PYTHONPATH``)."""
    folders = [os.path.dirname(os.path.abspath(p.__file__ or "")) for p in (arena, protocol)]
    return folders, list(dict.fromkeys(os.path.dirname(f) for f in folders))


def _runs_own_module(argv: Sequence[str]) -> bool:
    """Whether the command is a Python running one of the arena's modules (``-m arena...``)."""
    return len(argv) >= 3 and argv[1] == "-m" and argv[2].split(".")[0] == arena.__name__


def resolve_command(argv: Sequence[str], folder: str | None, referee_path: str) -> ResolvedCommand:
    """Makes the command's paths absolute and lists what the bot needs to read."""
    base = folder if folder is not None else os.getcwd()
    new = list(argv)
    program: list[str] = []
    arguments: list[str] = []
    path_dirs: list[str] = []
    named: list[str] = []
    first = argv[0]
    if first in ("python3", "python"):
        # A bare python is the interpreter running the arena, as outside the sandbox (where the
        # referee's PATH finds it): bots get the packages installed with it, such as msgspec
        # and the arena's protocol package, rather than a bare system Python.
        new[0] = sys.executable
        program += [new[0], *program_prefixes(new[0])]
        path_dirs.append(os.path.dirname(new[0]))
    elif "/" not in first:
        # The sandbox's PATH holds the system directories; a program only on the referee's
        # PATH is taken from there and its installation directory is made visible.
        if shutil.which(first, path=SANDBOX_PATH) is None:
            found = shutil.which(first, path=referee_path)
            if found is not None:
                new[0] = os.path.abspath(found)
                program += [new[0], *program_prefixes(new[0])]
                path_dirs.append(os.path.dirname(new[0]))
    else:
        new[0] = os.path.normpath(os.path.join(base, first))
        if folder is None or inside(new[0], folder):
            program.append(new[0])
        prefixes = program_prefixes(new[0])
        program += prefixes
        if prefixes:
            path_dirs.append(os.path.dirname(new[0]))
    for index, arg in enumerate(argv[1:], start=1):
        if not arg or arg.startswith("-"):
            continue
        candidate = os.path.normpath(os.path.join(base, arg))
        named.append(candidate)
        if not os.path.exists(candidate):
            continue
        new[index] = candidate
        # A folder bot's command may only open what is in its folder (its manifest is the
        # bot author's, not the organiser's); a command-line bot's may name any path.
        if folder is None or inside(candidate, folder):
            arguments.append(candidate)
    python_path: list[str] = []
    if folder is None and _runs_own_module(argv):
        # A reference bot: the arena's packages, read-only, and nothing else of their folder.
        packages, python_path = own_packages()
        arguments += packages
    return ResolvedCommand(new, program, arguments, path_dirs, named, python_path)


def in_hidden(path: str, hidden: Iterable[str], allowed: Iterable[str]) -> str | None:
    """The hidden path that holds ``path``, unless it holds one of ``allowed`` too (a bot's
    own folder is among the hidden entrants' folders, and stays visible to it)."""
    allowed = list(allowed)
    for secret in hidden:
        if inside(path, secret) and not any(inside(a, secret) for a in allowed):
            return secret
    return None


@dataclass(frozen=True, slots=True)
class _Opaque:
    folder: str
    recreated: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class MountView:
    """The mounts that show one bot what it needs in its mount namespace (see the module).

    Attributes:
        opaque: Folders replaced by a tmpfs holding only the needed paths, outermost first,
            each with the paths recreated in it.
        masks: Hidden paths covered by an empty tmpfs (folders) or ``/dev/null`` (files).
        writable: Recreated paths bound writable (the bot's working directory and FIFOs).
        unreadable: Needed paths the bots' user cannot read even once they are reachable.
    """

    opaque: tuple[_Opaque, ...] = ()
    masks: tuple[str, ...] = ()
    writable: frozenset[str] = frozenset()
    unreadable: tuple[str, ...] = ()

    def __bool__(self) -> bool:
        return bool(self.opaque or self.masks)

    def script(self, stash: str, mount: str, umount: str) -> str:
        """The shell commands that make the mounts (run as root inside the namespace).

        Args:
            stash: A private, empty folder only root may enter (``stash/N`` are made here).
            mount: The ``mount`` program; ``umount``: the ``umount`` program.

        Returns:
            Commands for ``sh -c`` (with ``set -e``: the first failure ends the shell).
        """
        q = shlex.quote
        lines = ["set -e", "umask 022"]
        for index, region in enumerate(self.opaque):
            place = f"{stash}/{index}"
            lines += [
                f"mkdir {q(place)}",
                f"{q(mount)} --rbind {q(region.folder)} {q(place)}",
                f"{q(mount)} -t tmpfs -o {_OPAQUE_TMPFS} {SLUG}-view {q(region.folder)}",
            ]
            for path in region.recreated:
                source = place + path[len(region.folder) :]
                parent = os.path.dirname(path)
                if parent != region.folder:
                    lines.append(f"mkdir -p {q(parent)}")
                if os.path.islink(path):
                    lines.append(f"ln -s {q(os.readlink(path))} {q(path)}")
                    continue
                lines.append(f"mkdir {q(path)}" if os.path.isdir(path) else f": > {q(path)}")
                ro = "" if path in self.writable else " -o ro"
                lines.append(f"{q(mount)} --rbind{ro} {q(source)} {q(path)}")
            lines.append(f"{q(umount)} -l {q(place)}")
        for path in self.masks:
            if os.path.isdir(path):
                lines.append(f"{q(mount)} -t tmpfs -o {_MASK_TMPFS} {SLUG}-hidden {q(path)}")
            else:
                lines.append(f"{q(mount)} --bind -o ro /dev/null {q(path)}")
        return "\n".join(lines)


def plan_view(
    needed: Sequence[str],
    writable: Sequence[str],
    hidden: Sequence[str],
    drop: tuple[int, int] | None,
) -> MountView:
    """Works out the mounts of one bot's namespace (see the module).

    Args:
        needed: Absolute paths the bot must read (its program, folder, arguments...).
        writable: Absolute paths it must write (its working directory; the FIFOs' folder).
        hidden: Paths the bot must not see.
        drop: The (uid, gid) the bot runs as, or ``None`` when it keeps root's (then only
            hidden paths matter).

    Returns:
        The view (empty when nothing needs mounting).
    """
    wanted = [p for p in dict.fromkeys([*needed, *writable]) if os.path.lexists(p)]
    secrets = [h for h in dict.fromkeys(map(os.path.abspath, hidden)) if os.path.lexists(h)]
    candidates: set[str] = set()
    unreadable: list[str] = []
    for path in wanted:
        if drop is not None and path not in writable:
            candidates.update(closed_ancestors(path, *drop))
            if not readable_by(path, *drop):
                unreadable.append(path)
        # A hidden folder that is itself wanted (a bot's own folder among the entrants') is
        # shown whole; one that holds something wanted shows only that.
        candidates.update(h for h in secrets if inside(path, h) and path != h and h not in wanted)
    regions: list[_Opaque] = []
    for folder in sorted(candidates, key=lambda p: (p.count("/"), p)):
        if not _visible(folder, regions):
            continue
        recreated = outermost(p for p in wanted if inside(p, folder) and p != folder)
        regions.append(_Opaque(folder, tuple(sorted(recreated))))
    masks = [
        h
        for h in secrets
        if not any(inside(p, h) for p in wanted) and h not in candidates and _visible(h, regions)
    ]
    return MountView(
        opaque=tuple(regions),
        masks=tuple(sorted(outermost(masks))),  # what is inside a masked folder is gone
        writable=frozenset(writable),
        unreadable=tuple(unreadable),
    )


def _visible(path: str, regions: Sequence[_Opaque]) -> bool:
    """Whether ``path`` is still there once ``regions`` are opaque: outside each, or inside
    a path recreated in it."""
    return all(
        not inside(path, r.folder) or any(inside(path, kept) for kept in r.recreated)
        for r in regions
    )
