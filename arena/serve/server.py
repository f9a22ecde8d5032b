"""Running the live server inside the arena's trio program: the address, the socket,
hypercorn's trio worker, and the task that follows the tournament's database.

``--serve [HOST:]PORT`` (default ``127.0.0.1:8000``) is parsed by :func:`parse_address`. The
socket is bound here, before anything is played, so a port in use is a one-line error (exit 2)
and port 0 picks a free one; hypercorn then serves on it (``fd://``). Binding anything but a
loopback address prints that anyone on that network can watch.
"""

from __future__ import annotations

import gc
import ipaddress
import os
import socket
import sys
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager, contextmanager, nullcontext, suppress
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import trio

from arena import SLUG
from arena.errors import ArenaError
from arena.serve.app import SEND_TIMEOUT_S, App
from arena.serve.hub import FinishedEntry, Hub

DEFAULT_HOST = "127.0.0.1"
DEFAULT_PORT = 8000
#: The kernel's send buffer of each connection (bytes).
SEND_BUFFER = 128 * 1024
#: How often the database is looked at for new results (seconds).
POLL_S = 1.0
#: Standings are recomputed at most this often (seconds).
STANDINGS_EVERY_S = 0.5
#: While serving, the garbage collector's youngest generation is collected after this many
#: allocations (CPython's default: 700), see :func:`_collect_less`.
GC_YOUNG_THRESHOLD = 20_000


class ServeError(ArenaError):
    """The server cannot start (a bad address, a port in use)."""


@dataclass(frozen=True)
class Address:
    """Where to listen."""

    host: str
    port: int
    flag: str = "--serve"  # the flag that gave it, for the messages

    @property
    def loopback(self) -> bool:
        """Whether only this machine can connect."""
        if self.host == "localhost":
            return True
        try:
            return ipaddress.ip_address(self.host).is_loopback
        except ValueError:
            return False

    def url(self, port: int | None = None) -> str:
        """``http://HOST:PORT/``."""
        host = f"[{self.host}]" if ":" in self.host else self.host
        return f"http://{host}:{self.port if port is None else port}/"


def parse_address(text: str, flag: str = "--serve") -> Address:
    """``[HOST:]PORT`` (``8000``, ``127.0.0.1:8000``, ``0.0.0.0:80``, ``[::1]:8000``).

    Raises:
        ServeError: naming what is wrong.
    """
    host, port_text = DEFAULT_HOST, text
    if ":" in text:
        host, _, port_text = text.rpartition(":")
        host = host.removeprefix("[").removesuffix("]")
    if not port_text.isdigit() or not 0 <= int(port_text) <= 65535 or not host:
        raise ServeError(f"{flag} {text!r}: give [HOST:]PORT, a port from 0 to 65535")
    return Address(host, int(port_text), flag)


def require_stack() -> None:
    """Check that the web stack is installed (the ``serve`` extra).

    Raises:
        ServeError: naming what to install.
    """
    try:
        import hypercorn.trio  # noqa: F401
    except ImportError:
        raise ServeError(
            f"--serve needs the web server hypercorn: pip install '{SLUG}-arena[serve]'"
        ) from None


def bind(address: Address) -> socket.socket:
    """A listening socket on ``address``.

    Raises:
        ServeError: when it cannot be bound (in use, not this machine's address).
    """
    family = socket.AF_INET6 if ":" in address.host else socket.AF_INET
    try:
        infos = socket.getaddrinfo(address.host, address.port, family, socket.SOCK_STREAM)
        sock = socket.socket(family, socket.SOCK_STREAM)
    except OSError as error:
        raise ServeError(f"{address.flag} {address.host}:{address.port}: {error}") from None
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        # Every connection takes this send buffer from the listening socket, instead of one
        # the kernel grows to megabytes for a client that stopped reading: a stalled client's
        # write then stalls soon, and it is dropped (arena.serve.app.SEND_TIMEOUT_S).
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, SEND_BUFFER)
        # Each batch of events goes out at once (no Nagle delay; hypercorn sets it only on
        # sockets it makes itself).
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        # And the kernel ends a connection whose data has waited unacknowledged this long (a
        # client that stopped reading: its window stays shut), which is what unblocks the
        # server's write to it (hypercorn shields its writes from cancellation).
        if hasattr(socket, "TCP_USER_TIMEOUT") and family in (socket.AF_INET, socket.AF_INET6):
            timeout_ms = int(SEND_TIMEOUT_S * 1000)
            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_USER_TIMEOUT, timeout_ms)
        sock.bind(infos[0][4])
        sock.listen(128)
    except OSError as error:
        sock.close()
        why = error.strerror or str(error)
        raise ServeError(
            f"{address.flag} {address.host}:{address.port}: cannot listen there: {why}"
        ) from None
    sock.set_inheritable(True)
    return sock


def announce(address: Address, sock: socket.socket, what: str) -> None:
    """Print the URL (and, off loopback, that anyone on the network can watch)."""
    port = sock.getsockname()[1]
    print(f"Serving {what} at {address.url(port)} (Ctrl-C stops)", file=sys.stderr, flush=True)
    if not address.loopback:
        print(
            f"arena: warning: the server listens on {address.host}, not only on this machine: "
            "anyone on that network can watch (and, with --serve-reveal, see every hand)",
            file=sys.stderr,
            flush=True,
        )


