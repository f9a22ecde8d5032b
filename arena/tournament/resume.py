"""What ``arena tournament --resume`` checks before it plays on: that the flags and bots given
ask for the tournament that was started (a flag not given is taken from the database).

The out folder is stored with the tournament (``out_dir``, relative to the database's folder,
so a moved tournament folder still resumes), and so are the bots' build commands (``builds``),
so that the resume builds and checks the bots exactly as the start did.
"""

from __future__ import annotations

import argparse
import json
import os
from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from arena.tournament.entrants import Entrant, scan
from arena.tournament.settings import TournamentSettings
from arena.tournament.store import EntrantRow, Store

if TYPE_CHECKING:
    from arena.tournament.session import Opened

Getter = Callable[[TournamentSettings], object]


def _length(s: TournamentSettings) -> str:
    return f"{s.hands} hand(s) per match" if s.hands is not None else f"to {s.target} points"


def _stdout(s: TournamentSettings) -> str:
    cap = s.max_stdout_bytes
    return "no cap" if cap is None else f"{cap >> 20} MB"


def _sandbox(key: str) -> Getter:
    def get(s: TournamentSettings) -> object:
        return "no sandbox" if s.sandbox is None else s.sandbox.get(key)

    return get


def _policy(key: str, default: object) -> Getter:
    return lambda s: s.policy.get(key, default)


#: The flags that change a tournament (argparse dest, flag, what it sets); the rules flags are
#: given by the caller, per game.
CHECKED: tuple[tuple[str, str, Getter], ...] = (
    ("game", "--game", lambda s: s.game),
    ("format", "--format", lambda s: s.format),
    ("players", "--players", lambda s: s.players),
    ("rounds", "--rounds", lambda s: s.rounds),
    ("seed", "--seed", lambda s: s.seed),
    ("hands", "--hands", _length),
    ("target", "--target", _length),
    ("startup_ms", "--startup-ms", lambda s: s.startup_ms),
    ("move_ms", "--move-ms", lambda s: s.move_ms),
    ("bank_ms", "--bank-ms", lambda s: s.bank_ms),
    ("policy", "--policy", _policy("name", "strict")),
    ("strikes", "--strikes", _policy("strikes", None)),
    ("restarts", "--restarts", _policy("restarts", None)),
    ("sandbox", "--sandbox", lambda s: "none" if s.sandbox is None else s.sandbox["mechanism"]),
    ("memory_mb", "--memory-mb", _sandbox("memory_mb")),
    ("cpu_seconds", "--cpu-seconds", _sandbox("cpu_seconds")),
    ("max_processes", "--max-processes", _sandbox("max_processes")),
    ("file_size_mb", "--file-size-mb", _sandbox("file_size_mb")),
    ("allow_network", "--allow-network", _sandbox("allow_network")),
    ("max_stdout_mb", "--max-stdout-mb", _stdout),
)


def setting_differences(
    stored: TournamentSettings,
    requested: TournamentSettings,
    given: Iterable[str],
    rule_flags: Mapping[str, tuple[str, str]],
) -> list[str]:
    """Each flag in ``given`` (argparse dests) whose value differs from the tournament's:
    ``--seed: the tournament has 9, not 5``. ``rule_flags`` maps a rules flag's dest to its
    rule's name and its flag."""
    given = set(given)
    checks = list(CHECKED)
    for dest, (name, option) in rule_flags.items():
        checks.append((dest, option, lambda s, name=name: s.rules.get(name)))  # type: ignore[misc]
    out = []
    for dest, option, get in checks:
        if dest in given and get(stored) != get(requested):
            out.append(
                f"{option}: the tournament has {_text(get(stored))}, not {_text(get(requested))}"
            )
    return out


def _text(value: object) -> str:
    if isinstance(value, bool):
        return "on" if value else "off"
    return "none" if value is None else str(value)


