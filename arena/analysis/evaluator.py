"""The evaluator of ``arena analyze``: a reference bot's search, by its ``--bot`` name.

``--bot ref:NAME[:KEY=VALUE,...]`` names the reference evaluator (:mod:`arena.reference.
evaluate`) and its **fixed** budget: an analysis never depends on the machine's speed, so the
same replay, bot and seed give the same analysis everywhere. The names:

- ``ref:search``: determinized search: ``samples`` worlds consistent with what the seat saw
  (default 32), each legal move played out in each (``playouts``, default 1, greedy playouts).
- ``ref:strong`` (the default): the same, the worlds weighted by how likely the other seats'
  past moves were under the reference's model of play, each small world solved exactly.

Options (``ref:strong:samples=64,playouts=2``): ``samples``, ``playouts``, ``exact`` (the node
limit of the exact searches, 0 for none), ``dd_tiles`` (the double-dummy value is tried only
when at most that many tiles are still in the hands and the boneyard; 0 for never). Anything
else is a one-line error (exit 2). ``ref:random`` and ``ref:greedy`` evaluate nothing: refused.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, replace

from arena.analysis.decisions import MatchSetting
from arena.errors import ArenaError
from arena.games.api import GameState, Move
from arena.reference.evaluate import Budget, evaluate_moves, exact_value
from arena.reference.knowledge import knowledge_from_state

#: The evaluators ``--bot`` may name, with their budgets.
BUDGETS: dict[str, Budget] = {
    "ref:search": Budget(samples=32, playouts=1, policy="greedy"),
    "ref:strong": Budget(samples=32, playouts=1, policy="greedy", weighted=True, solve_worlds=True),
}
#: Reference bots that are no evaluator (they search nothing).
NOT_EVALUATORS = ("ref:random", "ref:greedy")
#: Tiles still in play (hands and boneyard) up to which the double-dummy value is tried.
DD_TILES = 12
#: The node limit of the double-dummy searches (a position that needs more has none).
DD_NODES = 20_000


class UnknownEvaluatorError(ArenaError):
    """A ``--bot`` that names no reference evaluator, or an option it does not have."""


@dataclass(frozen=True)
class ReferenceEvaluator:
    """A reference evaluator with a fixed budget (:class:`arena.analysis.analyzer.Evaluator`).

    Attributes:
        name: the ``--bot`` text, with every option written out (the analysis records it).
        budget: the reference's budget (``samples`` always set: machine-independent).
        dd_tiles: the double-dummy value is tried up to this many tiles in play.
        dd_nodes: and with this node limit.
    """

    name: str
    budget: Budget
    dd_tiles: int = DD_TILES
    dd_nodes: int = DD_NODES

    def evaluate(
        self, setting: MatchSetting, state: GameState, seat: int, seed: int
    ) -> list[tuple[Move, float]]:
        """Every legal move with its value, best first, from what ``seat`` knows of ``state``
        (the reference's ``knowledge_from_state``: its own tiles and draws, the public record)."""
        knowledge = knowledge_from_state(setting.game, state, seat)
        valued = evaluate_moves(knowledge, self.budget, random.Random(seed))
        return [(mv.move, mv.value) for mv in valued]

    def exact(self, state: GameState, seat: int) -> float | None:
        """The double-dummy value, when few enough tiles are left and the search fits."""
        view = state.view(seat)
        if sum(view.hand_counts) + view.boneyard_size > self.dd_tiles:
            return None
        return exact_value(state, seat, self.dd_nodes)


_OPTIONS = ("samples", "playouts", "exact", "dd_tiles")


def make_evaluator(spec: str) -> ReferenceEvaluator:
    """The evaluator ``spec`` names (``ref:strong``, ``ref:search:samples=64``).

    Raises:
        UnknownEvaluatorError: one line naming what is wrong and what is known.
    """
    known = ", ".join(BUDGETS)
    parts = spec.split(":", 2)
    base = ":".join(parts[:2])
    if base in NOT_EVALUATORS:
        raise UnknownEvaluatorError(
            f"--bot {spec!r}: {base} evaluates no moves; analyse with one of {known}"
        )
    if base not in BUDGETS:
        raise UnknownEvaluatorError(f"--bot {spec!r}: unknown evaluator; known: {known}")
    budget, dd_tiles = BUDGETS[base], DD_TILES
    options: dict[str, int] = {}
    for item in parts[2].split(",") if len(parts) == 3 and parts[2] else []:
        key, sep, value = item.partition("=")
        if key not in _OPTIONS or not sep:
            raise UnknownEvaluatorError(
                f"--bot {spec!r}: unknown option {item!r}; options: "
                + ", ".join(f"{o}=N" for o in _OPTIONS)
            )
        try:
            number = int(value)
        except ValueError:
            number = -1
        least = 1 if key in ("samples", "playouts") else 0
        if number < least:
            raise UnknownEvaluatorError(
                f"--bot {spec!r}: {key} must be a whole number of at least {least}, not {value!r}"
            )
        options[key] = number
    if "samples" in options:
        budget = replace(budget, samples=options["samples"])
    if "playouts" in options:
        budget = replace(budget, playouts=options["playouts"])
    if "exact" in options:
        budget = replace(budget, exact_nodes=options["exact"])
    dd_tiles = options.get("dd_tiles", dd_tiles)
    name = (
        f"{base}:samples={budget.samples},playouts={budget.playouts},"
        f"exact={budget.exact_nodes},dd_tiles={dd_tiles}"
    )
    return ReferenceEvaluator(name, budget, dd_tiles)
