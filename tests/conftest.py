"""Fixtures shared by the whole suite: trio's autojumping mock clock (its factory and the
runner on it live in :mod:`tests.helpers`, beside the one factory of test-bot command lines),
one headless Chromium per session (the viewer, report and golden tests drive it), a fresh blank
page per test, and a screenshot of the page in test-artifacts/ when a test fails. Playwright's
sync API allows one instance per thread, so the browser is defined here once, never again in a
folder's conftest."""

from __future__ import annotations

import os
import re
from collections.abc import Iterator
from typing import Any

import pytest
import trio.testing

from tests import helpers
from tests.view.browser import ARTIFACTS, CHROMIUM, CHROMIUM_ARGS, ViewerPage

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


@pytest.fixture
def autojump_clock() -> trio.testing.MockClock:
    """Trio's mock clock that jumps whenever every task sleeps (pass it as ``clock=``)."""
    return helpers.autojump_clock()


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
