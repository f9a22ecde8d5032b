"""The ``--cluster`` flags of ``arena tournament`` and ``arena sprt`` (docs/cluster.md).

"How to run" flags: never stored with a tournament, so ``--resume`` may add or drop them.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import TYPE_CHECKING

from arena.cli.errors import UsageError

if TYPE_CHECKING:
    from arena.cluster.options import ClusterOptions


def _timeout(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number of seconds: {text!r}") from None
    if not value > 0:
        raise argparse.ArgumentTypeError(f"must be more than 0 seconds, not {text}")
    return value


def _add_cluster_flags(parser: argparse.ArgumentParser) -> None:
    """``--cluster ADDRESS``, its TLS files and its connection timeout."""
    group = parser.add_argument_group(
        "Dask cluster (docs/cluster.md)",
        "play every match as a task of a Dask cluster; --concurrency and --workers then do "
        "not apply (each worker runs one match per CPU or thread)",
    )
    group.add_argument(
        "--cluster", metavar="ADDRESS", help="the Dask scheduler, tcp://HOST:PORT or tls://..."
    )
    group.add_argument("--tls-ca-file", type=Path, help="TLS: the CA certificate (PEM)")
    group.add_argument("--tls-cert", type=Path, help="TLS: this client's certificate (PEM)")
    group.add_argument("--tls-key", type=Path, help="TLS: this client's private key (PEM)")
    group.add_argument(
        "--cluster-timeout",
        type=_timeout,
        default=10.0,
        metavar="S",
        help="seconds to wait for the scheduler at the start, and when it is lost in the "
        "middle of a run before stopping with the resume command (10)",
    )


def _cluster_options(args: argparse.Namespace, sandboxed: bool) -> ClusterOptions | None:
    """The cluster the flags ask for, or ``None`` to play on this machine.

    ``sandboxed`` says whether the bots run in a sandbox: on a cluster they must, since only
    the sandbox ends a bot whose worker was killed.
    """
    tls = {"--tls-ca-file": args.tls_ca_file, "--tls-cert": args.tls_cert}
    tls["--tls-key"] = args.tls_key
    if args.cluster is None:
        given = [flag for flag, value in tls.items() if value is not None]
        if given:
            raise UsageError(f"{given[0]}: only with --cluster")
        return None
    if not sandboxed:
        raise UsageError(
            "--cluster needs a sandbox (--sandbox auto, say): without one, the bots of a "
            "worker that is killed would keep running on its machine"
        )
    from arena.cluster.connect import reach
    from arena.cluster.options import ClusterOptions

    options = ClusterOptions(
        address=args.cluster,
        tls_ca_file=args.tls_ca_file,
        tls_cert=args.tls_cert,
        tls_key=args.tls_key,
        connect_timeout_s=args.cluster_timeout,
    )
    reach(options)  # before anything is created: an unreachable scheduler changes nothing
    return options


def cluster_flags(options: ClusterOptions) -> list[str | Path]:
    """The flags that reach the same cluster again (for a resume command line)."""
    flags: list[str | Path] = ["--cluster", options.address]
    for flag, path in (
        ("--tls-ca-file", options.tls_ca_file),
        ("--tls-cert", options.tls_cert),
        ("--tls-key", options.tls_key),
    ):
        if path is not None:
            flags += [flag, path]
    return flags
