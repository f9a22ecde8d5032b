"""Fixtures of the viewer tests: one headless Chromium per session, a fresh page per test, and
a screenshot of the page in test-artifacts/ when a test fails; the matches played under the
``lenient`` failure policy."""

from __future__ import annotations

import os
import re
from collections.abc import Iterator
from typing import Any

import pytest

from arena.replay import Replay
from tests.view.browser import ARTIFACTS, CHROMIUM, CHROMIUM_ARGS, ViewerPage
from tests.view.matches import LENIENT, play_lenient, play_scripted, scripted_bot

try:
    from playwright.sync_api import sync_playwright
except ImportError:  # a local run without the test extra: the browser tests skip, saying why
    sync_playwright = None

_REPORTS = pytest.StashKey[dict[str, pytest.TestReport]]()


@pytest.hookimpl(wrapper=True, tryfirst=True)
def pytest_runtest_makereport(
    item: pytest.Item, call: pytest.CallInfo[None]
) -> Iterator[None] | Any:
    """Keep each phase's report on the test item, so a fixture can see that the test failed."""
    report = yield
    item.stash.setdefault(_REPORTS, {})[report.when] = report
    return report


def _missing_browser() -> str | None:
    """Why the browser tests cannot run here, or ``None`` when they can."""
    if sync_playwright is None:
        return "Python Playwright is not installed (pip install -e '.[test]')"
    if not CHROMIUM.exists():
        return f"no Chromium at {CHROMIUM} (apt-get install -y chromium, or set ARENA_CHROMIUM)"
    return None


@pytest.fixture(scope="session")
def browser() -> Iterator[Any]:
    """One headless Chromium for the whole session (about 0.5 s to start)."""
    missing = _missing_browser()
    if missing is not None:
        if os.environ.get("CI") == "true":  # .ci/run installs both: missing there is a bug
            pytest.fail(f"the browser tests cannot run in CI: {missing}")
        pytest.skip(missing)
    assert sync_playwright is not None
    with sync_playwright() as playwright:
        chromium = playwright.chromium.launch(
            executable_path=str(CHROMIUM), headless=True, args=CHROMIUM_ARGS
        )
        try:
            yield chromium
        finally:
            chromium.close()


@pytest.fixture(scope="session")
def shared_page(browser: Any) -> Iterator[Any]:
    """One page for every test (a new page costs ~0.2 s); each test starts from a blank one."""
    context = browser.new_context(viewport={"width": 1400, "height": 900})
    try:
        yield context.new_page()
    finally:
        context.close()


@pytest.fixture
def viewer(shared_page: Any, request: pytest.FixtureRequest) -> Iterator[ViewerPage]:
    """The page, blank, for one test; on failure its screenshot goes to test-artifacts/TEST.png.
    A script error on the page fails the test."""
    shared_page.goto("about:blank")
    page = ViewerPage(shared_page)
    try:
        yield page
        reports = request.node.stash.get(_REPORTS, {})
        if any(r.failed for r in reports.values()):
            ARTIFACTS.mkdir(parents=True, exist_ok=True)
            name = re.sub(r"[^\w.-]+", "_", request.node.nodeid.split("::", 1)[-1])
            shared_page.screenshot(path=str(ARTIFACTS / f"{name}.png"), full_page=True)
        assert not page.errors, f"script errors on the page: {page.errors}"
    finally:
        page.detach()


# -- matches under the lenient failure policy --------------------------------------------------


@pytest.fixture(scope="module")
def lenient(tmp_path_factory: pytest.TempPathFactory) -> Replay:
    """Policy lenient, seed 2: seat 0 ("wobbly", in-memory) is struck once at its 2nd request,
    seat 1 (tests/bots/player.py, a real process) crashes at its 3rd and is restarted
    (:func:`tests.view.matches.play_lenient`)."""
    return play_lenient(tmp_path_factory.mktemp("lenient") / "crashed")


@pytest.fixture(scope="module")
def struck_out() -> Replay:
    """Policy lenient, three seats, seed 6: seat 2 ("wobbly") passes illegally at its 2nd, 3rd
    and 4th requests: two strikes, then the third forfeits (retired, two seats play on)."""
    return play_scripted(
        [scripted_bot("first"), scripted_bot("second"), scripted_bot("wobbly", fail_at=(2, 3, 4))],
        seed=6,
        policy=LENIENT,
    )
