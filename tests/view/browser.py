"""Headless Chromium for the viewer tests: how to start it, and a page wrapper that reads what
the viewer shows from the DOM.

Debian's ``chromium`` driven by Python Playwright with ``executable_path`` (Playwright's own
browser downloads are never used). The flags keep it off the network and working as root in a
container without a display or a GPU.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

#: The browser binary: Debian's chromium package, or ARENA_CHROMIUM.
CHROMIUM = Path(os.environ.get("ARENA_CHROMIUM", "/usr/bin/chromium"))

CHROMIUM_ARGS = [
    "--no-sandbox",  # root in a container: the setuid sandbox cannot start
    "--disable-gpu",
    "--disable-dev-shm-usage",  # a small /dev/shm in containers crashes the renderer
    "--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE localhost",  # no DNS look-ups at all
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-default-apps",
    "--disable-extensions",
    "--disable-sync",
    "--metrics-recording-only",
    "--no-first-run",
    "--no-default-browser-check",
    "--mute-audio",
]

#: Where screenshots of failed tests go (the CI keeps this folder as an artifact).
ARTIFACTS = Path(
    os.environ.get("ARENA_TEST_ARTIFACTS", Path(__file__).resolve().parents[2] / "test-artifacts")
)

# One evaluation reads everything a test compares, so a check costs one round trip.
_STATE_JS = """
() => {
  const app = document.getElementById("app");
  const q = (sel, root) => [...(root || document).querySelectorAll(sel)];
  const halves = (g) => g.getAttribute("data-halves").split(",").map(Number);
  const current = document.querySelector("#move-list li.current");
  const seats = {};
  for (const card of q(".seat")) {
    const count = card.querySelector(".tile-count");
    seats[card.dataset.seat] = {
      faceUp: q(".hand .tile.face-up", card).map(halves),
      faceDown: q(".hand .tile.face-down", card).length,
      count: count ? Number(count.dataset.count) : null,
      score: Number(card.querySelector(".score b").textContent),
      name: card.querySelector(".seat-name").textContent,
      retired: card.classList.contains("retired"),
      toMove: card.classList.contains("to-move"),
      badges: q(".seat-head .badge", card).map((b) => b.textContent),
    };
  }
  const boneyard = document.querySelector(".boneyard");
  const text = document.getElementById("event-text");
  const error = document.getElementById("error");
  const evidence = document.getElementById("evidence");
  const kind = document.querySelector("#event .event-head .kind");
  return {
    error: error ? error.textContent : null,
    step: app.dataset.step ? Number(app.dataset.step) : null,
    view: app.dataset.view || null,
    hash: location.hash,
    counter: (document.getElementById("step-counter") || {}).textContent || null,
    hand: (document.getElementById("hand-label") || {}).textContent || null,
    layout: q("#layout svg.chain g.tile").map((g) => [Number(g.dataset.index), halves(g)]),
    placed: q("#layout svg.chain g.tile.placed").map((g) => Number(g.dataset.index)),
    ends: q("#layout .end-marker").map((g) => [g.dataset.end, Number(g.dataset.value)]),
    text: text ? text.textContent : null,
    current: current ? { step: Number(current.dataset.step),
                         text: current.querySelector(".mv-text").textContent,
                         strike: current.classList.contains("mv-strike"),
                         badges: q(".mv-badge", current).map((b) => b.textContent) } : null,
    kind: kind ? kind.textContent : null,
    strikeBadge: (document.getElementById("strike-badge") || {}).textContent || null,
    seats,
    boneyard: boneyard ? Number(boneyard.dataset.count) : null,
    boneyardFaceUp: boneyard ? q(".face-up", boneyard).length : null,
    evidence: evidence ? evidence.textContent : null,
    evidenceTitle: evidence ? evidence.querySelector("h3").textContent : null,
    evidenceRows: evidence
      ? q("tr", evidence).map((tr) => q("th, td", tr).map((c) => c.textContent))
      : [],
    stderr: (document.querySelector("#evidence .stderr pre") || {}).textContent || null,
    clock: (document.getElementById("clock") || {}).textContent || null,
    debug: (document.querySelector("#debug q") || {}).textContent || null,
    slider: (document.getElementById("slider") || {}).value || null,
  };
}
"""


class ViewerPage:
    """A Playwright page showing a viewer page, with what the tests read and do."""

    def __init__(self, page: Any) -> None:
        self.page = page
        self.errors: list[str] = []
        self.requests: list[str] = []
        page.on("pageerror", self._on_error)
        page.on("request", self._on_request)

    def _on_error(self, error: Any) -> None:
        self.errors.append(str(error))

    def _on_request(self, request: Any) -> None:
        self.requests.append(request.url)

    def detach(self) -> None:
        """Stop listening to the page (it is reused by the next test)."""
        self.page.remove_listener("pageerror", self._on_error)
        self.page.remove_listener("request", self._on_request)

    def open(self, path: Path, fragment: str = "") -> dict[str, Any]:
        """Load the page from disk (optionally at ``#fragment``) and return its state."""
        self.page.goto(path.resolve().as_uri() + fragment)
        self.page.wait_for_selector("#app[data-step], #error")
        return self.state()

    def state(self) -> dict[str, Any]:
        """What the viewer shows now (see ``_STATE_JS``)."""
        result: dict[str, Any] = self.page.evaluate(_STATE_JS)
        return result

    def every_step(self) -> list[dict[str, Any]]:
        """The state at every step, read in one round trip: the page's viewer (exposed as
        ``window.arenaViewer``) goes to each step in turn, as the → key does."""
        script = (
            "() => { const read = " + _STATE_JS + "; const viewer = window.arenaViewer;"
            " const states = [];"
            " for (let i = 0; i < viewer.steps.length; i++) { viewer.go(i); states.push(read()); }"
            " return states; }"
        )
        states: list[dict[str, Any]] = self.page.evaluate(script)
        return states

    def press(self, key: str) -> dict[str, Any]:
        """Press ``key`` on the page and return the state after it."""
        self.page.keyboard.press(key)
        return self.state()

    def click(self, selector: str) -> dict[str, Any]:
        """Click ``selector`` and return the state after it."""
        self.page.click(selector)
        return self.state()

    def wait_for_step(self, done: Callable[[int], bool], timeout_s: float = 5.0) -> dict[str, Any]:
        """Poll until the shown step satisfies ``done``; return the state then.

        (Playwright's ``wait_for_function`` evaluates a string, which the page's
        Content-Security-Policy forbids.)
        """
        deadline = time.monotonic() + timeout_s
        while True:
            state = self.state()
            if state["step"] is not None and done(state["step"]):
                return state
            if time.monotonic() > deadline:
                raise AssertionError(f"the page stayed at step {state['step']}")
            self.page.wait_for_timeout(20)
