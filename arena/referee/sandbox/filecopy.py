"""Copying a bot's folder into its build's private box and back, without following a symlink
on either side (`FolderCopy`; `arena.referee.sandbox.bot.BotSandbox` uses it for
`SandboxPlan.prepare_build`)."""

from __future__ import annotations

import contextlib
import errno
import itertools
import os
import shutil
import stat
from collections.abc import Iterable

from arena.referee.sandbox.paths import inside

_counter = itertools.count(1)

#: What is compared to tell whether a build changed an entry: (mode, size, mtime in ns);
#: for a folder only its mode.
Stamp = tuple[int, int, int]
#: The kinds of entry a build's folder is made of; others (FIFOs, sockets, devices) are left.
COPIED_KINDS = (stat.S_IFREG, stat.S_IFDIR, stat.S_IFLNK)
_DIR_FLAGS = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC
_COPY_CHUNK = 1 << 20
_TEMP_PREFIX = ".matador-copy."


def os_reason(exc: OSError) -> str:
    reason = exc.strerror or str(exc)
    return f"{reason}: {exc.filename!r}" if exc.filename is not None else reason


def open_dir(name: str, dir_fd: int | None = None) -> int:
    """Opens a directory without following a symlink (ELOOP or ENOTDIR if it is not one)."""
    return os.open(name, _DIR_FLAGS, dir_fd=dir_fd)


def stamp(info: os.stat_result) -> Stamp:
    if stat.S_ISDIR(info.st_mode):
        return (info.st_mode, 0, 0)
    return (info.st_mode, info.st_size, info.st_mtime_ns)


def stamps(directory: int, prefix: str = "") -> dict[str, Stamp]:
    """The stamp of every entry below an open directory, by path relative to it."""
    found: dict[str, Stamp] = {}
    for name in os.listdir(directory):
        info = os.stat(name, dir_fd=directory, follow_symlinks=False)
        found[prefix + name] = stamp(info)
        if stat.S_ISDIR(info.st_mode):
            sub = open_dir(name, directory)
            try:
                found.update(stamps(sub, prefix + name + "/"))
            finally:
                os.close(sub)
    return found


def permits(info: os.stat_result, uid: int, gid: int, *, dir_needs_x: bool) -> bool:
    """Whether ``uid``/``gid`` (no supplementary groups) may read what ``info`` describes."""
    need = 0o5 if dir_needs_x and stat.S_ISDIR(info.st_mode) else 0o4
    if info.st_uid == uid:
        bits = (info.st_mode >> 6) & 0o7
    elif info.st_gid == gid:
        bits = (info.st_mode >> 3) & 0o7
    else:
        bits = info.st_mode & 0o7
    return bits & need == need


def copy_entry(
    source: int, target: int, name: str, info: os.stat_result, owner: tuple[int, int] | None
) -> None:
    """Copies a file or a symlink from one open directory to another, replacing what the
    target has under that name (a folder there is removed). The copy is made under a
    temporary name and renamed into place; no symlink is followed on either side."""
    temp = f"{_TEMP_PREFIX}{os.getpid()}.{next(_counter)}"
    try:
        if stat.S_ISLNK(info.st_mode):
            os.symlink(os.readlink(name, dir_fd=source), temp, dir_fd=target)
            if owner is not None:
                os.chown(temp, *owner, dir_fd=target, follow_symlinks=False)
        else:
            flags = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC
            reader = os.open(name, flags, dir_fd=source)
            try:
                if not stat.S_ISREG(os.fstat(reader).st_mode):
                    return  # replaced by something else since it was listed
                flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC
                writer = os.open(temp, flags, 0o600, dir_fd=target)
                try:
                    while chunk := os.read(reader, _COPY_CHUNK):
                        view = memoryview(chunk)
                        while view:
                            view = view[os.write(writer, view) :]
                    os.fchmod(writer, info.st_mode & 0o777)  # never setuid, setgid or sticky
                    if owner is not None:
                        os.fchown(writer, *owner)
                    os.utime(writer, ns=(info.st_atime_ns, info.st_mtime_ns))
                finally:
                    os.close(writer)
            finally:
                os.close(reader)
        with contextlib.suppress(FileNotFoundError):
            if stat.S_ISDIR(os.stat(name, dir_fd=target, follow_symlinks=False).st_mode):
                shutil.rmtree(name, dir_fd=target)
        os.rename(temp, name, src_dir_fd=target, dst_dir_fd=target)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temp, dir_fd=target)
        raise


def ensure_dir(parent: int, name: str) -> tuple[int, bool]:
    """Opens the folder ``name`` of an open directory, making it (in place of a file or a
    symlink there) if needed; returns its descriptor and whether it was made."""
    try:
        return open_dir(name, parent), False
    except FileNotFoundError:
        pass
    except OSError as exc:
        if exc.errno not in (errno.ELOOP, errno.ENOTDIR):
            raise
        os.unlink(name, dir_fd=parent)
    os.mkdir(name, 0o700, dir_fd=parent)
    return open_dir(name, parent), True


def remove_entry(root: int, path: str) -> None:
    """Removes ``path`` (relative to an open directory) if it is there: a file or a symlink,
    or a folder once it is empty. Nothing is followed through a symlink."""
    *parents, name = path.split("/")
    fds: list[int] = []
    try:
        current = root
        for part in parents:
            try:
                current = open_dir(part, current)
            except OSError:
                return  # already gone, or no longer a folder
            fds.append(current)
        try:
            info = os.stat(name, dir_fd=current, follow_symlinks=False)
        except FileNotFoundError:
            return
        if stat.S_ISDIR(info.st_mode):
            with contextlib.suppress(OSError):  # not empty: it holds what was left out
                os.rmdir(name, dir_fd=current)
        else:
            os.unlink(name, dir_fd=current)
    finally:
        for fd in fds:
            os.close(fd)


