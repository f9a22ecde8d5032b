"""The evaluator: every legal move of a seat with its estimated value, and exact values.

This is the API other modules build on (``arena analyze`` among them); its contract:

- :func:`evaluate_moves` ``(knowledge, budget, rng) -> list[MoveValue]``: every legal move of
  the seat to move (``knowledge.legal``), each with its estimated **value for the seat**, best
  first (by ``value + budget.win_weight * win``; ties in the order of the legal list). A
  value is in hand points: what the seat will score from now to the end of the hand minus the
  mean of what each other seat will score
  (``outcome().scores`` minus the scores now, so points scored during a hand count as they
  are made). Higher is better; two-player values are zero-sum differences.
- Only ``knowledge`` is used: what the seat saw. Hidden tiles are sampled
  (:func:`arena.reference.sampler.sample_worlds`); each move is scored in the same worlds.
- When the rest of the hand is of perfect information (``knowledge.determined()``, e.g.
  two seats and the boneyard empty) and small enough, each move's value is exact
  (alpha-beta over the engine with a transposition table) and ``MoveValue.exact`` is true.
- With ``Budget.samples`` set (and ``Budget.ms`` unset) the result depends only on the
  knowledge, the budget and ``rng``'s state: the same on every machine. With ``Budget.ms`` the
  number of worlds is what fits in that time (at least one).
- :func:`exact_value` ``(state, seat) -> float | None``: the perfect-information value of a full
  state for ``seat`` (in the units above), or ``None`` when the search would exceed its node
  limit. With two seats it is the minimax value; with more, the paranoid one (the other seats
  minimise this seat's value).

Nothing here names a game.
"""

from __future__ import annotations

import math
import random
import time
from collections.abc import Callable
from dataclasses import dataclass

from arena.games.api import GameState, Move
from arena.games.plugin import GamePlugin
from arena.reference.knowledge import SeatKnowledge
from arena.reference.policy import greedy_move, model_loglik, random_move
from arena.reference.sampler import sample_weighted_worlds

#: Node limit of :func:`exact_value` by default.
EXACT_NODES = 20_000
#: Node limit of one sampled world's exact solution (``Budget.solve_worlds``).
_WORLD_NODES = 400
#: Tiles in hands and boneyard (if drawn from) at most for ``Budget.solve_worlds`` to solve a
#: world.
_SMALL = 7
#: Proposals per world wanted before the sampler gives up (a position no deal explains).
_TRIES = 300
#: Racing (``Budget.racing``): worlds before the first drop, and the drop's standard errors.
_RACE_FROM = 8
_RACE_Z = 2.0


@dataclass(frozen=True, slots=True)
class Budget:
    """How much an evaluation may spend.

    Attributes:
        samples: the number of worlds (fixed budget: the result is machine-independent), or
            ``None`` to sample until ``ms`` is spent.
        ms: wall-clock milliseconds to spend sampling, or ``None``. With both set, whichever
            ends first.
        playouts: playouts per move and world.
        policy: the playout policy, ``"greedy"`` or ``"random"``.
        exact_nodes: the node limit of exact searches (0: never search exactly).
        weighted: weight each world by how likely the other seats' past moves were under the
            greedy softmax model of play (:func:`arena.reference.policy.model_loglik`).
        solve_worlds: solve each sampled world exactly when it is small enough (perfect
            information Monte Carlo), instead of playing it out.
        win_weight: the points a won hand is worth beside its points when moves are ranked
            (``value + win_weight * win``): in a match of one hand only winning counts.
        racing: drop, every few worlds, the moves clearly worse than the best so far (paired
            over the same worlds), and spend their share of the budget on the others; a
            dropped move's value rests on fewer worlds and ranks below the others.
    """

    samples: int | None = 32
    ms: float | None = None
    playouts: int = 1
    policy: str = "greedy"
    exact_nodes: int = EXACT_NODES
    weighted: bool = False
    solve_worlds: bool = False
    win_weight: float = 0.0
    racing: bool = False


@dataclass(frozen=True, slots=True)
class MoveValue:
    """One legal move and its estimated value for the seat.

    Attributes:
        move: the move.
        value: the mean value (hand points, see the module docstring); higher is better.
        samples: how many worlds it was scored in.
        exact: whether ``value`` is the exact perfect-information value.
        win: the mean over the worlds of +1 for a hand the seat gains on (its value is
            positive), -1 for one it loses on, 0 for even: from -1 to +1.
    """

    move: Move
    value: float
    samples: int
    exact: bool = False
    win: float = 0.0


