"""Encoding and decoding of protocol messages: the one place that turns msgspec errors into
:class:`ProtocolError`.

One module-level encoder and one typed decoder per direction, reused for every message.
"""

from __future__ import annotations

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


def _describe(error: msgspec.ValidationError | msgspec.DecodeError) -> str:
    text = str(error)
    if isinstance(error, msgspec.ValidationError):
        # msgspec leaves out the path for errors at the top level of the message.
        return text if " - at `$" in text else f"{text} - at `$`"
    return f"not valid JSON: {text}"


def decode_from_bot(line: bytes) -> FromBot:
    """Decode a line a bot sent (strict: unknown fields and wrong types are errors).

    Raises:
        ProtocolError: for anything but a valid ``ready`` or ``move`` message.
    """
    try:
        return _FROM_BOT.decode(line)
    except (msgspec.ValidationError, msgspec.DecodeError) as error:
        raise ProtocolError(_describe(error), line) from None
    except RecursionError:  # msgspec skips an ignored deeply nested value recursively
        raise ProtocolError(_TOO_DEEP, line) from None


def decode_to_bot(line: bytes) -> ToBot:
    """Decode a line the referee sent (tolerant: unknown fields are ignored).

    For bots written in Python. Raises :class:`ProtocolError` for an unknown message type.
    """
    try:
        return _TO_BOT.decode(line)
    except (msgspec.ValidationError, msgspec.DecodeError) as error:
        raise ProtocolError(_describe(error), line) from None
    except RecursionError:
        raise ProtocolError(_TOO_DEEP, line) from None
