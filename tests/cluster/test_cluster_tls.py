"""A tournament on a Dask cluster that speaks only TLS: the scheduler, its worker and the
coordinator share certificates made for the test (a CA, and one certificate for 127.0.0.1)."""

from __future__ import annotations

import json
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.cluster.dask_procs import DaskCluster, arena, start_cluster

pytestmark = pytest.mark.timeout(300)

ALPHA = "tests/tournament/bots/league/alpha"
TWIN = "tests/tournament/bots/twins/one"


def make_certificates(folder: Path) -> dict[str, Path]:
    """A CA and a certificate for 127.0.0.1 signed by it (openssl), valid for two days."""

    def openssl(*args: str) -> None:
        subprocess.run(["openssl", *args], cwd=folder, check=True, capture_output=True)

    openssl("req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", "ca.key", "-out",
            "ca.pem", "-days", "2", "-subj", "/CN=arena test CA")  # fmt: skip
    openssl("req", "-newkey", "rsa:2048", "-nodes", "-keyout", "node.key", "-out", "node.csr",
            "-subj", "/CN=127.0.0.1")  # fmt: skip
    (folder / "ext.cnf").write_text(
        "subjectAltName=IP:127.0.0.1\nbasicConstraints=CA:FALSE\n"
        "extendedKeyUsage=serverAuth,clientAuth\n"
    )
    openssl("x509", "-req", "-in", "node.csr", "-CA", "ca.pem", "-CAkey", "ca.key",
            "-CAcreateserial", "-out", "node.pem", "-days", "2", "-extfile", "ext.cnf")  # fmt: skip
    return {"ca": folder / "ca.pem", "cert": folder / "node.pem", "key": folder / "node.key"}


@pytest.fixture(scope="module")
def tls_cluster(
    tmp_path_factory: pytest.TempPathFactory,
) -> Iterator[tuple[DaskCluster, dict[str, Path]]]:
    """A TLS-only scheduler and one worker on 127.0.0.1."""
    folder = tmp_path_factory.mktemp("dask-tls")
    certs = make_certificates(folder)
    flags = ["--tls-ca-file", str(certs["ca"]), "--tls-cert", str(certs["cert"]),
             "--tls-key", str(certs["key"])]  # fmt: skip
    cluster = start_cluster(folder / "cluster", workers=1, tls=flags)
    yield cluster, certs
    left = cluster.stop()
    assert not left, f"processes of the cluster survived: {left}"


def test_a_tournament_over_tls(
    tls_cluster: tuple[DaskCluster, dict[str, Path]], tmp_path: Path
) -> None:
    """With the TLS flags the tournament plays on the TLS cluster and records every match."""
    cluster, certs = tls_cluster
    assert cluster.address.startswith("tls://127.0.0.1:")
    out = tmp_path / "t"
    result = arena(
        "tournament", ALPHA, TWIN, "--hands", "1", "--seed", "2", "--out", str(out),
        "--cluster", cluster.address, "--tls-ca-file", str(certs["ca"]),
        "--tls-cert", str(certs["cert"]), "--tls-key", str(certs["key"]),
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    data = json.loads(arena("standings", "--db", str(out / "tournament.db"), "--json").stdout)
    assert sum(row["matches"] for row in data["standings"]) == 4


def test_without_the_certificates_the_tls_scheduler_is_refused(
    tls_cluster: tuple[DaskCluster, dict[str, Path]], tmp_path: Path
) -> None:
    """A tls:// address without the TLS flags (and no Dask TLS configuration): exit 2 naming
    the address."""
    cluster, _ = tls_cluster
    result = arena(
        "tournament", ALPHA, TWIN, "--hands", "1", "--out", str(tmp_path / "t"),
        "--cluster", cluster.address, "--cluster-timeout", "2",
    )  # fmt: skip
    assert result.returncode == 2, result.stderr
    assert f"--cluster {cluster.address}: " in result.stderr.strip().splitlines()[-1]


def test_a_missing_certificate_file_is_named(
    tls_cluster: tuple[DaskCluster, dict[str, Path]], tmp_path: Path
) -> None:
    """A TLS file that does not exist is named before anything connects."""
    cluster, certs = tls_cluster
    result = arena(
        "tournament", ALPHA, TWIN, "--out", str(tmp_path / "t"), "--cluster", cluster.address,
        "--tls-ca-file", str(certs["ca"]), "--tls-cert", str(tmp_path / "none.pem"),
        "--tls-key", str(certs["key"]),
    )  # fmt: skip
    assert result.returncode == 2
    assert result.stderr.strip().splitlines()[-1] == (
        f"arena tournament: error: --tls-cert {tmp_path / 'none.pem'}: cannot read that file"
    )