def gain(root: GameState, final: GameState, seat: int) -> float:
    """The seat's value of a finished hand: its points since ``root`` minus the mean of the
    other seats' points since then."""
    outcome = final.outcome()
    assert outcome is not None
    gains = [a - b for a, b in zip(outcome.scores, root.scores, strict=True)]
    others = [g for s, g in enumerate(gains) if s != seat]
    return gains[seat] - (sum(others) / len(others) if others else 0.0)


def playout(
    plugin: GamePlugin, state: GameState, rng: random.Random, policy: str = "greedy"
) -> GameState:
    """The state at the end of the hand, every seat playing ``policy`` from ``state``."""
    while state.outcome() is None:
        legal = state.legal_moves()
        # greedy with a little noise: a playout is a guess at play, not a forced line
        if policy == "random" or (len(legal) > 1 and rng.random() < 0.1):
            move = random_move(legal, rng)
        else:
            move = greedy_move(plugin, state, legal)
        state = state.apply(move)
    return state


def _key(state: GameState) -> tuple[object, ...]:
    """A transposition key: what the rest of a line game depends on (hands, boneyard read
    position, seat to move, open ends and the tiles at them, scores, the latest actions)."""
    view = state.view(state.to_move or 0)
    layout = view.layout
    recent = state.last_actions(state.players + 1)  # type: ignore[attr-defined]
    return (
        state.hands,  # type: ignore[attr-defined]
        state.stock_pos,  # type: ignore[attr-defined]
        state.to_move,
        view.ends,
        state.scores,
        layout[0] if layout else None,
        layout[-1] if layout else None,
        view.spinner is None,
        tuple((name, tiles[-1] if tiles else None) for name, tiles in view.arms),
        tuple((seat, move.kind) for seat, move in recent),
    )


class _OutOfNodes(Exception):
    pass


def exact_value(
    state: GameState,
    seat: int,
    node_limit: int = EXACT_NODES,
    *,
    deadline: float | None = None,
    clock: Callable[[], float] = time.perf_counter,
) -> float | None:
    """The perfect-information value of ``state`` for ``seat`` (see the module docstring), or
    ``None`` when it needs more than ``node_limit`` nodes (or the ``clock`` passes
    ``deadline``)."""
    table: dict[tuple[object, ...], tuple[float, int]] = {}  # key -> (value, bound kind)
    nodes = [0]
    root = state

    def search(s: GameState, alpha: float, beta: float) -> float:
        if s.outcome() is not None:
            return gain(root, s, seat)
        nodes[0] += 1
        if nodes[0] > node_limit:
            raise _OutOfNodes
        if deadline is not None and not nodes[0] & 127 and clock() > deadline:
            raise _OutOfNodes
        key = _key(s)
        hit = table.get(key)
        if hit is not None:
            value, kind = hit
            if kind == 0 or (kind > 0 and value >= beta) or (kind < 0 and value <= alpha):
                return value
        a0, b0 = alpha, beta
        legal = s.legal_moves()
        if s.to_move == seat:
            best = -1e18
            for move in legal:
                best = max(best, search(s.apply(move), alpha, beta))
                alpha = max(alpha, best)
                if alpha >= beta:
                    break
        else:
            best = 1e18
            for move in legal:
                best = min(best, search(s.apply(move), alpha, beta))
                beta = min(beta, best)
                if alpha >= beta:
                    break
        kind = 1 if best >= b0 else (-1 if best <= a0 else 0)
        table[key] = (best, kind)
        return best

    try:
        return search(state, -1e18, 1e18)
    except _OutOfNodes:
        return None


def _exact_moves(
    k: SeatKnowledge,
    world: GameState,
    node_limit: int,
    deadline: float | None,
    clock: Callable[[], float],
) -> list[MoveValue] | None:
    values = []
    for move in k.legal:
        value = exact_value(world.apply(move), k.seat, node_limit, deadline=deadline, clock=clock)
        if value is None:
            return None
        values.append(MoveValue(move, value, 1, exact=True, win=_sign(value)))
    return _ranked(values)


def _sign(value: float) -> float:
    return 1.0 if value > 0 else -1.0 if value < 0 else 0.0


def _ranked(values: list[MoveValue], win_weight: float = 0.0) -> list[MoveValue]:
    order = {mv.move: i for i, mv in enumerate(values)}
    return sorted(values, key=lambda mv: (-(mv.value + win_weight * mv.win), order[mv.move]))


