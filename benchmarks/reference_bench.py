"""The reference bots in-process: strength on duplicate deals, and time per move.

Plays one hand per deal twice, the two bots swapping seats (duplicate deals), each bot choosing
from its own seat's knowledge (``knowledge_from_state``: what that seat saw), and prints the
mean hand-point margin of bot A over bot B with its standard error, A's share of the deal pairs
won, and each bot's median and p95 milliseconds per move (moves with one legal choice left
out). No processes, no clocks for the bots other than their own budget: a quick ladder for
tuning; the Elo figures of docs/reference-bots.md come from ``arena sprt``.

Usage::

    python3 benchmarks/reference_bench.py search:samples=16 greedy --deals 100
    python3 benchmarks/reference_bench.py strong search --game fives --deals 50
    python3 benchmarks/reference_bench.py search greedy --players 3 --deals 50
"""

from __future__ import annotations

import argparse
import statistics
import time

from arena.games.api import derive_seed
from arena.games.registry import get_game
from arena.reference.bots import RefBot, parse_spec
from arena.reference.evaluate import gain
from arena.reference.knowledge import knowledge_from_state


def play_hand(game: str, players: int, seed: int, seats: list[RefBot], times: list[list[float]]):
    """One hand of ``game`` dealt by ``seed``; seat ``s`` played by ``seats[s]``. Returns each
    seat's value (its points minus the mean of the others')."""
    plugin = get_game(game)
    rules = plugin.parse_rules({})
    root = state = plugin.start_hand(rules, players, plugin.deal(rules, players, seed))
    while state.outcome() is None:
        seat = state.to_move
        assert seat is not None
        legal = state.legal_moves()
        if len(legal) == 1:
            move = legal[0]
        else:
            k = knowledge_from_state(plugin, state, seat)
            start = time.perf_counter()
            move, _note = seats[seat].choose(k, 1000, 1000)
            times[seat].append((time.perf_counter() - start) * 1000)
        state = state.apply(move)
    return [gain(root, state, s) for s in range(players)]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("a", help="bot A, e.g. search:samples=16")
    parser.add_argument("b", help="bot B, e.g. greedy")
    parser.add_argument("--game", default="matador")
    parser.add_argument("--players", type=int, default=2)
    parser.add_argument("--deals", type=int, default=100)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    spec_a, spec_b = parse_spec(args.a), parse_spec(args.b)
    margins = []
    pairs_won = 0.0
    games = [0, 0, 0]  # A won, drew, lost
    times_a: list[float] = []
    times_b: list[float] = []
    n = args.players
    for deal in range(args.deals):
        seed = derive_seed(args.seed, "deal", deal)
        pair = 0.0
        # A in seat 0 (and B elsewhere), then A in seat 1: for more seats, A takes one seat.
        for a_seat in (0, 1):
            bots = [
                RefBot(
                    spec_a if s == a_seat else spec_b,
                    derive_seed(args.seed, "bot", deal, s),
                    one_hand=True,  # as `arena sprt --hands 1` plays
                )
                for s in range(n)
            ]
            times: list[list[float]] = [[] for _ in range(n)]
            values = play_hand(args.game, n, seed, bots, times)
            pair += values[a_seat]
            games[0 if values[a_seat] > 0 else 1 if values[a_seat] == 0 else 2] += 1
            times_a += times[a_seat]
            for s in range(n):
                if s != a_seat:
                    times_b += times[s]
        margins.append(pair / 2)
        pairs_won += 1.0 if pair > 0 else 0.5 if pair == 0 else 0.0
    mean = statistics.fmean(margins)
    error = statistics.stdev(margins) / len(margins) ** 0.5 if len(margins) > 1 else 0.0

    def ms(values: list[float]) -> str:
        if not values:
            return "-"
        values = sorted(values)
        p95 = values[int(0.95 * (len(values) - 1))]
        return f"median {statistics.median(values):.1f} ms, p95 {p95:.1f} ms"

    print(f"{args.game} {n}p, {args.deals} deal pairs: {args.a} vs {args.b}")
    print(f"  margin of A per hand: {mean:+.2f} +- {error:.2f} points")
    print(f"  deal pairs won by A: {100 * pairs_won / len(margins):.1f}%")
    print(f"  games won, drawn, lost by A: {games[0]}, {games[1]}, {games[2]}")
    print(f"  A: {ms(times_a)}; B: {ms(times_b)}")


if __name__ == "__main__":
    main()
