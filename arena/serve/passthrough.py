"""Each client's write of a batch without a copy of it: hypercorn's HTTP/1.1 connections
hand h11's chunk framing to the socket piece by piece instead of joined.

An ``/events`` stream has no length, so h11 frames its body in chunks (``Transfer-Encoding:
chunked``): a write of the batch's bytes becomes the pieces ``b"%x\\r\\n" % len(batch)``, the
batch itself and ``b"\\r\\n"``, and ``h11.Connection.send`` joins them into one new bytes
object. Hypercorn sends that, so every client's write copied the whole batch, which the hub
had made once for all of them (`arena.serve.hub.Batch`). With 100 clients of a busy
tournament that copy was the largest part of the server's work: about 280 µs a write of
batches up to a megabyte, 0.6 CPU-seconds of a 2-second burst of moves, more than the
socket sends themselves (benchmarks/serve_bench.py, docs/performance.md).

:func:`install` makes hypercorn's HTTP/1.1 connections of this process use
:class:`PassThroughH11`, which sends a body's pieces as h11 gives them
(``h11.Connection.send_with_data_passthrough``, h11's public API for exactly this): the same
bytes on the wire, in the same order, with the batch's own bytes object handed to the socket.
A bytes object written a second time (a batch: every up-to-date client is written the same
one) is framed once, its three pieces joined into one object kept for the next clients
(:class:`_FramedChunks`), so that each client's write of a batch is one send, not three: one
copy per batch instead of one per client, and the write pass over 100 clients took about 50 ms
instead of 75 (docs/performance.md).

It relies on two of hypercorn's internals (as of 0.17 and 0.18): the name of the class its
connection wrapper makes, looked up in ``hypercorn.protocol``, and the method overridden,
``_send_h11_event``. :func:`install` checks both; with a hypercorn shaped otherwise it
changes nothing and the server works as before, copying (``tests/serve/test_passthrough.py``
fails then, so an upgrade that loses this is seen).
"""

from __future__ import annotations

from collections import OrderedDict
from typing import Any

import h11
import hypercorn.protocol
from hypercorn.events import RawData
from hypercorn.protocol.h11 import H11Protocol


class PassThroughH11(H11Protocol):
    """Hypercorn's HTTP/1.1 protocol, writing a body's chunk framing and data as separate
    pieces (no copy of the data)."""

    async def _send_h11_event(self, event: Any) -> None:
        connection = self.connection
        if type(event) is not h11.Data or not isinstance(connection, h11.Connection):
            await super()._send_h11_event(event)
            return
        try:
            parts = connection.send_with_data_passthrough(event)
        except h11.LocalProtocolError:  # as hypercorn does: a connection already broken
            if connection.their_state != h11.ERROR:
                raise
            return
        framed = _FRAMED.framed(parts) if parts is not None and len(parts) == 3 else None
        if framed is not None:
            await self.send(RawData(data=framed))
            return
        for part in parts or ():
            await self.send(RawData(data=part))


class _FramedChunks:
    """The chunk framing of the bytes objects written to more than one client, made once:
    the size line, the bytes and the line's end, joined into one object the second time the
    same object is written (a batch, which every up-to-date client is written), so that each
    client's write of it is one send. The newest :data:`FRAMED_KEPT` framed objects are kept,
    and the ids of the last :data:`SEEN_KEPT` objects written once (the many written to one
    client only, a stream's head or a match's own events, never push a batch out)."""

    def __init__(self) -> None:
        # id of the data -> the data (kept, so that its id is not reused) and its framing
        self._framed: OrderedDict[int, tuple[bytes, bytes]] = OrderedDict()
        # ids of data written once: an id reused since only frames an object one write early
        self._seen: OrderedDict[int, None] = OrderedDict()

    def framed(self, parts: list[bytes]) -> bytes | None:
        """The pieces ``[size line, data, end]`` joined, when ``data`` was written before."""
        data = parts[1]
        key = id(data)
        kept = self._framed.get(key)
        if kept is not None and kept[0] is data:
            return kept[1]
        if self._seen.pop(key, False) is False:  # the first time: written piece by piece
            self._seen[key] = None
            if len(self._seen) > SEEN_KEPT:
                self._seen.popitem(last=False)
            return None
        framed = b"".join(parts)
        self._framed[key] = (data, framed)
        if len(self._framed) > FRAMED_KEPT:
            self._framed.popitem(last=False)
        return framed


#: How many shared bytes objects keep their framed copy (a batch is written to every client
#: within a batch or two).
FRAMED_KEPT = 4
#: How many ids of objects written once are remembered.
SEEN_KEPT = 256
_FRAMED = _FramedChunks()


def install() -> bool:
    """Make hypercorn's new HTTP/1.1 connections :class:`PassThroughH11` (idempotent);
    whether they are."""
    wrapper = getattr(hypercorn.protocol, "ProtocolWrapper", None)
    names = getattr(getattr(wrapper, "__init__", None), "__code__", None)
    if names is None or "H11Protocol" not in names.co_names:
        return False  # another hypercorn: it makes its connections some other way
    if not callable(getattr(H11Protocol, "_send_h11_event", None)):
        return False
    setattr(hypercorn.protocol, "H11Protocol", PassThroughH11)  # noqa: B010  # not exported
    return True


__all__ = ["PassThroughH11", "install"]
