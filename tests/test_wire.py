"""arena/wire.py: engine moves to wire moves and back, and the messages built from positions.

The positions are real: dealt with ``arena.games.matador.deal``, started with ``start_hand`` and
played forward with the engine's own legal moves. The request a seat receives must hold exactly
what that seat may know: its own tiles and public facts, never another seat's tiles nor the
boneyard order.
"""

from __future__ import annotations

import itertools
import random
from collections.abc import Iterator
from typing import Any

import msgspec
import pytest

from arena.games.api import DRAW, PASS, Deal, IllegalMoveError, Move, play
from arena.games.matador import (
    LEFT,
    RIGHT,
    MatadorRules,
    MatadorState,
    deal,
    parse_rules,
    rules_dict,
    start_hand,
)
from arena.games.tiles import ALL_TILES, Tile
from arena.wire import (
    REQUEST_FIELD_ORDER,
    RequestBuilder,
    hand_end,
    hand_start,
    move_from_wire,
    move_request,
    move_to_wire,
    rules_from_wire,
    rules_to_wire,
)
from protocol import messages as m
from protocol.codec import decode_from_bot, decode_to_bot, encode

#: Every move a Matador engine can produce: each lead (laid low-high, so the high half is out),
#: each tile on each end with each of its halves outward, DRAW and PASS.
EVERY_MOVE: tuple[Move, ...] = (
    *(play(tile, None, tile[1]) for tile in ALL_TILES),
    *(
        play(tile, end, out)
        for tile in ALL_TILES
        for end in (LEFT, RIGHT)
        for out in sorted(set(tile))
    ),
    DRAW,
    PASS,
)

#: Rule sets that between them produce draws, passes, blocks and dominoes with 2 to 4 players.
RULE_SETS = (
    MatadorRules(),
    MatadorRules(hand_size=7, draw_when_playable="always"),
    MatadorRules(hand_size="9-n", reserve=2, draw_mode="one_then_pass"),
    MatadorRules(lead="highest_double", draw_when_playable="never", reserve=2),
)
#: The Fives-only fields of a request, absent from every Matador request.
FIVES_REQUEST_FIELDS = {"spinner", "arms", "count", "scoring"}
REQUEST_FIELDS = {
    field.name for field in msgspec.structs.fields(m.MoveRequest)
} - FIVES_REQUEST_FIELDS | {"type"}
#: The integer lists of a request, which may look like a tile when there are two seats.
COUNT_FIELDS = {"hand_counts", "scores", "draws", "passes", "retired"}


def playout(rules: MatadorRules, players: int, seed: int) -> list[MatadorState]:
    """Every state of one hand, from the deal to its end, choosing moves with ``seed``."""
    state = start_hand(rules, players, deal(rules, players, seed))
    choices = random.Random(seed)
    states = [state]
    while state.outcome() is None:
        state = state.apply(choices.choice(state.legal_moves()))
        states.append(state)
    return states


def positions() -> Iterator[MatadorState]:
    """Every state (finished ones included) of a few hands under each rule set and seat count."""
    for rules, players, seed in itertools.product(RULE_SETS, (2, 3, 4), range(4)):
        yield from playout(rules, players, seed * 7919 + players)


def request_for(state: MatadorState, **times: int) -> m.MoveRequest:
    """The request the referee would send to the seat to move in ``state``."""
    seat = state.to_move
    assert seat is not None
    return move_request(
        state.view(seat),
        request_id=times.get("request_id", 5),
        hand_number=3,
        time_left_ms=times.get("time_left_ms", 1500),
        bank_ms=times.get("bank_ms", 500),
    )


def tile_shaped(value: Any, path: tuple[Any, ...] = ()) -> Iterator[tuple[tuple[Any, ...], Tile]]:
    """Every list of two integers from 0 to 6 inside a decoded message, with its path."""
    if isinstance(value, list):
        if len(value) == 2 and all(type(x) is int and 0 <= x <= 6 for x in value):
            yield path, (min(value), max(value))
        for index, child in enumerate(value):
            yield from tile_shaped(child, (*path, index))
    elif isinstance(value, dict):
        for key, child in value.items():
            yield from tile_shaped(child, (*path, key))


def is_tile_field(path: tuple[Any, ...]) -> bool:
    """True for the places of a request that hold a tile: ``hand[i]``, ``layout[i]``,
    ``legal[i].tile`` and ``history[i].move.tile``."""
    match path:
        case ("hand" | "layout", int()):
            return True
        case ("legal", int(), "tile") | ("history", int(), "move", "tile"):
            return True
    return False


