"""Make the viewer's screenshot for the README and docs/viewer.md, in the same headless Chromium
the tests use.

    python3 -m tests.view.screenshot [--out docs/img/viewer.png] [--seed 8] [--step N]

It plays a real three-player match of the sample bots (greedy in Python, greedy in JavaScript,
random), writes its viewer page, opens it at a telling step (by default, in the first hand, the
longest chain after a noted move while every seat still holds two tiles) and saves the picture.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

from arena.view.html import write_html
from arena.view.steps import StepKind, build_steps
from tests.view.browser import CHROMIUM, CHROMIUM_ARGS
from tests.view.matches import ROOT, play_processes

BOTS = [
    f"{sys.executable} {ROOT / 'sample_bots' / 'greedy.py'}",
    f"node {ROOT / 'sample_bots' / 'greedy.js'}",
    f"{sys.executable} {ROOT / 'sample_bots' / 'random_bot.py'}",
]


def main(argv: list[str] | None = None) -> int:
    """Play, write the page, take the screenshot; print where it went."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=ROOT / "docs" / "img" / "viewer.png")
    parser.add_argument("--seed", type=int, default=8)
    parser.add_argument("--step", type=int, help="the step to show (1-based; default: chosen)")
    parser.add_argument("--view", default="all", help="'all' or a seat number")
    args = parser.parse_args(argv)

    from playwright.sync_api import sync_playwright

    replay = play_processes(BOTS, seed=args.seed, hands=2)
    steps = build_steps(replay)
    step = args.step
    if step is None:
        noted = [
            i
            for i, s in enumerate(steps)
            if s.kind is StepKind.MOVE
            and s.hand_number == 1
            and s.move is not None
            and s.move.kind == "play"
            and s.action is not None
            and s.action.debug
            and s.board is not None
            and min(len(h) for h in s.board.hands) >= 2
        ]
        step = 1 + max(noted, key=lambda i: len(steps[i].board.layout) if steps[i].board else 0)
    with tempfile.TemporaryDirectory() as folder:
        page_path = write_html(replay, Path(folder) / "viewer.html")
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(
                executable_path=str(CHROMIUM), headless=True, args=CHROMIUM_ARGS
            )
            page = browser.new_page(viewport={"width": 1400, "height": 860})
            fragment = f"#move={step}" + ("" if args.view == "all" else f"&view={args.view}")
            page.goto(page_path.resolve().as_uri() + fragment)
            page.wait_for_selector("#app[data-step]")
            page.wait_for_timeout(2000)  # let the just-played tile's pulse settle
            args.out.parent.mkdir(parents=True, exist_ok=True)
            page.screenshot(path=str(args.out))
            browser.close()
    print(f"wrote {args.out} (seed {args.seed}, step {step} of {len(steps)})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
