"""How far behind a remote match an ``/events`` client sees its moves (issue 13 on a cluster).

Starts a Dask scheduler and two one-thread workers on 127.0.0.1 (as ``tests/cluster`` does,
stopped by pid at the end), runs ``arena tournament --cluster ... --serve 127.0.0.1:PORT`` of
the two sample bots (greedy.py and random_bot.py, each slowed to ``--delay`` seconds a move by
``tests/bots/slow.py``, so the matches last while they are watched), and one raw-socket
``/events`` client in this process that takes each move event's ``time`` (when the worker
took the move from the referee) with one bytes search and subtracts it from the time it read
the event. Worker and client share this machine's clock.

Usage::

    python3 benchmarks/cluster_live_lag.py [--delay 0.01] [--hands 4] [--rounds 2]
"""

from __future__ import annotations

import argparse
import os
import re
import socket
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.cluster.dask_procs import start_cluster  # noqa: E402
from tests.serve.service import GREEDY, RANDOM, free_port, running, slowed, wait_for  # noqa: E402

_TIME = re.compile(rb'"time":([0-9.]+)')


def read_events(port: int, stop: threading.Event, lags: list[float]) -> None:
    """Follow ``/events`` until ``stop``; the lag of every move event, in seconds."""
    with socket.create_connection(("127.0.0.1", port)) as sock:
        sock.sendall(b"GET /events HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
        sock.settimeout(0.5)
        rest = b""
        while not stop.is_set():
            try:
                data = sock.recv(1 << 16)
            except TimeoutError:
                continue
            if not data:
                break
            now = time.time()
            *lines, rest = (rest + data).split(b"\n")
            for line in lines:
                if line.startswith(b"data:") and b'"move"' in line:
                    found = _TIME.search(line)
                    if found is not None:
                        lags.append(now - float(found.group(1)))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--delay", type=float, default=0.01, help="seconds a move (0.01)")
    parser.add_argument("--hands", type=int, default=4, help="hands a match (4)")
    parser.add_argument("--rounds", type=int, default=2, help="round-robin rounds (2)")
    args = parser.parse_args(argv)
    lags: list[float] = []
    with tempfile.TemporaryDirectory(prefix="cluster-live-") as tmp:
        cluster = start_cluster(Path(tmp), workers=2)
        try:
            port = free_port()
            bots = [slowed(GREEDY, args.delay), slowed(RANDOM, args.delay)]
            command = ["tournament", *bots, "--hands", str(args.hands), "--seed", "3"]
            command += ["--rounds", str(args.rounds), "--out", str(Path(tmp) / "t")]
            command += ["--cluster", cluster.address, "--serve", f"127.0.0.1:{port}"]
            with running(command, port, ROOT) as service:
                stop = threading.Event()
                reader = threading.Thread(target=read_events, args=(port, stop, lags))
                reader.start()
                ended = "still serving the finished pages"
                wait_for("the end", lambda: ended in service.output(), timeout=600)
                stop.set()
                reader.join()
                service.stop()
        finally:
            left = cluster.stop()
    if not lags:
        print("cluster_live_lag: no move event reached the client", file=sys.stderr)
        return 1
    lags.sort()
    n = len(lags)
    print(
        f"cluster_live_lag: 2 workers x 1 thread, sample bots slowed to {args.delay:g} s a "
        f"move, {args.hands} hands a match, {args.rounds} rounds; load average "
        f"{os.getloadavg()[0]:.1f}"
    )
    print(f"{'moves':>6} {'p50 ms':>7} {'p95 ms':>7} {'max ms':>7}")
    print(
        f"{n:>6} {lags[n // 2] * 1e3:>7.0f} {lags[int(n * 0.95)] * 1e3:>7.0f} "
        f"{lags[-1] * 1e3:>7.0f}"
    )
    if left:
        print(f"warning: processes of the benchmark's cluster survived: {sorted(left)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
