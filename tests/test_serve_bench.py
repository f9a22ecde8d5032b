"""The live server benchmark's own mechanics (`benchmarks/serve_bench.py`): the rows' order,
the interval of its median, the ``--pin`` layout and the reading clients. Its figures are the
benchmark's to print, never asserted here."""

from __future__ import annotations

import importlib.util
import os
import signal
import socket
import subprocess
import sys
import textwrap
import threading
from collections import Counter
from pathlib import Path
from types import ModuleType

import pytest

ROOT = Path(__file__).parents[1]


def _load() -> ModuleType:
    spec = importlib.util.spec_from_file_location("serve_bench", ROOT / "benchmarks/serve_bench.py")
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


serve_bench = _load()


def test_each_row_runs_first_second_and_last_once_in_three_rounds() -> None:
    orders = [serve_bench.row_order(i) for i in range(6)]
    assert orders[0] == ("off", "serve0", "serve")
    assert orders[1] == ("serve0", "serve", "off")
    assert orders[2] == ("serve", "off", "serve0")
    assert orders[3:] == orders[:3]
    positions = Counter((name, place) for order in orders[:3] for place, name in enumerate(order))
    assert set(positions.values()) == {1}
    assert len(positions) == 9


def test_the_median_interval_holds_the_median_and_is_the_same_every_time() -> None:
    ratios = [1.155, 1.372, 1.214, 0.944, 1.040, 0.864, 1.602, 1.215, 1.158]
    low, high = serve_bench.median_interval(ratios)
    assert low <= 1.158 <= high
    assert min(ratios) <= low < high <= max(ratios)
    assert serve_bench.median_interval(ratios) == (low, high)
    assert serve_bench.median_interval([1.02] * 5) == (1.02, 1.02)


PARENT = textwrap.dedent(
    """
    import subprocess, sys, time
    # as the tournament does: the entrants' bots first (their ready check), the worker after
    decoy = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    time.sleep(0.5)
    worker = subprocess.Popen(
        [sys.executable, "-c", "import time; time.sleep(60)", "arena.tournament.worker"]
    )
    print(decoy.pid, worker.pid, flush=True)
    time.sleep(60)
    """
)


@pytest.mark.skipif(
    not {0, 1} <= os.sched_getaffinity(0), reason="--pin needs vCPUs 0 and 1 for this process"
)
def test_pin_moves_the_parent_only_once_the_worker_exists() -> None:
    """The worker is forked while the parent is still on the referee's vCPU; a child started
    before it (the ready-check bots) does not move the parent early."""
    parent = subprocess.Popen(
        [sys.executable, "-c", PARENT],
        stdout=subprocess.PIPE,
        start_new_session=True,
        preexec_fn=lambda: os.sched_setaffinity(0, {serve_bench.REFEREE_CPU}),
    )
    try:
        workers = serve_bench._move_parent(parent)
        assert parent.stdout is not None
        _decoy, worker = map(int, parent.stdout.readline().split())
        assert workers == [worker]
        assert serve_bench._affinity(worker) == str(serve_bench.REFEREE_CPU)
        assert serve_bench._affinity(parent.pid) == str(serve_bench.SERVER_CPU)
        serve_bench._check_pinned(parent, workers)  # does not stop: the worker is where it belongs
    finally:
        os.killpg(parent.pid, signal.SIGKILL)
        parent.wait()
        assert parent.stdout is not None
        parent.stdout.close()


def test_one_reader_process_holds_every_connection_until_the_server_closes_them() -> None:
    requests: list[bytes] = []
    with socket.create_server(("127.0.0.1", 0)) as server:
        port = server.getsockname()[1]

        def serve() -> None:
            connections = [server.accept()[0] for _ in range(3)]
            for conn in connections:
                requests.append(conn.recv(1024))
                conn.sendall(b"HTTP/1.1 200 OK\r\n\r\n" + b"data: x\n\n" * 10_000)
            for conn in connections:
                conn.close()

        thread = threading.Thread(target=serve)
        thread.start()
        assert serve_bench.read_client(port, connections=3) == 0
        thread.join(timeout=10)
    assert requests == [b"GET /events HTTP/1.1\r\nHost: bench\r\n\r\n"] * 3
