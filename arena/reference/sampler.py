"""Worlds consistent with what a seat knows: :func:`sample_worlds`.

A *world* is a full engine state at the seat's current position: every hand and the boneyard's
order filled in. It is built as a deal (each seat's hand as dealt, the boneyard top first) and
the public history replayed through the engine, so the engine, not this module, decides what is
consistent: a world is kept only when every event of the history is legal in it, the seat to
move is the one that moved, and the seat's own hand comes out as it is. Nothing here knows a
rule of any game.

How the hidden tiles are placed, per other seat ``j``:

- its tiles now are drawn from the unseen ones (as many as it holds);
- its plays and its tiles now are split between its dealt hand and its draws (each draw is a
  boneyard position, in history order), a drawn tile always drawn before it is played;
- **voids**: at each draw or pass of ``j``, the tiles that would have made that move illegal
  (the engine's answer for that public position) were not in ``j``'s hand then, so such a tile
  is either played before, or drawn after; the last void a tile has decides the earliest draw
  that may bring it (earliest-deadline-first over the draws).

The voids of a draw or pass are a fact of the public position (the open ends, the boneyard's
size), the same in every world. They are learned from the engine: at every such event of a
replayed world, each tile is tried in the mover's hand (``HandState.with_hand``) and kept as a
void when the move would not be legal with it; they are cached in the knowledge's ``cache``.

Samples are uniform over the proposals that pass, not over consistent worlds; the weighting by
an opponent model (:func:`sample_weighted_worlds`) corrects part of that.
"""

from __future__ import annotations

import heapq
import math
import random
import time
from collections.abc import Callable
from dataclasses import dataclass

from arena.games.api import Deal, GameState, IllegalMoveError, Move, MoveKind
from arena.games.tiles import ALL_TILES, TILE_BIT, Tile
from arena.reference.knowledge import SeatKnowledge

#: A model of a seat's play: the log-probability that ``seat`` chose ``move`` in ``state``.
MoveModel = Callable[[GameState, int, Move], float]


@dataclass(slots=True)
class _Plan:
    """What the history says about where hidden tiles can be (built once per knowledge)."""

    others: tuple[int, ...]
    #: Per other seat: its draws as (boneyard position, event index), history order.
    slots: dict[int, list[tuple[int, int]]]
    #: Per other seat: its played tiles with the event index of the play.
    plays: dict[int, dict[Tile, int]]
    #: Per other seat: its draw and pass events (the void checkpoints), event indices.
    checkpoints: dict[int, list[int]]
    #: Boneyard positions of the seat's own draws, with the tile.
    own: dict[int, Tile]
    drawn_total: int
    unseen: tuple[Tile, ...]


def _plan(k: SeatKnowledge) -> _Plan:
    cached = k.cache.get("plan")
    if isinstance(cached, _Plan) and k.cache.get("plan_events") == len(k.events):
        return cached
    others = tuple(s for s in range(k.players) if s != k.seat)
    slots: dict[int, list[tuple[int, int]]] = {s: [] for s in others}
    plays: dict[int, dict[Tile, int]] = {s: {} for s in others}
    checkpoints: dict[int, list[int]] = {s: [] for s in others}
    own: dict[int, Tile] = {}
    pos = mine = 0
    for index, event in enumerate(k.events):
        kind = event.move.kind
        if kind == MoveKind.DRAW:
            if event.seat == k.seat:
                own[pos] = k.drawn[mine]
                mine += 1
            else:
                slots[event.seat].append((pos, index))
            pos += 1
        if event.seat == k.seat:
            continue
        if event.move.tile is not None:
            plays[event.seat][event.move.tile] = index
        else:
            checkpoints[event.seat].append(index)
    plan = _Plan(others, slots, plays, checkpoints, own, pos, k.unseen())
    k.cache["plan"] = plan
    k.cache["plan_events"] = len(k.events)
    return plan


def _voids(k: SeatKnowledge) -> dict[int, frozenset[Tile]]:
    """The voids learned so far: event index -> the tiles its mover cannot have held."""
    voids: dict[int, frozenset[Tile]] = k.cache.setdefault("voids", {})
    return voids


