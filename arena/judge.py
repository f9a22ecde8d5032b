"""The one judge of a bot's reply: a line and the request it answers in, a move or a typed
rejection out.

Pure (no I/O, no clock, no process): the referee (`arena.referee.match`) and ``arena check``
(`arena.check.session`) both call it, so "a valid answer" means the same thing to both; each
words a rejection for its own reader (the referee's failure record, the checker's advice to a
student). What the judge never sees is judged where it happens: a line too long is refused by
the line buffer before it is a line (`arena.referee.framing`), a silent or dead bot is the
caller's clock's and pipe's business (`arena.errors.BotIOError`).

The judgements, in the order they are made:

1. the line decodes as a message from a bot (else ``MALFORMED``, with the codec's
   :class:`~protocol.codec.ProtocolErrorKind`, JSON path and field);
2. it is the message asked for: ``ready`` after ``hello``, ``move`` after a request (else
   ``UNEXPECTED_MESSAGE``); a ``ready`` speaks this protocol (else ``WRONG_PROTOCOL``);
3. a move carries the request's id (else ``STALE_ID`` for the id of a request that was struck
   and played for the bot, which the referee skips, or ``WRONG_ID``);
4. the move is one of the request's legal moves (else ``ILLEGAL_MOVE``, naming the move and the
   open ends): the list the bot was sent is the list it is judged by.
"""

from __future__ import annotations

import enum
from collections.abc import Container

import msgspec

from arena.games.api import Move, SeatView
from arena.replay import Status
from arena.wire import move_from_reply
from protocol import messages as m
from protocol.codec import ProtocolError, ProtocolErrorKind, decode_from_bot


class Fault(enum.Enum):
    """Why a reply was rejected."""

    MALFORMED = "malformed"  #: not a message of the protocol (see ``Rejection.error``)
    UNEXPECTED_MESSAGE = "unexpected_message"  #: a valid message, but not the one asked for
    WRONG_PROTOCOL = "wrong_protocol"  #: a ``ready`` naming another protocol version
    WRONG_ID = "wrong_id"  #: a move whose id is not the request's
    STALE_ID = "stale_id"  #: a move answering an earlier request, already played for the bot
    ILLEGAL_MOVE = "illegal_move"  #: a move not in the request's legal list


class Accepted(msgspec.Struct, frozen=True, gc=False):
    """A reply that answers its request: the engine move, and the bot's debug note."""

    move: Move
    debug: str | None = None


class Rejection(msgspec.Struct, frozen=True, gc=False):
    """A reply that does not answer its request, and everything known about why.

    Attributes:
        fault: the kind of rejection.
        reason: what is wrong, in the referee's words (the replay's ``error`` field for a bad
            message; the whole detail for an illegal move).
        request_id: the request answered (``None`` for a ``ready``).
        error: for ``MALFORMED``, the codec's error (its ``kind``, ``path`` and ``field``).
        message: the message's type tag when it was not the one asked for (``"ready"``).
        reply_id: the id the reply carried, when it had one.
        protocol: for ``WRONG_PROTOCOL``, the version the bot named.
        move: for ``ILLEGAL_MOVE``, the engine move asked for, and ``wire_move`` as sent.
        legal: for ``ILLEGAL_MOVE``, the request's legal moves; ``ends``: its open ends.
    """

    fault: Fault
    reason: str
    request_id: int | None = None
    error: ProtocolError | None = None
    message: str | None = None
    reply_id: int | None = None
    protocol: int | None = None
    move: Move | None = None
    wire_move: m.ReplyMove | None = None
    legal: tuple[Move, ...] = ()
    ends: tuple[tuple[str, int], ...] = ()

    @property
    def status(self) -> Status:
        """The failure it is in a replay: ``illegal_move``, or ``bad_message``."""
        return Status.ILLEGAL_MOVE if self.fault is Fault.ILLEGAL_MOVE else Status.BAD_MESSAGE

    @property
    def error_kind(self) -> ProtocolErrorKind | None:
        """The codec's kind of a ``MALFORMED`` reply."""
        return None if self.error is None else self.error.kind

    @property
    def detail(self) -> str:
        """The sentence of the failure record (``sent an invalid message: ...``)."""
        if self.fault is Fault.ILLEGAL_MOVE:
            return self.reason
        return f"sent an invalid message: {self.reason}"


#: What the judge says of a move: accepted, or rejected with its reasons.
Judgement = Accepted | Rejection


