"""`arena serve DIR`, and the ``--serve`` of `arena play` and `arena tournament`: the wiring of
the live server (`arena.serve`), imported only when one of them is asked for."""

from __future__ import annotations

import argparse
import socket
import sys
from collections.abc import Callable
from contextlib import AbstractAsyncContextManager
from dataclasses import dataclass
from pathlib import Path

import trio

from arena.cli.errors import EXIT_OK, UsageError
from arena.replay import Replay
from arena.serve.hub import FinishedEntry, Hub
from arena.serve.server import (
    Address,
    announce,
    bind,
    live_server,
    parse_address,
    require_stack,
    serve_forever,
)
from arena.stop_signals import run as run_stoppable
from arena.text import seat_name


@dataclass
class Live:
    """A live server being set up for a command: where, its socket, its hub, what it serves."""

    address: Address
    sock: socket.socket
    hub: Hub
    root: Path | None
    db: Path | None = None
    #: Whether the command plays its match in this process (`arena play`): then the server
    #: leaves the garbage collector as it is while it plays (`arena.serve.server.serving`).
    plays_here: bool = False

    def around(self) -> AbstractAsyncContextManager[object]:
        """The server while the command plays (entered in its trio program)."""
        return live_server(self.hub, self.sock, self.root, self.db, not self.plays_here)

    def recorded(self, match: int, replay: Replay, path: Path | None) -> None:
        """A finished match's replay is written (``None``: it could not be)."""
        names = [seat_name(s) for s in replay.seats]
        result = replay.result
        where = None if path is None else str(path.absolute())
        self.hub.recorded(FinishedEntry(match, names, list(result.scores), result.winner, where))

    def after(self, command: str, work: Callable[[], None] | None = None) -> int:
        """Once the command has played: serve the finished pages until Ctrl-C, doing
        ``work`` (writing the report) in a thread meanwhile."""
        try:
            run_stoppable(self._after, command, work)
        except KeyboardInterrupt:
            print(f"arena {command}: the server is stopped", file=sys.stderr)
        finally:
            self.sock.close()
        return EXIT_OK

    async def _after(self, command: str, work: Callable[[], None] | None) -> None:
        async with live_server(self.hub, self.sock, self.root, self.db):
            if work is not None:
                await trio.to_thread.run_sync(work)
            self.hub.done()
            port = self.sock.getsockname()[1]
            print(
                f"arena {command}: finished; still serving the finished pages at "
                f"{self.address.url(port)} until Ctrl-C",
                file=sys.stderr,
                flush=True,
            )
            await trio.sleep_forever()


def check_serve_flags(args: argparse.Namespace) -> None:
    """Refuse a bad ``--serve`` or ``--serve-reveal`` (before anything runs).

    Raises:
        UsageError, arena.serve.server.ServeError: naming the problem.
    """
    if args.serve is None:
        if args.serve_reveal:
            raise UsageError("--serve-reveal shows every hand on the --serve pages: give --serve")
        return
    parse_address(args.serve)
    require_stack()


def live_setup(args: argparse.Namespace, title: str, root: Path, what: str) -> Live | None:
    """The live server ``--serve`` asks for (its socket bound now, so that a port in use
    stops the command before anything is played), or ``None`` without ``--serve``.

    Raises:
        UsageError: for ``--serve-reveal`` without ``--serve``.
        arena.serve.server.ServeError: for an address that cannot be served.
    """
    check_serve_flags(args)
    if args.serve is None:
        return None
    address = parse_address(args.serve)
    sock = bind(address)
    if args.serve_reveal:
        what += " (every hand shown: --serve-reveal)"
    announce(address, sock, what)
    return Live(address, sock, Hub(reveal=args.serve_reveal, title=title), root)


def _serve(args: argparse.Namespace) -> int:
    """`arena serve DIR`: a tournament's out folder, finished or being played."""
    folder: Path = args.folder
    db = args.db or folder / "tournament.db"
    if not folder.is_dir():
        raise UsageError(f"{str(folder)!r} is not a folder (give a tournament's out folder)")
    if not db.is_file():
        raise UsageError(f"{str(db)!r}: no tournament database there (give --db)")
    address = parse_address(args.listen, "--listen")
    require_stack()
    sock = bind(address)
    from arena.tournament.store import Store

    store = Store(db, read_only=True)  # a damaged file is one line here, not in the server
    try:
        total = len(store.tables())
    finally:
        store.close()
    hub = Hub(title=f"Tournament {folder.name}", total=total)
    announce(address, sock, f"the tournament in {folder}")
    try:
        run_stoppable(serve_forever, hub, sock, folder, db)
    except KeyboardInterrupt:
        print("arena serve: the server is stopped", file=sys.stderr)
    finally:
        sock.close()
    return EXIT_OK
