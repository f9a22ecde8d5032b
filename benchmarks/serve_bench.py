"""The live server's cost: a tournament of 64 concurrent matches, with and without ``--serve``
and 100 connected ``/events`` clients.

Each row runs a real ``arena tournament`` process (two worker processes, ``--concurrency 64``,
two entrants that are both ``benchmarks/c_bot/instant_bot.c``, which answer at once, so nearly
all the CPU is the arena's; ``--sandbox none``, generous clocks), alternating the two
configurations ``--repeat`` times (the VM is shared and noisy) and keeping the run with the
least referee CPU per move of each:

- ``off``: no ``--serve`` (the workers build no live event);
- ``serve + 100 SSE``: ``--serve 127.0.0.1:PORT`` and 100 clients of ``/events`` in this
  process (10 of them raw sockets under trio, which time every move; 90 ``curl`` processes
  that read and discard, when curl is installed), connected before the first match starts and
  reading everything until the tournament is over;
- ``serve, no client``: ``--serve`` with nobody connected (the cost of following the matches).

Columns: ``moves``; ``ref µs/move``, the referee's CPU per move as the tournament reports it
(the workers' CPU less their file writing, over the moves: the live events' encoding and
writing are in it); ``wall s``; and for the served row the move-to-client latency over every
move event at 10 of the clients (the others read and discard): ``p50 ms``, ``p95 ms``,
``max ms``, from the event's ``time`` (when the worker took the move from the referee) to the
moment this process read it; ``dropped`` clients (``/api/stats``). Targets: referee CPU per
move at most 5% above ``off``, latency p95 at most 250 ms.

Usage::

    python3 benchmarks/serve_bench.py [--rounds 32] [--hands 8] [--repeat 2] [--clients 100]
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import trio

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from benchmarks.referee_bench import build_c_bot  # noqa: E402

CPU_LINE = re.compile(r"the arena's own CPU per move: ([0-9.]+) µs")
MOVES_LINE = re.compile(r"\(([0-9.]+) matches/s, ([0-9,]+) moves/s\)")
#: Clients whose every move event is timed (the others read and discard).
TIMED_CLIENTS = int(os.environ.get("SERVE_BENCH_TIMED", "10"))


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def tournament_args(binary: Path, out: Path, rounds: int, hands: int) -> list[str]:
    bots = [f"{binary} seat-0", f"{binary} seat-1"]
    return [
        sys.executable,
        "-m",
        "arena",
        "tournament",
        *bots,
        "--rounds",
        str(rounds),
        "--hands",
        str(hands),
        "--concurrency",
        "64",
        "--workers",
        "2",
        "--seed",
        "1",
        "--sandbox",
        "none",
        "--startup-ms",
        "30000",
        "--move-ms",
        "10000",
        "--out",
        str(out),
    ]


class Client:
    """One ``/events`` client: reads everything; a timed one parses each move's ``time``."""

    def __init__(self, timed: bool) -> None:
        self.timed = timed
        self.lags: list[float] = []
        self.buffer = b""

    async def run(self, port: int) -> None:
        stream = await trio.open_tcp_stream("127.0.0.1", port)
        await stream.send_all(b"GET /events HTTP/1.1\r\nHost: bench\r\n\r\n")
        while True:
            try:
                data = await stream.receive_some(1 << 20)
            except trio.BrokenResourceError:
                return
            if not data:
                return
            if self.timed:
                self.feed(data, time.time())

    def feed(self, data: bytes, now: float) -> None:
        self.buffer += data
        *events, self.buffer = self.buffer.split(b"\n\n")
        for event in events:
            if b"event: move\n" not in event:
                continue
            line = event[event.index(b"data: ") + 6 :].split(b"\n", 1)[0]
            self.lags.append(now - json.loads(line)["time"])


#: The served tournament's parent process CPU (seconds), read before it is stopped.
_PARENT_CPU: list[float] = []