def played_tiles(state: MatadorState) -> list[Tile]:
    """The tiles played so far in the hand, in the order they were played."""
    return [move.tile for _s, move, _d in state.history() if move.kind == "play" and move.tile]


# -- moves -------------------------------------------------------------------------------------


def test_every_move_list_is_complete() -> None:
    """The move list holds 28 leads, every end play, DRAW and PASS, with no duplicates."""
    plays_on_ends = sum(2 * len(set(tile)) for tile in ALL_TILES)
    assert len(EVERY_MOVE) == len(set(EVERY_MOVE)) == 28 + plays_on_ends + 2


@pytest.mark.parametrize("move", EVERY_MOVE, ids=str)
def test_move_round_trips_through_wire(move: Move) -> None:
    """Every engine move survives move_to_wire and move_from_wire unchanged."""
    assert move_from_wire(move_to_wire(move)) == move


@pytest.mark.parametrize("move", EVERY_MOVE, ids=str)
def test_move_round_trips_as_a_bot_reply(move: Move) -> None:
    """Every engine move, written as a bot's reply and decoded strictly, is the same move."""
    line = encode(m.MoveReply(id=1, move=move_to_wire(move)))  # type: ignore[arg-type]
    reply = decode_from_bot(line)
    assert isinstance(reply, m.MoveReply)
    assert move_from_wire(reply.move) == move


def test_every_move_round_trips_in_a_request() -> None:
    """Every engine move listed in a request's ``legal`` and ``history`` decodes back to itself
    on the bot side."""
    state = playout(MatadorRules(), 2, 1)[0]
    wire = [move_to_wire(mv) for mv in EVERY_MOVE]
    base = request_for(state)
    request = msgspec.structs.replace(
        base, legal=wire, history=[m.Event(seat=0, move=w) for w in wire]
    )
    decoded = decode_to_bot(encode(request))
    assert isinstance(decoded, m.MoveRequest)
    assert [move_from_wire(w) for w in decoded.legal] == list(EVERY_MOVE)
    assert [move_from_wire(e.move) for e in decoded.history] == list(EVERY_MOVE)


@pytest.mark.parametrize("move", EVERY_MOVE, ids=str)
def test_wire_form_of_a_move(move: Move) -> None:
    """A play is written with its canonical tile, its end and its outward half; DRAW and PASS
    carry only their action."""
    raw = msgspec.json.decode(encode(move_to_wire(move)))  # type: ignore[arg-type]
    if move.kind == "play":
        assert raw == {"action": "play", "tile": list(move.tile), "end": move.end, "out": move.out}
    else:
        assert raw == {"action": move.kind}


@pytest.mark.parametrize(
    ("tile", "end", "out"),
    [(t, end, out) for t in ALL_TILES if t[0] != t[1] for end in (LEFT, RIGHT) for out in t],
)
def test_reply_tile_in_either_order_is_the_same_move(tile: Tile, end: str, out: int) -> None:
    """A reply naming [4,3] maps to the same engine move as one naming [3,4]."""
    low, high = tile
    forward = m.PlayReply(tile=(low, high), end=end, out=out)  # type: ignore[arg-type]
    backward = m.PlayReply(tile=(high, low), end=end, out=out)  # type: ignore[arg-type]
    assert move_from_wire(forward) == move_from_wire(backward) == play(tile, end, out)


def test_reversed_tile_in_a_decoded_reply_is_legal() -> None:
    """A decoded reply with the halves reversed is found among the engine's legal moves."""
    state = playout(MatadorRules(), 2, 3)[1]
    move = next(mv for mv in state.legal_moves() if mv.kind == "play" and mv.tile[0] != mv.tile[1])
    low, high = move.tile
    line = (
        f'{{"type":"move","id":1,"move":{{"action":"play","tile":[{high},{low}],'
        f'"end":"{move.end}","out":{move.out}}}}}'
    ).encode()
    reply = decode_from_bot(line)
    assert isinstance(reply, m.MoveReply)
    assert move_from_wire(reply.move) == move
    assert move_from_wire(reply.move) in state.legal_moves()


@pytest.mark.parametrize("tile", ALL_TILES)
def test_lead_out_may_name_either_half(tile: Tile) -> None:
    """A lead naming either half as ``out``, or with the halves reversed, is the engine's lead
    of that tile (laid low-high)."""
    low, high = tile
    expected = play(tile, None, high)
    for written, out in itertools.product(((low, high), (high, low)), (low, high)):
        assert move_from_wire(m.PlayReply(tile=written, end=None, out=out)) == expected


