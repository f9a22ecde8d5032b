"""The codec as a bot author relies on it: what decodes, the exact errors, and round trips.

Messages from bots are decoded strictly (every error names the JSON path); messages to bots are
decoded tolerantly (unknown fields are ignored), and every message encodes to one compact line.
"""

from __future__ import annotations

import json
import typing

import msgspec
import pytest

from protocol import messages as m
from protocol.codec import (
    MAX_EVIDENCE_BYTES,
    ProtocolError,
    decode_from_bot,
    decode_to_bot,
    encode,
)
from protocol.schema import protocol_schema


def rejected(line: bytes) -> ProtocolError:
    """The ProtocolError that decode_from_bot raises for ``line``."""
    with pytest.raises(ProtocolError) as info:
        decode_from_bot(line)
    return info.value


def move_line(move: str, **extra: str) -> bytes:
    """A ``move`` reply with id 7 around the JSON text ``move``, plus raw JSON ``extra`` fields."""
    fields = "".join(f',"{key}":{value}' for key, value in extra.items())
    return f'{{"type":"move","id":7,"move":{move}{fields}}}'.encode()


# -- valid messages from bots ------------------------------------------------------------------


def test_ready_decodes_with_name_only() -> None:
    """A ready message with only a name decodes, with no protocol version."""
    assert decode_from_bot(b'{"type":"ready","name":"greedy"}') == m.Ready(name="greedy")


def test_ready_decodes_with_protocol_version() -> None:
    """A ready message may state the protocol version it speaks."""
    message = decode_from_bot(b'{"type":"ready","name":"greedy","protocol":1}')
    assert message == m.Ready(name="greedy", protocol=1)


def test_ready_accepts_name_of_64_characters() -> None:
    """A name of exactly 64 characters (not bytes) is accepted."""
    name = "й" * m.MAX_NAME_CHARS
    assert decode_from_bot(json.dumps({"type": "ready", "name": name}).encode()).name == name


@pytest.mark.parametrize(
    ("move", "expected"),
    [
        (
            '{"action":"play","tile":[3,4],"end":"left","out":4}',
            m.PlayReply(tile=(3, 4), end="left", out=4),
        ),
        (
            '{"action":"play","tile":[6,6],"end":"right","out":6}',
            m.PlayReply(tile=(6, 6), end="right", out=6),
        ),
        (
            '{"action":"play","tile":[2,5],"end":null,"out":5}',
            m.PlayReply(tile=(2, 5), end=None, out=5),
        ),
        ('{"action":"draw"}', m.DrawReply()),
        ('{"action":"pass"}', m.PassReply()),
    ],
    ids=["play-left", "play-right", "play-lead", "draw", "pass"],
)
def test_move_reply_decodes_every_action(move: str, expected: m.ReplyMove) -> None:
    """A move reply decodes for a play on either end or as the lead, a draw and a pass."""
    assert decode_from_bot(move_line(move)) == m.MoveReply(id=7, move=expected)


def test_move_reply_decodes_with_debug_note() -> None:
    """The optional debug note is kept verbatim."""
    reply = decode_from_bot(move_line('{"action":"draw"}', debug='"thinking: 3 outs"'))
    assert reply == m.MoveReply(id=7, move=m.DrawReply(), debug="thinking: 3 outs")


def test_move_reply_accepts_debug_of_1024_characters() -> None:
    """A debug note of exactly 1024 characters is accepted."""
    note = "x" * m.MAX_DEBUG_CHARS
    reply = decode_from_bot(move_line('{"action":"pass"}', debug=json.dumps(note)))
    assert isinstance(reply, m.MoveReply)
    assert reply.debug == note


def test_move_reply_accepts_null_debug() -> None:
    """An explicit null debug note is the same as no note."""
    assert decode_from_bot(move_line('{"action":"pass"}', debug="null")).debug is None


def test_play_tile_decodes_as_written() -> None:
    """The decoder keeps the halves in the order the bot wrote them ([4,3] stays (4, 3))."""
    reply = decode_from_bot(move_line('{"action":"play","tile":[4,3],"end":"left","out":3}'))
    assert reply == m.MoveReply(id=7, move=m.PlayReply(tile=(4, 3), end="left", out=3))


def test_fields_may_come_in_any_order() -> None:
    """The type tag need not be the first field."""
    line = b'{"move":{"out":4,"end":"right","tile":[3,4],"action":"play"},"id":2,"type":"move"}'
    assert decode_from_bot(line) == m.MoveReply(
        id=2, move=m.PlayReply(tile=(3, 4), end="right", out=4)
    )