def _learn_void(state: GameState, seat: int, move: Move) -> frozenset[Tile]:
    """The tiles that, held by ``seat`` in ``state``, would make ``move`` illegal there."""
    what_if = state.with_hand  # type: ignore[attr-defined]
    return frozenset(t for t in ALL_TILES if move not in what_if(seat, TILE_BIT[t]).legal_moves())


def _propose(k: SeatKnowledge, plan: _Plan, rng: random.Random) -> Deal | None:
    """One deal placing the unseen tiles as the history allows (voids known so far), or
    ``None`` when this attempt found no room for some tile.

    The seat that moved first (its deal made it the leader) is placed last, and placed again
    (up to :data:`_LEADER_TRIES` times) while the engine picks another leader for the deal:
    which seat leads depends on the hands as dealt, and this is the cheapest place to fix it.
    """
    voids = _voids(k)
    pool = list(plan.unseen)
    rng.shuffle(pool)
    hands: dict[int, tuple[Tile, ...]] = {k.seat: k.dealt}
    stock: dict[int, Tile] = dict(plan.own)
    order = list(plan.others)
    rng.shuffle(order)
    first = k.events[0].seat if k.events else k.to_move
    if first in order:
        order.remove(first)
        order.append(first)
    for index, j in enumerate(order):
        last = index == len(order) - 1 and j == first
        for _attempt in range(_LEADER_TRIES if last else 1):
            if last:
                rng.shuffle(pool)
            placed = _place(k, plan, j, pool, voids, rng)
            if placed is None:
                return None
            hands[j], drawn, rest = placed
            if not last:
                break
            deal = _deal(k, hands, {**stock, **drawn}, list(rest))
            if deal is not None and _starts_right(k, deal):
                return deal
        else:
            if last:
                return None
        stock.update(drawn)
        pool = rest
    return _deal(k, hands, stock, pool)


#: How many times the first mover's tiles are placed again for the engine to pick it as leader.
_LEADER_TRIES = 12


def _deal(
    k: SeatKnowledge, hands: dict[int, tuple[Tile, ...]], stock: dict[int, Tile], pool: list[Tile]
) -> Deal | None:
    """The deal of these hands, the boneyard's known positions and the rest of the pool laid
    in the other positions (in the pool's order)."""
    boneyard = [stock.get(p) for p in range(k.stock_size)]
    for p, tile in enumerate(boneyard):
        if tile is None:
            if not pool:
                return None
            boneyard[p] = pool.pop()
    if pool or len(hands) != k.players:
        return None
    return Deal(
        tuple(hands[s] for s in range(k.players)),
        tuple(t for t in boneyard if t is not None),
    )


def _starts_right(k: SeatKnowledge, deal: Deal) -> bool:
    """Whether the engine starts the hand of ``deal`` as it started: the same automatic
    opening, if any, and the same seat to move first."""
    try:
        state: GameState = k.plugin.start_hand(k.rules, k.players, deal, k.start_scores, k.retired)
    except ValueError:
        return False
    history = state.view(k.seat).history
    start = len(history)
    if tuple(history) != k.events[:start]:
        return False
    first = k.events[start].seat if len(k.events) > start else k.to_move
    return state.to_move == first


