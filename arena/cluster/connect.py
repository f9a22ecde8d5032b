"""The Dask client of a tournament's coordinator: its security, and an unreachable or unusable
scheduler as one line naming the address (exit 2).

The client is Dask's synchronous ``Client``, which runs its own event loop in a thread of its
own; the coordinator's trio code calls it from worker threads (``trio.to_thread``) and hears of
finished tasks through the futures' callbacks.
"""

from __future__ import annotations

import logging
import os
import re
from pathlib import Path
from typing import TYPE_CHECKING, Any

from arena.cluster.options import ClusterOptions
from arena.errors import ArenaError

#: A scheduler's address as Dask's command line prints it.
_ADDRESS = re.compile(r"(tcp|tls)://[^\s/:]+(:[0-9]+)")

if TYPE_CHECKING:
    # Dask's classes are untyped for the most part: they are handled as Any here.
    Client = Any
    Security = Any


class ClusterError(ArenaError):
    """The cluster cannot be used: the scheduler cannot be reached, a TLS file is missing, or
    a worker is refused; the message names the address, the file or the worker."""


def _readable(path: Path, flag: str) -> str:
    if not os.access(path, os.R_OK) or not path.is_file():
        raise ClusterError(f"{flag} {path}: cannot read that file")
    return str(path)


def security(options: ClusterOptions) -> Security | None:
    """Dask's ``Security`` from the TLS flags, or ``None`` (Dask's configuration applies).

    Raises:
        ClusterError: a TLS flag without the others, or a file that cannot be read.
    """
    if not options.uses_tls:
        return None
    given = {
        "--tls-ca-file": options.tls_ca_file,
        "--tls-cert": options.tls_cert,
        "--tls-key": options.tls_key,
    }
    missing = [flag for flag, path in given.items() if path is None]
    if missing:
        raise ClusterError(
            f"TLS needs --tls-ca-file, --tls-cert and --tls-key: {missing[0]} is missing"
        )
    from distributed.security import Security

    ca, cert, key = (_readable(path, flag) for flag, path in given.items() if path is not None)
    secure: Security = Security(  # type: ignore[no-untyped-call]
        tls_ca_file=ca, tls_client_cert=cert, tls_client_key=key, require_encryption=True
    )
    return secure


def reach(options: ClusterOptions) -> None:
    """Check that the scheduler answers (with the TLS flags), before anything is created.

    Raises:
        ClusterError: naming the address, or the TLS file or flag at fault.
    """
    address = options.address
    if not _ADDRESS.fullmatch(address):
        raise ClusterError(
            f"--cluster {address}: not a scheduler address (tcp://HOST:PORT or tls://HOST:PORT)"
        )
    logging.getLogger("distributed").setLevel(logging.CRITICAL)
    _probe(address, security(options), options.connect_timeout_s)


def connect(options: ClusterOptions) -> Client:
    """A client of the scheduler at ``options.address`` (blocking: call it from a thread).

    Raises:
        ClusterError: naming the address when the scheduler does not answer in time or the
            address is not one.
    """
    address = options.address
    if not _ADDRESS.fullmatch(address):
        raise ClusterError(
            f"--cluster {address}: not a scheduler address (tcp://HOST:PORT or tls://HOST:PORT)"
        )
    secure = security(options)
    from distributed import Client

    # Dask logs every failed attempt to connect; the error below says it once.
    logging.getLogger("distributed").setLevel(logging.CRITICAL)
    _probe(address, secure, options.connect_timeout_s)
    try:
        client: Client = Client(  # type: ignore[no-untyped-call]
            address,
            timeout=options.connect_timeout_s,
            security=secure,
            set_as_default=False,
        )
    except (OSError, TimeoutError, ValueError, TypeError) as error:
        raise ClusterError(f"--cluster {address}: not a usable scheduler ({error})") from None
    return client


def _probe(address: str, secure: Security | None, timeout_s: float) -> None:
    """Open and close one connection to the scheduler, so that a scheduler that is not there
    is said in one line (a ``Client`` that fails to connect leaves its threads behind).

    Raises:
        ClusterError: naming the address.
    """
    import asyncio

    from distributed.comm.core import connect as dask_connect
    from distributed.security import Security

    async def probe() -> None:
        args = (secure or Security()).get_connection_args("client")  # type: ignore[no-untyped-call]
        comm = await dask_connect(address, timeout=timeout_s, **args)  # type: ignore[no-untyped-call]
        await comm.close()

    try:
        asyncio.run(probe())
    except (OSError, TimeoutError) as error:
        raise ClusterError(
            f"--cluster {address}: no Dask scheduler answered there within {timeout_s:g} s "
            f"({error}); start one (dask scheduler --host HOST) or give its address"
        ) from None
    except TypeError as error:  # tls:// without certificates
        raise ClusterError(
            f"--cluster {address}: a TLS scheduler needs --tls-ca-file, --tls-cert and "
            f"--tls-key (or Dask's TLS configuration): {error}"
        ) from None
