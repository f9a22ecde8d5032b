"""The Fives messages of protocol v1: round trips, the rules union, the new positions, and
Matador messages left byte for byte as they were (every Fives field is optional and absent)."""

from __future__ import annotations

import json
from pathlib import Path

import msgspec
import pytest

from protocol import (
    Arms,
    End,
    Event,
    FivesRules,
    HandEnd,
    HandStart,
    Hello,
    MatadorRules,
    MatchEnd,
    MatchLength,
    MoveReply,
    MoveRequest,
    Play,
    PlayReply,
    Score,
    SeatResult,
    TimeControl,
    decode_from_bot,
    decode_to_bot,
    encode,
)
from protocol.codec import ProtocolError

SCHEMA = json.loads(
    (Path(__file__).resolve().parents[2] / "docs" / "protocol.schema.json").read_text()
)


def fives_hello(**rules: object) -> Hello:
    return Hello(
        protocol=1,
        game="fives",
        seat=1,
        players=2,
        rules=FivesRules(**rules),  # type: ignore[arg-type]
        match=MatchLength(target=100),
        time=TimeControl(startup_ms=5000, move_ms=1000, bank_ms=2000),
        seed=7,
    )


def fives_request() -> MoveRequest:
    """A request with four open ends, a north arm and three scoring events."""
    return MoveRequest(
        id=22,
        hand_number=2,
        seat=0,
        hand=[(0, 3), (1, 6), (2, 2)],
        layout=[(3, 6), (6, 6), (6, 2)],
        ends=[End("west", 3), End("east", 2), End("north", 5), End("south", 6)],
        hand_counts=[3, 5],
        boneyard_size=14,
        scores=[65, 45],
        draws=[0, 0],
        passes=[0, 0],
        history=[
            Event(0, Play(tile=(6, 6), out=6, end=None)),
            Event(1, Play(tile=(3, 6), out=3, end="west")),
            Event(0, Play(tile=(2, 6), out=2, end="east")),
            Event(1, Play(tile=(5, 6), out=5, end="north")),
        ],
        legal=[Play(tile=(1, 6), out=1, end="south"), Play(tile=(2, 2), out=2, end="east")],
        time_left_ms=3000,
        bank_ms=2000,
        spinner=1,
        arms=Arms(north=[(6, 5)], south=[]),
        count=10,
        scoring=[Score(1, 15, "count"), Score(0, 5, "count"), Score(1, 10, "count")],
    )


def test_hello_for_fives_round_trips_with_its_rules() -> None:
    """hello.game "fives" with the rules config tagged "fives" decodes to FivesRules."""
    hello = fives_hello(spinner_sides_first=False, block_winner="fewer_pips")
    line = encode(hello)
    raw = json.loads(line)
    assert raw["game"] == "fives"
    assert raw["rules"] == {
        "game": "fives",
        "spinner_sides_first": False,
        "block_winner": "fewer_pips",
    }
    decoded = decode_to_bot(line)
    assert decoded == hello
    assert isinstance(decoded, Hello)
    assert isinstance(decoded.rules, FivesRules)


def test_the_rules_union_is_tagged_on_game() -> None:
    """A Matador config decodes to MatadorRules, a Fives one to FivesRules, defaults filled."""
    matador = json.loads(encode(fives_hello()))
    matador["game"] = "matador"
    matador["rules"] = {"game": "matador"}
    decoded = decode_to_bot(json.dumps(matador).encode())
    assert isinstance(decoded, Hello)
    assert decoded.rules == MatadorRules()
    fives = json.loads(encode(fives_hello()))
    fives["rules"] = {"game": "fives"}
    decoded = decode_to_bot(json.dumps(fives).encode())
    assert isinstance(decoded, Hello)
    assert decoded.rules == FivesRules(spinner_sides_first=True, block_winner="more_points")


def test_an_unknown_game_or_rules_value_is_refused() -> None:
    """hello.game must be matador or fives; a Fives flag value outside its choices fails."""
    raw = json.loads(encode(fives_hello()))
    with pytest.raises(ProtocolError, match=r"\$\.game"):
        decode_to_bot(json.dumps({**raw, "game": "checkers"}).encode())
    bad_rules = {**raw, "rules": {"game": "fives", "block_winner": "most_tiles"}}
    with pytest.raises(ProtocolError, match=r"\$\.rules\.block_winner"):
        decode_to_bot(json.dumps(bad_rules).encode())


def test_fives_request_round_trips() -> None:
    """A request with the spinner, arms, count and scoring decodes back to itself."""
    request = fives_request()
    line = encode(request)
    raw = json.loads(line)
    assert raw["spinner"] == 1
    assert raw["arms"] == {"north": [[6, 5]], "south": []}
    assert raw["count"] == 10
    assert raw["scoring"][0] == {"seat": 1, "points": 15, "reason": "count"}
    assert decode_to_bot(line) == request


