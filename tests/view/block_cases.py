"""Block replays for the viewer tests, kept under tests/data/view/ with what both viewers showed
of them when they were written: ``arena view --all``'s text and the HTML page's viewer data and
table data (written by ``python3 -m tests.view.block_cases``).

Block is the plain line game without special tiles, a spinner, a count or a boneyard to draw
from: these cases show that the viewers draw a game from its plugin's data. They are played as
the golden cases are (:mod:`tests.golden.make_golden`: scripted bots on trio's MockClock), so a
fresh match gives the committed replay byte for byte.
"""

from __future__ import annotations

import contextlib
import io
import json
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path

from tests.golden.make_golden import (
    Case,
    bot,
    data_text,
    hands_played,
    reason,
    replay_bytes,
    statuses,
    view_text,
)
from tests.view.matches import ROOT

FOLDER = ROOT / "tests" / "data" / "view"
REGENERATE = "python3 -m tests.view.block_cases"

CASES: tuple[Case, ...] = (
    # Two hands: a domino, then a drawn block (equal pips, no award); passes in both.
    Case(
        "block-2p-hands",
        "block",
        28,
        (bot("first"), bot("random", "random", seed=28)),
        hands=2,
        expect=(statuses("ok", "ok"), reason("hands"), hands_played(2)),
    ),
    # Seat 1 passes while it can play at its 3rd request: retired, the match forfeited.
    Case(
        "block-2p-illegal",
        "block",
        5,
        (bot("first"), bot("cheat", faults={3: "pass"})),
        hands=2,
        expect=(statuses("ok", "illegal_move"), reason("forfeit")),
    ),
)


def paths(name: str) -> tuple[Path, Path, Path]:
    """The case's replay, its ``arena view --all`` text and its page's data (both elements)."""
    return (
        FOLDER / f"{name}.replay.json",
        FOLDER / f"{name}.view.txt",
        FOLDER / f"{name}.viewer.json",
    )


def page_text(page: str) -> str:
    """The viewer data and the table data of a viewer page, as the committed text: the viewer
    data as the golden files have it, then the table data on one line."""
    found = {}
    for element in ("viewer-data", "viewer-table"):
        head = f'<script type="application/json" id="{element}">'
        start = page.index(head) + len(head)
        found[element] = json.loads(page[start : page.index("</script>", start)])
    table = json.dumps(found["viewer-table"], ensure_ascii=False, separators=(",", ":"))
    return data_text(found["viewer-data"]) + table + "\n"


def shown(path: Path, folder: Path) -> tuple[str, str]:
    """What ``arena view PATH --all`` prints, and the data of the page ``arena view PATH
    --html`` writes (:func:`page_text`)."""
    from arena.cli import main

    html = folder / f"{path.stem}.html"
    with contextlib.redirect_stdout(io.StringIO()):  # "wrote PATH"
        code = main(["view", str(path), "--html", str(html)])
    if code != 0:
        raise RuntimeError(f"arena view {path} --html exited with {code}")
    return view_text(path), page_text(html.read_text(encoding="utf-8"))


def write_all() -> list[Path]:
    """Play every case afresh and write its three files."""
    FOLDER.mkdir(parents=True, exist_ok=True)
    written = []
    with tempfile.TemporaryDirectory() as tmp:
        for case in CASES:
            replay, text, data = paths(case.name)
            replay.write_bytes(replay_bytes(case))
            view, page = shown(replay, Path(tmp))
            text.write_text(view, encoding="utf-8")
            data.write_text(page, encoding="utf-8")
            written += [replay, text, data]
    return written


def main(argv: Sequence[str] | None = None) -> int:
    if argv:
        print(f"usage: {REGENERATE}  (rewrites the Block files in {FOLDER.relative_to(ROOT)})")
        return 2
    for path in write_all():
        print(f"{path.stat().st_size:>8}  {path.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
