"""The live pages in a real browser (the session's Chromium), served by real `arena` processes:
a tournament of the sample bots (slowed down so that a match lasts a few seconds), and
`arena serve` of a finished one.

With ``ARENA_DOCS_SCREENSHOTS=1`` the tests also write docs/img/live-*.png (docs/live.md).
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.helpers import REPO
from tests.serve.service import GREEDY, RANDOM, Service, free_port, running, slowed
from tests.view.browser import ViewerPage

pytestmark = pytest.mark.slow

#: Seconds a browser check may wait for the tournament (a match lasts a few seconds).
WAIT_MS = 60_000
DOCS_IMG = REPO / "docs" / "img"


def screenshot(page: Any, name: str) -> None:
    """Write docs/img/NAME when asked to (ARENA_DOCS_SCREENSHOTS=1)."""
    if os.environ.get("ARENA_DOCS_SCREENSHOTS") == "1":
        page.screenshot(path=str(DOCS_IMG / name), type="png")


@pytest.fixture
def tournament(tmp_path: Path) -> Iterator[Service]:
    """A tournament of the two sample bots, slowed down, one match at a time (two matches),
    served on a free port."""
    port = free_port()
    args = ["tournament", slowed(GREEDY), slowed(RANDOM), "--hands", "3", "--seed", "2"]
    args += ["--concurrency", "1", "--workers", "1", "--out", str(tmp_path / "out")]
    with running([*args, "--serve", f"127.0.0.1:{port}"], port, REPO) as service:
        yield service


def test_home_shows_the_match_in_progress_and_the_standings_change(
    tournament: Service, viewer: ViewerPage
) -> None:
    """``/`` during the tournament: a match in progress with its seats, then, when it ends,
    the standings count it."""
    page = viewer.page
    page.goto(tournament.url + "/")
    row = page.wait_for_selector("#live-matches tr.in-progress", timeout=WAIT_MS)
    assert row is not None
    assert row.get_attribute("data-match") == "0"
    assert "slow" in row.inner_text()
    page.wait_for_function(
        "() => document.querySelector('#connection').textContent === 'live'", timeout=WAIT_MS
    )
    screenshot(page, "live-home.png")
    page.wait_for_function(
        "() => [...document.querySelectorAll('#standings-table tbody tr td:nth-child(5)')]"
        ".some((td) => td.textContent === '1')",
        timeout=WAIT_MS,
    )
    finished = page.query_selector_all("#finished-matches tr.finished")
    assert [f.get_attribute("data-match") for f in finished] == ["0"]
    assert page.query_selector("#finished-matches a").get_attribute("href") == "/replay/0"


def test_the_match_page_follows_the_moves_with_the_hands_hidden(
    tournament: Service, viewer: ViewerPage
) -> None:
    """``/match/0`` while it is played: steps arrive without a reload, the page follows the
    last one, no seat's tile is face up, and the clock of the seat to move runs."""
    page = viewer.page
    page.goto(tournament.url + "/match/0")
    page.wait_for_function(
        "() => window.arenaViewer && window.arenaViewer.steps.length > 3", timeout=WAIT_MS
    )
    first = page.evaluate("window.arenaViewer.steps.length")
    page.wait_for_function(f"() => window.arenaViewer.steps.length > {first + 3}", timeout=WAIT_MS)
    state = viewer.state()
    now, index, kind = page.evaluate(
        "() => { const v = window.arenaViewer; return [v.steps.length, v.index,"
        " v.steps[v.index].kind]; }"
    )
    assert index == now - 1  # it follows the last step
    if kind not in ("hand_end", "match_end"):
        assert all(seat["faceUp"] == [] for seat in state["seats"].values())
        assert sum(seat["faceDown"] for seat in state["seats"].values()) > 0
    assert page.query_selector("#live-state").inner_text() in ("live", "finished")
    screenshot(page, "live-match.png")
    # The replay controls look back while the moves keep coming.
    page.click("#btn-first")
    assert page.evaluate("window.arenaViewer.index") == 0
    page.wait_for_function(
        f"() => {{ const s = window.arenaViewer.steps; return s.length > {now} "
        "|| s[s.length - 1].kind === 'match_end'; }",
        timeout=WAIT_MS,
    )
    assert page.evaluate("window.arenaViewer.index") == 0


def test_tv_moves_to_the_next_match(tournament: Service, viewer: ViewerPage) -> None:
    """``/tv`` shows the match in progress, and the next one when it ends."""
    page = viewer.page
    page.goto(tournament.url + "/tv")
    page.wait_for_selector("#live-bar[data-match='0']", timeout=WAIT_MS)
    assert page.query_selector(".controls").is_hidden()
    screenshot(page, "live-tv.png")
    page.wait_for_selector("#live-bar[data-match='1']", timeout=WAIT_MS)
    page.wait_for_function("() => window.arenaViewer && window.arenaViewer.steps.length > 1")


def test_the_page_reconnects_after_the_server_restarts(
    finished_tournament: Path, viewer: ViewerPage
) -> None:
    """``/`` under `arena serve`: when the server stops the page says it is reconnecting, and
    when it is started again on the same port the page is live again, with the matches."""
    page = viewer.page
    port = free_port()
    args = ["serve", str(finished_tournament), "--listen", f"127.0.0.1:{port}"]
    live = "() => document.querySelector('#connection').textContent === 'live'"
    with running(args, port, REPO) as first:
        page.goto(first.url + "/")
        page.wait_for_function(live, timeout=WAIT_MS)
        page.wait_for_selector("#finished-matches tr.finished")
    page.wait_for_function(
        "() => document.querySelector('#connection').textContent === 'reconnecting…'",
        timeout=WAIT_MS,
    )
    with running(args, port, REPO):
        page.wait_for_function(live, timeout=WAIT_MS)
        page.wait_for_selector("#finished-matches tr.finished")
        assert len(page.query_selector_all("#finished-matches tr.finished")) == 2