def entrant_differences(stored: Sequence[EntrantRow], given: Sequence[Entrant]) -> list[str]:
    """How the bots given differ from the tournament's (every entrant, left-out ones too, in
    order): other names, or the same names with other commands or folders."""
    names = [e.name for e in stored]
    if names != [e.name for e in given]:
        return [
            f"bots: the tournament has {', '.join(names)}, not {', '.join(e.name for e in given)}"
        ]
    out = []
    for row, entrant in zip(stored, given, strict=True):
        if (row.command, row.cwd) != (entrant.command, entrant.cwd):
            was = row.command if row.cwd is None else f"{row.command!r} in {row.cwd}"
            now = (
                entrant.command if entrant.cwd is None else f"{entrant.command!r} in {entrant.cwd}"
            )
            out.append(f"bot {row.name}: the tournament runs {was}, not {now}")
    return out


def stored_meta(out_dir: Path, db: Path, entrants: Iterable[Entrant]) -> dict[str, str]:
    """The settings a new tournament stores besides its configuration: its out folder
    (relative to the database's folder) and its bots' build commands."""
    relative = os.path.relpath(os.path.abspath(out_dir), os.path.abspath(db.parent))
    builds = {e.name: e.build for e in entrants if e.build is not None}
    return {"out_dir": relative, "builds": json.dumps(builds)}


def stored_out_dir(store: Store) -> Path | None:
    """The tournament's out folder, or ``None`` when its database predates storing it."""
    relative = store.get_meta("out_dir")
    if relative is None:
        return None
    return Path(os.path.normpath(store.path.parent / relative))


def stored_entrants(store: Store) -> list[Entrant]:
    """The tournament's bots that play (left-out ones are not), as they were started: command,
    folder and build command."""
    builds: dict[str, Any] = json.loads(store.get_meta("builds") or "{}")
    return [
        Entrant(e.name, e.command, e.cwd, e.language, builds.get(e.name), source=e.command)
        for e in store.entrants()
        if e.excluded is None
    ]


def given_flags(parser: argparse.ArgumentParser, argv: Sequence[str], bots: object) -> set[str]:
    """The argparse dests of the flags given in ``argv`` (those left at their defaults are
    not), with ``bots`` when bots were given."""
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for sub in action.choices.values():
                for inner in sub._actions:
                    inner.default = argparse.SUPPRESS
    given = set(vars(parser.parse_args(argv))) - {"bots"}
    return given | {"bots"} if bots else given


def resume_differences(
    args: argparse.Namespace,
    given: set[str],
    opened: Opened,
    out_dir: Path,
    settings_of: Callable[[argparse.Namespace, int], TournamentSettings],
    rule_flags: Mapping[str, tuple[str, str]],
) -> list[str]:
    """How the flags (``given``: their dests) and bots of ``args`` differ from the tournament
    ``opened``; ``settings_of`` makes a tournament's settings from flags.

    A flag not given takes the tournament's value first, also where it decides what the others
    mean (the game for its rules flags, the policy for ``--strikes``, the sandbox for its
    limits), so only what was given is compared.

    Raises:
        EntrantError: a bot argument that is not a bot.
    """
    stored = opened.settings
    out = []
    if args.out is not None and os.path.abspath(args.out) != os.path.abspath(out_dir):
        out.append(f"--out: the tournament writes to {out_dir}, not {args.out}")
    if "game" not in given:
        args.game = stored.game
    if "policy" not in given:
        args.policy = stored.policy.get("name", "strict")
    if "sandbox" not in given:
        args.sandbox = "none" if stored.sandbox is None else stored.sandbox["mechanism"]
    if not given & {"hands", "target"}:
        args.hands, args.target = stored.hands, stored.target
    requested = settings_of(args, stored.seed if args.seed is None else args.seed)
    out += setting_differences(stored, requested, given, rule_flags)
    if args.bots:
        out += entrant_differences(opened.store.entrants(), scan(args.bots).entrants)
    return out
