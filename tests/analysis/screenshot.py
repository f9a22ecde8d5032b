"""Make the analysis screenshot for docs/analysis.md, in the same headless Chromium the tests
use.

    python3 -m tests.analysis.screenshot [--out docs/img/analysis.png] [--seed 5]

It plays a real two-hand match of the sample bots (greedy and random, in Python), analyses it
with ``ref:strong`` (64 samples, the default), writes its viewer page and opens it at the first
mistake or blunder: the card tells the move played, the preferred one and the loss, the graph's
cursor stands on its mark, the move list shows its grade.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

import msgspec

from arena.analysis.analyzer import analyze_replay
from arena.analysis.evaluator import make_evaluator
from arena.view.html import viewer_data, write_html
from tests.view.browser import CHROMIUM, CHROMIUM_ARGS
from tests.view.matches import ROOT, play_processes

BOTS = [
    f"{sys.executable} {ROOT / 'sample_bots' / 'greedy.py'}",
    f"{sys.executable} {ROOT / 'sample_bots' / 'random_bot.py'}",
]


def main(argv: list[str] | None = None) -> int:
    """Play, analyse, write the page, take the screenshot; print where it went."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=ROOT / "docs" / "img" / "analysis.png")
    parser.add_argument("--seed", type=int, default=5)
    args = parser.parse_args(argv)

    from playwright.sync_api import sync_playwright

    replay = play_processes(BOTS, seed=args.seed, hands=2)
    analysed = msgspec.structs.replace(
        replay, analysis=analyze_replay(replay, make_evaluator("ref:strong"))
    )
    entries = viewer_data(analysed)["analysis"]["steps"]
    marked = [i for i, e in enumerate(entries) if e and e["grade"] in ("mistake", "blunder")]
    step = marked[0] + 1 if marked else 1  # 1-based: the first mistake's step
    with tempfile.TemporaryDirectory() as folder:
        page_path = write_html(analysed, Path(folder) / "analysis.html")
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(
                executable_path=str(CHROMIUM), headless=True, args=CHROMIUM_ARGS
            )
            page = browser.new_page(viewport={"width": 1400, "height": 900})
            page.goto(page_path.resolve().as_uri() + f"#move={step}")
            page.wait_for_selector("#app[data-step]")
            args.out.parent.mkdir(parents=True, exist_ok=True)
            page.screenshot(path=str(args.out))
            browser.close()
    print(f"wrote {args.out} (step {step})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
