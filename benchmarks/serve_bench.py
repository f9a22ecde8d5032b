"""The live server's cost: a tournament of 64 concurrent matches, with and without ``--serve``
and 100 connected ``/events`` clients.

Each row runs a real ``arena tournament`` process (two worker processes, ``--concurrency 64``,
two entrants that are both ``benchmarks/c_bot/instant_bot.c``, which answer at once, so nearly
all the CPU is the arena's; ``--sandbox none``, generous clocks). A round runs the three
configurations one after another, in an order rotated by one each round, so that over three
rounds each runs once first, once second and once last (the first run of a round has tended to
be the cheapest: a fixed order biased the ratio by ~15%); ``--repeat`` rounds (a multiple of 3
keeps the orders balanced; the VM is shared and noisy). The table keeps the run with the least
referee CPU per move of each configuration; the CPU ratio is given both from those runs and as
the median over the rounds of each round's own served / off ratio (runs seconds apart share the
machine's state; rounds minutes apart do not), with a 95% interval of that median from
resampling the rounds (bootstrap):

- ``off``: no ``--serve`` (the workers build no live event);
- ``serve + 100 SSE``: ``--serve 127.0.0.1:PORT`` and 100 clients of ``/events``, each
  reading every byte until the server closes the stream, all started before the tournament and
  connected as soon as its socket listens: 10 timed clients, each a process of its own (this
  script's ``--timed-client``: a blocking socket read in chunks of up to 1 MiB; of each
  ``move`` event only its ``time`` is taken, by one bytes search per chunk, no JSON decoding,
  so a client never falls behind its own parsing), and 90 readers that discard what they read,
  all 90 connections held by one process (``--read-client PORT --connections 90``: 90
  processes of their own, curl's, took ~1.4 s to start after the socket listened, most of the
  tournament's play);
- ``serve, no client``: ``--serve`` with nobody connected (the cost of following the matches).

``--pin`` runs one worker process instead of two, it and its bots on vCPU 0, and moves the
tournament's parent (the server) to vCPU 1 once the worker exists (known by its command line;
the script stops if the worker is not on vCPU 0), with every client started on vCPU 1, so that
the local clients do not share the referee's vCPU (on a real contest they are other machines'
browsers).

Columns: ``moves``; ``ref µs/move``, the referee's CPU per move as the tournament reports it
(the workers' CPU less their file writing, over the moves: the live events' encoding and
writing are in it); ``wall s``; ``server CPU s``, the tournament's parent process (the server)
from start to end; and for the served row the move-to-client latency at the 10 timed clients
over every move made once all 100 clients were connected (``/api/stats``): ``p50 ms``, ``p95
ms``, ``max ms``, from the event's ``time`` (when the worker took the move from the referee)
to the read that completed the event; ``dropped`` clients (``/api/stats``). A line per served
run adds its p95, when the clients were all connected, and the timed clients' own CPU.
Targets: referee CPU per move at most 5% above ``off`` (both ratios), latency p95 at most 250 ms.

Usage::

    python3 benchmarks/serve_bench.py [--rounds 32] [--hands 8] [--repeat 3] [--clients 100] [--pin]
"""

from __future__ import annotations

import argparse
import contextlib
import functools
import json
import os
import random
import re
import resource
import selectors
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

CPU_LINE = re.compile(r"the arena's own CPU per move: ([0-9.]+) µs")
MOVES_LINE = re.compile(r"\(([0-9.]+) matches/s, ([0-9,]+) moves/s\)")
#: Clients whose every move event is timed (the others read and discard).
TIMED_CLIENTS = int(os.environ.get("SERVE_BENCH_TIMED", "10"))


def round_ratios(off: list[dict[str, float]], other: list[dict[str, float]]) -> list[float]:
    """Each round's referee CPU per move against the same round's ``off`` run: a round's
    runs follow one another within seconds, so they share the VM's mood of the moment (two
    ``off`` runs of different rounds have differed by up to 60%)."""
    return [o["ref_us"] / f["ref_us"] for f, o in zip(off, other, strict=True)]