# -- strict decoding: the exact errors ---------------------------------------------------------


def test_unknown_top_level_field_is_named_at_root() -> None:
    """An unknown top-level field is an error naming it, at path ``$``."""
    error = rejected(b'{"type":"ready","name":"greedy","x":1}')
    assert error.detail == "Object contains unknown field `x` - at `$`"


def test_unknown_field_inside_move_is_named_at_move() -> None:
    """An unknown field inside the move is an error at path ``$.move``."""
    error = rejected(move_line('{"action":"draw","x":1}'))
    assert error.detail == "Object contains unknown field `x` - at `$.move`"


def test_tile_half_out_of_range_names_its_index() -> None:
    """A tile half of 9 is an error naming the half's index in the tile."""
    error = rejected(move_line('{"action":"play","tile":[3,9],"end":"left","out":3}'))
    assert error.detail == "Expected `int` <= 6 - at `$.move.tile[1]`"


def test_negative_tile_half_is_rejected() -> None:
    """A negative tile half is an error at its index."""
    error = rejected(move_line('{"action":"play","tile":[-1,3],"end":"left","out":3}'))
    assert error.detail == "Expected `int` >= 0 - at `$.move.tile[0]`"


def test_tile_of_three_halves_is_rejected() -> None:
    """A tile must have exactly two halves."""
    error = rejected(move_line('{"action":"play","tile":[3,4,5],"end":"left","out":3}'))
    assert error.detail == "Expected `array` of length 2 - at `$.move.tile`"


def test_unknown_end_is_rejected() -> None:
    """An end other than left, right or null is an error at ``$.move.end``."""
    error = rejected(move_line('{"action":"play","tile":[3,4],"end":"middle","out":3}'))
    assert error.detail == "Invalid enum value 'middle' - at `$.move.end`"


def test_lead_may_leave_out_the_end() -> None:
    """A play without an end is a lead, the same as ``"end": null``."""
    reply = decode_from_bot(move_line('{"action":"play","tile":[3,4],"out":4}'))
    assert reply == m.MoveReply(id=7, move=m.PlayReply(tile=(3, 4), end=None, out=4))


def test_play_without_out_is_rejected() -> None:
    """A play must state its outward half."""
    error = rejected(move_line('{"action":"play","tile":[3,4],"end":"left"}'))
    assert error.detail == "Object missing required field `out` - at `$.move`"


def test_play_without_tile_is_rejected() -> None:
    """A play must state its tile."""
    error = rejected(move_line('{"action":"play","end":"left","out":4}'))
    assert error.detail == "Object missing required field `tile` - at `$.move`"


def test_string_for_int_is_a_type_error_with_path() -> None:
    """A string where an int is expected is a type error at that path."""
    error = rejected(b'{"type":"move","id":"7","move":{"action":"draw"}}')
    assert error.detail == "Expected `int`, got `str` - at `$.id`"


def test_bool_is_not_an_int() -> None:
    """``true`` is not accepted as an id."""
    error = rejected(b'{"type":"move","id":true,"move":{"action":"draw"}}')
    assert error.detail == "Expected `int`, got `bool` - at `$.id`"


def test_negative_id_is_rejected() -> None:
    """A request id is never negative."""
    error = rejected(b'{"type":"move","id":-1,"move":{"action":"draw"}}')
    assert error.detail == "Expected `int` >= 0 - at `$.id`"


def test_missing_id_is_rejected() -> None:
    """A move reply without an id is an error naming the field."""
    error = rejected(b'{"type":"move","move":{"action":"draw"}}')
    assert error.detail == "Object missing required field `id` - at `$`"


def test_missing_type_is_rejected() -> None:
    """A message without a type tag is an error naming the tag."""
    error = rejected(b'{"name":"greedy"}')
    assert error.detail == "Object missing required field `type` - at `$`"


def test_unknown_type_is_rejected() -> None:
    """A type tag that bots may not send is an error at ``$.type``."""
    error = rejected(b'{"type":"hello","name":"greedy"}')
    assert error.detail == "Invalid value 'hello' - at `$.type`"


def test_unknown_action_is_rejected() -> None:
    """An unknown move action is an error at ``$.move.action``."""
    error = rejected(move_line('{"action":"jump"}'))
    assert error.detail == "Invalid value 'jump' - at `$.move.action`"


