"""The one judge of a bot's reply (arena/judge.py): every fault, from bytes alone, no process.

The referee and ``arena check`` both call it; these tests pin what each fault carries (the
referee's words are in the golden replays, the checker's in tests/check/test_check.py).
"""

from __future__ import annotations

import pytest

from arena.check import session as check_session
from arena.games.api import DRAW, SeatView, play
from arena.games.registry import get_game
from arena.judge import Accepted, Fault, Rejection, judge_move, judge_ready
from arena.referee import match as referee_match
from arena.replay import Status
from protocol.codec import ProtocolErrorKind


@pytest.fixture(scope="module")
def view() -> SeatView:
    """Seat 0's view of a fresh two-player Matador hand, seed 7."""
    game = get_game("matador")
    rules = game.parse_rules({})
    state = game.start_hand(rules, 2, game.deal(rules, 2, 7))
    seat = state.to_move
    assert seat is not None
    return state.view(seat)


def reply(move: str, request_id: int = 5, extra: str = "") -> bytes:
    return f'{{"type":"move","id":{request_id},"move":{move}{extra}}}'.encode()


def first_legal(view: SeatView) -> str:
    move = view.legal[0]
    assert move.tile is not None
    return f'{{"action":"play","tile":[{move.tile[0]},{move.tile[1]}],"end":null,"out":{move.out}}}'


def rejected(line: bytes, view: SeatView, stale: set[int] | None = None) -> Rejection:
    judged = judge_move(line, 5, view, stale or set())
    assert isinstance(judged, Rejection), judged
    return judged


def test_a_legal_move_is_accepted_with_its_debug_note(view: SeatView) -> None:
    judged = judge_move(reply(first_legal(view), extra=',"debug":"hi"'), 5, view)
    assert judged == Accepted(view.legal[0], "hi")


def test_a_tile_written_high_first_is_the_same_move(view: SeatView) -> None:
    move = view.legal[0]
    assert move.tile is not None
    low, high = move.tile
    line = reply(f'{{"action":"play","tile":[{high},{low}],"end":null,"out":{move.out}}}')
    judged = judge_move(line, 5, view)
    assert isinstance(judged, Accepted)
    assert judged.move == move


@pytest.mark.parametrize(
    ("line", "kind", "reason"),
    [
        (
            b"nope",
            ProtocolErrorKind.NOT_JSON,
            "not valid JSON: JSON is malformed: invalid character (byte 4)",
        ),
        (
            b'\xef\xbb\xbf{"type":"move"}',
            ProtocolErrorKind.BYTE_ORDER_MARK,
            "not valid JSON: the line starts with a UTF-8 byte order mark (bytes EF BB BF); write "
            "UTF-8 without one",
        ),
        (
            b'{"type":"move","id":5,"move":{"action":"draw"},"debug":"\\ud800"}',
            ProtocolErrorKind.LONE_SURROGATE,
            "not valid JSON: lone surrogate escape \\ud800 at "
            "byte 56 (JSON strings must be valid Unicode)",
        ),
        (
            reply('{"action":"draw"}', extra=',"mvoe":1'),
            ProtocolErrorKind.UNKNOWN_FIELD,
            "Object contains unknown field `mvoe` - at `$`",
        ),
        (
            reply('{"action":"play","tile":[7,1],"end":"left","out":1}'),
            ProtocolErrorKind.OUT_OF_RANGE,
            "Expected `int` <= 6 - at `$.move.tile[0]`",
        ),
        (
            b'{"type":"move","id":"5","move":{"action":"draw"}}',
            ProtocolErrorKind.WRONG_TYPE,
            "Expected `int`, got `str` - at `$.id`",
        ),
    ],
    ids=["not-json", "bom", "lone-surrogate", "unknown-field", "pip-7", "wrong-type"],
)
def test_a_line_that_is_no_message_is_malformed(
    view: SeatView, line: bytes, kind: ProtocolErrorKind, reason: str
) -> None:
    judged = rejected(line, view)
    assert (judged.fault, judged.error_kind, judged.reason) == (Fault.MALFORMED, kind, reason)
    assert judged.status is Status.BAD_MESSAGE
    assert judged.detail == f"sent an invalid message: {reason}"


