"""Workers the coordinator refuses before the first match, each named with its address and
host: one with another version of the arena installed, one where the arena cannot be imported,
one whose sandbox is weaker than ``--sandbox`` asks for."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.cluster.dask_procs import DaskCluster, arena

pytestmark = pytest.mark.timeout(300)

HERE = Path(__file__).parent
ALPHA = "tests/tournament/bots/league/alpha"
TWIN = "tests/tournament/bots/twins/one"


def fake_installation(folder: Path, version: str) -> Path:
    """A folder whose package metadata says matador-arena ``version`` is installed: first on a
    worker's path, it is what that worker's Python finds."""
    info = folder / f"matador_arena-{version}.dist-info"
    info.mkdir(parents=True)
    info.joinpath("METADATA").write_text(
        f"Metadata-Version: 2.1\nName: matador-arena\nVersion: {version}\n"
    )
    return folder


@pytest.fixture(scope="module")
def bad_cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[DaskCluster]:
    """A scheduler with three workers that must each be refused."""
    folder = tmp_path_factory.mktemp("dask-bad")
    cluster = DaskCluster(folder)
    try:
        cluster.start_scheduler()
        other = fake_installation(folder / "other", "9.9.9")
        cluster.start_worker("other-version", pythonpath=[other])
        cluster.start_worker("no-arena", preload=HERE / "preload_no_arena.py")
        cluster.start_worker("no-bwrap", preload=HERE / "preload_no_bwrap.py")
        cluster.wait_for_workers(3)
        yield cluster
    finally:
        left = cluster.stop()
    assert not left, f"processes of the cluster survived: {left}"


def test_every_weaker_or_foreign_worker_is_refused_by_name(
    bad_cluster: DaskCluster, tmp_path: Path
) -> None:
    """The tournament stops before its first match (exit 2, one line), naming each worker and
    what is wrong with it; no match is recorded."""
    out = tmp_path / "t"
    result = arena(
        "tournament", ALPHA, TWIN, "--hands", "1", "--seed", "1", "--sandbox", "bwrap",
        "--out", str(out), "--cluster", bad_cluster.address,
    )  # fmt: skip
    assert result.returncode == 2, result.stdout + result.stderr
    lines = result.stderr.strip().splitlines()
    error = lines[-1]
    assert error.startswith("arena tournament: error: worker tcp://127.0.0.1:")
    assert "Traceback" not in result.stderr
    assert "runs matador-arena 9.9.9, this coordinator 0.1.0" in error
    assert "cannot run the arena: the arena cannot be imported" in error
    assert "--sandbox bwrap cannot be had there" in error
    assert error.count("worker tcp://127.0.0.1:") == 3
    assert error.count("(host ") == 3
    assert not list((out / "replays").glob("*.json"))