def test_debug_over_1024_characters_is_rejected() -> None:
    """A debug note of 1025 characters is an error at ``$.debug``."""
    error = rejected(move_line('{"action":"draw"}', debug=json.dumps("x" * 1025)))
    assert error.detail == "Expected `str` of length <= 1024 - at `$.debug`"


def test_empty_name_is_rejected() -> None:
    """A bot name may not be empty."""
    error = rejected(b'{"type":"ready","name":""}')
    assert error.detail == "Expected `str` of length >= 1 - at `$.name`"


def test_name_over_64_characters_is_rejected() -> None:
    """A bot name of 65 characters is an error at ``$.name``."""
    error = rejected(json.dumps({"type": "ready", "name": "n" * 65}).encode())
    assert error.detail == "Expected `str` of length <= 64 - at `$.name`"


def test_top_level_array_is_rejected_at_root() -> None:
    """A JSON array instead of an object is a type error at ``$``."""
    assert rejected(b"[]").detail == "Expected `object`, got `array` - at `$`"


@pytest.mark.parametrize(
    "line",
    [b"nope", b"", b"{", b'{"type":"ready","name":"a"} x', b'{"type":"ready",}'],
    ids=["word", "empty", "open-brace", "trailing-text", "trailing-comma"],
)
def test_not_json_is_reported_as_such(line: bytes) -> None:
    """A line that is not one JSON document gives a detail starting "not valid JSON: "."""
    assert rejected(line).detail.startswith("not valid JSON: ")


@pytest.mark.parametrize(
    "line",
    [b"\xff\xfe", b'{"type":"ready","name":"\xff"}', b'{"type":"ready","name":"\xc3"}'],
    ids=["bom-like", "bad-byte-in-string", "cut-sequence"],
)
def test_invalid_utf8_is_a_protocol_error(line: bytes) -> None:
    """Bytes that are not UTF-8 give a ProtocolError, not a UnicodeDecodeError."""
    assert rejected(line).line == line


def test_lone_surrogate_escape_is_rejected() -> None:
    """A name escaping a lone UTF-16 surrogate (not encodable as UTF-8) is rejected."""
    assert rejected(b'{"type":"ready","name":"\\ud800x"}').detail.startswith("not valid JSON: ")


def test_surrogate_pair_escape_is_accepted() -> None:
    """An escaped surrogate pair is one character and decodes normally."""
    reply = decode_from_bot(move_line('{"action":"pass"}', debug='"\\ud83d\\ude00"'))
    assert reply.debug == "\U0001f600"


# -- ProtocolError: the evidence ---------------------------------------------------------------


def test_error_keeps_a_short_line_whole() -> None:
    """A short offending line is kept whole and shown in the message without an ellipsis."""
    line = b'{"type":"ready","name":"greedy","x":1}'
    error = rejected(line)
    assert error.line == line
    assert str(error) == f"{error.detail} (in {line.decode()!r})"


def test_error_truncates_the_line_to_200_bytes() -> None:
    """A long offending line is kept as its first 200 bytes, and the message shows them."""
    line = move_line('{"action":"draw"}', debug=json.dumps("d" * 1500))
    error = rejected(line)
    assert MAX_EVIDENCE_BYTES == 200
    assert error.line == line[:200]
    assert str(error) == f"{error.detail} (in {line[:200].decode()!r}…)"


def test_error_line_of_exactly_200_bytes_has_no_ellipsis() -> None:
    """A line of exactly 200 bytes is whole, so no ellipsis is shown."""
    line = b"x" * 200
    error = rejected(line)
    assert error.line == line
    assert not str(error).endswith("…)")


def test_error_truncation_may_split_a_utf8_character() -> None:
    """Truncating inside a multi-byte character still gives a printable message."""
    line = b'{"type":"ready","name":"' + "é".encode() * 200 + b'"}'
    error = rejected(line)
    assert error.line == line[:200]
    assert error.line.decode("utf-8", errors="replace") in str(error)


def test_protocol_error_is_a_value_error() -> None:
    """Callers may catch the protocol error as a ValueError."""
    assert isinstance(rejected(b"nope"), ValueError)


# -- tolerant decoding of messages to bots -----------------------------------------------------