def _place(
    k: SeatKnowledge,
    plan: _Plan,
    j: int,
    pool: list[Tile],
    voids: dict[int, frozenset[Tile]],
    rng: random.Random,
) -> tuple[tuple[Tile, ...], dict[int, Tile], list[Tile]] | None:
    """Seat ``j``'s tiles: its hand as dealt, its draws by boneyard position, and the pool
    left; ``None`` when this attempt found no room for some tile."""
    slots = plan.slots[j]
    checks = plan.checkpoints[j]

    def latest_void(tile: Tile, before: int) -> int:
        for c in reversed(checks):
            if c < before and tile in voids.get(c, ()):
                return c
        return -1

    # Each tile's window: drawn at the draw of event ``lo`` or later (its latest void: it was
    # not held when that draw or pass was chosen; -1: none, it may be dealt) and before ``hi``
    # (its play; never for a tile held now).
    window = {t: (latest_void(t, i), i) for t, i in plan.plays[j].items()}
    must = [w for w in window.values() if w[0] >= 0]
    if must and not _schedulable(must, slots):
        return None
    held = 0
    need = k.hand_counts[j]
    rest_pool: list[Tile] = []
    for tile in pool:
        if held == need:
            rest_pool.append(tile)
            continue
        lo = latest_void(tile, 1 << 30)
        if lo >= 0:
            if not _schedulable([*must, (lo, 1 << 30)], slots):
                rest_pool.append(tile)
                continue
            must.append((lo, 1 << 30))
        window[tile] = (lo, 1 << 30)
        held += 1
    if held < need:
        return None
    tiles = list(window)
    ats = [at for _pos, at in slots]
    quick = _uniform_split(k.hand_size, tiles, slots, window, rng)
    if quick is not None:
        return quick[0], quick[1], rest_pool
    if not _fillable(ats, tiles, window):
        return None
    drawn: dict[int, Tile] = {}
    for index, (pos, at) in enumerate(slots):
        # a random tile that fits this draw and leaves the later draws fillable
        fits = [t for t in tiles if window[t][0] <= at < window[t][1]]
        rng.shuffle(fits)
        later = ats[index + 1 :]
        for pick in fits:
            rest = [t for t in tiles if t != pick]
            if _fillable(later, rest, window):
                break
        else:
            return None
        tiles = rest
        drawn[pos] = pick
    if len(tiles) != k.hand_size or any(window[t][0] >= 0 for t in tiles):
        return None
    return tuple(sorted(tiles)), drawn, rest_pool


def _uniform_split(
    hand_size: int,
    tiles: list[Tile],
    slots: list[tuple[int, int]],
    window: dict[Tile, tuple[int, int]],
    rng: random.Random,
    attempts: int = 8,
) -> tuple[tuple[Tile, ...], dict[int, Tile]] | None:
    """Which of a seat's tiles were dealt, chosen uniformly among the tiles that may have
    been, kept when the others fill its draws exactly (which draw brought which tile does not
    matter to the rest of the hand); ``None`` after ``attempts`` misses."""
    ats = [at for _pos, at in slots]
    forced = [t for t in tiles if window[t][0] >= 0]
    flexible: list[Tile] = []
    dealt_only: list[Tile] = []
    for t in tiles:
        lo, hi = window[t]
        if lo >= 0:
            continue
        (flexible if any(at < hi for at in ats) else dealt_only).append(t)
    need = hand_size - len(dealt_only)
    if need < 0 or need > len(flexible) or len(forced) + len(flexible) - need != len(slots):
        return None
    for _attempt in range(attempts):
        dealt = rng.sample(flexible, need)
        chosen = set(dealt)
        drawn = [*forced, *(t for t in flexible if t not in chosen)]
        placed = _match(drawn, slots, window)
        if placed is not None:
            return tuple(sorted([*dealt_only, *dealt])), placed
    return None


def _match(
    tiles: list[Tile], slots: list[tuple[int, int]], window: dict[Tile, tuple[int, int]]
) -> dict[int, Tile] | None:
    """Each tile given its own draw within its window (earliest deadline first), or ``None``."""
    waiting = sorted(tiles, key=lambda t: window[t])
    ready: list[tuple[int, Tile]] = []
    placed: dict[int, Tile] = {}
    i = 0
    for pos, at in slots:
        while i < len(waiting) and window[waiting[i]][0] <= at:
            heapq.heappush(ready, (window[waiting[i]][1], waiting[i]))
            i += 1
        if not ready or ready[0][0] <= at:
            return None
        placed[pos] = heapq.heappop(ready)[1]
    return placed if i == len(waiting) and not ready else None


def _fillable(ats: list[int], tiles: list[Tile], window: dict[Tile, tuple[int, int]]) -> bool:
    """Whether the draws at events ``ats`` can each bring a distinct tile of ``tiles`` within
    its window, every tile with a void among them (Mendelsohn-Dulmage: a matching that fills
    the draws and one that places those tiles give one that does both)."""
    must = [window[t] for t in tiles if window[t][0] >= 0]
    if len(must) > len(ats) or not _schedulable(must, [(0, at) for at in ats]):
        return False
    # Earliest deadline first fills the most draws; a tile past its deadline is simply dealt.
    waiting = sorted(window[t] for t in tiles)
    ready: list[int] = []
    i = 0
    for at in ats:
        while i < len(waiting) and waiting[i][0] <= at:
            heapq.heappush(ready, waiting[i][1])
            i += 1
        while ready and ready[0] <= at:
            heapq.heappop(ready)
        if not ready:
            return False
        heapq.heappop(ready)
    return True


