"""`plan_view`: the mounts of a bot's namespace under unshare as root, worked out from real
folders (pure: nothing is mounted here)."""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from arena.referee.sandbox.paths import plan_view

NOBODY = (65534, 65534)


@pytest.fixture
def tmp_path() -> Iterator[Path]:
    """A fresh folder every user may enter (pytest's own sit in a 0700 folder)."""
    path = Path(tempfile.mkdtemp(prefix="arena-view-plan-"))
    path.chmod(0o755)
    yield path
    shutil.rmtree(path, ignore_errors=True)


def tree(root: Path, closed: str, needed: str) -> tuple[Path, Path]:
    """``root/closed`` (0700) holding ``needed`` (0755) and a secret beside it."""
    root.chmod(0o755)
    shut = root / closed
    path = shut / needed
    path.mkdir(parents=True)
    shut.chmod(0o700)
    (shut / "secret.txt").write_text("x")
    return shut, path


def test_a_closed_folder_on_the_way_becomes_opaque_with_only_the_needed_path(
    tmp_path: Path,
) -> None:
    """A 0700 folder above the interpreter is replaced, showing only the interpreter's prefix."""
    shut, prefix = tree(tmp_path, "home", "pyenv/versions/3.11")
    view = plan_view([str(prefix)], [], [], NOBODY)
    assert [(r.folder, r.recreated) for r in view.opaque] == [(str(shut), (str(prefix),))]
    assert view.masks == ()
    assert view.unreadable == ()


def test_a_mask_inside_a_masked_folder_is_not_mounted_again(tmp_path: Path) -> None:
    """The database inside the hidden out folder is covered by the folder's mask (a mount point
    inside an empty tmpfs would not exist)."""
    out = tmp_path / "out"
    out.mkdir()
    (out / "tournament.db").write_text("x")
    view = plan_view([], [], [str(out), str(out / "tournament.db")], NOBODY)
    assert view.masks == (str(out),)


def test_a_bots_own_folder_among_the_hidden_ones_stays_whole(tmp_path: Path) -> None:
    """An entrant's own folder is hidden from the others but shown whole to itself, files
    named in its command included; the other entrant's folder is masked."""
    mine, other = tmp_path / "mine", tmp_path / "other"
    for folder in (mine, other):
        folder.mkdir()
        (folder / "bot.py").write_text("x")
    view = plan_view([str(mine), str(mine / "bot.py")], [], [str(mine), str(other)], NOBODY)
    assert view.opaque == ()
    assert view.masks == (str(other),)


def test_a_hidden_folder_holding_what_the_bot_needs_shows_only_that(tmp_path: Path) -> None:
    """A hidden folder (an out folder) that holds the bot's file shows only that file."""
    out = tmp_path / "out"
    out.mkdir()
    (out / "bot.py").write_text("x")
    (out / "tournament.db").write_text("x")
    view = plan_view([str(out / "bot.py")], [], [str(out)], NOBODY)
    assert [(r.folder, r.recreated) for r in view.opaque] == [(str(out), (str(out / "bot.py"),))]
    assert view.masks == ()


def test_a_needed_path_the_user_cannot_read_is_reported(tmp_path: Path) -> None:
    """A needed path that is itself 0700 cannot be shown: the caller falls back."""
    tmp_path.chmod(0o755)
    folder = tmp_path / "bot"
    folder.mkdir()
    folder.chmod(0o700)
    assert plan_view([str(folder)], [], [], NOBODY).unreadable == (str(folder),)
