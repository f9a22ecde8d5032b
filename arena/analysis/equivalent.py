"""Legal moves that lead to the same position but for an end's name, valued as one.

When two open ends show the same value, the same tile played on either gives positions that are
mirror images (docs/rules.md 1.15: equal ends are still two moves). No rule can tell them apart
afterwards, but an evaluator that plays each out in its sampled worlds gives each its own
estimate, and the difference is playout noise: without this, playing a tile on the left end
where the right was "preferred" could be graded a blunder. So moves whose positions agree in
everything the mover sees, but for the ends' names, form a class, and each move of a class is
given the class's mean value (the mean of equally good estimates is the better estimate).

The key is read from the mover's own view after the move (its tiles, the counts, the
boneyard's size, the scores, the open ends' values in order of value, the count of the ends,
the arms' lengths): nothing the mover could not see. A draw or a pass has no twin.

Pure: the engine's ``apply`` and ``view`` only.
"""

from __future__ import annotations

from collections.abc import Sequence

from arena.games.api import GameState, Move


def position_key(state: GameState, seat: int, move: Move) -> tuple[object, ...]:
    """What ``seat`` sees after playing ``move`` in ``state``, the ends' names left out."""
    view = state.apply(move).view(seat)
    return (
        move.kind,
        move.tile,
        tuple(sorted(value for _name, value in view.ends)),
        view.end_count,
        tuple(sorted(len(tiles) for _name, tiles in view.arms)),
        view.spinner is None,
        view.hand,
        view.hand_counts,
        view.boneyard_size,
        view.scores,
        view.to_move,
    )


def merge_equivalent(
    state: GameState, seat: int, valued: Sequence[tuple[Move, float]]
) -> list[tuple[Move, float]]:
    """``valued`` with each move's value replaced by the mean of its class, best first (ties in
    the order given)."""
    classes: dict[tuple[object, ...], list[float]] = {}
    keys = []
    for move, value in valued:
        key = (move,) if move.tile is None else position_key(state, seat, move)
        keys.append(key)
        classes.setdefault(key, []).append(value)
    means = {key: sum(values) / len(values) for key, values in classes.items()}
    merged = [(move, means[key]) for (move, _value), key in zip(valued, keys, strict=True)]
    order = {move: index for index, (move, _value) in enumerate(merged)}
    return sorted(merged, key=lambda item: (-item[1], order[item[0]]))