def sample_to_bot() -> list[m.ToBot]:
    """One realistic instance of every message the referee sends."""
    return [
        m.Hello(
            protocol=m.PROTOCOL_VERSION,
            game="matador",
            seat=1,
            players=3,
            rules=m.MatadorRules(hand_size="9-n", lead="highest_double", reserve=2),
            match=m.MatchLength(target=101),
            time=m.TimeControl(startup_ms=5000, move_ms=1000, bank_ms=30000),
            seed=2**62 + 5,
        ),
        m.HandStart(
            hand_number=1,
            leader=2,
            hand=[(0, 1), (1, 1), (2, 5), (3, 6), (4, 4), (5, 6)],
            hand_counts=[6, 6, 6],
            boneyard_size=10,
            scores=[0, 0, 0],
        ),
        m.MoveRequest(
            id=12,
            hand_number=2,
            seat=0,
            hand=[(0, 2), (1, 6), (4, 5)],
            layout=[(2, 5), (2, 5), (5, 5)],
            ends=[m.End(position="left", value=2), m.End(position="right", value=5)],
            hand_counts=[3, 4],
            boneyard_size=13,
            scores=[17, 40],
            draws=[1, 0],
            passes=[0, 0],
            history=[
                m.Event(seat=1, move=m.Play(tile=(5, 5), end=None, out=5)),
                m.Event(seat=0, move=m.Draw()),
                m.Event(seat=0, move=m.Play(tile=(2, 5), end="left", out=2)),
                m.Event(seat=1, move=m.Play(tile=(2, 5), end="right", out=5)),
            ],
            legal=[
                m.Play(tile=(0, 2), end="left", out=0),
                m.Play(tile=(1, 6), end="left", out=1),
                m.Draw(),
            ],
            time_left_ms=1800,
            bank_ms=800,
            retired=[],
        ),
        m.HandEnd(
            hand_number=2,
            result="block",
            winners=[0],
            award=[23, 0],
            scores=[40, 40],
            pips=[0, 23],
            hands=[[], [(5, 6), (6, 6)]],
            layout=[(1, 6), (6, 5)],
        ),
        m.MatchEnd(
            scores=[40, 101],
            winner=1,
            reason="target",
            results=[
                m.SeatResult(seat=0, name="greedy", status="ok"),
                m.SeatResult(seat=1, name="slow", status="timeout", detail="no reply in 1000 ms"),
            ],
        ),
        m.Error(code="illegal_move", message="illegal move 3-4 on left, 4 out"),
        m.Strike(
            id=5,
            code="timeout",
            message="did not answer request 5 in time (over by 0.3 ms)",
            move=m.Draw(),
            strikes=1,
            max_strikes=3,
        ),
    ]


def sample_from_bot() -> list[m.FromBot]:
    """One realistic instance of every message a bot sends."""
    return [
        m.Ready(name="greedy-v2", protocol=1),
        m.MoveReply(
            id=12, move=m.PlayReply(tile=(0, 2), end="left", out=0), debug="lowest pips first"
        ),
    ]


def test_samples_cover_every_message_type() -> None:
    """The round-trip samples hold one instance of every member of both unions."""
    assert [type(x) for x in sample_to_bot()] == list(typing.get_args(m.ToBot))
    assert [type(x) for x in sample_from_bot()] == list(typing.get_args(m.FromBot))


def test_message_to_bot_with_unknown_top_level_field_decodes() -> None:
    """A bot's decoder ignores a top-level field it does not know."""
    line = b'{"type":"error","code":"timeout","message":"too slow","retry":false}'
    assert decode_to_bot(line) == m.Error(code="timeout", message="too slow")


def test_message_to_bot_with_unknown_nested_field_decodes() -> None:
    """A bot's decoder ignores unknown fields inside nested parts such as the time control."""
    hello = msgspec.to_builtins(sample_to_bot()[0])
    hello["time"]["increment_ms"] = 50
    hello["rules"]["new_flag"] = "on"
    assert decode_to_bot(json.dumps(hello).encode()) == sample_to_bot()[0]


def test_message_to_bot_with_unknown_field_in_history_event_decodes() -> None:
    """A bot's decoder ignores an unknown field on a history event."""
    request = msgspec.to_builtins(sample_to_bot()[2])
    request["history"][0]["auto"] = True
    assert decode_to_bot(json.dumps(request).encode()) == sample_to_bot()[2]