def evaluate_moves(
    k: SeatKnowledge,
    budget: Budget,
    rng: random.Random,
    *,
    clock: Callable[[], float] = time.perf_counter,
) -> list[MoveValue]:
    """Every legal move of the seat with its estimated value, best first (module docstring)."""
    legal = k.legal
    if not legal:
        return []
    deadline = None if budget.ms is None else clock() + budget.ms / 1000
    if budget.exact_nodes and k.determined():
        worlds = sample_weighted_worlds(k, 1, rng, max_tries=_TRIES, deadline=deadline)
        if worlds:
            exact = _exact_moves(k, worlds[0][0], budget.exact_nodes, deadline, clock)
            if exact is not None:
                return exact
    if len(legal) == 1:
        return [MoveValue(legal[0], 0.0, 0)]
    plugin = k.plugin
    n = len(legal)
    totals = [0.0] * n
    wins = [0.0] * n
    weights = [0.0] * n
    seen = [0] * n
    utilities: list[list[float]] = [[] for _ in range(n)]  # per world, while the move races
    active = list(range(n))
    count = 0
    model = (lambda s, _seat, mv: model_loglik(plugin, s, mv)) if budget.weighted else None
    # Fixed budget: ``samples`` worlds for every move, as move-world evaluations; racing
    # spends those of the moves it drops on the others.
    evaluations = None if budget.samples is None else budget.samples * n
    drawable = k.boneyard_size if plugin.features.draws else 0
    small = sum(k.hand_counts) + drawable <= _SMALL
    started = clock()
    while evaluations is None or evaluations >= len(active):
        # stop when one more world, at the mean cost so far, would end past the deadline
        if deadline is not None and count and clock() + (clock() - started) / count > deadline:
            break
        found = sample_weighted_worlds(k, 1, rng, model=model, max_tries=_TRIES, deadline=deadline)
        if not found:
            break  # none found in _TRIES proposals (or in the time): value what we have
        world, weight = found[0]
        # the same playout randomness for every move of a world (common random numbers)
        stream = rng.getrandbits(64)
        for i in active:
            after = world.apply(legal[i])
            play_rng = random.Random(stream)
            value = None
            if budget.solve_worlds and small:
                value = exact_value(after, k.seat, _WORLD_NODES, deadline=deadline, clock=clock)
            if value is None:
                total = 0.0
                for _ in range(budget.playouts):
                    end = playout(plugin, after, play_rng, budget.policy)
                    total += gain(world, end, k.seat)
                value = total / budget.playouts
            totals[i] += weight * value
            wins[i] += weight * _sign(value)
            weights[i] += weight
            seen[i] += 1
            utilities[i].append(value + budget.win_weight * _sign(value))
        if evaluations is not None:
            evaluations -= len(active)
        count += 1
        if budget.racing and count >= _RACE_FROM and count % 4 == 0:
            active = _race(active, utilities)
            if len(active) == 1:
                break  # decided: more worlds would change nothing
    if not count:
        return [MoveValue(mv, 0.0, 0) for mv in legal]
    values = [
        MoveValue(mv, totals[i] / weights[i], seen[i], win=wins[i] / weights[i])
        for i, mv in enumerate(legal)
    ]
    if budget.racing:  # a dropped move ranks below every move still in the race
        kept = set(active)
        return [
            *_ranked([v for i, v in enumerate(values) if i in kept], budget.win_weight),
            *_ranked([v for i, v in enumerate(values) if i not in kept], budget.win_weight),
        ]
    return _ranked(values, budget.win_weight)


def _race(active: list[int], utilities: list[list[float]]) -> list[int]:
    """The moves still in the race: those not clearly worse than the best so far (the mean of
    their paired differences with it, over the same worlds, within ``_RACE_Z`` standard errors
    of zero)."""
    best = max(active, key=lambda i: sum(utilities[i]) / len(utilities[i]))
    base = utilities[best]
    kept = []
    for i in active:
        if i == best:
            kept.append(i)
            continue
        mine = utilities[i]
        diffs = [a - b for a, b in zip(mine, base[-len(mine) :], strict=True)]
        mean = sum(diffs) / len(diffs)
        var = sum((d - mean) ** 2 for d in diffs) / max(1, len(diffs) - 1)
        if mean + _RACE_Z * math.sqrt(var / len(diffs)) >= 0:
            kept.append(i)
    return kept