def ends_text(ends: tuple[tuple[str, int], ...]) -> str:
    """``left=3, right=5``, or ``none (the lead)``."""
    return ", ".join(f"{p}={v}" for p, v in ends) or "none (the lead)"


def _malformed(error: ProtocolError, request_id: int | None) -> Rejection:
    # Without its traceback: a rejection is a value, and keeps no frame alive.
    return Rejection(Fault.MALFORMED, error.detail, request_id, error=error.with_traceback(None))


#: The accepted replies already judged, by the part of the line after the request's id (see
#: `judge_move`): a bot answers with the same few dozen tails again and again.
_TAILS: dict[bytes, Accepted] = {}
#: The most tails `_TAILS` holds before it starts again (a bot's debug notes are its own).
_TAILS_LIMIT = 4096
#: The longest tail kept: a move and a short note. Longer notes (the protocol allows 1,024
#: characters) are judged but not kept: the cache holds at most 4096 x 256 bytes of tails.
_TAIL_BYTES = 256


def judge_move(
    line: bytes, request_id: int, view: SeatView, stale: Container[int] = ()
) -> Judgement:
    """Judge ``line`` as the answer to request ``request_id``, sent with ``view``.

    ``stale`` holds the ids of earlier requests the bot may still answer late (struck by a
    timeout and played for it): such an answer is a ``STALE_ID`` rejection the caller skips.

    A line written ``{"type":"move","id":<the id>,"move":`` and then a tail already accepted
    after another id is judged from that tail without decoding it again: the rest of such a
    line is the same bytes, so it decodes to the same move and note. Only tails without a
    backslash or an ``"id"`` of their own are kept (no second ``id`` key can hide in them),
    and the move is still looked up in this request's legal list; tails over 256 bytes are not
    kept (the cache's memory is bounded whatever bots send); any other line (another id,
    spacing, key order) takes the full path below.
    """
    head = b'{"type":"move","id":%d,"move":' % request_id
    if line.startswith(head):
        known = _TAILS.get(line[len(head) :])
        if known is not None and known.move in view.legal:
            return known
    try:
        reply = decode_from_bot(line)
    except ProtocolError as error:
        return _malformed(error, request_id)
    if type(reply) is not m.MoveReply:
        return Rejection(
            Fault.UNEXPECTED_MESSAGE,
            "expected a 'move' message",
            request_id,
            message=str(reply.__struct_config__.tag),
        )
    if reply.id != request_id:
        if reply.id in stale:
            return Rejection(
                Fault.STALE_ID,
                f"the reply's id {reply.id} answers an earlier request, played already",
                request_id,
                reply_id=reply.id,
            )
        return Rejection(
            Fault.WRONG_ID,
            f"the reply's id {reply.id} is not the request's id {request_id}",
            request_id,
            reply_id=reply.id,
        )
    move = move_from_reply(reply.move)
    legal = view.legal
    if move not in legal:
        return Rejection(
            Fault.ILLEGAL_MOVE,
            f"illegal move {move} in request {request_id}; open ends {ends_text(view.ends)}",
            request_id,
            reply_id=reply.id,
            move=move,
            wire_move=reply.move,
            legal=legal,
            ends=view.ends,
        )
    accepted = Accepted(move, reply.debug)
    if line.startswith(head):
        tail = line[len(head) :]
        if len(tail) <= _TAIL_BYTES and b"\\" not in tail and b'"id"' not in tail:
            if len(_TAILS) >= _TAILS_LIMIT:
                _TAILS.clear()
            _TAILS[tail] = accepted
    return accepted


def judge_ready(line: bytes) -> m.Ready | Rejection:
    """Judge ``line`` as the answer to ``hello``: a ``ready`` in protocol v1 (or none named)."""
    try:
        ready = decode_from_bot(line)
    except ProtocolError as error:
        return _malformed(error, None)
    if not isinstance(ready, m.Ready):
        return Rejection(
            Fault.UNEXPECTED_MESSAGE,
            "expected a 'ready' message",
            message=str(ready.__struct_config__.tag),
            reply_id=ready.id,
        )
    if ready.protocol is not None and ready.protocol != m.PROTOCOL_VERSION:
        return Rejection(
            Fault.WRONG_PROTOCOL,
            f"the bot speaks protocol {ready.protocol}; this referee speaks "
            f"protocol {m.PROTOCOL_VERSION}",
            protocol=ready.protocol,
        )
    return ready