def test_lead_out_that_is_not_a_half_is_kept() -> None:
    """A lead whose ``out`` is no half of the tile is passed on unchanged (the engine then
    rejects it as illegal)."""
    move = move_from_wire(m.PlayReply(tile=(3, 4), end=None, out=6))
    assert move == play((3, 4), None, 6)
    state = playout(MatadorRules(), 2, 0)[0]
    with pytest.raises(IllegalMoveError):
        state.apply(move)


def test_draw_and_pass_replies_map_to_draw_and_pass() -> None:
    """The draw and pass replies (and the referee's own forms) map to DRAW and PASS."""
    assert move_from_wire(m.DrawReply()) == move_from_wire(m.Draw()) == DRAW
    assert move_from_wire(m.PassReply()) == move_from_wire(m.Pass()) == PASS


def test_move_to_wire_is_stable() -> None:
    """Converting the same move twice gives equal wire moves (the cache never changes one)."""
    for move in EVERY_MOVE:
        assert move_to_wire(move) == move_to_wire(Move(*move))


# -- the request -------------------------------------------------------------------------------


def test_positions_cover_draws_passes_and_both_endings() -> None:
    """The positions the request tests walk include draws, passes, dominoes and blocks."""
    kinds = set()
    endings = set()
    for state in positions():
        kinds.update(move.kind for _s, move, _d in state.history())
        if state.outcome() is not None:
            endings.add(state.outcome().kind.value)
    assert kinds == {"play", "draw", "pass"}
    assert endings == {"domino", "block"}


def test_request_matches_the_engine_position() -> None:
    """Every field of the request equals what the engine says about the position for the seat
    to move."""
    checked = 0
    for state in positions():
        seat = state.to_move
        if seat is None:
            continue
        request = request_for(state, request_id=11, time_left_ms=1500, bank_ms=500)
        history = state.history()
        assert request.id == 11
        assert request.hand_number == 3
        assert request.seat == seat
        assert request.hand == list(state.hand_tiles(seat))
        assert request.layout == list(state.layout())
        assert [(e.position, e.value) for e in request.ends] == list(state.ends)
        assert request.hand_counts == [len(state.hand_tiles(s)) for s in range(state.players)]
        assert request.boneyard_size == len(state.boneyard_tiles())
        assert request.scores == list(state.scores)
        assert request.draws == [
            sum(1 for s, mv, _d in history if s == seat_no and mv == DRAW)
            for seat_no in range(state.players)
        ]
        assert request.passes == [
            sum(1 for s, mv, _d in history if s == seat_no and mv == PASS)
            for seat_no in range(state.players)
        ]
        assert [(e.seat, move_from_wire(e.move)) for e in request.history] == [
            (s, mv) for s, mv, _d in history
        ]
        assert [move_from_wire(w) for w in request.legal] == list(state.legal_moves())
        assert request.legal == [move_to_wire(mv) for mv in state.legal_moves()]
        assert request.time_left_ms == 1500
        assert request.bank_ms == 500
        assert request.retired == []
        checked += 1
    assert checked > 500


def test_the_builder_passes_the_request_fields_in_the_structs_order() -> None:
    """RequestBuilder builds MoveRequest by position: its field order is the struct's."""
    assert m.MoveRequest.__struct_fields__ == REQUEST_FIELD_ORDER


def test_request_line_is_the_encoded_request_through_every_hand() -> None:
    """``request_line`` (the history's JSON extended, not encoded again) gives the bytes of
    ``encode(move_request(...))`` at every turn of every hand, retired seats included, and
    refuses a history shorter than the last one until ``new_hand()``."""
    builder = RequestBuilder()
    checked = 0
    for rules, players, seed in itertools.product(RULE_SETS, (2, 3, 4), range(4)):
        builder.new_hand()
        states = playout(rules, players, seed * 7919 + players)
        for state in states:
            seat = state.to_move
            if seat is None:
                continue
            view = state.view(seat)
            line = builder.request_line(view, checked, 2, 900, 100)
            assert line == encode(move_request(view, checked, 2, 900, 100))
            if players > 2:  # another seat retired: a fresh builder encodes the whole history
                retired = state.retire((seat + 1) % players).view(seat)
                fresh = RequestBuilder().request_line(retired, 1, 2, 900, 100)
                assert fresh == encode(move_request(retired, 1, 2, 900, 100))
            checked += 1
        with pytest.raises(ValueError, match="call new_hand"):
            builder.request_line(states[0].view(states[0].to_move or 0), 1, 1, 1, 0)
    assert checked > 500


def test_request_round_trips_on_the_bot_side() -> None:
    """Every request decodes, on the bot side, back to the message the referee built."""
    for state in positions():
        if state.to_move is not None:
            request = request_for(state)
            assert decode_to_bot(encode(request)) == request