def median_interval(ratios: list[float], draws: int = 10_000) -> tuple[float, float]:
    """A 95% interval of the median of ``ratios``, by resampling the rounds with replacement
    (a fixed seed: the same rounds give the same interval)."""
    rng = random.Random(0)
    medians = sorted(statistics.median(rng.choices(ratios, k=len(ratios))) for _ in range(draws))
    return medians[int(0.025 * draws)], medians[int(0.975 * draws) - 1]


ROW_NAMES = ("off", "serve0", "serve")


def row_order(index: int) -> tuple[str, ...]:
    """The order of the three rows in round ``index``: rotated by one each round, so that over
    every three rounds each row runs once first, once second and once last (the first run of a
    round has tended to be the cheapest: a fixed order biased the ratio by ~15%)."""
    shift = index % len(ROW_NAMES)
    return ROW_NAMES[shift:] + ROW_NAMES[:shift]


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def tournament_args(binary: Path, out: Path, rounds: int, hands: int, workers: int) -> list[str]:
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
        str(workers),
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


#: A move event's ``time``, found with one bytes search per chunk read (no JSON decoding):
#: the first ``"time":`` of the ``data:`` line of an ``event: move`` (the payload's own
#: ``time``; a move's own fields have none).
MOVE_TIME = re.compile(rb'event: move\ndata: [^\n]*?"time":([0-9.]+)')


class _StopError(Exception):
    """SIGTERM: a client stops reading and reports what it has."""


def _stop(signum: int, frame: object) -> None:
    raise _StopError


def _connect(port: int) -> socket.socket:
    """A connection to the server, once it listens (a client is started before it)."""
    deadline = time.monotonic() + 120
    while True:
        try:
            return socket.create_connection(("127.0.0.1", port))
        except ConnectionRefusedError:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.01)


def timed_client(port: int) -> int:
    """One timed ``/events`` client, in a process of its own (``--timed-client PORT``).

    A blocking socket read in chunks of up to 1 MiB until the server closes the stream;
    every byte is read. Each complete event of a chunk is stamped with the time of the read
    that completed it; of the ``move`` events, only the ``time`` field is taken
    (:data:`MOVE_TIME`). Prints one JSON object: ``moves`` as ``[time, lag]`` pairs, the
    bytes read, and this process's own CPU seconds (to show it kept up).
    """
    pairs: list[tuple[float, float]] = []
    received = 0
    signal.signal(signal.SIGTERM, _stop)
    with contextlib.suppress(_StopError), _connect(port) as sock:
        sock.sendall(b"GET /events HTTP/1.1\r\nHost: bench\r\n\r\n")
        pending = b""
        while True:
            try:
                data = sock.recv(1 << 20)
            except OSError:
                break
            if not data:
                break
            now = time.time()
            received += len(data)
            pending += data
            cut = pending.rfind(b"\n\n")
            if cut < 0:
                continue
            complete, pending = pending[: cut + 2], pending[cut + 2 :]
            for found in MOVE_TIME.finditer(complete):
                sent = float(found.group(1))
                pairs.append((sent, now - sent))
    usage = resource.getrusage(resource.RUSAGE_SELF)
    cpu = usage.ru_utime + usage.ru_stime
    print(json.dumps({"moves": pairs, "bytes": received, "cpu_s": cpu}))
    return 0


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


#: ``--pin``: the referee's vCPU (its one worker process and the bots) and the other one (the
#: tournament's parent, which serves, and every client).
REFEREE_CPU, SERVER_CPU = 0, 1


def _pinned(cpu: int | None) -> Callable[[], None] | None:
    """A ``preexec_fn`` that puts the child on ``cpu`` (None: no pinning)."""
    if cpu is None:
        return None
    return functools.partial(os.sched_setaffinity, 0, {cpu})


#: The tournament's worker processes' command line (`arena.tournament.pool`).
WORKER_MODULE = b"arena.tournament.worker"


def _children(pid: int) -> list[int]:
    """The child processes of every thread of ``pid`` (trio may start one from any thread)."""
    tasks = Path(f"/proc/{pid}/task")
    return [
        int(child) for task in tasks.iterdir() for child in (task / "children").read_text().split()
    ]


