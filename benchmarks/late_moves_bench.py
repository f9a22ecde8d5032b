"""Moves the referee accepts late, by concurrency: when is the machine too small for the clocks?

Each row runs a real ``arena tournament`` (a subprocess, ``--sandbox none``) of the Python sample
bots at a short move limit and a given ``--concurrency``, then reads every replay: the moves,
those with ``late_ms`` (taken up past the deadline and accepted because the referee woke late),
the worst lateness, the timeouts, and the wall time. More bots thinking at once than CPUs make
the referee wake late; the row at one match per CPU is the reference.

Usage::

    python3 benchmarks/late_moves_bench.py --concurrency 2 8 32 --move-ms 100
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from arena.replay import Action, Status, read_replay  # noqa: E402


def run_row(concurrency: int, move_ms: int, entrants: int, hands: int, seed: int) -> dict[str, Any]:
    """One tournament at ``concurrency``; its late-move figures."""
    py = sys.executable
    bots = [
        f"{py} sample_bots/{'greedy' if i % 2 else 'random_bot'}.py seat-{i}"
        for i in range(entrants)
    ]
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "t"
        workers = min(concurrency, len(os.sched_getaffinity(0)))
        started = time.monotonic()
        run = subprocess.run(
            [py, "-m", "arena", "tournament", *bots, "--hands", str(hands), "--seed", str(seed),
             "--move-ms", str(move_ms), "--concurrency", str(concurrency),
             "--workers", str(workers), "--sandbox", "none", "--out", str(out)],
            cwd=ROOT, capture_output=True, text=True,
        )  # fmt: skip
        wall = time.monotonic() - started
        if run.returncode != 0:
            raise SystemExit(run.stderr)
        moves = late = timeouts = 0
        worst = 0.0
        for path in (out / "replays").glob("*.json"):
            replay = read_replay(path)
            timeouts += sum(s.status is Status.TIMEOUT for s in replay.seats)
            for hand in replay.hands:
                for event in hand.events:
                    if isinstance(event, Action) and not event.auto:
                        moves += 1
                        if event.late_ms is not None:
                            late += 1
                            worst = max(worst, event.late_ms)
        summary = [line for line in run.stdout.splitlines() if "accepted late" in line]
    return {
        "concurrency": concurrency,
        "workers": workers,
        "move_ms": move_ms,
        "moves": moves,
        "late": late,
        "late_share": late / moves if moves else 0.0,
        "worst_late_ms": worst,
        "timeouts": timeouts,
        "wall_s": round(wall, 1),
        "warned": "bots' clocks may run late" in run.stderr,
        "summary_line": summary[0] if summary else None,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--concurrency", type=int, nargs="+", default=[2, 8, 32])
    parser.add_argument("--move-ms", type=int, default=100)
    parser.add_argument("--entrants", type=int, default=8, help="sample bots (8: 56 matches)")
    parser.add_argument("--hands", type=int, default=2)
    parser.add_argument("--seed", type=int, default=20261201)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    rows = [
        run_row(c, args.move_ms, args.entrants, args.hands, args.seed) for c in args.concurrency
    ]
    if args.json:
        print(json.dumps(rows, indent=2))
        return 0
    print(f"CPUs {len(os.sched_getaffinity(0))}, --move-ms {args.move_ms}, sample bots")
    print("concurrency workers   moves   late  share  worst ms  timeouts  wall s  warned")
    for r in rows:
        print(
            f"{r['concurrency']:>11} {r['workers']:>7} {r['moves']:>7} {r['late']:>6} "
            f"{100 * r['late_share']:>5.2f}% {r['worst_late_ms']:>9.1f} {r['timeouts']:>9} "
            f"{r['wall_s']:>7} {'yes' if r['warned'] else 'no':>7}"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
