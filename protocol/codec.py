"""Encoding and decoding of protocol messages: the one place that turns msgspec errors into
:class:`ProtocolError`.

One module-level encoder and one typed decoder per direction, reused for every message.
"""

from __future__ import annotations

import codecs
import re

import msgspec

from protocol.messages import FromBot, ToBot

MAX_EVIDENCE_BYTES = 200
_TOO_DEEP = "not valid JSON: nested too deeply"


class ProtocolError(ValueError):
    """A line that is not a valid message of protocol v1.

    Attributes:
        detail: what is wrong, with the JSON path where msgspec knows it (e.g. ``$.move.tile[1]``).
        line: the offending bytes, truncated to 200 bytes.
    """

    def __init__(self, detail: str, line: bytes) -> None:
        self.detail = detail
        self.line = line[:MAX_EVIDENCE_BYTES]
        shown = self.line.decode("utf-8", errors="replace")
        more = "…" if len(line) > MAX_EVIDENCE_BYTES else ""
        super().__init__(f"{detail} (in {shown!r}{more})")


_ENCODER = msgspec.json.Encoder()
_FROM_BOT = msgspec.json.Decoder(FromBot)
_TO_BOT = msgspec.json.Decoder(ToBot)


def encode(message: ToBot | FromBot) -> bytes:
    """One message as compact JSON, without the newline."""
    return _ENCODER.encode(message)


def encode_part(part: msgspec.Struct) -> bytes:
    """A part of a message (such as one history event) as `encode` writes it in the message."""
    return _ENCODER.encode(part)


# An odd number of backslashes, then a \u escape of a UTF-16 surrogate (D800-DFFF).
_SURROGATE_ESCAPE = re.compile(rb"(?<!\\)(?:\\\\)*(\\u[dD][89a-fA-F][0-9a-fA-F]{2})")


def _lone_surrogate(line: bytes) -> tuple[str, int] | None:
    """The first ``\\uD800``-``\\uDFFF`` escape of ``line`` that is not half of a pair (a
    high one followed at once by a low one), and the byte offset of its backslash."""
    pending: tuple[str, int] | None = None  # a high surrogate waiting for its low half
    for match in _SURROGATE_ESCAPE.finditer(line):
        escape, start = match.group(1).decode(), match.start(1)
        low = escape[3].lower() in "cdef"
        if pending is not None:
            if low and start == pending[1] + 6:
                pending = None
                continue
            return pending
        if low:
            return escape, start
        pending = (escape, start)
    return pending


def _describe(error: msgspec.ValidationError | msgspec.DecodeError, line: bytes) -> str:
    text = str(error)
    if isinstance(error, msgspec.ValidationError):
        # msgspec leaves out the path for errors at the top level of the message.
        return text if " - at `$" in text else f"{text} - at `$`"
    if line.startswith(codecs.BOM_UTF8):
        return (
            "not valid JSON: the line starts with a UTF-8 byte order mark (bytes EF BB BF);"
            " write UTF-8 without one"
        )
    # msgspec calls a high surrogate without its low half "truncated" when fewer than six
    # bytes follow it, and "invalid utf-16 surrogate pair" otherwise: name the escape.
    lone = _lone_surrogate(line) if "surrogate" in text or "truncated" in text else None
    if lone is not None:
        escape, offset = lone
        return (
            f"not valid JSON: lone surrogate escape {escape} at byte {offset}"
            " (JSON strings must be valid Unicode)"
        )
    return f"not valid JSON: {text}"


def decode_from_bot(line: bytes) -> FromBot:
    """Decode a line a bot sent (strict: unknown fields and wrong types are errors).

    Raises:
        ProtocolError: for anything but a valid ``ready`` or ``move`` message.
    """
    try:
        return _FROM_BOT.decode(line)
    except (msgspec.ValidationError, msgspec.DecodeError) as error:
        raise ProtocolError(_describe(error, line), line) from None
    except RecursionError:  # msgspec skips an ignored deeply nested value recursively
        raise ProtocolError(_TOO_DEEP, line) from None


def decode_to_bot(line: bytes) -> ToBot:
    """Decode a line the referee sent (tolerant: unknown fields are ignored).

    For bots written in Python. Raises :class:`ProtocolError` for an unknown message type.
    """
    try:
        return _TO_BOT.decode(line)
    except (msgspec.ValidationError, msgspec.DecodeError) as error:
        raise ProtocolError(_describe(error, line), line) from None
    except RecursionError:
        raise ProtocolError(_TOO_DEEP, line) from None
