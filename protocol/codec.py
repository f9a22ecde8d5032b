"""Encoding and decoding of protocol messages: the one place that turns msgspec errors into
:class:`ProtocolError`.

One module-level encoder and one typed decoder per direction, reused for every message.
"""

from __future__ import annotations

import codecs
import enum
import re
from collections.abc import Callable

import msgspec

from protocol.messages import FromBot, ToBot

MAX_EVIDENCE_BYTES = 200
_TOO_DEEP = "not valid JSON: nested too deeply"


class ProtocolErrorKind(enum.Enum):
    """What is wrong with a line, decided once, here, from msgspec's errors (nobody else reads
    their text).

    The first five are lines that are not JSON at all; the rest are JSON documents that are not a
    message of protocol v1.
    """

    NOT_JSON = "not_json"  #: malformed or truncated JSON, or not a single document
    BYTE_ORDER_MARK = "byte_order_mark"  #: the line starts with a UTF-8 BOM (EF BB BF)
    LONE_SURROGATE = "lone_surrogate"  #: a ``\\uD800``-``\\uDFFF`` escape without its other half
    NOT_UTF8 = "not_utf8"  #: bytes that are not UTF-8
    TOO_DEEP = "too_deep"  #: nested deeper than the decoder follows
    UNKNOWN_FIELD = "unknown_field"  #: an object has a field the message does not know
    MISSING_FIELD = "missing_field"  #: an object lacks a required field
    UNKNOWN_TAG = "unknown_tag"  #: a ``type`` or ``action`` that names no message or move
    WRONG_TYPE = "wrong_type"  #: a value of the wrong JSON type (a string where a number goes)
    OUT_OF_RANGE = "out_of_range"  #: a number or a length outside its bounds (a pip of 7)
    INVALID_VALUE = "invalid_value"  #: a string outside its set of values (an end ``"middle"``)


#: msgspec's ValidationError texts, by the kind each one means (the first match decides).
_VALIDATION_KINDS: tuple[tuple[re.Pattern[str], ProtocolErrorKind], ...] = (
    (
        re.compile(r"^Object contains unknown field `(?P<field>[^`]*)`"),
        ProtocolErrorKind.UNKNOWN_FIELD,
    ),
    (
        re.compile(r"^Object missing required field `(?P<field>[^`]*)`"),
        ProtocolErrorKind.MISSING_FIELD,
    ),
    (
        re.compile(r"^Invalid value .* - at `\$(?:\.\w+)*\.(?:type|action)`$"),
        ProtocolErrorKind.UNKNOWN_TAG,
    ),
    (re.compile(r"^Invalid (?:enum )?value "), ProtocolErrorKind.INVALID_VALUE),
    (re.compile(r"^Expected `[^`]*` (?:of length )?[<>]=? ?\d+"), ProtocolErrorKind.OUT_OF_RANGE),
    (re.compile(r"^Expected `[^`]*` of length \d+"), ProtocolErrorKind.OUT_OF_RANGE),
    (re.compile(r"^Number out of range"), ProtocolErrorKind.OUT_OF_RANGE),
    (re.compile(r"^Expected `[^`]*`"), ProtocolErrorKind.WRONG_TYPE),
)
_PATH = re.compile(r" - at `(?P<path>\$[^`]*)`$")


class ProtocolError(ValueError):
    """A line that is not a valid message of protocol v1.

    Attributes:
        kind: what is wrong, as a :class:`ProtocolErrorKind` (test this, never ``detail``).
        detail: what is wrong, with the JSON path where msgspec knows it (e.g. ``$.move.tile[1]``).
        path: that JSON path (``$`` for the whole message), or ``None`` for a line that is not
            JSON.
        field: the field an ``UNKNOWN_FIELD`` or ``MISSING_FIELD`` error names, else ``None``.
        line: the offending bytes, truncated to 200 bytes.
    """

    def __init__(
        self,
        detail: str,
        line: bytes,
        kind: ProtocolErrorKind = ProtocolErrorKind.NOT_JSON,
        path: str | None = None,
        field: str | None = None,
    ) -> None:
        self.kind = kind
        self.detail = detail
        self.path = path
        self.field = field
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


#: A field's value (a struct, a tuple of numbers, ``None``...) as `encode` writes it in a
#: message: the shared encoder's own method, for a caller that puts a message together from the
#: JSON of its fields (`arena.wire.RequestBuilder.request_line`).
encode_value: Callable[[object], bytes] = _ENCODER.encode


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


def _error(error: msgspec.ValidationError | msgspec.DecodeError, line: bytes) -> ProtocolError:
    """The :class:`ProtocolError` of a msgspec error: its kind, detail, path and field."""
    text = str(error)
    if isinstance(error, msgspec.ValidationError):
        # msgspec leaves out the path for errors at the top level of the message.
        detail = text if " - at `$" in text else f"{text} - at `$`"
        found = _PATH.search(detail)
        path = found.group("path") if found else "$"
        for pattern, kind in _VALIDATION_KINDS:
            match = pattern.search(detail)
            if match is not None:
                field = match.groupdict().get("field")
                return ProtocolError(detail, line, kind, path, field)
        return ProtocolError(detail, line, ProtocolErrorKind.INVALID_VALUE, path)
    if line.startswith(codecs.BOM_UTF8):
        return ProtocolError(
            "not valid JSON: the line starts with a UTF-8 byte order mark (bytes EF BB BF);"
            " write UTF-8 without one",
            line,
            ProtocolErrorKind.BYTE_ORDER_MARK,
        )
    # msgspec calls a high surrogate without its low half "truncated" when fewer than six
    # bytes follow it, and "invalid utf-16 surrogate pair" otherwise: name the escape.
    lone = _lone_surrogate(line) if "surrogate" in text or "truncated" in text else None
    if lone is not None:
        escape, offset = lone
        return ProtocolError(
            f"not valid JSON: lone surrogate escape {escape} at byte {offset}"
            " (JSON strings must be valid Unicode)",
            line,
            ProtocolErrorKind.LONE_SURROGATE,
        )
    kind = ProtocolErrorKind.NOT_UTF8 if "UTF-8" in text else ProtocolErrorKind.NOT_JSON
    return ProtocolError(f"not valid JSON: {text}", line, kind)


def decode_from_bot(line: bytes) -> FromBot:
    """Decode a line a bot sent (strict: unknown fields and wrong types are errors).

    Raises:
        ProtocolError: for anything but a valid ``ready`` or ``move`` message.
    """
    try:
        return _FROM_BOT.decode(line)
    except (msgspec.ValidationError, msgspec.DecodeError) as error:
        raise _error(error, line) from None
    except RecursionError:  # msgspec skips an ignored deeply nested value recursively
        raise ProtocolError(_TOO_DEEP, line, ProtocolErrorKind.TOO_DEEP) from None


def decode_to_bot(line: bytes) -> ToBot:
    """Decode a line the referee sent (tolerant: unknown fields are ignored).

    For bots written in Python. Raises :class:`ProtocolError` for an unknown message type.
    """
    try:
        return _TO_BOT.decode(line)
    except (msgspec.ValidationError, msgspec.DecodeError) as error:
        raise _error(error, line) from None
    except RecursionError:
        raise ProtocolError(_TOO_DEEP, line, ProtocolErrorKind.TOO_DEEP) from None