def test_request_holds_no_hidden_tile() -> None:
    """No field of an encoded request holds another seat's tile or a boneyard tile: tiles
    appear only in ``hand`` (exactly the seat's own), ``layout`` and ``history`` (exactly the
    played tiles) and ``legal`` (own tiles); every other pair of small ints is a count list."""
    for state in positions():
        seat = state.to_move
        if seat is None:
            continue
        raw = msgspec.json.decode(encode(request_for(state)))
        own = set(state.hand_tiles(seat))
        hidden = set(state.boneyard_tiles())
        for other in range(state.players):
            if other != seat:
                hidden.update(state.hand_tiles(other))
        assert set(raw) == REQUEST_FIELDS
        assert raw["hand"] == [list(t) for t in state.hand_tiles(seat)]
        assert sorted(tuple(sorted(t)) for t in raw["layout"]) == sorted(played_tiles(state))
        history_tiles = [tuple(e["move"]["tile"]) for e in raw["history"] if "tile" in e["move"]]
        assert history_tiles == played_tiles(state)
        assert {tuple(w["tile"]) for w in raw["legal"] if "tile" in w} <= own
        for path, tile in tile_shaped(raw):
            if is_tile_field(path):
                assert tile not in hidden, f"hidden tile {tile} at {path}"
            else:
                assert len(path) == 1, f"unexpected tile-shaped value at {path}"
                assert path[0] in COUNT_FIELDS, f"unexpected tile-shaped value at {path}"


def test_draws_in_history_hide_the_drawn_tile() -> None:
    """A draw in the history is only ``{"action": "draw"}``: the drawn tile never appears."""
    seen = 0
    for state in positions():
        if state.to_move is None:
            continue
        raw = msgspec.json.decode(encode(request_for(state)))
        for event, (_s, move, drawn) in zip(raw["history"], state.history(), strict=True):
            if move == DRAW:
                assert drawn is not None
                assert event["move"] == {"action": "draw"}
                seen += 1
    assert seen > 0


def hidden_permutations(
    state: MatadorState, viewer: int, tries: int, seed: int
) -> Iterator[MatadorState]:
    """Replays of ``state``'s moves from deals where the tiles ``viewer`` cannot see (other
    seats' current hands and the boneyard) are shuffled among themselves; replays that become
    illegal or change the leader are skipped."""
    dealt = state.deal()
    hidden = sorted(
        set(state.boneyard_tiles()).union(
            *(state.hand_tiles(s) for s in range(state.players) if s != viewer)
        )
    )
    moves = [move for _s, move, _d in state.history()]
    shuffler = random.Random(seed)
    for _ in range(tries):
        shuffled = hidden[:]
        shuffler.shuffle(shuffled)
        swap = dict(zip(hidden, shuffled, strict=True))
        if shuffled == hidden:
            continue
        other = Deal(
            hands=tuple(tuple(sorted(swap.get(t, t) for t in h)) for h in dealt.hands),
            boneyard=tuple(swap.get(t, t) for t in dealt.boneyard),
        )
        replay = start_hand(state.rules, state.players, other, state.scores)
        if replay.to_move != state.leader:
            continue
        try:
            for move in moves:
                replay = replay.apply(move)
        except IllegalMoveError:
            continue
        yield replay


def test_request_does_not_depend_on_hidden_tiles() -> None:
    """Shuffling the tiles a seat cannot see (other hands, boneyard order) while the public
    history stays the same leaves that seat's encoded request byte for byte the same."""
    compared = 0
    for rules, players, seed in itertools.product(RULE_SETS, (2, 3, 4), range(3)):
        for state in playout(rules, players, seed)[:12]:
            viewer = state.to_move
            if viewer is None:
                continue
            expected = encode(request_for(state))
            for other in hidden_permutations(state, viewer, tries=4, seed=seed):
                assert other.to_move == viewer
                assert other.deal() != state.deal()
                assert encode(request_for(other)) == expected
                compared += 1
    assert compared > 50


@pytest.mark.parametrize(("given", "expected"), [(-1, 0), (-10_000, 0), (0, 0), (7, 7)])
def test_times_are_never_negative(given: int, expected: int) -> None:
    """A negative time left or bank (an overdrawn clock) is sent as 0; others pass through."""
    state = playout(MatadorRules(), 2, 2)[0]
    request = request_for(state, time_left_ms=given, bank_ms=given)
    assert request.time_left_ms == expected
    assert request.bank_ms == expected
    assert decode_to_bot(encode(request)) == request


