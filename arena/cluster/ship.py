"""Bots as content-addressed archives: made on the coordinator, unpacked on every worker host.

A bot folder travels as a gzipped tar named by its sha256 (the files' modes kept, so a ``run``
script stays executable; owners reset); a command-line bot as an archive of the files its
command names by a relative path (``sample_bots/greedy.py``), laid out as on the coordinator.
On a worker host each archive is unpacked once into ``TMPDIR/SLUG-arena-bots/SHA256``: into
a private folder first, renamed into place atomically, so two workers of one host that unpack
at once never see half a bot (the loser of the race throws its copy away). A bot's build runs
once per host, under a lock; its outcome is kept beside the folder for the host's other
workers.
"""

from __future__ import annotations

import contextlib
import fcntl
import gzip
import hashlib
import io
import json
import os
import re
import shlex
import shutil
import tarfile
import tempfile
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass

from arena import SLUG
from arena.errors import ArenaError

_SHA256 = re.compile(r"[0-9a-f]{64}")


class ShipError(ArenaError):
    """A bot cannot be packed to be shipped (a file that cannot be read, a link outside its
    folder); the message names it."""


@dataclass(frozen=True)
class Archive:
    """One bot's archive: its sha256 and its bytes."""

    sha256: str
    data: bytes


def _reset_owner(info: tarfile.TarInfo) -> tarfile.TarInfo:
    info.uid = info.gid = 0
    info.uname = info.gname = ""
    return info


def _pack(add: Callable[[tarfile.TarFile], None]) -> Archive:
    raw = io.BytesIO()
    # mtime=0 in the gzip header: the same files make the same archive, so the same sha256.
    with (
        gzip.GzipFile(fileobj=raw, mode="wb", mtime=0) as zipped,
        tarfile.open(fileobj=zipped, mode="w", format=tarfile.PAX_FORMAT) as tar,
    ):
        add(tar)
    data = raw.getvalue()
    return Archive(hashlib.sha256(data).hexdigest(), data)


def pack_folder(folder: str) -> Archive:
    """A bot folder as an archive (symbolic links kept as links, never followed).

    Raises:
        ShipError: naming a file that cannot be read.
    """
    try:
        return _pack(lambda tar: tar.add(folder, arcname=".", filter=_reset_owner))
    except OSError as error:
        raise ShipError(f"{folder}: cannot pack the bot folder to ship it: {error}") from None


def command_files(command: str, cwd: str | None = None) -> list[str]:
    """The files a command line names by a relative path that exist (from ``cwd``)."""
    try:
        words = shlex.split(command)
    except ValueError:
        return []
    base = cwd or os.getcwd()
    found = []
    for word in words:
        if os.path.isabs(word) or word.startswith("-"):
            continue
        path = os.path.normpath(word)
        if path.startswith("..") or not os.path.isfile(os.path.join(base, path)):
            continue
        found.append(path)
    return sorted(dict.fromkeys(found))


def localized_command(command: str, folder: str) -> str:
    """A command-line bot's command on a worker: each relative path it names that was shipped
    made absolute in the unpacked ``folder`` (the bot then runs as a command-line bot, which
    may read the files its command names wherever they are)."""
    shipped = set(command_files(command, folder))
    words = shlex.split(command)
    moved = [
        os.path.join(folder, os.path.normpath(w)) if os.path.normpath(w) in shipped else w
        for w in words
    ]
    return shlex.join(moved)


def pack_command(command: str) -> Archive:
    """A command-line bot's archive: the files its command names by a relative path.

    Raises:
        ShipError: naming a file that cannot be read.
    """

    def add(tar: tarfile.TarFile) -> None:
        for path in command_files(command):
            tar.add(path, arcname=path, filter=_reset_owner)

    try:
        return _pack(add)
    except OSError as error:
        raise ShipError(f"bot command {command!r}: cannot pack its files: {error}") from None


# -- on a worker host ---------------------------------------------------------------------------


def bots_root() -> str:
    """Where this host keeps the unpacked bots (readable by the bots' user)."""
    return os.path.join(tempfile.gettempdir(), f"{SLUG}-arena-bots")


def bot_dir(sha256: str) -> str:
    """The folder of an unpacked archive on this host."""
    return os.path.join(bots_root(), sha256)


def unpack(sha256: str, data: bytes) -> str:
    """Unpack one archive on this host unless it is there already; its folder.

    Raises:
        ShipError: the bytes are not the archive named (damaged on the way).
    """
    target = bot_dir(sha256)
    if os.path.isdir(target):
        return target
    if hashlib.sha256(data).hexdigest() != sha256:
        raise ShipError(f"bot archive {sha256[:12]}: damaged on its way (sha256 differs)")
    root = bots_root()
    os.makedirs(root, exist_ok=True)
    os.chmod(root, 0o755)
    staging = tempfile.mkdtemp(prefix=f".{sha256[:12]}.", dir=root)
    try:
        with tarfile.open(fileobj=io.BytesIO(data), mode="r:gz") as tar:
            # The "tar" filter refuses absolute paths and links leaving the folder, and drops
            # set-uid bits and write bits for others; the executable bits stay.
            tar.extractall(staging, filter="tar")
        os.chmod(staging, 0o755)
        try:
            os.rename(staging, target)
        except OSError:  # another worker of this host was first: its copy is the same
            if not os.path.isdir(target):
                raise
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    return target


def unpacked() -> list[str]:
    """The folders of every bot unpacked on this host (of any tournament)."""
    try:
        names = os.listdir(bots_root())
    except OSError:
        return []
    return sorted(os.path.join(bots_root(), n) for n in names if _SHA256.fullmatch(n))


def unpack_archives(archives: Mapping[str, bytes]) -> None:
    """Unpack every archive on this host (the bots' plugin, when a worker starts)."""
    for sha256, data in archives.items():
        unpack(sha256, data)


@contextlib.contextmanager
def host_lock(sha256: str) -> Iterator[None]:
    """Held by one worker of this host at a time: around a bot's build."""
    os.makedirs(bots_root(), exist_ok=True)
    with open(os.path.join(bots_root(), f".{sha256}.lock"), "a+b") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)


def _outcome_path(sha256: str, build: str) -> str:
    key = hashlib.sha256(build.encode()).hexdigest()[:16]
    return os.path.join(bots_root(), f".{sha256}.build-{key}.json")


def build_outcome(sha256: str, build: str) -> dict[str, str] | None:
    """How the build ran on this host (``{}`` when it passed, else its ``stage`` and
    ``reason``), or ``None`` when it has not run yet."""
    try:
        with open(_outcome_path(sha256, build), encoding="utf-8") as file:
            outcome: dict[str, str] = json.load(file)
            return outcome
    except (OSError, ValueError):
        return None


def keep_build_outcome(sha256: str, build: str, outcome: dict[str, str]) -> None:
    """Write down how the build ran, for the host's other workers."""
    path = _outcome_path(sha256, build)
    with open(path + ".tmp", "w", encoding="utf-8") as file:
        json.dump(outcome, file)
    os.replace(path + ".tmp", path)