def _move_parent(process: subprocess.Popen[bytes]) -> list[int]:
    """``--pin``: once the tournament's worker exists (forked from the parent while the parent
    is still on the referee's vCPU, so it inherits it, and its bots from it), move every thread
    of the parent to the server's vCPU; the worker's pids.

    The worker is known by its command line: the parent starts other processes before it (the
    entrants' bots, for their ready check), and moving the parent when the first of those
    appeared put the worker, started after, on the server's vCPU with the clients."""
    deadline = time.monotonic() + 120
    workers: list[int] = []
    with contextlib.suppress(OSError):  # the process may be gone: run_once reports it
        while process.poll() is None and time.monotonic() < deadline:
            for child in _children(process.pid):
                with contextlib.suppress(OSError):
                    if WORKER_MODULE in Path(f"/proc/{child}/cmdline").read_bytes():
                        workers.append(child)
            if workers:
                break
            time.sleep(0.002)
        for task in Path(f"/proc/{process.pid}/task").iterdir():
            os.sched_setaffinity(int(task.name), {SERVER_CPU})
    return workers


def _check_pinned(process: subprocess.Popen[bytes], workers: list[int]) -> None:
    """``--pin``: stop the benchmark if the worker is not on the referee's vCPU."""
    if process.poll() is not None:
        return  # the tournament ended already: run_once reports what it printed
    if not workers:
        sys.exit("serve_bench: --pin: the tournament started no worker process within 120 s")
    where = sorted({_affinity(pid) for pid in workers})
    if where != [str(REFEREE_CPU)]:
        sys.exit(f"serve_bench: --pin: the worker runs on vCPU(s) {where}, not {REFEREE_CPU}")


def _affinity(pid: int) -> str:
    """The vCPUs ``pid`` may run on (``Cpus_allowed_list``), or ``?`` once it is gone."""
    with contextlib.suppress(OSError):
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("Cpus_allowed_list:"):
                return line.split()[1]
    return "?"


def run_once(
    binary: Path, rounds: int, hands: int, clients: int | None, pin: bool = False
) -> dict[str, float]:
    """One tournament (served to ``clients`` SSE clients, or not served); its figures."""
    client_cpu = SERVER_CPU if pin else None
    with tempfile.TemporaryDirectory() as tmp:
        args = tournament_args(binary, Path(tmp) / "out", rounds, hands, 1 if pin else 2)
        port = free_port()
        if clients is not None:
            args += ["--serve", f"127.0.0.1:{port}"]
        log = Path(tmp) / "log.txt"
        # Every client is started first (a Python process takes a tenth of a second to start)
        # and connects as soon as the server's socket listens (bound before anything is
        # played; hypercorn accepts them when it starts).
        children: list[subprocess.Popen[bytes]] = []
        process: subprocess.Popen[bytes] | None = None
        watched: dict[str, float] = {}
        try:  # whatever happens, every process started here is stopped
            _start_timed(port, clients or 0, children, client_cpu)
            timers = list(children)
            _start_readers(port, (clients or 0) - len(timers), children, client_cpu)
            readers = children[len(timers) :]
            started = time.monotonic()
            with log.open("wb") as out:
                process = subprocess.Popen(
                    args,
                    cwd=ROOT,
                    stdout=out,
                    stderr=subprocess.STDOUT,
                    env={**os.environ, "PYTHONPATH": str(ROOT)},
                    start_new_session=True,
                    preexec_fn=_pinned(REFEREE_CPU if pin else None),
                )
            if pin:
                _check_pinned(process, _move_parent(process))
            if clients is not None:
                watched = _watch(port, clients, timers, readers, log, process)
            process.wait(timeout=3600)
        finally:
            if process is not None and process.poll() is None:
                process.terminate()
                process.wait()
            _end(children)
        wall = time.monotonic() - started
        text = log.read_text()
    cpu = CPU_LINE.search(text)
    moves = MOVES_LINE.search(text)
    if cpu is None or moves is None:
        sys.exit(f"serve_bench: the tournament did not report its figures:\n{text[-2000:]}")
    figures = {"ref_us": float(cpu.group(1)), "wall_s": wall, **watched}
    total = re.search(r"played (\d+) matches", text)
    figures["matches"] = float(total.group(1)) if total else 0.0
    return figures


def _client(args: list[str], cpu: int | None, stdout: int | None = None) -> subprocess.Popen[bytes]:
    """A client process: this script with ``args``, in a session of its own, on ``cpu``."""
    return subprocess.Popen(
        [sys.executable, str(Path(__file__).resolve()), *args],
        stdin=subprocess.DEVNULL,
        stdout=stdout,
        start_new_session=True,
        preexec_fn=_pinned(cpu),
    )


