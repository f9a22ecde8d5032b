"""The ``--cluster`` flags without a cluster: an unreachable scheduler, flags that do not go
together, and the local path, which never imports Dask."""

from __future__ import annotations

import socket
import subprocess
import sys
from pathlib import Path

from tests.cluster.dask_procs import arena, worker_env
from tests.helpers import REPO

ALPHA = "tests/tournament/bots/league/alpha"
TWIN = "tests/tournament/bots/twins/one"


def closed_port() -> int:
    """A port of 127.0.0.1 where nothing listens (bound, then released)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
    return port


def test_an_unreachable_scheduler_is_one_line_naming_it(tmp_path: Path) -> None:
    """Nothing at the address: exit 2 with one line naming the address, nothing played."""
    address = f"tcp://127.0.0.1:{closed_port()}"
    result = arena(
        "tournament", ALPHA, TWIN, "--hands", "1", "--out", str(tmp_path / "t"),
        "--cluster", address, "--cluster-timeout", "1",
    )  # fmt: skip
    assert result.returncode == 2, result.stderr
    error = result.stderr.strip().splitlines()[-1]
    assert error.startswith(
        f"arena tournament: error: --cluster {address}: no Dask scheduler answered there within 1 s"
    )
    assert "Traceback" not in result.stderr
    assert not (tmp_path / "t").exists()  # nothing was created: the same command may be rerun


def test_sprt_with_an_unreachable_scheduler_names_it(tmp_path: Path) -> None:
    """`arena sprt --cluster` with nothing there: exit 2 naming the address."""
    address = f"tcp://127.0.0.1:{closed_port()}"
    result = arena(
        "sprt", ALPHA, TWIN, "--hands", "1", "--out", str(tmp_path / "s"),
        "--cluster", address, "--cluster-timeout", "1",
    )  # fmt: skip
    assert result.returncode == 2, result.stderr
    assert f"--cluster {address}: no Dask scheduler answered there" in result.stderr


def test_a_malformed_address_is_refused(tmp_path: Path) -> None:
    """An address that is not tcp://HOST:PORT or tls://HOST:PORT is named as such."""
    result = arena("tournament", ALPHA, TWIN, "--out", str(tmp_path / "t"), "--cluster", "nowhere")
    assert result.returncode == 2
    assert result.stderr.strip().splitlines()[-1] == (
        "arena tournament: error: --cluster nowhere: not a scheduler address (tcp://HOST:PORT "
        "or tls://HOST:PORT)"
    )


def test_a_cluster_without_a_sandbox_is_refused(tmp_path: Path) -> None:
    """--sandbox none on a cluster: a killed worker's bots would survive, so it is refused."""
    result = arena(
        "tournament", ALPHA, TWIN, "--out", str(tmp_path / "t"), "--sandbox", "none",
        "--cluster", "tcp://127.0.0.1:1",
    )  # fmt: skip
    assert result.returncode == 2
    assert "--cluster needs a sandbox" in result.stderr.strip().splitlines()[-1]


def test_tls_flags_need_the_cluster(tmp_path: Path) -> None:
    """A TLS flag without --cluster is a usage error naming it."""
    result = arena("tournament", ALPHA, TWIN, "--tls-cert", "c.pem", "--out", str(tmp_path / "t"))
    assert result.returncode == 2
    assert result.stderr.strip().endswith("--tls-cert: only with --cluster")


def test_the_local_path_never_imports_dask(tmp_path: Path) -> None:
    """A whole local tournament (and its report) runs without importing dask or distributed."""
    code = (
        "import runpy, sys\n"
        f"sys.argv = ['arena', 'tournament', {ALPHA!r}, {TWIN!r}, '--hands', '1',"
        f" '--out', {str(tmp_path / 't')!r}]\n"
        "try:\n"
        "    runpy.run_module('arena', run_name='__main__')\n"
        "except SystemExit as stop:\n"
        "    assert not stop.code, stop.code\n"
        "print(sorted(m for m in sys.modules if m.split('.')[0] in ('dask', 'distributed')))\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], cwd=REPO, env=worker_env(), capture_output=True,
        text=True, timeout=120,
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip().splitlines()[-1] == "[]"