def _cpu_seconds(pid: int) -> float:
    """A process's own user + system CPU, from /proc."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def stats(port: int) -> dict[str, int]:
    with socket.create_connection(("127.0.0.1", port), timeout=30) as sock:
        sock.sendall(b"GET /api/stats HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        data = b""
        while chunk := sock.recv(65536):
            data += chunk
    result: dict[str, int] = json.loads(data.split(b"\r\n\r\n", 1)[1])
    return result


def run_once(binary: Path, rounds: int, hands: int, clients: int | None) -> dict[str, float]:
    """One tournament (served to ``clients`` SSE clients, or not served); its figures."""
    with tempfile.TemporaryDirectory() as tmp:
        args = tournament_args(binary, Path(tmp) / "out", rounds, hands)
        port = free_port()
        if clients is not None:
            args += ["--serve", f"127.0.0.1:{port}"]
        log = Path(tmp) / "log.txt"
        started = time.monotonic()
        with log.open("wb") as out:
            process = subprocess.Popen(
                args,
                cwd=ROOT,
                stdout=out,
                stderr=subprocess.STDOUT,
                env={**os.environ, "PYTHONPATH": str(ROOT)},
                start_new_session=True,
            )
        watchers = [Client(i < TIMED_CLIENTS) for i in range(clients or 0)]
        dropped = 0
        try:
            if clients is not None:
                dropped = trio.run(_watch, port, watchers, log, process)
            process.wait(timeout=3600)
        finally:
            if process.poll() is None:
                process.terminate()
                process.wait()
        wall = time.monotonic() - started
        text = log.read_text()
    cpu = CPU_LINE.search(text)
    moves = MOVES_LINE.search(text)
    if cpu is None or moves is None:
        sys.exit(f"serve_bench: the tournament did not report its figures:\n{text[-2000:]}")
    lags = sorted(lag for w in watchers for lag in w.lags)
    figures = {"ref_us": float(cpu.group(1)), "wall_s": wall, "dropped": float(dropped)}
    if clients is not None and _PARENT_CPU:
        figures["server_cpu_s"] = _PARENT_CPU.pop()
    total = re.search(r"played (\d+) matches", text)
    figures["matches"] = float(total.group(1)) if total else 0.0
    if lags:
        figures["p50_ms"] = 1000 * statistics.median(lags)
        figures["p95_ms"] = 1000 * lags[int(0.95 * (len(lags) - 1))]
        figures["max_ms"] = 1000 * lags[-1]
        figures["timed"] = float(len(lags))
    return figures


async def _watch(
    port: int, watchers: list[Client], log: Path, process: subprocess.Popen[bytes]
) -> int:
    """Connect every client as soon as the server listens; read until the tournament is over
    (its finished line), then read the dropped count and stop the server."""
    while True:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=1):
                break
        except OSError:
            if process.poll() is not None:
                return 0
            await trio.sleep(0.05)
    # The clients that are not timed are curl processes when curl is there (100 browsers are
    # not in the arena's machine: this process reading 100 streams in Python would be the
    # slowest client of all, and its CPU the machine's).
    curl = shutil.which("curl")
    readers = []
    async with trio.open_nursery() as nursery:
        for watcher in watchers:
            if watcher.timed or curl is None:
                nursery.start_soon(watcher.run, port)
            else:
                argv = [curl, "-sN", "-o", os.devnull, f"http://127.0.0.1:{port}/events"]
                readers.append(await trio.to_thread.run_sync(_start, argv))
        while "still serving the finished pages" not in await trio.Path(log).read_text():
            if process.poll() is not None:
                break
            await trio.sleep(0.2)
        dropped = stats(port)["dropped"] if process.poll() is None else -1
        _PARENT_CPU.append(_cpu_seconds(process.pid))
        process.terminate()
        nursery.cancel_scope.cancel()
    for reader in readers:
        reader.terminate()
        reader.wait()
    return dropped


def _start(argv: list[str]) -> subprocess.Popen[bytes]:
    return subprocess.Popen(argv, stdin=subprocess.DEVNULL)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=32, help="rounds (2 matches each)")
    parser.add_argument("--hands", type=int, default=8, help="hands per match")
    parser.add_argument("--repeat", type=int, default=2, help="runs of each configuration")
    parser.add_argument("--clients", type=int, default=100, help="SSE clients")
    args = parser.parse_args(argv)
    binary = build_c_bot()
    runs: dict[str, list[dict[str, float]]] = {"off": [], "serve0": [], "serve": []}
    for _ in range(args.repeat):
        runs["off"].append(run_once(binary, args.rounds, args.hands, None))
        runs["serve0"].append(run_once(binary, args.rounds, args.hands, 0))
        runs["serve"].append(run_once(binary, args.rounds, args.hands, args.clients))
    best = {name: min(rows, key=lambda r: r["ref_us"]) for name, rows in runs.items()}
    head = f"{'row':<22}{'matches':>8}{'ref µs/move':>13}{'wall s':>8}"
    head += f"{'server CPU s':>14}{'p50 ms':>9}{'p95 ms':>9}{'max ms':>9}{'dropped':>9}"
    print(head)
    rows = (
        ("off", "off"),
        ("serve0", "serve, no client"),
        ("serve", f"serve + {args.clients} SSE"),
    )
    for name, label in rows:
        r = best[name]
        line = f"{label:<22}{r['matches']:>8.0f}{r['ref_us']:>13.1f}{r['wall_s']:>8.1f}"
        line += f"{r['server_cpu_s']:>14.2f}" if "server_cpu_s" in r else f"{'':>14}"
        if "p95_ms" in r:
            line += f"{r['p50_ms']:>9.1f}{r['p95_ms']:>9.1f}{r['max_ms']:>9.1f}{r['dropped']:>9.0f}"
        print(line)
    ratio = best["serve"]["ref_us"] / best["off"]["ref_us"]
    every = ", ".join(f"{r['ref_us']:.1f}" for r in runs["off"])
    every_served = ", ".join(f"{r['ref_us']:.1f}" for r in runs["serve"])
    print(f"\nreferee CPU per move, served / off: {ratio:.3f} (target <= 1.05)")
    print(f"every run, µs/move: off [{every}], served [{every_served}]")
    p95 = best["serve"].get("p95_ms")
    if p95 is not None:
        print(f"move-to-client latency p95: {p95:.1f} ms (target <= 250 ms)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
