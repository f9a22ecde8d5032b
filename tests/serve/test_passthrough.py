"""A client's write of a batch reaches the socket as the batch's own bytes object (h11's
chunk framing around it, not joined with it), with the same bytes on the wire."""

from __future__ import annotations

from typing import Any

import h11
import hypercorn.protocol
import trio
from hypercorn.config import Config
from hypercorn.events import RawData
from hypercorn.protocol.h11 import H11Protocol
from hypercorn.trio.worker_context import WorkerContext

from arena.serve.passthrough import FRAMED_KEPT, PassThroughH11, install

#: What these tests never reach (the app, the task group, the connection's state).
UNUSED: Any = None


def _protocol(kind: type[H11Protocol], sent: list[Any]) -> H11Protocol:
    """An HTTP/1.1 connection of ``kind`` whose response to a GET is under way (chunked)."""

    async def send(event: Any) -> None:
        sent.append(event)

    protocol = kind(UNUSED, Config(), WorkerContext(None), UNUSED, UNUSED, False, None, None, send)
    connection = protocol.connection
    assert isinstance(connection, h11.Connection)
    connection.receive_data(b"GET /events HTTP/1.1\r\nHost: x\r\n\r\n")
    assert isinstance(connection.next_event(), h11.Request)
    connection.send(h11.Response(status_code=200, headers=[]))
    return protocol


async def _write(kind: type[H11Protocol], chunk: bytes) -> list[bytes]:
    sent: list[Any] = []
    protocol = _protocol(kind, sent)
    await protocol._send_h11_event(h11.Data(data=chunk))
    assert all(isinstance(event, RawData) for event in sent)
    return [event.data for event in sent]


def test_a_chunk_is_written_without_a_copy() -> None:
    """The pieces written are the chunk's size line, the chunk itself and its end."""
    chunk = b"event: move\ndata: {}\n\n" * 1000
    pieces = trio.run(_write, PassThroughH11, chunk)
    assert pieces == [b"%x\r\n" % len(chunk), chunk, b"\r\n"]
    assert pieces[1] is chunk


def test_a_chunk_written_again_is_one_piece_made_once() -> None:
    """The same bytes object written to a second and a third client (a batch) is one
    piece, the same object for both, with the same bytes as the three pieces."""
    chunk = b"event: move\ndata: {}\n\n" * 1000
    first = trio.run(_write, PassThroughH11, chunk)
    second = trio.run(_write, PassThroughH11, chunk)
    third = trio.run(_write, PassThroughH11, chunk)
    assert len(second) == 1
    assert second[0] == b"".join(first)
    assert third[0] is second[0]
    other = chunk[:1] + chunk[1:]  # equal, not the same object: written piece by piece
    assert other is not chunk
    assert len(trio.run(_write, PassThroughH11, other)) == 3


def test_chunks_written_once_do_not_push_a_batch_out() -> None:
    """Between two clients' writes of a batch, many chunks written to one client each (a
    stream's head, a match's own events) are written piece by piece and leave the batch's
    framing in place."""
    batch = b"event: move\ndata: {}\n\n" * 1000
    trio.run(_write, PassThroughH11, batch)
    framed = trio.run(_write, PassThroughH11, batch)
    # Kept alive, so that no chunk takes the id of one freed before it (an id seen before
    # frames an object one write early: the same bytes, as one piece).
    chunks = [b"id: %d\n\n" % number for number in range(2 * FRAMED_KEPT)]
    for chunk in chunks:
        assert len(trio.run(_write, PassThroughH11, chunk)) == 3
    again = trio.run(_write, PassThroughH11, batch)
    assert again[0] is framed[0]


def test_the_wire_is_what_hypercorn_writes() -> None:
    """The same bytes as hypercorn's own protocol, which writes one joined copy."""
    chunk = b"event: move\ndata: {}\n\n" * 10
    ours = trio.run(_write, PassThroughH11, chunk)
    theirs = trio.run(_write, H11Protocol, chunk)
    assert len(theirs) == 1
    assert theirs[0] is not chunk
    assert b"".join(ours) == theirs[0]


def test_install_makes_new_connections_pass_through() -> None:
    """After ``install``, hypercorn's connection wrapper makes the pass-through protocol."""
    assert install()
    assert install()  # idempotent
    context = WorkerContext(None)
    wrapper = hypercorn.protocol.ProtocolWrapper(
        UNUSED, Config(), context, UNUSED, UNUSED, False, None, None, UNUSED
    )
    assert type(wrapper.protocol) is PassThroughH11