def test_message_to_bot_with_unknown_field_in_legal_move_decodes() -> None:
    """A bot's decoder ignores an unknown field on a legal move (moves to bots follow the
    to-bot policy: new optional fields may be added within protocol v1)."""
    request = msgspec.to_builtins(sample_to_bot()[2])
    request["legal"][0]["score"] = 3
    assert decode_to_bot(json.dumps(request).encode()) == sample_to_bot()[2]


def test_message_to_bot_with_unknown_field_in_history_move_decodes() -> None:
    """A bot's decoder ignores an unknown field on the move of a history event."""
    request = msgspec.to_builtins(sample_to_bot()[2])
    request["history"][1]["move"]["auto"] = True
    assert decode_to_bot(json.dumps(request).encode()) == sample_to_bot()[2]


def test_message_to_bot_with_unknown_type_is_rejected() -> None:
    """An unknown message type is a ProtocolError at ``$.type`` even for the tolerant decoder."""
    with pytest.raises(ProtocolError) as info:
        decode_to_bot(b'{"type":"bonus","points":5}')
    assert info.value.detail == "Invalid value 'bonus' - at `$.type`"


def test_decode_to_bot_rejects_a_message_from_a_bot() -> None:
    """The to-bot decoder does not accept a from-bot message type."""
    with pytest.raises(ProtocolError):
        decode_to_bot(encode(sample_from_bot()[0]))


def test_decode_to_bot_reports_bad_json() -> None:
    """The to-bot decoder reports a line that is not JSON like the from-bot one."""
    with pytest.raises(ProtocolError) as info:
        decode_to_bot(b"{oops")
    assert info.value.detail.startswith("not valid JSON: ")


# -- encoding and round trips ------------------------------------------------------------------


@pytest.mark.parametrize("message", sample_to_bot(), ids=lambda x: type(x).__name__)
def test_message_to_bot_round_trips(message: m.ToBot) -> None:
    """Every message to a bot decodes back to an equal value."""
    assert decode_to_bot(encode(message)) == message


@pytest.mark.parametrize("message", sample_from_bot(), ids=lambda x: type(x).__name__)
def test_message_from_bot_round_trips(message: m.FromBot) -> None:
    """Every message from a bot decodes back, strictly, to an equal value."""
    assert decode_from_bot(encode(message)) == message


@pytest.mark.parametrize(
    "move", [m.PlayReply(tile=(1, 6), end=None, out=6), m.DrawReply(), m.PassReply()]
)
def test_every_move_action_round_trips_in_a_reply(move: m.ReplyMove) -> None:
    """A reply carrying each kind of move decodes back to it."""
    reply = m.MoveReply(id=0, move=move)
    assert decode_from_bot(encode(reply)) == reply


def test_echoing_a_legal_move_is_a_valid_reply() -> None:
    """Each element of a request's ``legal`` list, sent back as it came, decodes strictly."""
    request = msgspec.to_builtins(sample_to_bot()[2])
    for raw_move in request["legal"]:
        line = json.dumps({"type": "move", "id": request["id"], "move": raw_move}).encode()
        reply = decode_from_bot(line)
        assert isinstance(reply, m.MoveReply)
        assert msgspec.to_builtins(reply.move) == raw_move


@pytest.mark.parametrize(
    "message", sample_to_bot() + sample_from_bot(), ids=lambda x: type(x).__name__
)
def test_encoding_is_compact_json_without_newline(message: m.ToBot | m.FromBot) -> None:
    """Encoded output is one compact JSON object with no whitespace between tokens and no
    trailing newline."""
    data = encode(message)
    assert isinstance(data, bytes)
    assert b"\n" not in data
    compact = json.dumps(json.loads(data), separators=(",", ":"), ensure_ascii=False)
    assert data == compact.encode()


def test_encoding_escapes_a_newline_inside_a_string() -> None:
    """A newline inside a string is escaped, so a message stays on one line."""
    data = encode(m.Error(code="bad_message", message="line one\nline two"))
    assert b"\n" not in data
    assert b"line one\\nline two" in data


def test_encoding_puts_the_tag_first() -> None:
    """The type tag is the first field, and explicit tags are used on the wire."""
    assert encode(m.MoveReply(id=1, move=m.PassReply())) == (
        b'{"type":"move","id":1,"move":{"action":"pass"},"debug":null}'
    )
    assert encode(m.Ready(name="a")).startswith(b'{"type":"ready",')