@asynccontextmanager
async def serving(
    hub: Hub, sock: socket.socket, root: Path | None, collect_less: bool = True
) -> AsyncIterator[App]:
    """Serve ``hub`` on ``sock`` while the block runs (hypercorn's trio worker), cutting its
    stream into batches (:meth:`~arena.serve.hub.Hub.cut_batches`); with ``collect_less``
    (a process that plays no match meanwhile), with fewer garbage collections
    (:func:`_collect_less`)."""
    from hypercorn.config import Config
    from hypercorn.trio import serve

    from arena.serve.passthrough import install

    install()  # every client's write of a batch without a copy of it
    app = App(hub, root)
    config = Config()
    # A copy of the socket for hypercorn, which closes it when it stops: the server can be
    # started again on the same socket (after a tournament, its finished pages).
    config.bind = [f"fd://{os.dup(sock.fileno())}"]
    config.accesslog = None
    config.errorlog = None
    config.graceful_timeout = 0.5
    config.keep_alive_timeout = 30
    stop = trio.Event()
    with _collect_less() if collect_less else nullcontext():
        async with trio.open_nursery() as nursery:
            nursery.start_soon(_serve, serve, app, config, stop)
            nursery.start_soon(_cut_batches, hub, stop)
            try:
                yield app
            finally:
                stop.set()
                nursery.cancel_scope.deadline = trio.current_time() + 1.0


@contextmanager
def _collect_less() -> Iterator[None]:
    """Fewer and shorter pauses of the garbage collector while the block runs.

    The server's process keeps tens of thousands of objects alive (the ring, every match's
    events) and makes many short-lived ones per write; with CPython's default thresholds it
    ran a full collection, 100 to 400 ms with the loop stopped, about twice a second during
    a busy tournament (benchmarks/serve_bench.py). Everything made before serving (modules,
    the tournament's set-up) is frozen out of every collection (``gc.freeze``), and the
    youngest generation is collected every :data:`GC_YOUNG_THRESHOLD` allocations; both are
    undone after (the objects are unfrozen only when none was frozen before: those were
    frozen by someone else). Not while a match is played in the same process (``arena play
    --serve``): a young collection of 20,000 objects is a longer pause of the referee, which
    a bot's clock would be charged for; the referee freezes its own start-up objects
    (`arena.referee.match.freeze_startup_objects`).
    """
    thresholds = gc.get_threshold()
    frozen = gc.get_freeze_count()
    gc.freeze()
    gc.set_threshold(GC_YOUNG_THRESHOLD, *thresholds[1:])
    try:
        yield
    finally:
        gc.set_threshold(*thresholds)
        if not frozen:
            gc.unfreeze()


async def _cut_batches(hub: Hub, stop: trio.Event) -> None:
    """Cut the hub's batches until the server stops, then once more (for the clients served
    during hypercorn's graceful shutdown)."""
    async with trio.open_nursery() as nursery:
        nursery.start_soon(hub.cut_batches)
        await stop.wait()
        nursery.cancel_scope.cancel()
    hub.cut()


async def _serve(serve: Any, app: App, config: Any, stop: trio.Event) -> None:
    await serve(app, config, shutdown_trigger=stop.wait)


async def follow_database(hub: Hub, db: Path) -> None:
    """Keep the hub's finished matches and standings as the tournament database has them,
    looking at it every :data:`POLL_S`, read-only (the tournament writes it meanwhile, in WAL
    mode, so a reader never waits for it, nor it for a reader)."""
    seen: int | None = None
    while True:
        # Not made yet (a tournament that is starting), or being replaced: next time.
        with suppress(ArenaError):
            seen = await trio.to_thread.run_sync(_look, hub, db, seen)
        await trio.sleep(POLL_S)


def _look(hub: Hub, db: Path, seen: int | None) -> int | None:
    """One look at the database (in a thread); the number of results it has. The hub is fed
    from the trio thread."""
    from arena.tournament.report import standings_document
    from arena.tournament.store import Store

    if not db.exists():
        return seen
    store = Store(db, read_only=True)
    try:
        count = len(store.finished())
        if count == seen:
            return seen
        rows, entrants, document = store.matches(), store.entrants(), standings_document(store)
    finally:
        store.close()
    who = {e.id: e.name for e in entrants}
    entries = [
        FinishedEntry(
            row.table.idx,
            [who.get(e, "?") for e in row.table.seats],
            list(row.summary.scores),
            row.summary.winner,
            row.replay,
        )
        for row in rows
    ]
    trio.from_thread.run_sync(_publish, hub, entries, document, count)
    return count


def _publish(hub: Hub, entries: list[FinishedEntry], document: dict[str, Any], count: int) -> None:
    for entry in entries:
        known = hub.finished.get(entry.match)
        if known is None or known.replay is None:
            hub.recorded(entry)
    hub.standings(document)
    if hub.total is not None and count >= hub.total:
        hub.running = False


@asynccontextmanager
async def live_server(
    hub: Hub,
    sock: socket.socket,
    root: Path | None,
    db: Path | None = None,
    collect_less: bool = True,
) -> AsyncIterator[App]:
    """Serve ``hub`` while the block runs, and (with ``db``) follow the tournament's
    database: its results and standings (:func:`follow_database`). ``collect_less``: see
    :func:`serving`."""
    async with trio.open_nursery() as nursery, serving(hub, sock, root, collect_less) as app:
        if db is not None:
            nursery.start_soon(follow_database, hub, db)
        try:
            yield app
        finally:
            nursery.cancel_scope.cancel()


async def serve_forever(
    hub: Hub, sock: socket.socket, root: Path | None, db: Path | None = None
) -> None:
    """Serve until cancelled (Ctrl-C)."""
    async with live_server(hub, sock, root, db):
        await trio.sleep_forever()
