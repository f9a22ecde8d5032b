"""The viewers and the report name no game: what they draw of a game comes from its plugin
(arena/view/table.py, ``Board.features`` and ``Board.drawing``), so a new game is drawn
without touching them."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from arena.games.registry import GAMES
from tests.view.matches import ROOT

#: The presentation layer: both viewers, their page shell and assets, and the report.
FILES = sorted(
    [
        *(ROOT / "arena" / "view").glob("*.py"),
        *(ROOT / "arena" / "view").glob("*.js"),
        *(ROOT / "arena" / "view").glob("*.css"),
        *(ROOT / "arena" / "tournament").glob("report_*.py"),
        ROOT / "arena" / "tournament" / "html_report.py",
    ]
)


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.name)
def test_no_game_name_is_written_in_the_presentation_code(path: Path) -> None:
    """No registered game's name appears as a quoted string (a comparison, a key), nor its
    title as a word (the product's name aside)."""
    text = path.read_text(encoding="utf-8").replace("Matador Arena", "")
    found = []
    for name, plugin in GAMES.items():
        found += re.findall(rf"""["']{re.escape(name)}["']""", text, re.IGNORECASE)
        if plugin.title.lower() != "block":  # "block" is also a hand's end and CSS's display
            found += re.findall(rf"\b{re.escape(plugin.title)}s?\b", text, re.IGNORECASE)
    assert found == [], f"{path.relative_to(ROOT)} names a game: {found}"
