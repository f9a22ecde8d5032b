"""Fuzzing the decoders: whatever a bot (or a referee) writes, the only failure is ProtocolError.

Any bytes, any JSON value, and small mutations of valid messages either decode or raise
:class:`ProtocolError`; a mutated message is always rejected with a JSON path in the detail.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import msgspec
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from protocol import messages as m
from protocol.codec import ProtocolError, decode_from_bot, decode_to_bot, encode

# On a failure hypothesis imports libcst to write a patch file, and libcst triggers a
# DeprecationWarning that filterwarnings=error would turn into an INTERNALERROR hiding the
# falsifying example.
pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning:libcst")

FUZZ = settings(max_examples=300, deadline=None)

Decoder = Callable[[bytes], object]
DECODERS = pytest.mark.parametrize(
    "decode", [decode_from_bot, decode_to_bot], ids=["from_bot", "to_bot"]
)

TO_BOT_TAGS = ["hello", "hand_start", "request", "hand_end", "match_end", "error"]
FROM_BOT_TAGS = ["ready", "move"]
#: Every field name of every message and part, so fuzzed objects often hit real fields.
FIELD_NAMES = sorted(
    {
        field.name
        for union in (m.ToBot, m.FromBot, m.WireMove, m.ReplyMove)
        for cls in union.__args__
        for field in msgspec.structs.fields(cls)
    }
    | {"type", "action", "game", "position", "value", "seat", "move", "target", "hands"}
)


def decodes_or_protocol_error(decode: Decoder, line: bytes) -> None:
    """Decode ``line``; a ProtocolError is fine, and it must carry the (truncated) line."""
    error = None
    try:
        decode(line)
    except ProtocolError as caught:
        error = caught
    if error is not None:
        assert error.line == line[:200]
        assert error.detail


# -- any bytes ---------------------------------------------------------------------------------


@DECODERS
@FUZZ
@given(line=st.binary(max_size=300))
def test_any_bytes_decode_or_raise_protocol_error(decode: Decoder, line: bytes) -> None:
    """Arbitrary bytes either decode or raise ProtocolError, never another exception."""
    decodes_or_protocol_error(decode, line)


@DECODERS
@FUZZ
@given(
    prefix=st.sampled_from(
        [b'{"type":"move","id":1,"move":', b'{"type":"ready","name":', b'{"type":"request",']
    ),
    tail=st.binary(max_size=100),
)
def test_valid_prefix_with_garbage_tail(decode: Decoder, prefix: bytes, tail: bytes) -> None:
    """A plausible start of a message followed by arbitrary bytes never escapes as another
    exception."""
    decodes_or_protocol_error(decode, prefix + tail)


# -- any JSON value ----------------------------------------------------------------------------

JSON_SCALARS = (
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**70), max_value=2**70)
    | st.floats()
    | st.text(max_size=20)
    | st.sampled_from(TO_BOT_TAGS + FROM_BOT_TAGS + ["play", "draw", "pass", "left", "right"])
)
JSON_KEYS = st.sampled_from(FIELD_NAMES) | st.text(max_size=8)
JSON_VALUES = st.recursive(
    JSON_SCALARS,
    lambda children: (
        st.lists(children, max_size=4) | st.dictionaries(JSON_KEYS, children, max_size=5)
    ),
    max_leaves=12,
)


@DECODERS
@FUZZ
@given(value=JSON_VALUES)
def test_any_json_value_decodes_or_raises_protocol_error(decode: Decoder, value: Any) -> None:
    """Any JSON value (NaN and Infinity included) either decodes or raises ProtocolError."""
    decodes_or_protocol_error(decode, json.dumps(value).encode())


@DECODERS
@FUZZ
@given(
    tag=st.sampled_from(TO_BOT_TAGS + FROM_BOT_TAGS),
    fields=st.dictionaries(JSON_KEYS, JSON_VALUES, max_size=6),
)
def test_any_tagged_object_decodes_or_raises_protocol_error(
    decode: Decoder, tag: str, fields: dict[str, Any]
) -> None:
    """An object with a real type tag and arbitrary fields either decodes or raises
    ProtocolError, so the fuzzing reaches field validation."""
    decodes_or_protocol_error(decode, json.dumps({"type": tag, **fields}).encode())


NESTED = b"[" * 5_000 + b"]" * 5_000


@pytest.mark.parametrize(
    ("decode", "line"),
    [
        (decode_from_bot, b'{"x":' + NESTED + b',"type":"move","id":1,"move":{"action":"draw"}}'),
        (
            decode_from_bot,
            b'{"type":"move","id":1,"move":{"action":"draw"},"debug":' + NESTED + b"}",
        ),
        (decode_to_bot, b'{"type":"error","code":"timeout","message":"m","x":' + NESTED + b"}"),
        (decode_to_bot, b'{"x":' + NESTED + b',"type":"error","code":"timeout","message":"m"}'),
    ],
    ids=["from_bot-tag-last", "from_bot-in-debug", "to_bot-unknown-field", "to_bot-tag-last"],
)
def test_deeply_nested_json_is_a_protocol_error(decode: Decoder, line: bytes) -> None:
    """A line of 5000 nested arrays (about 10 kB, under the referee's 64 KiB line cap) gives
    a ProtocolError, not a RecursionError."""
    assert len(line) < 1 << 16
    decodes_or_protocol_error(decode, line)


# -- valid messages, and mutations of them -----------------------------------------------------

PIPS = st.integers(min_value=0, max_value=6)
REPLY_MOVES = st.one_of(
    st.builds(
        m.PlayReply,
        tile=st.tuples(PIPS, PIPS),
        end=st.sampled_from(["left", "right", None]),
        out=PIPS,
    ),
    st.just(m.DrawReply()),
    st.just(m.PassReply()),
)
FROM_BOT = st.one_of(
    st.builds(
        m.Ready,
        name=st.text(min_size=1, max_size=m.MAX_NAME_CHARS),
        protocol=st.none() | st.integers(min_value=-5, max_value=5),
    ),
    st.builds(
        m.MoveReply,
        id=st.integers(min_value=0, max_value=2**63 - 1),
        move=REPLY_MOVES,
        debug=st.none() | st.text(max_size=m.MAX_DEBUG_CHARS),
    ),
)


@FUZZ
@given(message=FROM_BOT)
def test_valid_message_from_bot_round_trips(message: m.FromBot) -> None:
    """Every valid message a bot may send decodes back to itself."""
    assert decode_from_bot(encode(message)) == message


#: The JSON kinds each field of a message from a bot accepts (``item`` is a tile half).
ACCEPTS: dict[str, set[str]] = {
    "type": {"str"},
    "name": {"str"},
    "protocol": {"int", "null"},
    "id": {"int"},
    "move": {"object"},
    "debug": {"str", "null"},
    "action": {"str"},
    "tile": {"array"},
    "end": {"str", "null"},
    "out": {"int"},
    "item": {"int"},
}
#: A value of every JSON kind, to replace a field's value with one of a wrong kind.
KIND_SAMPLES: dict[str, Any] = {
    "null": None,
    "bool": True,
    "int": 3,
    "float": 2.5,
    "str": "left",
    "array": [3, 4],
    "object": {"action": "draw"},
}
#: The fields a message from a bot may leave out (``end`` only for the lead, where it is null).
OPTIONAL = {"protocol", "debug", "end"}


def slots(value: Any, path: tuple[Any, ...] = ()) -> list[tuple[tuple[Any, ...], str]]:
    """Every place inside a decoded message, as ``(path, field name)``; tile halves are
    ``item``."""
    found = []
    if isinstance(value, dict):
        for key, child in value.items():
            found.append(((*path, key), key))
            found.extend(slots(child, (*path, key)))
    elif isinstance(value, list):
        for index, child in enumerate(value):
            found.append(((*path, index), "item"))
            found.extend(slots(child, (*path, index)))
    return found


def objects(value: Any, path: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    """The paths of every JSON object inside a message, the message itself first."""
    if not isinstance(value, dict):
        return []
    found = [path]
    for key, child in value.items():
        found.extend(objects(child, (*path, key)))
    return found


def at(value: Any, path: tuple[Any, ...]) -> Any:
    """The value at ``path`` inside ``value``."""
    for key in path:
        value = value[key]
    return value


def rejected_with_path(data: Any) -> ProtocolError:
    """Decode ``data`` as a message from a bot; it must fail with a JSON path in the detail."""
    with pytest.raises(ProtocolError) as info:
        decode_from_bot(json.dumps(data).encode())
    assert "$" in info.value.detail
    return info.value


@FUZZ
@given(message=FROM_BOT, data=st.data())
def test_dropping_a_required_field_is_rejected(message: m.FromBot, data: st.DataObject) -> None:
    """Leaving out any required field gives a ProtocolError naming it, with a path."""
    raw = msgspec.to_builtins(message)
    required = [(p, name) for p, name in slots(raw) if name not in OPTIONAL | {"item"}]
    path, name = data.draw(st.sampled_from(required))
    del at(raw, path[:-1])[path[-1]]
    error = rejected_with_path(raw)
    assert f"Object missing required field `{name}`" in error.detail


@FUZZ
@given(message=FROM_BOT, data=st.data())
def test_changing_a_value_type_is_rejected(message: m.FromBot, data: st.DataObject) -> None:
    """Replacing any value (tile halves included) with one of a kind it never accepts gives a
    ProtocolError with a path."""
    raw = msgspec.to_builtins(message)
    path, name = data.draw(st.sampled_from(slots(raw)))
    wrong = data.draw(st.sampled_from(sorted(set(KIND_SAMPLES) - ACCEPTS[name])))
    at(raw, path[:-1])[path[-1]] = KIND_SAMPLES[wrong]
    rejected_with_path(raw)


@FUZZ
@given(message=FROM_BOT, data=st.data())
def test_adding_a_field_is_rejected(message: m.FromBot, data: st.DataObject) -> None:
    """Adding a field no message from a bot has, to the message or its move, gives a
    ProtocolError naming the field."""
    raw = msgspec.to_builtins(message)
    path = data.draw(st.sampled_from(objects(raw)))
    key = data.draw(st.text(min_size=1, max_size=10).filter(lambda k: k not in ACCEPTS))
    at(raw, path)[key] = data.draw(JSON_VALUES)
    error = rejected_with_path(raw)
    assert error.detail.startswith("Object contains unknown field")


@FUZZ
@given(message=FROM_BOT, data=st.data())
def test_truncating_a_valid_message_is_rejected(message: m.FromBot, data: st.DataObject) -> None:
    """Any proper prefix of a valid message's bytes is a ProtocolError (a cut line is never a
    message)."""
    line = encode(message)
    cut = data.draw(st.integers(min_value=0, max_value=len(line) - 1))
    with pytest.raises(ProtocolError):
        decode_from_bot(line[:cut])


# -- messages to bots: a wrong value is an error with a path -----------------------------------

TO_BOT_SAMPLE: list[Any] = [
    {
        "type": "hello",
        "protocol": 1,
        "game": "matador",
        "seat": 0,
        "players": 2,
        "rules": {"game": "matador", "hand_size": 5},
        "match": {"target": 101, "hands": None},
        "time": {"startup_ms": 5000, "move_ms": 1000, "bank_ms": 0},
        "seed": 9,
    },
    {
        "type": "request",
        "id": 4,
        "hand_number": 1,
        "seat": 1,
        "hand": [[0, 2], [3, 4]],
        "layout": [[6, 6]],
        "ends": [{"position": "left", "value": 6}, {"position": "right", "value": 6}],
        "hand_counts": [4, 2],
        "boneyard_size": 18,
        "scores": [0, 0],
        "draws": [0, 0],
        "passes": [0, 0],
        "history": [{"seat": 0, "move": {"action": "play", "tile": [6, 6], "end": None, "out": 6}}],
        "legal": [{"action": "play", "tile": [3, 4], "end": "left", "out": 3}],
        "time_left_ms": 1000,
        "bank_ms": 0,
        "retired": [],
    },
    {
        "type": "match_end",
        "scores": [101, 12],
        "winner": 0,
        "reason": "target",
        "results": [{"seat": 0, "name": "a", "status": "ok", "detail": ""}],
    },
]


def test_to_bot_samples_are_valid() -> None:
    """The raw samples used for mutation decode as they are."""
    for raw in TO_BOT_SAMPLE:
        decode_to_bot(json.dumps(raw).encode())


@FUZZ
@given(raw=st.sampled_from(TO_BOT_SAMPLE), data=st.data())
def test_float_anywhere_in_a_message_to_bot_is_rejected(raw: Any, data: st.DataObject) -> None:
    """No field of any message to a bot holds a float, so putting one anywhere gives a
    ProtocolError with a path."""
    raw = json.loads(json.dumps(raw))
    path, _name = data.draw(st.sampled_from(slots(raw)))
    at(raw, path[:-1])[path[-1]] = 2.5
    with pytest.raises(ProtocolError) as info:
        decode_to_bot(json.dumps(raw).encode())
    assert "$" in info.value.detail