def test_tuples_encode_as_arrays() -> None:
    """Tiles are JSON arrays of two ints."""
    data = encode(m.MoveReply(id=3, move=m.PlayReply(tile=(3, 4), end="right", out=4)))
    assert b'"tile":[3,4]' in data
    assert b'"end":"right"' in data


# -- the exported schema -----------------------------------------------------------------------


def union_tags(union: object) -> dict[str, str]:
    """Every member of a tagged union, as ``{tag: class name}``."""
    tags = {}
    for cls in typing.get_args(union):
        tag = msgspec.inspect.type_info(cls).tag
        assert isinstance(tag, str)
        tags[tag] = cls.__name__
    return tags


@pytest.mark.parametrize(
    ("key", "union"), [("to_bot", m.ToBot), ("from_bot", m.FromBot)], ids=["to_bot", "from_bot"]
)
def test_schema_union_refs_cover_every_tag(key: str, union: object) -> None:
    """The schema's ``to_bot``/``from_bot`` unions reference every message tag, and each
    reference resolves in ``$defs``."""
    schema = protocol_schema()
    part = schema[key]
    tags = union_tags(union)
    expected = {tag: f"#/$defs/{name}" for tag, name in tags.items()}
    assert part["discriminator"] == {"propertyName": "type", "mapping": expected}
    assert sorted(ref["$ref"] for ref in part["anyOf"]) == sorted(expected.values())
    for tag, name in tags.items():
        definition = schema["$defs"][name]
        assert definition["properties"]["type"] == {"enum": [tag]}
        assert "type" in definition["required"]


def test_schema_forbids_unknown_fields_only_from_bots() -> None:
    """Messages from bots are closed objects in the schema; messages to bots are open."""
    defs = protocol_schema()["$defs"]
    for name in union_tags(m.FromBot).values():
        assert defs[name]["additionalProperties"] is False
    for name in union_tags(m.ToBot).values():
        assert "additionalProperties" not in defs[name]


def test_schema_states_the_protocol_version() -> None:
    """The schema names protocol version 1 and is JSON-serializable."""
    schema = protocol_schema()
    assert schema["protocol_version"] == m.PROTOCOL_VERSION == 1
    json.dumps(schema)


# -- invalid escapes and byte order marks ------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "escape", "offset"),
    [
        (r"\ud800", r"\ud800", 24),  # a high half at the end of the string (msgspec: truncated)
        (r"\udc00", r"\udc00", 24),  # a low half alone
        (r"\ud800\u0041", r"\ud800", 24),  # a high half followed by another escape
        (r"ok\ud800 and more text", r"\ud800", 26),  # a high half followed by text
        (r"\ud83d\ude00\udfff", r"\udfff", 36),  # a valid pair, then a low half alone
        (r"\\\ud800", r"\ud800", 26),  # an escaped backslash, then the escape
    ],
)
def test_lone_surrogate_escape_is_named_with_its_byte(name: str, escape: str, offset: int) -> None:
    """A \\u escape of half a UTF-16 pair is named, with where it starts, not "truncated"."""
    error = rejected(b'{"type":"ready","name":"' + name.encode() + b'"}')
    assert error.detail == (
        f"not valid JSON: lone surrogate escape {escape} at byte {offset}"
        " (JSON strings must be valid Unicode)"
    )


def test_escaped_backslash_before_u_is_no_surrogate() -> None:
    """``\\\\ud800`` is a backslash and the text ``ud800``: a valid name."""
    assert decode_from_bot(rb'{"type":"ready","name":"\\ud800"}').name == "\\ud800"


def test_truncated_line_is_still_truncated() -> None:
    """A line that really ends too soon keeps msgspec's own words."""
    assert (
        rejected(b'{"type":"ready","name":"x').detail == "not valid JSON: Input data was truncated"
    )


def test_other_invalid_escape_keeps_msgspecs_words() -> None:
    """An invalid escape that is no surrogate keeps msgspec's description and byte."""
    error = rejected(rb'{"type":"ready","name":"\x"}')
    assert (
        error.detail
        == "not valid JSON: JSON is malformed: invalid escape character in string (byte 26)"
    )


def test_byte_order_mark_is_named() -> None:
    """A line that starts with a UTF-8 byte order mark says so (a .NET bot's first line)."""
    error = rejected(b'\xef\xbb\xbf{"type":"ready","name":"x"}')
    assert error.detail == (
        "not valid JSON: the line starts with a UTF-8 byte order mark (bytes EF BB BF);"
        " write UTF-8 without one"
    )