def moved(path: str, folder: str, box: str) -> str:
    """``path`` with ``folder`` replaced by ``box`` when it is inside ``folder``."""
    if not inside(path, folder):
        return path
    return os.path.normpath(os.path.join(box, os.path.relpath(path, folder)))


def remove_tree(path: str) -> None:
    """Removes a directory tree, also when its owner made folders of it read-only."""
    shutil.rmtree(path, ignore_errors=True)
    if not os.path.lexists(path):
        return
    for directory, _dirs, _files in os.walk(path):
        if not os.path.islink(directory):
            with contextlib.suppress(OSError):
                os.chmod(directory, 0o700)
    shutil.rmtree(path, ignore_errors=True)


class FolderCopy:
    """A build's private copy (``box``) of a bot's ``folder``: `copy_in` makes it, and
    `copy_back` writes what the build changed back into the folder.

    Paths below ``hidden`` (except those holding the folder itself) and what the build's user
    cannot read are left out of the copy; ``left_out`` collects them (relative to the folder),
    and nothing is ever written back at such a path. Both raise `OSError` when a copy fails.
    """

    def __init__(self, folder: str, box: str, hidden: Iterable[str], left_out: set[str]) -> None:
        self.folder = folder
        self.box = box
        self.hidden = tuple(hidden)
        self.left_out = left_out
        self._copied: dict[str, Stamp] = {}

    def _hidden(self, path: str) -> bool:
        """Whether ``path`` (relative to the folder) is hidden from the build."""
        full = os.path.join(self.folder, path)
        return any(
            inside(full, hidden) and not inside(self.folder, hidden)
            for hidden in map(os.path.abspath, self.hidden)
        )

    def copy_in(self, drop: tuple[int, int] | None) -> None:
        """Copies the folder into the box, owned by ``drop`` (the bots' uid and gid, or None
        to keep ours), and notes what the box then holds (`copy_back` writes back only what
        the build changed)."""
        source = open_dir(self.folder)
        try:
            target = open_dir(self.box)
            try:
                self._copy_dir_in(source, target, "", drop)
                mode = os.fstat(source).st_mode
                # Its owner (the build's user) may always write in it, as in its own folder.
                os.fchmod(target, (mode & 0o777) | 0o700)
                if drop is not None:
                    os.fchown(target, *drop)
                self._copied = stamps(target)
            finally:
                os.close(target)
        finally:
            os.close(source)

    def _copy_dir_in(
        self, source: int, target: int, prefix: str, drop: tuple[int, int] | None
    ) -> None:
        for name in sorted(os.listdir(source)):
            path = prefix + name
            info = os.stat(name, dir_fd=source, follow_symlinks=False)
            kind = stat.S_IFMT(info.st_mode)
            readable = (
                drop is None or kind == stat.S_IFLNK or permits(info, *drop, dir_needs_x=True)
            )
            if kind not in COPIED_KINDS or not readable or self._hidden(path):
                self.left_out.add(path)
                continue
            if kind != stat.S_IFDIR:
                copy_entry(source, target, name, info, drop)
                continue
            sub_source = open_dir(name, source)
            try:
                os.mkdir(name, 0o700, dir_fd=target)
                sub_target = open_dir(name, target)
                try:
                    self._copy_dir_in(sub_source, sub_target, path + "/", drop)
                    os.fchmod(sub_target, info.st_mode & 0o777)
                    if drop is not None:
                        os.fchown(sub_target, *drop)
                finally:
                    os.close(sub_target)
            finally:
                os.close(sub_source)

    def copy_back(self) -> None:
        """Writes what the build changed in the box back into the folder (see
        `arena.referee.sandbox.bot.BotSandbox.commit`)."""
        info = os.stat(self.folder)
        owner = (info.st_uid, info.st_gid) if os.geteuid() == 0 else None
        source = open_dir(self.box)
        try:
            target = open_dir(self.folder)
            try:
                seen: set[str] = set()
                self._copy_dir_back(source, target, "", owner, seen)
                # What the build removed, the deepest first (a folder only once empty).
                gone = sorted(set(self._copied) - seen, key=lambda p: -p.count("/"))
                for path in gone:
                    remove_entry(target, path)
            finally:
                os.close(target)
        finally:
            os.close(source)

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
            if self._hidden(path) or any(inside(path, out) for out in self.left_out):
                continue  # not the build's to write (it was left out of its copy)
            info = os.stat(name, dir_fd=source, follow_symlinks=False)
            kind = stat.S_IFMT(info.st_mode)
            if kind not in COPIED_KINDS:
                continue
            seen.add(path)
            before = self._copied.get(path)
            if kind != stat.S_IFDIR:
                # A folder that holds what was left out is not the build's to replace.
                holds_left_out = any(inside(out, path) for out in self.left_out)
                if before != stamp(info) and not holds_left_out:
                    copy_entry(source, target, name, info, owner)
                continue
            sub_source = open_dir(name, source)
            try:
                sub_target, created = ensure_dir(target, name)
                try:
                    self._copy_dir_back(sub_source, sub_target, path + "/", owner, seen)
                    if created or before != stamp(info):
                        os.fchmod(sub_target, info.st_mode & 0o777)
                    if created and owner is not None:
                        os.fchown(sub_target, *owner)
                finally:
                    os.close(sub_target)
            finally:
                os.close(sub_source)
