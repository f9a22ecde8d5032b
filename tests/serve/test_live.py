"""A real tournament and a real match served live (``--serve``): every worker's moves reach
the server, the public view hides every hand, a client that stops reading is dropped, the
server keeps serving when it is over, and without ``--serve`` nothing of it is imported."""

from __future__ import annotations

import contextlib
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.helpers import REPO
from tests.serve.service import (
    GREEDY,
    RANDOM,
    finished_state,
    free_port,
    get_json,
    json_or_none,
    replay_moves,
    request,
    running,
    slowed,
    wait_for,
)

pytestmark = pytest.mark.slow


def test_every_workers_moves_reach_the_server_and_it_serves_after_the_end(
    tmp_path: Path,
) -> None:
    """A tournament on two workers: the server saw exactly the moves the replays hold, lists
    every match as finished, and keeps serving once the tournament is over."""
    port = free_port()
    out = tmp_path / "out"
    args = ["tournament", GREEDY, RANDOM, "--hands", "2", "--seed", "3", "--out", str(out)]
    args += ["--workers", "2", "--concurrency", "2", "--serve", f"127.0.0.1:{port}"]
    with running(args, port, REPO) as service:
        state = finished_state(service, port, 2)
        assert state["moves"] == replay_moves(out)
        assert sorted(m["match"] for m in state["finished"]) == [0, 1]
        assert state["running"] is False
        assert request(port, "/replay/0")[0] == 200
        code = service.stop()
    assert code == 0
    assert "the server is stopped" in service.output()


@pytest.mark.parametrize("reveal", [False, True], ids=["public", "revealed"])
def test_the_public_view_of_a_match_in_progress_hides_every_hand(
    tmp_path: Path, reveal: bool
) -> None:
    """``/match/ID/data.json`` of a match being played: no tile of any hand but at a hand's
    end, the boneyard as a count; ``--serve-reveal`` shows them."""
    port = free_port()
    args = ["play", slowed(GREEDY, 0.02), slowed(RANDOM, 0.02), "--hands", "3", "--seed", "4"]
    args += ["--replay", str(tmp_path / "m.json"), "--serve", f"127.0.0.1:{port}"]
    args += ["--serve-reveal"] if reveal else []
    url = "/match/1/data.json"
    with running(args, port, REPO):
        wait_for("a move", lambda: len((json_or_none(port, url) or {"steps": []})["steps"]) > 5)
        data = get_json(port, url)
    assert data["revealed"] is reveal
    tiles = [
        tile
        for step in data["steps"]
        if step["board"] is not None and step["kind"] not in ("hand_end", "match_end")
        for hand in step["board"]["hands"]
        for tile in hand
    ]
    assert tiles
    assert all(tile is None for tile in tiles) is not reveal
    assert all(isinstance(s["board"]["boneyard"], int) for s in data["steps"] if s["board"])


def test_a_client_that_stops_reading_is_dropped(tmp_path: Path) -> None:
    """An ``/events`` client that never reads is dropped while the others go on, and the
    server keeps at most its ring of events."""
    port = free_port()
    out = tmp_path / "out"
    # Far more matches than the test waits for (it stops the server once the client is
    # dropped), so the events keep coming however fast the machine plays them.
    args = ["tournament", GREEDY, RANDOM, GREEDY, "--rounds", "200", "--hands", "30"]
    args += ["--seed", "5", "--out", str(out), "--serve", f"127.0.0.1:{port}"]
    with running(args, port, REPO), contextlib.ExitStack() as sockets:
        stalled = sockets.enter_context(socket.socket())
        stalled.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
        stalled.connect(("127.0.0.1", port))
        stalled.sendall(b"GET /events HTTP/1.1\r\nHost: x\r\n\r\n")
        reading = sockets.enter_context(socket.create_connection(("127.0.0.1", port)))
        reading.sendall(b"GET /events HTTP/1.1\r\nHost: x\r\n\r\n")
        reading.settimeout(0.2)
        received = 0
        deadline = time.monotonic() + 90
        stats = get_json(port, "/api/stats")
        while not stats["dropped"] and time.monotonic() < deadline:
            with contextlib.suppress(TimeoutError):
                received += len(reading.recv(1 << 20))
            stats = get_json(port, "/api/stats")
        assert stats["dropped"] == 1
        assert stats["clients"] == 1  # the reading client is still served
        assert stats["ring"] <= 20_000
        assert received > 0
        stalled.settimeout(10)
        assert _read_to_close(stalled)  # what was buffered, then the server's close


def _read_to_close(sock: socket.socket) -> bool:
    """Read until the peer closes; whether it did."""
    try:
        while sock.recv(1 << 20):
            pass
    except ConnectionResetError:
        return True
    except TimeoutError:
        return False
    return True


def test_without_serve_nothing_of_the_server_is_imported(tmp_path: Path) -> None:
    """``arena play`` and ``arena tournament`` without ``--serve`` import no module of the
    server nor its web stack."""
    play = ["play", GREEDY, RANDOM, "--hands", "1", "--replay", str(tmp_path / "m.json")]
    tournament = ["tournament", GREEDY, RANDOM, "--hands", "1", "--out", str(tmp_path / "t")]
    code = (
        "import json, sys\n"
        "from arena.cli import main\n"
        f"assert main({play!r}) == 0\n"
        f"assert main({tournament!r}) == 0\n"
        "prefixes = ('arena.serve', 'arena.cli.serve', 'hypercorn')\n"
        "print(json.dumps(sorted(m for m in sys.modules if m.startswith(prefixes))))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=180,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip().splitlines()[-1] == "[]"


def test_serve_reveal_without_serve_is_a_usage_error() -> None:
    """``--serve-reveal`` alone: one line, exit code 2."""
    done = subprocess.run(
        [sys.executable, "-m", "arena", "play", GREEDY, RANDOM, "--serve-reveal"],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 2
    assert done.stderr.strip() == (
        "arena play: error: --serve-reveal shows every hand on the --serve pages: give --serve"
    )


@pytest.mark.parametrize("address", ["99999", "localhost:x", ":80:"])
def test_a_bad_address_is_one_line(address: str) -> None:
    """A ``--serve`` that is not [HOST:]PORT: one line, exit code 2."""
    done = subprocess.run(
        [sys.executable, "-m", "arena", "play", GREEDY, RANDOM, "--serve", address],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 2
    assert done.stderr.strip() == (
        f"arena play: error: --serve {address!r}: give [HOST:]PORT, a port from 0 to 65535"
    )


def test_another_interface_is_warned_about(tmp_path: Path) -> None:
    """Binding all interfaces prints that anyone on that network can watch."""
    port = free_port()
    args = ["play", slowed(GREEDY), RANDOM, "--hands", "1", "--replay", str(tmp_path / "m.json")]
    with running([*args, "--serve", f"0.0.0.0:{port}"], port, REPO) as service:
        wait_for("the warning", lambda: "anyone on that network can watch" in service.output())
