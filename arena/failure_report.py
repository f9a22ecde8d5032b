"""The failure bundle written next to a replay whose match had a failure: one folder with every
failure explained, its evidence as files, and the one line that plays the match again.

The words are `arena.failure_text`'s; this module only writes them (and the records) to disk.
A bundle is derived from the replay alone, so it can be made again at any time.
"""

from __future__ import annotations

import os
import shlex
import shutil
from pathlib import Path

import msgspec

from arena.failure_text import FailureEntry, explain, failures_of
from arena.replay import Replay, encode_replay

__all__ = [
    "FailureEntry",
    "bundle_path",
    "explain",
    "failures_of",
    "rematch_command",
    "write_failure_bundle",
]


def rematch_command(replay_path: str | os.PathLike[str]) -> str:
    """The one line that plays the match of ``replay_path`` again: same bots, deal, clocks,
    policy and sandbox (`arena rematch`)."""
    return f"arena rematch {shlex.quote(os.path.abspath(replay_path))}"


def bundle_path(replay_path: str | os.PathLike[str]) -> Path:
    """Where the failure bundle of ``replay_path`` goes: ``NAME.failures/`` beside it."""
    path = Path(replay_path)
    return path.with_name(f"{path.stem}.failures")


def write_failure_bundle(replay: Replay, replay_path: str | os.PathLike[str]) -> Path | None:
    """Write the failure bundle of a match next to its replay; ``None`` when nothing failed.

    The folder ``NAME.failures/`` holds ``README.txt`` (every failure explained, in match
    order), ``rematch.sh`` (the one line that plays the same match again), ``replay.json`` (a
    copy of the replay), and per failure a folder ``N-seatS-STATUS/`` with ``failure.json``
    (the record), ``stderr.txt`` (the bot's stderr tail at the failure) and
    ``messages.jsonl`` (the last lines exchanged, oldest first). An older bundle of the same
    replay is replaced whole; the new one is assembled beside it and renamed into place.
    """
    entries = failures_of(replay)
    if not entries:
        return None
    target = bundle_path(replay_path)
    staging = target.with_name(f".{target.name}.{os.getpid()}.tmp")
    shutil.rmtree(staging, ignore_errors=True)
    staging.mkdir(parents=True)
    try:
        _fill_bundle(staging, replay, replay_path, entries)
        if target.exists():
            old = target.with_name(f".{target.name}.{os.getpid()}.old")
            target.rename(old)
            staging.rename(target)
            shutil.rmtree(old, ignore_errors=True)
        else:
            staging.rename(target)
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise
    return target


def _fill_bundle(
    folder: Path, replay: Replay, replay_path: str | os.PathLike[str], entries: list[FailureEntry]
) -> None:
    copy = folder / "replay.json"
    copy.write_bytes(encode_replay(replay))
    # The rematch reads the bundle's own copy: it still works when the replays are moved.
    final_copy = bundle_path(replay_path) / "replay.json"
    rematch = rematch_command(final_copy)
    script = folder / "rematch.sh"
    script.write_text(f"#!/bin/sh\n{rematch}\n")
    script.chmod(0o755)
    texts = [
        f"Failures in the match of {os.path.abspath(replay_path)}",
        f"{replay.game}, {replay.players} players, seed {replay.seed}, "
        f"policy {replay.policy.describe()}",
        "",
    ]
    for number, entry in enumerate(entries, start=1):
        name = f"{number}-seat{entry.seat}-{entry.failure.status.value}"
        part = folder / name
        part.mkdir()
        (part / "failure.json").write_bytes(msgspec.json.format(msgspec.json.encode(entry.failure)))
        (part / "stderr.txt").write_text(entry.failure.stderr_tail or "")
        (part / "messages.jsonl").write_bytes(
            b"".join(msgspec.json.encode(line) + b"\n" for line in entry.failure.messages or [])
        )
        texts += [f"[{name}]", explain(replay, entry, rematch), ""]
    (folder / "README.txt").write_text("\n".join(texts))
