"""Bots as content-addressed archives (arena/cluster/ship.py), without a cluster: the same files
make the same archive, modes survive, a damaged archive is refused, a second unpack is a no-op,
and a build's outcome is kept for the host's other workers."""

from __future__ import annotations

import io
import os
import stat
import tarfile
from pathlib import Path

import pytest

from arena.cluster import ship


@pytest.fixture(autouse=True)
def own_tmpdir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Each test unpacks into its own temporary folder (TMPDIR)."""
    import tempfile

    root = tmp_path / "tmp"
    root.mkdir()
    monkeypatch.setenv("TMPDIR", str(root))
    monkeypatch.setattr(tempfile, "tempdir", None)
    return root


def make_bot(folder: Path) -> Path:
    """A bot folder with an executable script and a private note."""
    folder.mkdir()
    (folder / "bot.toml").write_text('name = "x"\ncommand = "./run"\n')
    run = folder / "run"
    run.write_text("#!/bin/sh\necho hi\n")
    run.chmod(0o755)
    (folder / "data").mkdir()
    (folder / "data" / "table.txt").write_text("1 2 3\n")
    return folder


def test_the_same_files_make_the_same_archive(tmp_path: Path) -> None:
    """Packing a folder twice gives the same bytes, so the same sha256."""
    bot = make_bot(tmp_path / "bot")
    first = ship.pack_folder(str(bot))
    assert ship.pack_folder(str(bot)) == first
    (bot / "data" / "table.txt").write_text("changed\n")
    assert ship.pack_folder(str(bot)).sha256 != first.sha256


def test_unpacking_keeps_the_executable_bit(tmp_path: Path) -> None:
    """The unpacked ./run is still executable, the folder readable by every user."""
    archive = ship.pack_folder(str(make_bot(tmp_path / "bot")))
    folder = Path(ship.unpack(archive.sha256, archive.data))
    assert folder == Path(ship.bot_dir(archive.sha256))
    assert folder.joinpath("run").stat().st_mode & stat.S_IXUSR
    assert folder.joinpath("data", "table.txt").read_text() == "1 2 3\n"
    assert stat.S_IMODE(folder.stat().st_mode) == 0o755
    assert ship.unpacked() == [str(folder)]


def test_a_second_unpack_keeps_the_first(tmp_path: Path) -> None:
    """An archive already on the host is not unpacked again (no staging folder is left)."""
    archive = ship.pack_folder(str(make_bot(tmp_path / "bot")))
    first = ship.unpack(archive.sha256, archive.data)
    marker = Path(first) / "marker"
    marker.write_text("built here")
    assert ship.unpack(archive.sha256, archive.data) == first
    assert marker.exists()
    assert sorted(os.listdir(ship.bots_root())) == [archive.sha256]


def test_a_damaged_archive_is_refused(tmp_path: Path) -> None:
    """Bytes that are not the archive their name says are refused, nothing unpacked."""
    archive = ship.pack_folder(str(make_bot(tmp_path / "bot")))
    with pytest.raises(ship.ShipError, match="damaged on its way"):
        ship.unpack(archive.sha256, archive.data + b"x")
    assert not Path(ship.bot_dir(archive.sha256)).exists()


def test_an_archive_leaving_its_folder_is_refused(tmp_path: Path) -> None:
    """A member named ../escape is refused by the extraction filter."""
    raw = io.BytesIO()
    with tarfile.open(fileobj=raw, mode="w:gz") as tar:
        data = b"evil"
        info = tarfile.TarInfo("../escape")
        info.size = len(data)
        tar.addfile(info, io.BytesIO(data))
    import hashlib

    blob = raw.getvalue()
    with pytest.raises(tarfile.TarError):
        ship.unpack(hashlib.sha256(blob).hexdigest(), blob)
    assert not (Path(ship.bots_root()).parent / "escape").exists()


def test_a_command_line_bot_ships_the_files_it_names(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`python3 bots/b.py --fast` ships bots/b.py at that relative path, nothing else."""
    (tmp_path / "bots").mkdir()
    (tmp_path / "bots" / "b.py").write_text("print('b')\n")
    (tmp_path / "other.py").write_text("")
    monkeypatch.chdir(tmp_path)
    assert ship.command_files("python3 bots/b.py --fast /usr/bin/env") == ["bots/b.py"]
    archive = ship.pack_command("python3 bots/b.py --fast")
    folder = Path(ship.unpack(archive.sha256, archive.data))
    assert sorted(p.relative_to(folder).as_posix() for p in folder.rglob("*")) == [
        "bots",
        "bots/b.py",
    ]


def test_a_build_outcome_is_kept_for_the_host() -> None:
    """What one worker's build did is read back by the host's others."""
    sha = "a" * 64
    assert ship.build_outcome(sha, "make") is None
    with ship.host_lock(sha):
        ship.keep_build_outcome(sha, "make", {"stage": "build", "reason": "no compiler"})
    assert ship.build_outcome(sha, "make") == {"stage": "build", "reason": "no compiler"}
    assert ship.build_outcome(sha, "make all") is None  # another build command: not built yet
