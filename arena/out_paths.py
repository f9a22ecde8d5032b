"""Output paths checked before a command creates anything.

A command that writes several things (a tournament: its folder, database, replays, events file
and report) checks every one of them first, so that a bad path never leaves a half-made
output behind (a database created, then an events file that cannot be): a file where a folder
is needed or the reverse, a folder that cannot be created or written, a read-only file system.
Only then are the folders made (:func:`prepare_outputs`). Each problem is one line naming the
flag, the path and what is wrong (`OutputPathError`).
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from arena.errors import ArenaError


class OutputPathError(ArenaError, ValueError):
    """An output path that cannot be written; the message names the flag, path and problem."""


@dataclass(frozen=True)
class Output:
    """One thing a command will write.

    Attributes:
        path: where.
        label: how the message names it: the flag (``"--events"``) or what it is (``"the
            report"``).
        kind: ``"file"`` or ``"folder"``.
    """

    path: Path
    label: str
    kind: Literal["file", "folder"] = "file"

    @property
    def folder(self) -> Path:
        """The folder that must exist for the output to be written."""
        return self.path if self.kind == "folder" else self.path.parent


def check_output(output: Output) -> None:
    """Refuse ``output`` if it cannot be written; creates nothing.

    Raises:
        OutputPathError: naming the output and the problem.
    """
    path, named = output.path, f"{output.label} {str(output.path)!r}"
    if output.kind == "file" and path.is_dir():
        raise OutputPathError(f"{named} is a directory; give a file name")
    if output.kind == "folder" and path.exists() and not path.is_dir():
        raise OutputPathError(f"{named} is a file; give a folder")
    if output.kind == "file" and path.exists() and not os.access(path, os.W_OK):
        raise OutputPathError(f"{named}: cannot write it: {_why_not(path)}")
    existing = _nearest_existing(output.folder)
    if not existing.is_dir():
        raise OutputPathError(f"{named}: {str(existing)!r} is a file, not a folder")
    if not os.access(existing, os.W_OK | os.X_OK):
        raise OutputPathError(f"{named}: cannot write in {str(existing)!r}: {_why_not(existing)}")


def prepare_outputs(outputs: Iterable[Output]) -> None:
    """Check every output (:func:`check_output`), then make the folders they need.

    Raises:
        OutputPathError: at the first output that cannot be written, before any folder is made
            (or naming the folder that could not be made).
    """
    outputs = list(outputs)
    for output in outputs:
        check_output(output)
    for output in outputs:
        try:
            output.folder.mkdir(parents=True, exist_ok=True)
        except OSError as error:
            raise OutputPathError(
                f"{output.label} {str(output.path)!r}: cannot create {str(output.folder)!r}: "
                f"{error.strerror or error}"
            ) from None


def _nearest_existing(path: Path) -> Path:
    """``path`` itself or its nearest ancestor that exists (as written: relative stays so)."""
    while not path.exists() and path != path.parent:
        path = path.parent
    return path


def _why_not(path: Path) -> str:
    """Why ``path`` cannot be written: a read-only file system, or the permissions."""
    try:
        if os.statvfs(path).f_flag & os.ST_RDONLY:
            return "read-only file system"
    except OSError:
        pass
    return "permission denied"


def tournament_outputs(
    out_dir: Path, db: Path, events: Path | None, *, out_given: bool, db_given: bool
) -> list[Output]:
    """What a tournament (or an SPRT run) writes: its folder, replays folder, database, report
    and events file, each named as the user gave it (a flag) or as the arena chose it."""
    outputs = [
        Output(out_dir, "--out" if out_given else "the output folder", "folder"),
        Output(out_dir / "replays", "the replays folder", "folder"),
        Output(db, "--db" if db_given else "the database"),
        Output(out_dir / "report.html", "the report"),
    ]
    if events is not None:
        outputs.append(Output(events, "--events"))
    return outputs