def test_the_path_of_a_wrong_shape_is_kept(view: SeatView) -> None:
    judged = rejected(reply('{"action":"play","tile":[1,2,3],"end":"left","out":1}'), view)
    assert judged.error is not None
    assert judged.error.path == "$.move.tile"


def test_a_ready_instead_of_a_move_is_unexpected(view: SeatView) -> None:
    judged = rejected(b'{"type":"ready","name":"x"}', view)
    assert (judged.fault, judged.message, judged.reason) == (
        Fault.UNEXPECTED_MESSAGE,
        "ready",
        "expected a 'move' message",
    )


def test_a_wrong_id_names_both_ids(view: SeatView) -> None:
    judged = rejected(reply(first_legal(view), request_id=4), view)
    assert (judged.fault, judged.reply_id, judged.request_id) == (Fault.WRONG_ID, 4, 5)
    assert judged.reason == "the reply's id 4 is not the request's id 5"


def test_the_id_of_a_struck_request_is_stale(view: SeatView) -> None:
    judged = rejected(reply(first_legal(view), request_id=3), view, stale={3})
    assert (judged.fault, judged.reply_id) == (Fault.STALE_ID, 3)


def test_an_illegal_move_names_the_move_and_the_open_ends(view: SeatView) -> None:
    judged = rejected(reply('{"action":"draw"}'), view)
    assert judged.fault is Fault.ILLEGAL_MOVE
    assert judged.status is Status.ILLEGAL_MOVE
    assert (judged.move, judged.legal, judged.ends) == (DRAW, view.legal, view.ends)
    assert judged.detail == "illegal move DRAW in request 5; open ends none (the lead)"


def test_a_play_on_an_end_that_is_not_open_is_illegal(view: SeatView) -> None:
    move = view.legal[0]
    assert move.tile is not None
    line = reply(
        f'{{"action":"play","tile":[{move.tile[0]},{move.tile[1]}],"end":"left","out":{move.out}}}'
    )
    judged = rejected(line, view)
    assert judged.move == play(move.tile, "left", move.out or 0)
    assert judged.fault is Fault.ILLEGAL_MOVE


def test_ready_is_judged_too() -> None:
    ready = judge_ready(b'{"type":"ready","name":"bot","protocol":1}')
    assert not isinstance(ready, Rejection)
    assert ready.name == "bot"
    wrong = judge_ready(b'{"type":"ready","name":"bot","protocol":2}')
    assert isinstance(wrong, Rejection)
    assert (wrong.fault, wrong.protocol) == (Fault.WRONG_PROTOCOL, 2)
    assert wrong.reason == "the bot speaks protocol 2; this referee speaks protocol 1"
    move = judge_ready(reply('{"action":"draw"}'))
    assert isinstance(move, Rejection)
    assert move.fault is Fault.UNEXPECTED_MESSAGE
    assert move.reason == "expected a 'ready' message"


def test_the_referee_and_the_checker_share_the_judge() -> None:
    """One judge: both callers hold the very same functions (no copy of its checks)."""
    assert referee_match.judge_move is check_session.judge_move is judge_move
    assert referee_match.judge_ready is check_session.judge_ready is judge_ready