def _start_timed(
    port: int, clients: int, started: list[subprocess.Popen[bytes]], cpu: int | None
) -> None:
    """Start the timed clients (processes of their own, :func:`timed_client`: each connects
    once the server's socket listens), appending each to ``started`` (so that all are
    stopped whatever happens)."""
    for _ in range(min(TIMED_CLIENTS, clients)):
        started.append(_client(["--timed-client", str(port)], cpu, subprocess.PIPE))


def _start_readers(
    port: int, count: int, started: list[subprocess.Popen[bytes]], cpu: int | None
) -> None:
    """Start the ``count`` clients that read every byte and discard it: one process of this
    script (``--read-client PORT --connections COUNT``) holding every one of their
    connections, started before the tournament like the timed clients (so that all are
    connected before the first move: 90 processes of their own took ~1.4 s to start, most of
    a 64-match tournament's play), appended to ``started``."""
    if count > 0:
        started.append(_client(["--read-client", str(port), "--connections", str(count)], cpu))


def _watch(
    port: int,
    clients: int,
    timers: list[subprocess.Popen[bytes]],
    readers: list[subprocess.Popen[bytes]],
    log: Path,
    process: subprocess.Popen[bytes],
) -> dict[str, float]:
    """Read until the tournament is over (its finished line), then read the dropped count
    and stop the server; the figures. The latency counts the moves made once every client
    was connected (``/api/stats`` ``clients``)."""
    connected: float | None = None
    dropped = -1.0
    try:
        while "still serving the finished pages" not in log.read_text():
            if process.poll() is not None:
                break
            if connected is None:
                try:
                    if stats(port)["clients"] >= clients:
                        connected = time.time()
                except OSError:  # not listening yet
                    pass
            time.sleep(0.02 if connected is None else 0.2)
        if process.poll() is None:
            final = stats(port)
            dropped = float(final["dropped"])
            figures = {"server_cpu_s": _cpu_seconds(process.pid), "dropped": dropped}
            figures["writes"] = float(final.get("writes", 0))
            process.terminate()  # the server closes every stream: the clients see the end
        else:
            figures = {"dropped": dropped}
        pairs: list[tuple[float, float]] = []
        client_cpu = 0.0
        received: list[int] = []
        for timer in timers:
            try:
                output, _ = timer.communicate(timeout=30)
            except subprocess.TimeoutExpired:
                timer.terminate()
                output, _ = timer.communicate()
            if output:
                result = json.loads(output)
                pairs += [(t, lag) for t, lag in result["moves"]]
                client_cpu += result["cpu_s"]
                received.append(result["bytes"])
    finally:
        _end([*timers, *readers])
    figures["client_cpu_s"] = client_cpu
    if received:
        figures["client_mb"] = statistics.mean(received) / 1e6
    if pairs:
        first = min(t for t, _ in pairs)
        figures["connected_s"] = (connected or float("inf")) - first
        lags = sorted(lag for t, lag in pairs if connected is not None and t >= connected)
        figures["timed"] = float(len(lags))
        if lags:
            figures["p50_ms"] = 1000 * statistics.median(lags)
            figures["p95_ms"] = 1000 * lags[int(0.95 * (len(lags) - 1))]
            figures["max_ms"] = 1000 * lags[-1]
    return figures


def _end(clients: list[subprocess.Popen[bytes]]) -> None:
    """Stop the clients still running, each with its process group."""
    for client in clients:
        if client.poll() is None:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(client.pid, signal.SIGTERM)
        client.wait()