def _schedulable(windows: list[tuple[int, int]], slots: list[tuple[int, int]]) -> bool:
    """Whether tiles with these (from, before) windows can each take a distinct draw of
    ``slots`` (earliest deadline first)."""
    waiting = sorted(windows)
    ready: list[int] = []
    i = 0
    for _pos, at in slots:
        while i < len(waiting) and waiting[i][0] <= at:
            heapq.heappush(ready, waiting[i][1])
            i += 1
        if ready and ready[0] <= at:
            return False  # its play came before any draw could bring it
        if ready:
            heapq.heappop(ready)
    return i == len(waiting) and not ready


def replay(
    k: SeatKnowledge, deal: Deal, model: MoveModel | None = None
) -> tuple[GameState | None, float]:
    """The world ``deal`` makes of the history, and the model's log-likelihood of the other
    seats' moves in it; ``(None, -inf)`` when the history is not legal in it.

    Voids met on the way are learned into ``k.cache``.
    """
    voids = _voids(k)
    try:
        state: GameState = k.plugin.start_hand(k.rules, k.players, deal, k.start_scores, k.retired)
    except ValueError:
        return None, -math.inf
    events = k.events
    start = len(state.view(k.seat).history)
    if tuple(state.view(k.seat).history) != events[:start]:
        return None, -math.inf
    loglik = 0.0
    for index in range(start, len(events)):
        seat, move = events[index]
        if state.to_move != seat:
            return None, -math.inf
        if seat != k.seat:
            if move.tile is None and index not in voids:
                voids[index] = _learn_void(state, seat, move)
            if model is not None:
                loglik += model(state, seat, move)
        try:
            state = state.apply(move)
        except IllegalMoveError:
            return None, -math.inf
    if state.to_move != k.to_move or state.view(k.seat).hand != k.hand:
        return None, -math.inf
    return state, loglik


def sample_worlds(
    k: SeatKnowledge, n: int, rng: random.Random, *, max_tries: int | None = None
) -> list[GameState]:
    """Up to ``n`` full engine states at the seat's position, consistent with ``k``.

    Each is a deal proposed by the rules above and checked by replaying the whole public history
    through the engine. Deterministic given ``rng``'s state. Fewer than ``n`` (possibly none)
    only when ``max_tries`` proposals (default ``50 * n + 200``) were not enough.

    Contract (tested): every world holds the seat's hand, every seat's tile count and the
    boneyard's size as known; the 28 tiles once each; every other seat's tiles avoid the voids
    its draws and passes showed; the public history is the world's own.
    """
    return [s for s, _w in sample_weighted_worlds(k, n, rng, max_tries=max_tries)]


def sample_weighted_worlds(
    k: SeatKnowledge,
    n: int,
    rng: random.Random,
    *,
    model: MoveModel | None = None,
    max_tries: int | None = None,
    deadline: float | None = None,
    clock: Callable[[], float] = time.perf_counter,
) -> list[tuple[GameState, float]]:
    """Like :func:`sample_worlds`, each world with its weight: the probability of the other
    seats' past moves under ``model`` (1.0 without a model; not normalised, so the weights of
    several calls for the same knowledge compare). With ``deadline`` (a ``clock`` time) it
    also stops proposing once that time has passed."""
    plan = _plan(k)
    tries = max_tries if max_tries is not None else 50 * n + 200
    found: list[tuple[GameState, float]] = []
    while len(found) < n and tries > 0:
        tries -= 1
        if deadline is not None and not tries & 15 and clock() > deadline:
            break
        deal = _propose(k, plan, rng)
        if deal is None:
            continue
        state, loglik = replay(k, deal, model)
        if state is not None:
            found.append((state, loglik))
    return [(s, math.exp(max(w, -700.0))) for s, w in found]
