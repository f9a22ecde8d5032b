"""Echoing an element of ``legal`` is always a correct reply (docs/protocol.md, section 7).

It holds because a move has the same fields in both directions and, within protocol 1, a move
never gains a field (sections 11 and 15): the referee decodes a reply's move strictly, so a
field added to the moves it sends would make their echo a ``bad_message``. These tests pin both
halves: the two forms of every move are the same struct, and every element of every ``legal``
list the referee writes, in both games, sent back byte for byte, is accepted as that move.
"""

from __future__ import annotations

from collections.abc import Iterator

import msgspec
import pytest

from arena.games.api import SeatView
from arena.wire import move_from_wire, move_request
from protocol import messages as m
from protocol.codec import ProtocolError, decode_from_bot, encode
from tests.test_wire import positions
from tests.test_wire_fives import hands

PAIRS = [(m.Play, m.PlayReply), (m.Draw, m.DrawReply), (m.Pass, m.PassReply)]


@pytest.mark.parametrize(("sent", "reply"), PAIRS, ids=lambda t: t.__name__)
def test_a_move_has_the_same_fields_both_ways(sent: type, reply: type) -> None:
    """Each move the referee writes and its reply form have the same tag and the same fields
    (names, types, defaults): a field added to one and not the other fails here, and adding one
    to both needs a new protocol version (docs/protocol.md, section 15)."""
    assert msgspec.inspect.type_info(sent).tag == msgspec.inspect.type_info(reply).tag
    assert msgspec.structs.fields(sent) == msgspec.structs.fields(reply)


def test_a_field_the_referee_does_not_know_in_a_reply_move_is_refused() -> None:
    """The referee decodes a reply's move strictly: why moves cannot gain a field in protocol 1."""
    with pytest.raises(ProtocolError) as caught:
        decode_from_bot(b'{"type":"move","id":3,"move":{"action":"draw","weight":1}}')
    assert caught.value.detail == "Object contains unknown field `weight` - at `$.move`"


def views() -> Iterator[SeatView]:
    """The view of the seat to move in every unfinished position of a few Matador hands (2 to
    4 players, several rule sets) and Fives hands (every rule set)."""
    states = [*positions(), *(state for hand in hands() for state in hand)]
    for state in states:
        if state.outcome() is None and state.to_move is not None:
            yield state.view(state.to_move)


def test_every_legal_element_echoed_byte_for_byte_is_that_move() -> None:
    """For every request of the positions above, each element of ``legal``, cut out of the line
    the referee writes and sent back unchanged, decodes strictly and is the legal move it came
    from."""
    checked = 0
    for view in views():
        line = encode(move_request(view, 41, 1, 1000, 0))
        listed = msgspec.json.decode(line)["legal"]
        assert len(listed) == len(view.legal)
        for element, move in zip(listed, view.legal, strict=True):
            raw = msgspec.json.encode(element)
            assert raw in line  # the element as the referee wrote it
            reply = decode_from_bot(b'{"type":"move","id":41,"move":' + raw + b"}")
            assert isinstance(reply, m.MoveReply)
            assert move_from_wire(reply.move) == move
            checked += 1
    assert checked > 1000