def read_client(port: int, connections: int = 1) -> int:
    """``connections`` clients of ``/events`` that read every byte and discard it
    (``--read-client PORT --connections N``): each connects once the server listens, and all
    are read in one process until the server closes every stream."""
    request = b"GET /events HTTP/1.1\r\nHost: bench\r\n\r\n"
    signal.signal(signal.SIGTERM, _stop)
    with contextlib.suppress(_StopError), selectors.DefaultSelector() as selector:
        for _ in range(connections):
            sock = _connect(port)
            sock.sendall(request)
            sock.setblocking(False)
            selector.register(sock, selectors.EVENT_READ)
        open_streams = connections
        while open_streams:
            for key, _events in selector.select():
                sock = key.fileobj
                assert isinstance(sock, socket.socket)
                try:
                    data = sock.recv(1 << 20)
                except BlockingIOError:
                    continue
                except OSError:
                    data = b""
                if not data:
                    selector.unregister(sock)
                    sock.close()
                    open_streams -= 1
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=32, help="rounds (2 matches each)")
    parser.add_argument("--hands", type=int, default=8, help="hands per match")
    parser.add_argument(
        "--repeat", type=int, default=3, help="rounds (each runs every configuration once)"
    )
    parser.add_argument("--clients", type=int, default=100, help="SSE clients")
    parser.add_argument(
        "--pin",
        action="store_true",
        help="one worker process, it and its bots on vCPU 0; the server and its clients on vCPU 1",
    )
    parser.add_argument("--timed-client", type=int, metavar="PORT", help=argparse.SUPPRESS)
    parser.add_argument("--read-client", type=int, metavar="PORT", help=argparse.SUPPRESS)
    parser.add_argument("--connections", type=int, default=1, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.timed_client is not None:
        return timed_client(args.timed_client)
    if args.read_client is not None:
        return read_client(args.read_client, args.connections)
    if args.pin and not {REFEREE_CPU, SERVER_CPU} <= os.sched_getaffinity(0):
        parser.error(
            f"--pin needs vCPUs {REFEREE_CPU} and {SERVER_CPU}; this process may run on"
            f" {sorted(os.sched_getaffinity(0))}"
        )
    # Imported here: a client process (above) imports nothing of the arena's.
    sys.path.insert(0, str(ROOT))
    from benchmarks.referee_bench import build_c_bot

    binary = build_c_bot()
    runs: dict[str, list[dict[str, float]]] = {"off": [], "serve0": [], "serve": []}
    clients_of: dict[str, int | None] = {"off": None, "serve0": 0, "serve": args.clients}
    orders: list[tuple[str, ...]] = []
    for index in range(args.repeat):
        order = row_order(index)
        orders.append(order)
        for name in order:
            runs[name].append(run_once(binary, args.rounds, args.hands, clients_of[name], args.pin))
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
    every_idle = ", ".join(f"{r['ref_us']:.1f}" for r in runs["serve0"])
    every_served = ", ".join(f"{r['ref_us']:.1f}" for r in runs["serve"])
    paired = round_ratios(runs["off"], runs["serve"])
    paired_idle = round_ratios(runs["off"], runs["serve0"])
    print(f"\nreferee CPU per move, served / off (least of each): {ratio:.3f} (target <= 1.05)")
    low, high = median_interval(paired)
    print(
        f"referee CPU per move, served / off, median of the {len(paired)} rounds:"
        f" {statistics.median(paired):.3f} (target <= 1.05; 95% interval {low:.3f} to"
        f" {high:.3f}, from resampling the rounds); each round:"
        f" [{', '.join(f'{r:.3f}' for r in paired)}]"
    )
    print(
        f"serve, no client / off, median of the rounds: {statistics.median(paired_idle):.3f};"
        f" each round: [{', '.join(f'{r:.3f}' for r in paired_idle)}]"
    )
    print(f"every run, µs/move: off [{every}], no client [{every_idle}], served [{every_served}]")
    print(f"each round's order: {'; '.join(', '.join(order) for order in orders)}")
    for r in runs["serve"]:
        print(
            f"served run: p95 {r.get('p95_ms', float('nan')):.1f} ms over {r.get('timed', 0):.0f}"
            f" timed moves; wall {r['wall_s']:.1f} s; all {args.clients} clients connected"
            f" {r.get('connected_s', float('nan')):+.2f} s after the first move; the"
            f" {min(TIMED_CLIENTS, args.clients)} timed clients' CPU {r['client_cpu_s']:.2f} s;"
            f" {r.get('client_mb', 0):.1f} MB and {r.get('writes', 0) / args.clients:.0f} writes"
            " per client"
        )
    p95 = best["serve"].get("p95_ms")
    if p95 is not None:
        print(f"move-to-client latency p95: {p95:.1f} ms (target <= 250 ms)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