def test_a_known_reply_tail_is_judged_as_a_fresh_decoding_would() -> None:
    """Lines whose tail (after the id) was accepted before are judged exactly as with an empty
    tail cache: another id, a wrong or stale id, a move illegal in this request, a second ``id``
    key or an escaped key hidden in the tail, spacing, a debug note."""
    from arena import judge

    game = get_game("matador")
    rules = game.parse_rules({})
    views = []
    for seed in range(40):
        state = game.start_hand(rules, 2, game.deal(rules, 2, seed))
        for _ in range(seed % 9):
            if state.outcome() is not None:
                break
            state = state.apply(state.legal_moves()[-1])
        if state.to_move is not None:
            views.append(state.view(state.to_move))
    tails = []
    for v in views:
        for move in v.legal:
            if move.tile is None:
                wire = f'{{"action":"{move.kind}"}}'
            else:
                end = "null" if move.end is None else f'"{move.end}"'
                a, b = move.tile
                wire = f'{{"action":"play","tile":[{a},{b}],"end":{end},"out":{move.out}}}'
            extras = ("}", ',"debug":"note"}', ',"id":3}', ',"\\u0069d":3}')
            tails += [wire + extra for extra in extras]
    lines = [
        (f'{{"type":"move","id":{rid},"move":{tail}'.encode(), asked)
        for tail in tails
        for rid, asked in ((3, 3), (4, 4), (4, 3), (9, 4))
    ]
    lines.append((b'{"type":"move", "id":4,"move":{"action":"draw"}}', 4))

    def judged_fresh(line: bytes, asked: int, v: SeatView) -> object:
        judge._TAILS.clear()
        return judge_move(line, asked, v, {9})

    expected = [judged_fresh(line, asked, v) for v in views[:6] for line, asked in lines]
    judge._TAILS.clear()
    for _ in range(2):
        got = [judge_move(line, asked, v, {9}) for v in views[:6] for line, asked in lines]
        assert got == expected
    assert judge._TAILS, "the cache served nothing"
    assert all(b'"id"' not in tail and b"\\" not in tail for tail in judge._TAILS)


def test_the_cache_of_accepted_tails_keeps_no_long_note() -> None:
    """A bot's long notes are judged as any reply but never kept: the cache's memory is bounded
    (4096 tails of at most 256 bytes) whatever a bot sends."""
    from arena import judge

    game = get_game("matador")
    rules = game.parse_rules({})
    state = game.start_hand(rules, 2, game.deal(rules, 2, 1))
    view = state.view(state.to_move)
    move = view.legal[0]
    assert move.tile is not None
    a, b = move.tile
    wire = f'{{"action":"play","tile":[{a},{b}],"end":null,"out":{move.out}}}'
    judge._TAILS.clear()
    for request_id, note in enumerate(("n" * 150, "x" * 300, "y" * 1024), start=1):
        line = f'{{"type":"move","id":{request_id},"move":{wire},"debug":"{note}"}}'.encode()
        judged = judge_move(line, request_id, view)
        assert judged == Accepted(move, note)
    assert [len(tail) for tail in judge._TAILS] == [len(wire) + len(',"debug":""}') + 150]


@pytest.mark.parametrize("game_name", ["matador", "fives", "block"])
def test_an_accepted_move_is_the_legal_list_s_own_object(game_name: str) -> None:
    """A legal reply, however its tile is written, is judged to the very move object of the
    view's legal list (plays are interned, `arena.games.api.play`), so finding it there and in
    the codec's caches stops at identity; this holds on the decoding path and on the cached
    tails' path alike."""
    game = get_game(game_name)
    rules = game.parse_rules({})
    state = game.start_hand(rules, 2, game.deal(rules, 2, 11))
    for _ in range(12):
        seat = state.to_move
        if seat is None:
            break
        view = state.view(seat)
        move = view.legal[-1]
        if move.tile is None:
            text = f'{{"action":"{move.kind}"}}'
        else:
            low, high = move.tile
            end = "null" if move.end is None else f'"{move.end}"'
            text = f'{{"action":"play","tile":[{high},{low}],"end":{end},"out":{move.out}}}'
        for request_id in (900, 901):  # the second is judged from the tail cached by the first
            judged = judge_move(reply(text, request_id), request_id, view)
            assert isinstance(judged, Accepted)
            assert judged.move is move
        state = state.apply(move)
    assert play((2, 5), "left", 5) is play((2, 5), "left", 5)
