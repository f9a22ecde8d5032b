"""The live server's HTTP rules, against a real `arena serve DIR` process: GET only, nothing
outside the tournament's folder, clear errors, and the event stream's resumption."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.helpers import REPO
from tests.serve.service import (
    free_port,
    get_json,
    json_or_none,
    request,
    running,
    sse_events,
    wait_for,
)

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def server(finished_tournament: Path, tmp_path_factory: pytest.TempPathFactory):  # type: ignore[no-untyped-def]
    """`arena serve` of the finished tournament, with a link inside it that points out."""
    outside = tmp_path_factory.mktemp("outside") / "secret.txt"
    outside.write_text("not the tournament's")
    (finished_tournament / "escape.txt").symlink_to(outside)
    port = free_port()
    with running(
        ["serve", str(finished_tournament), "--listen", f"127.0.0.1:{port}"], port, REPO
    ) as service:
        # The database is read once the server listens: wait until both matches are there,
        # so no test sees the state change under it.
        wait_for(
            "the finished matches",
            lambda: len((json_or_none(port, "/api/state") or {"finished": []})["finished"]) == 2,
        )
        yield service


TRAVERSALS = [
    "/files/../tournament.db",
    "/files/replays/../../etc/passwd",
    "/files/%2e%2e/%2e%2e/etc/passwd",
    "/files/%2E%2E%2Fetc%2Fpasswd",
    "/files/%252e%252e/%252e%252e/etc/passwd",
    "/files//etc/passwd",
    "/files/%2fetc%2fpasswd",
    "/files/..%5c..%5cetc%5cpasswd",
    "/files/replays/%00.json",
    "/files/escape.txt",
    "/../../etc/passwd",
    "/assets/../pages.py",
    "/assets/%2e%2e%2fpages.py",
    "/match/../../etc/passwd",
    "/replay/..%2f0",
]


@pytest.mark.parametrize("target", TRAVERSALS)
def test_a_path_out_of_the_folder_is_not_found(server, target: str) -> None:  # type: ignore[no-untyped-def]
    """Every way of naming a file outside the tournament's folder, encoded or not, is 404."""
    status, body = request(server.port, target)
    assert status == 404
    assert b"root:" not in body
    assert b"not the tournament's" not in body


def test_a_file_of_the_folder_is_served(server, finished_tournament: Path) -> None:  # type: ignore[no-untyped-def]
    """A file inside the folder (the report) is served as it is."""
    status, body = request(server.port, "/files/report.html")
    assert status == 200
    assert body == (finished_tournament / "report.html").read_bytes()


@pytest.mark.parametrize("method", ["POST", "PUT", "DELETE", "PATCH"])
def test_only_get_is_answered_and_nothing_changes(server, method: str) -> None:  # type: ignore[no-untyped-def]
    """Any method but GET and HEAD is 405, and the state is the same after it."""
    before = get_json(server.port, "/api/state")
    for target in ["/", "/api/state", "/events", "/files/report.html", "/match/0"]:
        status, _ = request(server.port, target, method, b'{"running": true}')
        assert status == 405
    after = get_json(server.port, "/api/state")
    assert after == before


def test_the_state_lists_the_finished_matches_and_standings(server) -> None:  # type: ignore[no-untyped-def]
    """``/api/state`` of a finished tournament: both matches with their replays, no match in
    progress, the standings of two matches."""
    state = get_json(server.port, "/api/state")
    assert state["in_progress"] == []
    assert sorted(m["match"] for m in state["finished"]) == [0, 1]
    assert all(m["replay"] == f"/replay/{m['match']}" for m in state["finished"])
    assert state["standings"]["matches"] == 2
    assert [b["name"] for b in state["standings"]["standings"]] == ["greedy", "random_bot"]


def test_a_finished_match_shows_its_replay(server) -> None:  # type: ignore[no-untyped-def]
    """``/replay/ID`` is the match's replay page; ``/match/ID/data.json`` its viewer data,
    every hand shown (a finished replay shows what it shows today)."""
    status, page = request(server.port, "/replay/0")
    assert status == 200
    assert b'id="viewer-data"' in page
    data = get_json(server.port, "/match/0/data.json")
    assert data["live"] is False
    assert data["steps"][-1]["kind"] == "match_end"
    assert any(tile for hand in data["steps"][1]["board"]["hands"] for tile in hand)


def test_unknown_paths_are_not_found(server) -> None:  # type: ignore[no-untyped-def]
    """A page or match that does not exist is 404."""
    for target in ["/nothing", "/match/99/data.json", "/match/x", "/replay/99", "/api"]:
        assert request(server.port, target)[0] == 404


def test_events_of_another_server_run_say_reset(server) -> None:  # type: ignore[no-untyped-def]
    """A ``Last-Event-ID`` of another server run cannot be resumed: the stream says ``reset``
    first (the client reloads)."""
    events = sse_events(server.port, "/events", 1, "Last-Event-ID: 0000dead-12\r\n")
    assert events == [("reset", json.dumps({"event": "reset"}, separators=(",", ":")))]


def test_a_port_in_use_is_one_line(server, finished_tournament: Path) -> None:  # type: ignore[no-untyped-def]
    """Serving on a port in use: one line naming it, exit code 2."""
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "arena",
            "serve",
            str(finished_tournament),
            "--listen",
            f"127.0.0.1:{server.port}",
        ],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 2
    where = f"--listen 127.0.0.1:{server.port}"
    assert done.stderr.strip().splitlines() == [
        f"arena serve: error: {where}: cannot listen there: Address already in use"
    ]
