"""Make the tournament report's screenshot for docs/tournaments.md, in the same headless
Chromium the tests use.

    python3 -m tests.view.report_screenshot [--out docs/img/report.png] [--seed 5] [--full]

It runs a real tournament of the sample bots (greedy in Python and in JavaScript, random) and a
test bot that plays an illegal move at its 5th request, two hands a match, through
``arena tournament``, then saves a picture of the report it wrote (the top of the page, or all
of it with ``--full``).
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

from tests.view.browser import CHROMIUM, CHROMIUM_ARGS
from tests.view.matches import ROOT
from tests.view.tournaments import PY, play_tournament

BOTS = [
    f"{PY} sample_bots/greedy.py",
    f"{PY} sample_bots/random_bot.py",
    "node sample_bots/greedy.js",
    f"{PY} tests/bots/player.py illegal 5",
]


def main(argv: list[str] | None = None) -> int:
    """Play the tournament, take the screenshot; print where it went."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=ROOT / "docs" / "img" / "report.png")
    parser.add_argument("--seed", type=int, default=5)
    parser.add_argument("--full", action="store_true", help="the whole page, not its top")
    parser.add_argument("--width", type=int, default=1400)
    parser.add_argument("--height", type=int, default=1000)
    args = parser.parse_args(argv)

    from playwright.sync_api import sync_playwright

    with tempfile.TemporaryDirectory() as folder:
        played = play_tournament(Path(folder) / "t", bots=BOTS, seed=args.seed)
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(
                executable_path=str(CHROMIUM), headless=True, args=CHROMIUM_ARGS
            )
            page = browser.new_page(viewport={"width": args.width, "height": args.height})
            page.goto(played.report.resolve().as_uri())
            page.wait_for_selector("tr.match")
            args.out.parent.mkdir(parents=True, exist_ok=True)
            page.screenshot(path=str(args.out), full_page=args.full)
            browser.close()
    print(f"wrote {args.out} (seed {args.seed})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
