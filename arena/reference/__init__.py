"""The reference bots (``ref:random``, ``ref:greedy``, ``ref:search``, ``ref:strong``) and the
evaluator they are built on (docs/reference-bots.md).

The evaluator's API, stable for other modules (``arena analyze`` builds on it):

- :class:`SeatKnowledge` (:mod:`.knowledge`): what one seat knows of a hand, built from the
  protocol messages it received (:class:`KnowledgeTracker`) or from a full engine state at a
  seat (:func:`knowledge_from_state`, e.g. a replay's position);
- :func:`sample_worlds` (:mod:`.sampler`): full engine states consistent with a knowledge
  (hand, layout, counts, the voids that draws and passes showed), checked by the engine;
- :func:`evaluate_moves` (:mod:`.evaluate`): every legal move with its estimated value for the
  seat (hand points: its points to the end of the hand minus the mean of the others'), best
  first, within a :class:`Budget`; :func:`exact_value`: the perfect-information value of a
  full state when small enough, else ``None``;
- :mod:`.bots`: the bots by name and their options (``ref:search:samples=64``);
  ``python3 -m arena.reference NAME`` runs one over the protocol.

Nothing here names a game: games come from the plugin registry.
"""

from arena.reference.evaluate import Budget, MoveValue, evaluate_moves, exact_value, gain
from arena.reference.knowledge import KnowledgeTracker, SeatKnowledge, knowledge_from_state
from arena.reference.sampler import sample_weighted_worlds, sample_worlds

__all__ = [
    "Budget",
    "KnowledgeTracker",
    "MoveValue",
    "SeatKnowledge",
    "evaluate_moves",
    "exact_value",
    "gain",
    "knowledge_from_state",
    "sample_weighted_worlds",
    "sample_worlds",
]
