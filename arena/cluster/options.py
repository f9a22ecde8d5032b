"""How a tournament reaches its Dask cluster: ``--cluster`` and the TLS flags.

A "how to run" option, like ``--concurrency``: never stored with the tournament, so a
tournament started on one machine may be resumed on a cluster and the other way round. This
module imports nothing of Dask.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

#: Seconds to wait for the scheduler at the start before giving up (``--cluster-timeout``).
DEFAULT_CONNECT_TIMEOUT_S = 10.0


@dataclass(frozen=True)
class ClusterOptions:
    """The scheduler's address and how to talk to it.

    Attributes:
        address: The scheduler, ``tcp://HOST:PORT`` or ``tls://HOST:PORT``.
        tls_ca_file, tls_cert, tls_key: The TLS files (Dask's ``Security``); when none is
            given, Dask's own configuration (``distributed.comm.tls``) applies.
        connect_timeout_s: How long to wait for the scheduler at the start.
    """

    address: str
    tls_ca_file: Path | None = None
    tls_cert: Path | None = None
    tls_key: Path | None = None
    connect_timeout_s: float = DEFAULT_CONNECT_TIMEOUT_S

    @property
    def uses_tls(self) -> bool:
        """Whether the TLS flags were given."""
        return any(p is not None for p in (self.tls_ca_file, self.tls_cert, self.tls_key))