def test_fives_request_before_the_spinner_has_null_spinner_and_arms() -> None:
    """Before a double is laid, spinner and arms are null (present, not absent)."""
    request = msgspec.structs.replace(fives_request(), spinner=None, arms=None, scoring=[])
    raw = json.loads(encode(request))
    assert raw["spinner"] is None
    assert raw["arms"] is None
    assert raw["scoring"] == []
    assert decode_to_bot(encode(request)) == request


def test_matador_messages_have_no_fives_fields() -> None:
    """The Fives fields are absent, not null, from Matador messages: their bytes are unchanged."""
    request = msgspec.structs.replace(
        fives_request(),
        spinner=msgspec.UNSET,
        arms=msgspec.UNSET,
        count=msgspec.UNSET,
        scoring=msgspec.UNSET,
    )
    raw = json.loads(encode(request))
    assert not {"spinner", "arms", "count", "scoring"} & set(raw)
    assert list(raw)[-1] == "retired"
    start = HandStart(
        hand_number=1, leader=0, hand=[(1, 2)], hand_counts=[5, 5], boneyard_size=18, scores=[0, 0]
    )
    assert encode(start) == (
        b'{"type":"hand_start","hand_number":1,"leader":0,"hand":[[1,2]],"hand_counts":[5,5],'
        b'"boneyard_size":18,"scores":[0,0]}'
    )


def test_fives_hand_start_round_trips() -> None:
    """hand_start shows the table after the automatic opening."""
    start = HandStart(
        hand_number=1,
        leader=0,
        hand=[(0, 3), (0, 4)],
        hand_counts=[6, 7],
        boneyard_size=14,
        scores=[10, 0],
        layout=[(5, 5)],
        ends=[End("west", 5), End("east", 5)],
        spinner=0,
        arms=Arms(north=[], south=[]),
        count=10,
        scoring=[Score(0, 10, "count")],
    )
    assert decode_to_bot(encode(start)) == start


@pytest.mark.parametrize(
    ("result", "award", "scoring"),
    [
        ("domino", [10, 0], [Score(0, 10, "count"), Score(0, 10, "domino")]),
        ("block", [0, -24], [Score(1, 15, "count"), Score(1, -24, "block")]),
        ("target", [0, 0], [Score(1, 20, "count")]),
    ],
)
def test_fives_hand_end_round_trips(result: str, award: list[int], scoring: list[Score]) -> None:
    """hand_end with each Fives result, a negative block award, the cross and the events."""
    end = HandEnd(
        hand_number=3,
        result=result,  # type: ignore[arg-type]
        winners=[0 if result == "domino" else 1],
        award=award,
        scores=[65, 100],
        pips=[3, 6],
        hands=[[(0, 3)], [(0, 6)]],
        layout=[(2, 2), (2, 3), (3, 6), (6, 6)],
        spinner=3,
        arms=Arms(north=[(6, 5), (5, 5)], south=[(6, 1)]),
        scoring=scoring,
    )
    assert decode_to_bot(encode(end)) == end


def test_match_end_reason_target() -> None:
    """match_end is unchanged: reason target for a Fives match won at 100."""
    end = MatchEnd(
        scores=[65, 100],
        winner=1,
        reason="target",
        results=[SeatResult(0, "a", "ok"), SeatResult(1, "b", "ok")],
    )
    assert decode_to_bot(encode(end)) == end


@pytest.mark.parametrize("end", ["west", "east", "north", "south", "left", "right"])
def test_a_bot_may_play_on_every_position(end: str) -> None:
    """The strict decoder accepts a play on each of the six positions."""
    line = json.dumps(
        {"type": "move", "id": 3, "move": {"action": "play", "tile": [1, 6], "out": 1, "end": end}}
    ).encode()
    reply = decode_from_bot(line)
    assert isinstance(reply, MoveReply)
    assert reply.move == PlayReply(tile=(1, 6), out=1, end=end)  # type: ignore[arg-type]


def test_an_unknown_position_is_a_bad_message() -> None:
    """``end`` must be one of the six positions (or null)."""
    line = b'{"type":"move","id":3,"move":{"action":"play","tile":[1,6],"out":1,"end":"up"}}'
    with pytest.raises(ProtocolError, match=r"\$\.move\.end"):
        decode_from_bot(line)


def test_the_schema_describes_the_fives_shapes() -> None:
    """The committed schema has the Fives rules, Score and Arms, and validates Fives messages
    (needs jsonschema)."""
    jsonschema = pytest.importorskip("jsonschema")
    defs = SCHEMA["$defs"]
    assert {"FivesRules", "Score", "Arms"} <= set(defs)
    validator = jsonschema.Draft202012Validator(
        {"$schema": SCHEMA["$schema"], "$defs": defs, **SCHEMA["to_bot"]}
    )
    for message in (fives_hello(), fives_request()):
        assert validator.is_valid(json.loads(encode(message)))
    bad = json.loads(encode(fives_request()))
    bad["scoring"][0]["reason"] = "bonus"
    assert not validator.is_valid(bad)
