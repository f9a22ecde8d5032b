"""The reference bots by name, their options, and how each chooses a move.

A reference bot is named ``ref:NAME`` wherever a bot is accepted, with options after a second
colon: ``ref:search:samples=64``, ``ref:strong:ms=50``. The names (:data:`NAMES`):

- ``random``: a uniformly random legal move (seeded);
- ``greedy``: the greedy score of :mod:`arena.reference.policy`, less a penalty for each open
  end the next seat can answer (estimated over a few sampled worlds);
- ``search``: determinized search: every legal move scored over sampled worlds by greedy
  playouts (:func:`arena.reference.evaluate.evaluate_moves`), the exact endgame once the rest
  of the hand is of perfect information;
- ``strong``: the same, with the worlds weighted by how likely the other seats' past moves
  were under a model of their play, and each world solved exactly when it is small.

Options (:func:`parse_spec`): ``samples=N`` (a fixed number of worlds per move: the moves do
not depend on the machine's speed), ``ms=N`` (milliseconds per move; by default a tenth of the
request's time, at most a tenth of the per-move limit), ``policy=greedy|random`` (the playouts),
``playouts=N`` (per move and world).
"""

from __future__ import annotations

import random
from dataclasses import dataclass, replace

from arena.games.api import Move
from arena.reference.evaluate import Budget, MoveValue, evaluate_moves
from arena.reference.knowledge import SeatKnowledge
from arena.reference.policy import move_score
from arena.reference.sampler import sample_worlds

#: The reference bots' names, weakest first.
NAMES: tuple[str, ...] = ("random", "greedy", "search", "strong")
#: The prefix that makes a bot argument a reference bot.
PREFIX = "ref:"
#: The share of the request's time a bot spends by default.
TIME_SHARE = 0.1
_OPTIONS = ("samples", "ms", "policy", "playouts")
_ANSWER_PENALTY = 6.0
_GREEDY_WORLDS = 8


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
    """

    name: str
    samples: int | None = None
    ms: float | None = None
    policy: str = "greedy"
    playouts: int = 1

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


def budget_for(spec: RefSpec, time_left_ms: int, move_ms: int) -> Budget:
    """The evaluation budget of one move."""
    strong = spec.name == "strong"
    base = Budget(
        samples=spec.samples,
        ms=None,
        playouts=spec.playouts,
        policy=spec.policy,
        weighted=strong,
        solve_worlds=strong,
    )
    if spec.samples is not None and spec.ms is None:
        return base
    ms = spec.ms if spec.ms is not None else TIME_SHARE * min(time_left_ms, move_ms)
    return replace(base, ms=ms)


class RefBot:
    """One reference bot: chooses a move from a seat's knowledge, with its own seeded random."""

    def __init__(self, spec: RefSpec, seed: int) -> None:
        self.spec = spec
        self.rng = random.Random(seed)

    def __repr__(self) -> str:
        return f"<RefBot {PREFIX}{self.spec.text}>"

    def choose(self, k: SeatKnowledge, time_left_ms: int, move_ms: int) -> tuple[Move, str]:
        """The move for the request ``k`` describes, and a short note for the replay."""
        legal = k.legal
        name = self.spec.name
        if name == "random":
            return legal[self.rng.randrange(len(legal))], ""
        if len(legal) == 1:
            return legal[0], "only move"
        if name == "greedy":
            return self._greedy(k), ""
        values = evaluate_moves(k, budget_for(self.spec, time_left_ms, move_ms), self.rng)
        return values[0].move, _note(values)

    def _greedy(self, k: SeatKnowledge) -> Move:
        worlds = sample_worlds(k, _GREEDY_WORLDS, self.rng)
        if not worlds:
            return k.legal[0]
        best, best_score = k.legal[0], -1e18
        for move in k.legal:
            score = 0.0
            for world in worlds:
                score += move_score(k.plugin, world, move)
                after = world.apply(move)
                answers = after.outcome() is None and after.to_move != k.seat
                if answers and any(mv.tile is not None for mv in after.legal_moves()):
                    score -= _ANSWER_PENALTY
            if score > best_score:
                best, best_score = move, score
        return best


def _note(values: list[MoveValue]) -> str:
    best = values[0]
    kind = "exact" if best.exact else f"{best.samples} worlds"
    return f"{best.move}: {best.value:+.2f} ({kind})"
