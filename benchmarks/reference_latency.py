"""Time per move of the reference bots as the referee measures it (the replay's ``elapsed_ms``).

Plays ``arena play BOT BOT`` (the bot against itself: both seats count) for ``--hands`` hands
with the default 1 s move limit, then prints the median and the 95th percentile of the
referee-measured milliseconds per move, moves with one legal choice included. The default
budget is a tenth of the move limit: 100 ms.

Usage::

    python3 benchmarks/reference_latency.py ref:search ref:strong --hands 4
    python3 benchmarks/reference_latency.py ref:search --game fives --hands 4
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path


def measure(bot: str, game: str, hands: int, seed: int) -> list[float]:
    """The referee-measured milliseconds of every move of one match of ``bot`` against itself."""
    with tempfile.TemporaryDirectory() as folder:
        replay = Path(folder) / "r.json"
        subprocess.run(
            [sys.executable, "-m", "arena", "play", bot, bot, "--game", game, "--hands",
             str(hands), "--seed", str(seed), "--sandbox", "none", "--replay", str(replay)],
            check=True, capture_output=True,
        )  # fmt: skip
        data = json.loads(replay.read_text())
    return [
        e["elapsed_ms"]
        for hand in data["hands"]
        for e in hand["events"]
        if e.get("event") == "move" and "elapsed_ms" in e
    ]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("bots", nargs="+")
    parser.add_argument("--game", default="matador")
    parser.add_argument("--hands", type=int, default=4)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    print("| bot | game | moves | median ms | p95 ms | max ms |")
    print("|---|---|---|---|---|---|")
    for bot in args.bots:
        times = sorted(measure(bot, args.game, args.hands, args.seed))
        p95 = times[int(0.95 * (len(times) - 1))]
        print(
            f"| {bot} | {args.game} | {len(times)} | {statistics.median(times):.1f} | "
            f"{p95:.1f} | {times[-1]:.1f} |"
        )


if __name__ == "__main__":
    main()
