"""Reference bot names and options: ``ref:NAME[:key=value,...]`` as written on a command line.

Only the standard library: the referee's command parsing (``arena.referee.commands``) turns
``ref:search:samples=64`` into the bot's argv with it (:func:`ref_argv`). The options:
``samples=N`` (a fixed number of worlds per move: moves independent of the machine's speed),
``ms=N`` (milliseconds per move), ``policy=greedy|random`` (the playouts), ``playouts=N`` (per
move and world), ``win=N`` (the points a won hand is worth beside its points).
"""

from __future__ import annotations

import sys
from dataclasses import dataclass, replace

#: The reference bots' names, weakest first.
NAMES: tuple[str, ...] = ("random", "greedy", "search", "strong")
#: The prefix that makes a bot argument a reference bot.
PREFIX = "ref:"
_OPTIONS = ("samples", "ms", "policy", "playouts", "win")


class SpecError(ValueError):
    """A reference bot name or option that does not exist (the message says what is known)."""


@dataclass(frozen=True, slots=True)
class RefSpec:
    """A reference bot and its options.

    Attributes:
        name: one of :data:`NAMES`.
        samples: a fixed number of worlds per move, or ``None`` (spend time instead).
        ms: milliseconds per move, or ``None`` for the default share of the request's time.
        policy: the playout policy (``greedy`` or ``random``).
        playouts: playouts per move and world.
        win: the points a won hand is worth beside its points when moves are ranked, or
            ``None`` for the default (more in a match of one hand, where only winning counts).
    """

    name: str
    samples: int | None = None
    ms: float | None = None
    policy: str = "greedy"
    playouts: int = 1
    win: float | None = None

    @property
    def text(self) -> str:
        """The spec as written after ``ref:`` (``search:samples=64``)."""
        options = []
        if self.samples is not None:
            options.append(f"samples={self.samples}")
        if self.ms is not None:
            options.append(f"ms={self.ms:g}")
        if self.policy != "greedy":
            options.append(f"policy={self.policy}")
        if self.playouts != 1:
            options.append(f"playouts={self.playouts}")
        if self.win is not None:
            options.append(f"win={self.win:g}")
        return self.name + (":" + ",".join(options) if options else "")


def known_text() -> str:
    """The known names, for error messages."""
    return ", ".join(PREFIX + n for n in NAMES)


def parse_spec(text: str) -> RefSpec:
    """A spec from ``NAME[:key=value[,key=value]...]`` (with or without ``ref:``).

    Raises:
        SpecError: an unknown name, option or value, naming what is known.
    """
    text = text.removeprefix(PREFIX)
    name, _sep, rest = text.partition(":")
    if name not in NAMES:
        raise SpecError(f"unknown reference bot {PREFIX}{name}; known: {known_text()}")
    spec = RefSpec(name)
    for item in filter(None, (p.strip() for p in rest.replace(":", ",").split(","))):
        key, eq, value = item.partition("=")
        if not eq or key not in _OPTIONS:
            raise SpecError(
                f"unknown option {item!r} of {PREFIX}{name}; options: "
                + ", ".join(f"{o}=..." for o in _OPTIONS)
            )
        try:
            if key == "policy":
                if value not in ("greedy", "random"):
                    raise ValueError
                spec = replace(spec, policy=value)
            elif key == "ms":
                ms = float(value)
                if not ms > 0:
                    raise ValueError
                spec = replace(spec, ms=ms)
            elif key == "win":
                win = float(value)
                if not win >= 0:
                    raise ValueError
                spec = replace(spec, win=win)
            else:
                number = int(value)
                if number < 1:
                    raise ValueError
                spec = (
                    replace(spec, samples=number)
                    if key == "samples"
                    else replace(spec, playouts=number)
                )
        except ValueError:
            raise SpecError(
                f"bad value {value!r} for {key} of {PREFIX}{name}: "
                + ("greedy or random" if key == "policy" else "a positive number")
            ) from None
    return spec


def is_ref(command: str) -> bool:
    """Whether a bot argument names a reference bot (``ref:...``)."""
    return command.startswith(PREFIX)


def ref_argv(command: str) -> list[str]:
    """The argv of the reference bot ``command`` names: this Python, ``-m arena.reference``.

    Raises:
        SpecError: an unknown name or option.
    """
    spec = parse_spec(command)
    return [sys.executable, "-m", "arena.reference", spec.text]


def ref_name(command: str) -> str:
    """The seat name of the reference bot ``command`` names (``ref:search:samples=64``)."""
    return PREFIX + parse_spec(command).text
