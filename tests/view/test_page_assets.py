"""The pages' stylesheets and scripts are files of ``arena.view`` (arena/view/page.py), each
listed in pyproject.toml's package-data (an installed arena has them), and the report's page
holds its files' text as they are."""

from __future__ import annotations

import tomllib
from pathlib import Path

from arena.tournament.html_report import write_report
from arena.tournament.settings import TournamentSettings
from arena.tournament.store import EntrantRow, Store
from arena.view.page import asset
from tests.view.matches import ROOT

VIEW = ROOT / "arena" / "view"


def test_every_page_asset_is_package_data() -> None:
    """Every file of arena/view/ that is not Python is in the package-data (and no other)."""
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    listed = config["tool"]["setuptools"]["package-data"]["arena.view"]
    files = {p.name for p in VIEW.iterdir() if p.is_file() and p.suffix in (".css", ".js")}
    assert sorted(listed) == sorted(files)
    assert {"viewer.css", "viewer.js", "report.css", "report.js"} <= files


def test_the_report_holds_its_stylesheet_and_script_files(tmp_path: Path) -> None:
    """The report page has report.css and report.js inline, each after a blank line, and no
    Python-written style or script besides."""
    store = Store(tmp_path / "tournament.db")
    store.create(
        TournamentSettings(game="matador", hands=1, target=None).to_dict(),
        [EntrantRow(i + 1, n, f"bot{i}", None, None, None) for i, n in enumerate("ab")],
        [],
    )
    write_report(store, tmp_path / "report.html")
    store.close()
    page = (tmp_path / "report.html").read_text(encoding="utf-8")
    css, js = asset("report.css"), asset("report.js")
    assert f"<style>\n\n{css}\n</style>" in page
    assert f"<script>\n\n{js}\n</script>" in page
    assert page.count("<style>") == 1
    assert page.count("<script>") == 1
    assert css.startswith(":root {")
    assert "split(/\\s+/)" in js  # the regular expression as JavaScript reads it


def test_the_assets_are_read_as_the_files_hold_them() -> None:
    """``asset`` returns a file's bytes unchanged (the viewer pages inline them as they are)."""
    for name in ("viewer.css", "viewer.js", "report.css", "report.js"):
        assert asset(name) == (VIEW / name).read_text(encoding="utf-8")
