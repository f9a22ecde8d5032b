"""The typed vocabularies that were plain strings: move kinds, failure phases, end reasons.

Each is a ``str`` enum, so comparisons with the old strings, hashing (moves are dict keys in
the wire's caches) and the JSON of replays and messages are what they were.
"""

from __future__ import annotations

import msgspec

from arena.games.api import DRAW, PASS, Move, MoveKind, play
from arena.games.match import EndReason, MatchLength, start_match
from arena.games.registry import get_game
from arena.replay import Failure, Phase, ResultRecord, Status
from arena.wire import move_to_wire
from protocol.codec import encode_part


def test_move_kinds_are_members_that_equal_and_hash_as_their_strings() -> None:
    move = play((1, 3), "left", 3)
    assert move.kind is MoveKind.PLAY
    assert (DRAW.kind, PASS.kind) == (MoveKind.DRAW, MoveKind.PASS)
    assert move.kind == "play"
    # A move built from the old plain string is the same dict key as the engine's.
    plain = Move("play", (1, 3), "left", 3)  # type: ignore[arg-type]
    assert hash(plain) == hash(move)
    assert {move: 1}[plain] == 1
    assert str(DRAW) == "DRAW"
    assert f"{move.kind}" == "play"


def test_the_wire_bytes_of_moves_are_unchanged() -> None:
    assert encode_part(move_to_wire(DRAW)) == b'{"action":"draw"}'
    assert encode_part(move_to_wire(play((1, 3), "left", 3))) == (
        b'{"action":"play","tile":[1,3],"out":3,"end":"left"}'
    )


def test_failure_phase_is_typed_and_its_json_is_the_string() -> None:
    failure = Failure(Status.TIMEOUT, "late", Phase.MOVE)
    data = msgspec.json.encode(failure)
    assert data == b'{"status":"timeout","detail":"late","phase":"move"}'
    back = msgspec.json.decode(data, type=Failure)
    assert back.phase is Phase.MOVE


def test_end_reasons_are_typed_from_the_match_layer_to_the_replay() -> None:
    game = get_game("matador")
    rules = game.parse_rules({})
    match = start_match(game, rules, 2, 1, MatchLength(target=None, hands=1))
    while not match.over:
        if match.hand.outcome() is None:
            match = match.apply(match.hand.legal_moves()[0])
        else:
            match = match.next_hand()
    assert match.result is not None
    assert match.result.reason is EndReason.HANDS
    record = ResultRecord(scores=[0, 0], winner=None, reason=EndReason.FORFEIT, ranking=[0, 1])
    data = msgspec.json.encode(record)
    assert b'"reason":"forfeit"' in data
    assert msgspec.json.decode(data, type=ResultRecord).reason is EndReason.FORFEIT
