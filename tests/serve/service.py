"""The live server as the tests run it: a real `arena` process on a free loopback port, stopped
by its pid; raw HTTP requests (exactly the bytes a test means, no client normalising a path);
and an SSE reader."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from tests.helpers import BOTS, PY, REPO

SAMPLE = REPO / "sample_bots"
#: The sample bots, as a tournament plays them.
GREEDY = f"{PY} {SAMPLE / 'greedy.py'}"
RANDOM = f"{PY} {SAMPLE / 'random_bot.py'}"


def slowed(command: str, seconds: float = 0.03) -> str:
    """``command`` (a bot) slowed down by tests/bots/slow.py: a match lasts long enough to
    watch it."""
    return f"{PY} {BOTS / 'slow.py'} {seconds} {command}"


def free_port() -> int:
    """A loopback port nobody listens on now."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


class Service:
    """A running `arena` command that serves on ``port``."""

    def __init__(self, args: list[str], port: int, cwd: Path) -> None:
        self.port = port
        # The command's output, in a file of its own outside the repository.
        handle, name = tempfile.mkstemp(prefix=f"arena-{port}-", suffix=".log")
        os.close(handle)
        self.log = Path(name)
        with self.log.open("wb") as log:
            self.process = subprocess.Popen(
                [sys.executable, "-m", "arena", *args],
                cwd=cwd,
                stdout=log,
                stderr=subprocess.STDOUT,
                stdin=subprocess.DEVNULL,
                env={**os.environ, "PYTHONPATH": str(REPO)},
                start_new_session=True,
            )

    @property
    def url(self) -> str:
        """The server's address for the browser (its host rules resolve only ``localhost``)."""
        return f"http://localhost:{self.port}"

    def wait_listening(self, timeout: float = 60.0) -> None:
        """Return once the server accepts connections (or fail with its output)."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise AssertionError(f"the server exited: {self.output()}")
            try:
                with socket.create_connection(("127.0.0.1", self.port), timeout=0.5):
                    return
            except OSError:
                time.sleep(0.05)
        raise AssertionError(f"the server did not listen in {timeout} s: {self.output()}")

    def output(self) -> str:
        return self.log.read_text(errors="replace")

    def stop(self) -> int:
        """SIGTERM by pid (a grace), then SIGKILL; the exit code."""
        if self.process.poll() is None:
            os.kill(self.process.pid, signal.SIGTERM)
            try:
                self.process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                os.killpg(self.process.pid, signal.SIGKILL)
                self.process.wait()
        return self.process.returncode


@contextmanager
def running(args: list[str], port: int, cwd: Path) -> Iterator[Service]:
    """The `arena` command ``args`` serving on ``port``, stopped at the end."""
    service = Service(args, port, cwd)
    try:
        service.wait_listening()
        yield service
    finally:
        service.stop()


def request(port: int, target: str, method: str = "GET", body: bytes = b"") -> tuple[int, bytes]:
    """One HTTP/1.1 request sent as written (``target`` exactly as given); status and body."""
    with socket.create_connection(("127.0.0.1", port), timeout=30) as sock:
        head = (
            f"{method} {target} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nConnection: close\r\n"
            f"Content-Length: {len(body)}\r\n\r\n"
        )
        sock.sendall(head.encode("latin-1") + body)
        data = b""
        while chunk := sock.recv(65536):
            data += chunk
    status_line, _, rest = data.partition(b"\r\n")
    _headers, _, payload = rest.partition(b"\r\n\r\n")
    return int(status_line.split()[1]), payload


def json_or_none(port: int, target: str) -> Any:
    """The JSON at ``target``, or ``None`` when it is not there (yet)."""
    status, body = request(port, target)
    return json.loads(body) if status == 200 else None


def get_json(port: int, target: str) -> Any:
    status, body = request(port, target)
    assert status == 200, (target, status, body[:200])
    return json.loads(body)


def wait_for(what: str, check: Any, timeout: float = 60.0) -> Any:
    """Poll ``check()`` until it returns something true; that value."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = check()
        if value:
            return value
        time.sleep(0.1)
    raise AssertionError(f"timed out waiting for {what}")


def sse_events(port: int, target: str, count: int, headers: str = "") -> list[tuple[str, str]]:
    """The first ``count`` events of the stream at ``target``: (event, data) pairs."""
    with socket.create_connection(("127.0.0.1", port), timeout=30) as sock:
        head = f"GET {target} HTTP/1.1\r\nHost: x\r\nAccept: text/event-stream\r\n{headers}\r\n"
        sock.sendall(head.encode())
        data = b""
        events: list[tuple[str, str]] = []
        while len(events) < count:
            chunk = sock.recv(65536)
            if not chunk:
                break
            data += chunk
            events = _parse(data.partition(b"\r\n\r\n")[2])
        return events[:count]


def _parse(body: bytes) -> list[tuple[str, str]]:
    """SSE events of a chunked body (the chunk sizes are lines that are neither fields nor
    empty, and are skipped)."""
    events = []
    kind, data = "message", ""
    for raw in body.split(b"\r\n"):
        for line in raw.decode("utf-8", "replace").split("\n"):
            if line.startswith("event: "):
                kind = line[7:]
            elif line.startswith("data: "):
                data = line[6:]
            elif line == "" and data:
                events.append((kind, data))
                kind, data = "message", ""
    return events


def finished_state(service: Service, port: int, matches: int) -> Any:
    """``/api/state`` once the tournament served by ``service`` is over and its ``matches``
    are in the standings."""
    wait_for("the end", lambda: "still serving the finished pages" in service.output())
    return wait_for(
        "the results",
        lambda: (
            (s := get_json(port, "/api/state"))["standings"]
            and s["standings"]["matches"] == matches
            and s
        ),
    )


def replay_moves(out: Path) -> int:
    """How many moves the replays of the tournament in ``out`` hold."""
    from arena.replay import Action, read_replay

    replays = sorted((out / "replays").glob("*.json"))
    return sum(
        isinstance(e, Action) for r in replays for h in read_replay(r).hands for e in h.events
    )
