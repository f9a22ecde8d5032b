"""The evaluator of ``arena analyze``: a reference bot's search, by its ``--bot`` name.

``--bot ref:NAME[:KEY=VALUE,...]`` is a reference bot's name as everywhere else
(:func:`arena.reference.bots.parse_spec`, docs/reference-bots.md) and stands for its evaluator
(:func:`arena.reference.evaluate.evaluate_moves`) with its budget (``budget_for``), always a
**fixed** one: an analysis never depends on the machine's speed, so the same replay, bot and
seed give the same analysis everywhere.

- ``ref:search``: determinized search: ``samples`` worlds consistent with what the seat saw
  (default :data:`DEFAULT_SAMPLES`), each legal move played out in each (``playouts``,
  ``policy``).
- ``ref:strong`` (the default): the same, each sampled world solved exactly once it is small
  (perfect-information Monte Carlo), about the CPU of ``ref:search`` (docs/analysis.md).

``ms=`` (a time budget) is refused, and so are ``ref:random`` and ``ref:greedy``, which
evaluate nothing: one line each (exit 2). The double-dummy value is tried when at most
:data:`DD_TILES` tiles are still in the hands and the boneyard (a boneyard nobody draws from,
Block's, does not count), with at most :data:`DD_NODES` nodes.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, replace

from arena.analysis.decisions import MatchSetting
from arena.errors import ArenaError
from arena.games.api import GameState, Move
from arena.reference.bots import PREFIX, SpecError, budget_for, parse_spec
from arena.reference.evaluate import Budget, evaluate_moves, exact_value
from arena.reference.knowledge import knowledge_from_state

#: The worlds per decision when ``--bot`` gives no ``samples``.
DEFAULT_SAMPLES = 64
#: Reference bots that are no evaluator (they search nothing).
NOT_EVALUATORS = ("random", "greedy")
#: Tiles still in the hands and a boneyard drawn from up to which the double-dummy value is
#: tried (more rarely fit in the node limit).
DD_TILES = 14
#: The node limit of the double-dummy searches (a position that needs more has none).
DD_NODES = 5_000


class UnknownEvaluatorError(ArenaError):
    """A ``--bot`` that names no reference evaluator, or an option it does not have."""


@dataclass(frozen=True)
class ReferenceEvaluator:
    """A reference evaluator with a fixed budget (:class:`arena.analysis.analyzer.Evaluator`).

    Attributes:
        name: the ``--bot`` text, with every option written out (the analysis records it).
        budget: the reference's budget (``samples`` always set: machine-independent).
        dd_tiles: the double-dummy value is tried up to this many tiles left.
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

    def exact(self, setting: MatchSetting, state: GameState, seat: int) -> float | None:
        """The double-dummy value, when few enough tiles are left and the search fits."""
        view = state.view(seat)
        # The tiles still to be played or drawn (a boneyard nobody draws from does not count).
        left = sum(view.hand_counts) + (view.boneyard_size if setting.game.features.draws else 0)
        if left > self.dd_tiles:
            return None
        return exact_value(state, seat, self.dd_nodes)


def make_evaluator(text: str) -> ReferenceEvaluator:
    """The evaluator ``text`` names (``ref:strong``, ``ref:search:samples=64``).

    Raises:
        UnknownEvaluatorError: one line naming what is wrong and what is known.
    """
    if not text.startswith(PREFIX):
        raise UnknownEvaluatorError(
            f"--bot {text!r}: not a reference bot; analyse with ref:search or ref:strong"
        )
    try:
        spec = parse_spec(text)
    except SpecError as error:
        raise UnknownEvaluatorError(f"--bot {text!r}: {error}") from None
    if spec.name in NOT_EVALUATORS:
        raise UnknownEvaluatorError(
            f"--bot {text!r}: {PREFIX}{spec.name} evaluates no moves; analyse with "
            f"{PREFIX}search or {PREFIX}strong"
        )
    if spec.ms is not None:
        raise UnknownEvaluatorError(
            f"--bot {text!r}: ms is a time budget; an analysis has a fixed one (samples=N)"
        )
    if spec.samples is None:
        spec = replace(spec, samples=DEFAULT_SAMPLES)
    # Every move valued over every world: racing (ref:strong's, for play) drops the moves it
    # finds clearly worse, and an analysis wants the value of the move played, however bad.
    budget = replace(budget_for(spec, 0, 0), racing=False)
    return ReferenceEvaluator(PREFIX + spec.text, budget)
