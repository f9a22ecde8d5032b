"""Every kind of ProtocolError, decided in protocol/codec.py from msgspec's errors.

The kind (not the detail's text) is what the referee, the judge and ``arena check`` test; each
kind is pinned here to a line that produces it, with its path and field, so an msgspec upgrade
that rewords its messages fails here, in one place.
"""

from __future__ import annotations

import pytest

from protocol.codec import ProtocolError, ProtocolErrorKind, decode_from_bot, decode_to_bot

K = ProtocolErrorKind

CASES: list[tuple[str, bytes, ProtocolErrorKind, str | None, str | None]] = [
    ("malformed", b"nope", K.NOT_JSON, None, None),
    ("empty", b"", K.NOT_JSON, None, None),
    ("truncated", b'{"type":', K.NOT_JSON, None, None),
    ("trailing-text", b'{"type":"ready","name":"a"} x', K.NOT_JSON, None, None),
    ("bom", b'\xef\xbb\xbf{"type":"ready","name":"a"}', K.BYTE_ORDER_MARK, None, None),
    ("lone-surrogate", b'{"type":"ready","name":"\\ud800x"}', K.LONE_SURROGATE, None, None),
    ("lone-low-surrogate", b'{"type":"ready","name":"\\udc00"}', K.LONE_SURROGATE, None, None),
    ("not-utf8", b'{"type":"ready","name":"\xff"}', K.NOT_UTF8, None, None),
    (
        "too-deep",
        b'{"x":' + b"[" * 5_000 + b"]" * 5_000 + b',"type":"move","id":1,"move":{"action":"draw"}}',
        K.TOO_DEEP,
        None,
        None,
    ),
    ("unknown-field-top", b'{"type":"ready","name":"a","nmae":1}', K.UNKNOWN_FIELD, "$", "nmae"),
    (
        "unknown-field-move",
        b'{"type":"move","id":1,"move":{"action":"draw","x":1}}',
        K.UNKNOWN_FIELD,
        "$.move",
        "x",
    ),
    ("missing-field", b'{"type":"move","move":{"action":"draw"}}', K.MISSING_FIELD, "$", "id"),
    ("missing-type", b"{}", K.MISSING_FIELD, "$", "type"),
    ("missing-action", b'{"type":"move","id":1,"move":{}}', K.MISSING_FIELD, "$.move", "action"),
    ("unknown-type", b'{"type":"mvoe"}', K.UNKNOWN_TAG, "$.type", None),
    (
        "unknown-action",
        b'{"type":"move","id":1,"move":{"action":"fly"}}',
        K.UNKNOWN_TAG,
        "$.move.action",
        None,
    ),
    (
        "wrong-type-id",
        b'{"type":"move","id":"7","move":{"action":"draw"}}',
        K.WRONG_TYPE,
        "$.id",
        None,
    ),
    (
        "wrong-type-float",
        b'{"type":"move","id":1e3,"move":{"action":"draw"}}',
        K.WRONG_TYPE,
        "$.id",
        None,
    ),
    ("wrong-type-array", b"[1]", K.WRONG_TYPE, "$", None),
    ("wrong-type-tag", b'{"type":5}', K.WRONG_TYPE, "$.type", None),
    (
        "negative-id",
        b'{"type":"move","id":-1,"move":{"action":"draw"}}',
        K.OUT_OF_RANGE,
        "$.id",
        None,
    ),
    (
        "pip-7",
        b'{"type":"move","id":1,"move":{"action":"play","tile":[7,1],"end":"left","out":1}}',
        K.OUT_OF_RANGE,
        "$.move.tile[0]",
        None,
    ),
    (
        "tile-of-3",
        b'{"type":"move","id":1,"move":{"action":"play","tile":[1,1,1],"end":"left","out":1}}',
        K.OUT_OF_RANGE,
        "$.move.tile",
        None,
    ),
    ("empty-name", b'{"type":"ready","name":""}', K.OUT_OF_RANGE, "$.name", None),
    ("huge-number", b"1e999999", K.OUT_OF_RANGE, "$", None),
    (
        "unknown-end",
        b'{"type":"move","id":1,"move":{"action":"play","tile":[1,1],"end":"up","out":1}}',
        K.INVALID_VALUE,
        "$.move.end",
        None,
    ),
]


@pytest.mark.parametrize(
    ("line", "kind", "path", "field"), [c[1:] for c in CASES], ids=[c[0] for c in CASES]
)
def test_each_kind_is_decided_in_the_codec(
    line: bytes, kind: ProtocolErrorKind, path: str | None, field: str | None
) -> None:
    """decode_from_bot names the kind, the JSON path and the field of each error."""
    with pytest.raises(ProtocolError) as info:
        decode_from_bot(line)
    error = info.value
    assert (error.kind, error.path, error.field) == (kind, path, field)


def test_every_kind_is_covered() -> None:
    """Each kind has a line above that produces it."""
    assert {c[2] for c in CASES} == set(ProtocolErrorKind)


def test_the_detail_keeps_its_words() -> None:
    """The kind is added beside the detail; the detail a bot reads is unchanged."""
    with pytest.raises(ProtocolError) as info:
        decode_from_bot(b'{"type":"ready","name":"a","nmae":1}')
    assert info.value.detail == "Object contains unknown field `nmae` - at `$`"


def test_decode_to_bot_names_kinds_too() -> None:
    """The tolerant decoder for bots reports the same kinds (an unknown message type)."""
    with pytest.raises(ProtocolError) as info:
        decode_to_bot(b'{"type":"hullo"}')
    assert info.value.kind is ProtocolErrorKind.UNKNOWN_TAG
