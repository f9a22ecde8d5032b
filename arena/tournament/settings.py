"""A tournament's settings: what is played, stored in its database so ``--resume`` can check
that it continues the same tournament."""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Iterable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import msgspec

import protocol
from arena.policy import FailurePolicy, make_policy
from arena.referee.sandbox import SandboxConfig

FORMATS = ("round-robin", "gauntlet", "swiss", "sprt")

#: The arena's ``protocol`` package: sandboxed bots may read it (the sample bot greedy.py
#: imports it), and every sandbox the arena makes lists it in ``read_only_paths``.
PROTOCOL_DIR = str(Path(protocol.__file__).resolve().parent)

_TUPLE_FIELDS = ("read_only_paths", "hidden_paths", "env_allow")


def sandbox_to_dict(config: SandboxConfig) -> dict[str, Any]:
    """A sandbox configuration as a JSON-ready mapping (stored in the database, sent in jobs)."""
    raw = asdict(config)
    for name in _TUPLE_FIELDS:
        raw[name] = list(raw[name])
    return raw


def sandbox_from_dict(raw: dict[str, Any]) -> SandboxConfig:
    """The configuration `sandbox_to_dict` made, each field's type and limit checked.

    Raises:
        ValueError: naming an unknown field (it may be a limit this arena cannot apply) or a
            field of the wrong type or out of range.
    """
    known = {f.name for f in dataclasses.fields(SandboxConfig)}
    unknown = sorted(set(raw) - known)
    if unknown:
        raise ValueError(f"unknown sandbox setting {unknown[0]!r}")
    try:
        return msgspec.convert(raw, SandboxConfig)
    except msgspec.ValidationError as error:
        raise ValueError(str(error)) from None


def run_outputs(
    out_dir: Path | None, db: Path | None = None, events: Path | None = None
) -> list[str]:
    """What a run writes and bots must never see, whatever their commands name: the output
    folder (replays, report, logs), the database with its ``-wal``, ``-shm`` and ``-journal``
    files, and the events file (absolute paths; those that do not exist are skipped when
    masked)."""
    paths = [out_dir, events]
    if db is not None:
        paths += [db, *(db.with_name(db.name + end) for end in ("-wal", "-shm", "-journal"))]
    return [os.path.abspath(p) for p in paths if p is not None]


def job_sandbox(
    sandbox: dict[str, Any] | None,
    out_dir: Path,
    folders: Iterable[str | None],
    outputs: Iterable[str] = (),
) -> dict[str, Any] | None:
    """The sandbox of a tournament's matches: its settings, with the tournament's output folder
    (and the other ``outputs``, `run_outputs`) and every entrant's folder hidden from bots (a
    bot's own folder stays visible: the sandbox never hides a path that holds what the bot
    needs)."""
    if sandbox is None:
        return None
    config = sandbox_from_dict(sandbox)
    hidden = {*config.hidden_paths, os.path.abspath(out_dir), *outputs}
    hidden.update(os.path.abspath(f) for f in folders if f)
    return sandbox_to_dict(dataclasses.replace(config, hidden_paths=tuple(sorted(hidden))))


@dataclass(frozen=True)
class TournamentSettings:
    """Everything that decides a tournament's schedule, deals and matches.

    Attributes:
        game: the game's name.
        rules: the game's rule flags (every flag, defaults included).
        players: seats per table (2 to 4).
        format: ``round-robin``, ``gauntlet``, ``swiss``, or ``sprt`` (``arena sprt``: two
            bots, paired games until the test decides).
        rounds: how many times the schedule is played (Swiss: how many rounds).
        hands: hands per match, or ``None`` when matches are played to ``target``.
        target: points a match is played to, or ``None``.
        startup_ms, move_ms, bank_ms: the time control of every match.
        seed: the tournament seed; every deal derives from it.
        sandbox: how bots are contained (`sandbox_to_dict` of a
            `arena.referee.sandbox.SandboxConfig`), or ``None`` to run them uncontained.
        max_stdout_bytes: the most a bot may write to its stdout in a match, or ``None``.
        policy: the failure policy of every match (`arena.policy.FailurePolicy` as a mapping:
            ``{"name": "lenient", "strikes": 3, "restarts": 1}``); strict when absent, as in
            tournaments recorded before policies existed.
    """

    game: str
    rules: dict[str, Any] = field(default_factory=dict)
    players: int = 2
    format: str = "round-robin"
    rounds: int = 1
    hands: int | None = None
    target: int | None = 100
    startup_ms: int = 5000
    move_ms: int = 1000
    bank_ms: int = 0
    seed: int = 0
    sandbox: dict[str, Any] | None = None
    max_stdout_bytes: int | None = None
    policy: dict[str, Any] = field(default_factory=lambda: {"name": "strict"})

    def __post_init__(self) -> None:
        if self.format not in FORMATS:
            raise ValueError(f"unknown format {self.format!r}; formats: {', '.join(FORMATS)}")
        if not 2 <= self.players <= 4:
            raise ValueError(f"tables have 2 to 4 players, not {self.players}")
        if self.rounds < 1:
            raise ValueError(f"rounds must be at least 1, not {self.rounds}")
        if (self.hands is None) == (self.target is None):
            raise ValueError("matches are played either for a number of hands or to a target")
        if self.format in ("swiss", "sprt") and self.players != 2:
            raise ValueError(f"the {self.format} format pairs two players per table (--players 2)")
        self.failure_policy()  # a stored policy that is not one is refused here, by name

    def failure_policy(self) -> FailurePolicy:
        """The failure policy of the tournament's matches.

        Raises:
            ValueError: naming what is wrong with a stored policy.
        """
        raw = dict(self.policy)
        name = raw.pop("name", "strict")
        unknown = set(raw) - {"strikes", "restarts"}
        if unknown:
            raise ValueError(f"unknown failure policy settings: {', '.join(sorted(unknown))}")
        return make_policy(str(name), strikes=raw.get("strikes"), restarts=raw.get("restarts"))

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready mapping (stored in the database)."""
        return asdict(self)

    @classmethod
    def from_dict(cls, raw: dict[str, Any]) -> TournamentSettings:
        """The settings stored by :meth:`to_dict`."""
        return cls(**raw)
