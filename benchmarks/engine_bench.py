"""Random-playout speed of the Matador, Fives and Block engines, beside OpenSpiel's
python_block_dominoes.

Both engines run the same loop in this process: start a new game from a seed, then repeatedly
pick a uniformly random legal move with a seeded ``random.Random`` and apply it until the game
is over. Each measurement plays whole games for about ``--seconds`` and reports games/s and
moves/s.

- Matador: one game is one hand (``deal`` + ``start_hand``), driven only through the public
  verbs ``legal_moves()``, ``apply(move)`` and ``outcome()``. Every ``apply`` is a move: plays,
  draws and passes alike.
- Fives: the same loop over :mod:`arena.games.fives` (two players, default rules); its opening
  is placed by ``start_hand`` and is not counted as a move.
- Block: :mod:`arena.games.block`, the same game as OpenSpiel's below on the same rules, so its
  row and OpenSpiel's are identical work: a deal, then random plays to the end of the hand. Only
  plays count as moves: a skipped player's ``PASS`` is applied but not counted, since OpenSpiel
  skips that player without an action (so moves/game agree). One difference remains: our random
  choice is among our moves, which list a tile twice when both ends show its value, where
  OpenSpiel lists one action.
- Block, ``random_playout``: the same hands (same deals, same ``rng.choice`` calls, so the
  same moves: the tests check it) played by :func:`arena.games.api.random_playout`, the call a
  search makes, which in Block plays to the end without building a state per move. Its plays
  count as above.
- OpenSpiel: ``python_block_dominoes`` (two players, seven tiles each, no boneyard). Its deal is
  fourteen chance nodes; they are resolved with a random chance outcome but are *not* counted as
  moves, so only player actions count.

Usage::

    python3 benchmarks/engine_bench.py --seconds 3
    python3 benchmarks/engine_bench.py --seconds 3 --json
    python3 benchmarks/engine_bench.py --seconds 3 --rounds 3   # best of 3, on a busy machine
    python3 benchmarks/engine_bench.py --breakdown              # + per-call cost of each step

OpenSpiel is an optional dependency (``pip install -e '.[bench]'``); without it our engines' rows
are still printed, with a note, and the script exits 0.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import random
import sys
import time
import timeit
from collections.abc import Callable
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

# Measure the engine of the checkout this script sits in, not whichever copy of the package
# happens to be pip-installed (an editable install may point at another clone).
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from arena.games import block, fives, matador
from arena.games.api import PASS, random_playout

OPENSPIEL_MISSING = "open-spiel not installed: pip install -e '.[bench]'"
OPENSPIEL_CONFIG = "python_block_dominoes, 2p"

#: The Matador configurations measured: (label, players, rule flags). The first is the headline
#: row that the OpenSpiel ratio is computed from (two players, default rules, like block dominoes).
MATADOR_CONFIGS: tuple[tuple[str, int, dict[str, Any]], ...] = (
    ("2p, default rules", 2, {}),
    ("4p, default rules", 4, {}),
    (
        "3p, hand_size=9-n, draw_when_playable=always",
        3,
        {"hand_size": "9-n", "draw_when_playable": "always"},
    ),
    (
        "2p, hand_size=7, draw_mode=one_then_pass, reserve=2",
        2,
        {"hand_size": 7, "draw_mode": "one_then_pass", "reserve": 2},
    ),
)


#: The Fives configurations measured (two players always), with the same loop as Matador's.
FIVES_CONFIGS: tuple[tuple[str, dict[str, Any]], ...] = (("fives 2p, default rules", {}),)

#: The Block row: the rules of OpenSpiel's python_block_dominoes (Block has no flags).
BLOCK_CONFIG = "block 2p (python_block_dominoes rules)"
#: The same hands through ``random_playout`` (the search's call).
BLOCK_PLAYOUT_CONFIG = "block 2p, random_playout (same hands)"


@dataclass
class Result:
    """One measurement: whole games played during about ``seconds``."""

    engine: str
    config: str
    games: int
    moves: int
    seconds: float

    @property
    def games_per_s(self) -> float:
        return self.games / self.seconds

    @property
    def moves_per_s(self) -> float:
        return self.moves / self.seconds

    @property
    def moves_per_game(self) -> float:
        return self.moves / self.games

    @property
    def us_per_move(self) -> float:
        return 1e6 * self.seconds / self.moves

    def as_dict(self) -> dict[str, Any]:
        return {
            **asdict(self),
            "games_per_s": round(self.games_per_s, 1),
            "moves_per_s": round(self.moves_per_s, 1),
            "moves_per_game": round(self.moves_per_game, 2),
            "us_per_move": round(self.us_per_move, 3),
        }


def measure(
    engine: str, config: str, play_one: Callable[[int], int], seed: int, seconds: float
) -> Result:
    """Call ``play_one(game_seed)`` (it returns the moves played) until ``seconds`` have passed.

    The clock is read once per game, not per move, so it costs nothing measurable; game ``i``
    uses seed ``seed + i``, so a run is reproducible move for move.
    """
    games = moves = 0
    clock = time.perf_counter
    start = clock()
    deadline = start + seconds
    while True:
        moves += play_one(seed + games)
        games += 1
        now = clock()
        if now >= deadline:
            return Result(engine, config, games, moves, now - start)


def matador_player(
    players: int, flags: dict[str, Any], seed: int, engine: Any = matador
) -> Callable[[int], int]:
    """A function playing one random hand from a deal seed; it returns the move count.

    ``engine`` is the engine module (Matador, or Fives, whose opening is automatic and so is
    not counted as a move).
    """
    rules = engine.parse_rules(flags)
    rng = random.Random(seed)
    choice = rng.choice
    deal, start_hand = engine.deal, engine.start_hand

    def play_one(game_seed: int) -> int:
        state = start_hand(rules, players, deal(rules, players, game_seed))
        moves = 0
        while state.outcome() is None:
            state = state.apply(choice(state.legal_moves()))
            moves += 1
        return moves

    return play_one


def block_player(seed: int) -> Callable[[int], int]:
    """A function playing one random Block hand from a deal seed; it returns the plays made
    (a ``PASS`` is applied but not counted: OpenSpiel skips that player without an action)."""
    rules = block.parse_rules({})
    rng = random.Random(seed)
    choice = rng.choice
    deal, start_hand = block.deal, block.start_hand

    def play_one(game_seed: int) -> int:
        state = start_hand(rules, 2, deal(rules, 2, game_seed))
        plays = 0
        while state.outcome() is None:
            move = choice(state.legal_moves())
            state = state.apply(move)
            if move is not PASS:
                plays += 1
        return plays

    return play_one


def block_playout_player(seed: int) -> Callable[[int], int]:
    """The hands of :func:`block_player`, each played by one ``random_playout`` call; it returns
    the plays made (passes are not counted, as above)."""
    rules = block.parse_rules({})
    rng = random.Random(seed)
    deal, start_hand = block.deal, block.start_hand

    def play_one(game_seed: int) -> int:
        return random_playout(start_hand(rules, 2, deal(rules, 2, game_seed)), rng).plays

    return play_one


def openspiel_player(seed: int) -> Callable[[int], int] | None:
    """The same loop over OpenSpiel's python_block_dominoes, or ``None`` without open-spiel.

    Chance nodes (the deal) get a uniformly random outcome from the same generator but are not
    counted as moves. (OpenSpiel draws the deal from the rng, so ``game_seed`` is unused.)
    """
    try:
        import pyspiel

        # Importing the module registers the Python game with pyspiel.
        from open_spiel.python.games import block_dominoes  # noqa: F401
    except ImportError:
        return None
    game = pyspiel.load_game("python_block_dominoes")
    rng = random.Random(seed)
    choice = rng.choice

    def play_one(_game_seed: int) -> int:
        state = game.new_initial_state()
        moves = 0
        while not state.is_terminal():
            if state.is_chance_node():
                action, _probability = choice(state.chance_outcomes())
                state.apply_action(action)
            else:
                state.apply_action(choice(state.legal_actions()))
                moves += 1
        return moves

    return play_one


STEP_LABELS = {
    "legal_moves_us": "legal_moves() (uncached)",
    "apply_us": "apply(move)",
    "rng_choice_us": "rng.choice(legal)",
    "deal_us_per_game": "deal(), per game",
    "start_hand_us_per_game": "start_hand(), per game",
}


def breakdown(seed: int, games: int = 300) -> dict[str, float]:
    """Microseconds per call of each step of a playout, 2p default rules (``--breakdown``).

    The positions of ``games`` random hands are recorded first; each step is then timed in bulk
    over them (best of 7 passes, the bare loop subtracted), so the figures are steady-state costs,
    not what one playout sees. ``legal_moves`` is its first (uncached) call on a fresh state:
    ``apply(m).legal_moves()`` less ``apply(m)``.
    """
    rules = matador.parse_rules({})
    rng = random.Random(seed)
    deals = [matador.deal(rules, 2, seed + i) for i in range(games)]
    pairs = []
    for d in deals:
        state = matador.start_hand(rules, 2, d)
        while state.outcome() is None:
            move = rng.choice(state.legal_moves())
            pairs.append((state, move))
            state = state.apply(move)
    legals = [state.legal_moves() for state, _move in pairs]
    choice = rng.choice
    deal, start_hand = matador.deal, matador.start_hand

    def best(step: Callable[[], object]) -> float:
        return min(timeit.repeat(step, number=1, repeat=7))

    def bare() -> None:
        for _state, _move in pairs:
            pass

    def apply_only() -> None:
        for state, move in pairs:
            state.apply(move)

    def apply_then_legal() -> None:
        for state, move in pairs:
            state.apply(move).legal_moves()

    def choose() -> None:
        for legal in legals:
            choice(legal)

    def deal_only() -> None:
        for i in range(games):
            deal(rules, 2, seed + i)

    def start_only() -> None:
        for d in deals:
            start_hand(rules, 2, d)

    n = len(pairs)
    loop = best(bare)
    apply_s = best(apply_only) - loop
    return {
        "positions": n,
        "legal_moves_us": 1e6 * (best(apply_then_legal) - loop - apply_s) / n,
        "apply_us": 1e6 * apply_s / n,
        "rng_choice_us": 1e6 * (best(choose) - loop) / n,
        "deal_us_per_game": 1e6 * best(deal_only) / games,
        "start_hand_us_per_game": 1e6 * best(start_only) / games,
    }


def run(seconds: float, seed: int, rounds: int = 1) -> dict[str, Any]:
    """Every measurement, one after the other in this process, ``rounds`` times over.

    On a shared machine another process can steal a measurement's CPU; with several rounds the
    rows are measured in turn each round (so a burst of load hits them alike) and each row keeps
    its fastest round. Every round replays the same games (same seeds).
    """
    best: dict[str, Result] = {}

    def keep(result: Result) -> None:
        old = best.get(result.config)
        if old is None or result.moves_per_s > old.moves_per_s:
            best[result.config] = result

    for _ in range(rounds):
        for label, players, flags in MATADOR_CONFIGS:
            keep(measure("matador", label, matador_player(players, flags, seed), seed, seconds))
        for label, flags in FIVES_CONFIGS:
            play_one = matador_player(2, flags, seed, fives)
            keep(measure("fives", label, play_one, seed, seconds))
        keep(measure("block", BLOCK_CONFIG, block_player(seed), seed, seconds))
        keep(measure("block", BLOCK_PLAYOUT_CONFIG, block_playout_player(seed), seed, seconds))
        spiel = openspiel_player(seed)
        if spiel is not None:
            keep(measure("openspiel", OPENSPIEL_CONFIG, spiel, seed, seconds))
    results = [best[label] for label, _players, _flags in MATADOR_CONFIGS]
    fives_results = [best[label] for label, _flags in FIVES_CONFIGS]
    block_result = best[BLOCK_CONFIG]
    playout_result = best[BLOCK_PLAYOUT_CONFIG]
    reference = best.get(OPENSPIEL_CONFIG)  # None without open-spiel
    try:
        load = os.getloadavg()[0]
    except OSError:  # not available on this platform
        load = None
    return {
        "seconds_per_measurement": seconds,
        "rounds": rounds,
        "seed": seed,
        "python": platform.python_version(),
        "implementation": platform.python_implementation(),
        "machine": platform.machine(),
        "cpus": os.cpu_count(),
        "load_average_1min_after": load,
        "matador": results,
        "fives": fives_results,
        "block": block_result,
        "block_playout": playout_result,
        "openspiel": reference,
        # Headline: Matador 2p default rules against two-player block dominoes.
        "ratio": results[0].moves_per_s / reference.moves_per_s if reference else None,
        # Like for like: Block against the same game in OpenSpiel, by moves and by whole games.
        "block_ratio": block_result.moves_per_s / reference.moves_per_s if reference else None,
        "block_games_ratio": (
            block_result.games_per_s / reference.games_per_s if reference else None
        ),
        # The same hands through random_playout, the call a search makes.
        "block_playout_ratio": (
            playout_result.moves_per_s / reference.moves_per_s if reference else None
        ),
    }


def print_table(report: dict[str, Any]) -> None:
    rows: list[Result] = [
        *report["matador"],
        *report["fives"],
        report["block"],
        report["block_playout"],
    ]
    if report["openspiel"] is not None:
        rows.append(report["openspiel"])
    header = (
        "engine",
        "configuration",
        "games",
        "moves",
        "games/s",
        "moves/s",
        "moves/game",
        "µs/move",
    )
    body = [
        (
            r.engine,
            r.config,
            f"{r.games:,}",
            f"{r.moves:,}",
            f"{r.games_per_s:,.0f}",
            f"{r.moves_per_s:,.0f}",
            f"{r.moves_per_game:.1f}",
            f"{r.us_per_move:.2f}",
        )
        for r in rows
    ]
    widths = [max(len(h), *(len(b[i]) for b in body)) for i, h in enumerate(header)]

    def line(cells: tuple[str, ...]) -> str:
        # Text columns left-aligned, numbers right-aligned.
        return "  ".join(
            c.ljust(w) if i < 2 else c.rjust(w)
            for i, (c, w) in enumerate(zip(cells, widths, strict=True))
        )

    load = report["load_average_1min_after"]
    print(
        f"Random playouts, {report['seconds_per_measurement']:g} s per row, "
        f"best of {report['rounds']} round(s), seed {report['seed']}; "
        f"{report['implementation']} {report['python']} on {report['machine']}, "
        f"{report['cpus']} CPU(s), load average {'?' if load is None else f'{load:.2f}'}"
    )
    print(line(header))
    print(line(tuple("-" * w for w in widths)))
    for cells in body:
        print(line(cells))
    print()
    print("Matador: one game = one hand; every apply is a move (plays, draws, passes).")
    print("Fives: the same; the automatic opening (inside start_hand) is not a move.")
    print("Block: only plays are moves; a skipped player's PASS is applied but not counted.")
    if report["openspiel"] is None:
        print(OPENSPIEL_MISSING)
        return
    print("OpenSpiel: chance nodes (the deal) are applied but not counted as moves.")
    print(f"Ratio, Matador 2p default moves/s ÷ OpenSpiel moves/s: {report['ratio']:.1f}x")
    print(
        f"Ratio, Block moves/s ÷ OpenSpiel moves/s (same game): {report['block_ratio']:.1f}x"
        f" (games/s: {report['block_games_ratio']:.1f}x)"
    )
    print(
        "Ratio, Block random_playout moves/s ÷ OpenSpiel moves/s (same hands): "
        f"{report['block_playout_ratio']:.1f}x"
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--seconds", type=float, default=3.0, help="duration of each measurement (default 3)"
    )
    parser.add_argument("--seed", type=int, default=1, help="seed of deals and choices")
    parser.add_argument(
        "--rounds",
        type=int,
        default=1,
        help="measure every row this many times, interleaved, and keep the fastest (default 1)",
    )
    parser.add_argument(
        "--breakdown",
        action="store_true",
        help="also time each step of a playout per call (legal_moves, apply, deal, ...)",
    )
    parser.add_argument("--json", action="store_true", help="print JSON instead of a table")
    args = parser.parse_args(argv)
    if args.seconds <= 0:
        parser.error("--seconds must be positive")
    if args.rounds < 1:
        parser.error("--rounds must be at least 1")
    report = run(args.seconds, args.seed, args.rounds)
    steps = breakdown(args.seed) if args.breakdown else None
    if args.json:
        out = dict(report)
        out["breakdown"] = steps
        out["matador"] = [r.as_dict() for r in report["matador"]]
        out["fives"] = [r.as_dict() for r in report["fives"]]
        out["block"] = report["block"].as_dict()
        out["block_playout"] = report["block_playout"].as_dict()
        out["openspiel"] = report["openspiel"].as_dict() if report["openspiel"] else None
        out["note"] = (
            OPENSPIEL_MISSING
            if report["openspiel"] is None
            else "OpenSpiel chance nodes (the deal) are applied but not counted as moves"
        )
        print(json.dumps(out, indent=2))
    else:
        print_table(report)
        if steps is not None:
            print()
            print(f"Per call, 2p default rules, over {steps['positions']:,} positions:")
            for key, label in STEP_LABELS.items():
                print(f"  {label:<26}{steps[key]:7.2f} µs")
    return 0


if __name__ == "__main__":
    sys.exit(main())