def test_request_lists_retired_seats() -> None:
    """A retired seat is listed in ``retired``, and when it is to move its only legal move is
    PASS."""
    state = playout(MatadorRules(), 3, 4)[2]
    seat = state.to_move
    assert seat is not None
    state = state.retire(seat)
    request = request_for(state)
    assert request.retired == [seat]
    assert request.legal == [m.Pass()]


def test_lead_request_has_no_ends_and_an_empty_layout() -> None:
    """Before the lead, the request has no open ends, an empty layout and one lead per tile
    in the hand."""
    state = playout(MatadorRules(), 4, 5)[0]
    request = request_for(state)
    assert request.ends == []
    assert request.layout == []
    assert request.history == []
    assert [move_from_wire(w) for w in request.legal] == [
        play(tile, None, tile[1]) for tile in request.hand
    ]


# -- hand start and hand end -------------------------------------------------------------------


@pytest.mark.parametrize("players", [2, 3, 4])
def test_hand_start_holds_own_hand_and_public_counts(players: int) -> None:
    """The hand_start message holds the seat's own tiles, the leader, every seat's count, the
    boneyard size and the scores, and nothing else."""
    rules = MatadorRules(hand_size="9-n")
    state = start_hand(rules, players, deal(rules, players, 77), (3, 1, 4, 1)[:players])
    for seat in range(players):
        message = hand_start(state.view(seat), hand_number=2, leader=state.leader)
        assert message == m.HandStart(
            hand_number=2,
            leader=state.to_move,
            hand=list(state.hand_tiles(seat)),
            hand_counts=[9 - players] * players,
            boneyard_size=28 - players * (9 - players),
            scores=[3, 1, 4, 1][:players],
        )
        raw = msgspec.json.decode(encode(message))
        assert set(raw) == {"type", "hand_number", "leader", "hand", "hand_counts"} | {
            "boneyard_size",
            "scores",
        }
        assert decode_to_bot(encode(message)) == message


def finished_hands() -> Iterator[MatadorState]:
    """The final state of a few hands under each rule set and seat count."""
    for rules, players, seed in itertools.product(RULE_SETS, (2, 3, 4), range(4)):
        yield playout(rules, players, seed * 7919 + players)[-1]


def test_hand_end_reveals_every_hand() -> None:
    """The hand_end message reveals every seat's remaining tiles and the layout, with the result,
    winners, award, scores and pips of the engine's outcome."""
    results = set()
    for state in finished_hands():
        outcome = state.outcome()
        assert outcome is not None
        hands_left = [list(state.view(s).hand) for s in range(state.players)]
        message = hand_end(outcome, 4, hands_left, state.view(0).layout)
        assert message.hand_number == 4
        assert message.result == outcome.kind.value
        assert message.hands == [list(state.hand_tiles(s)) for s in range(state.players)]
        assert message.layout == list(state.layout())
        assert message.winners == list(outcome.winners)
        assert message.award == list(outcome.award)
        assert message.scores == list(outcome.scores)
        assert message.pips == [sum(a + b for a, b in hand) for hand in message.hands]
        shown = {t for hand in message.hands for t in hand} | {
            tuple(sorted(t)) for t in message.layout
        }
        assert shown | set(state.boneyard_tiles()) == set(ALL_TILES)
        assert decode_to_bot(encode(message)) == message
        results.add(message.result)
    assert results == {"domino", "block"}


# -- rules -------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "flags",
    [
        dict(
            zip(("hand_size", "lead", "draw_when_playable", "reserve", "draw_mode"), v, strict=True)
        )
        for v in itertools.product(
            (5, 7, "9-n"),
            ("any", "highest_double"),
            ("matador_only", "never", "always"),
            (0, 2),
            ("until_playable", "one_then_pass"),
        )
    ],
    ids=str,
)
def test_rules_round_trip_through_wire(flags: dict[str, Any]) -> None:
    """Every combination of the rule flags survives rules_to_wire, encoding, decoding and
    rules_from_wire."""
    rules = parse_rules(flags)
    config = rules_to_wire("matador", rules_dict(rules))
    decoded = msgspec.json.decode(encode(config), type=m.MatadorRules)  # type: ignore[arg-type]
    assert parse_rules(rules_from_wire(decoded)) == rules
    assert rules_from_wire(decoded) == rules_dict(rules)


def test_rules_for_an_unknown_game_are_refused() -> None:
    """Only the games the protocol knows (Matador, Fives) have a rules config on the wire."""
    with pytest.raises(ValueError, match="no protocol rules config"):
        rules_to_wire("checkers", {})
