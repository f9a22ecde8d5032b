"""arena/wire.py with Fives: the messages built from real Fives positions (random playouts of the
engine) carry the spinner, its arms, the count and every scoring event, and still hold exactly
what the seat may know."""

from __future__ import annotations

import itertools
import random
from collections.abc import Iterator
from typing import Any

import msgspec
import pytest

from arena.games.fives import FivesRules, FivesState, deal, parse_rules, rules_dict, start_hand
from arena.wire import (
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
from protocol.codec import decode_to_bot, encode

RULE_SETS = (
    FivesRules(),
    FivesRules(spinner_sides_first=False),
    FivesRules(block_winner="fewer_pips"),
)
FIVES_FIELDS = {"spinner", "arms", "count", "scoring"}


def playout(rules: FivesRules, seed: int) -> list[FivesState]:
    """Every state of one Fives hand, from the opening to its end."""
    state = start_hand(rules, 2, deal(rules, 2, seed), (seed % 7 * 10, seed % 5 * 10))
    rng = random.Random(seed)
    states = [state]
    while state.outcome() is None:
        state = state.apply(rng.choice(state.legal_moves()))
        states.append(state)
    return states


def hands() -> Iterator[list[FivesState]]:
    for rules, seed in itertools.product(RULE_SETS, range(12)):
        yield playout(rules, seed * 7919 + 3)


def tile_lists(raw: dict[str, Any]) -> Iterator[tuple[str, list[int]]]:
    """Every tile in a decoded request, with the field it is in."""
    for name in ("hand", "layout"):
        for tile in raw[name]:
            yield name, tile
    if raw["arms"] is not None:
        for arm in ("north", "south"):
            for tile in raw["arms"][arm]:
                yield "arms", tile
    for event in raw["history"]:
        if "tile" in event["move"]:
            yield "history", event["move"]["tile"]
    for move in raw["legal"]:
        if "tile" in move:
            yield "legal", move["tile"]


def test_requests_carry_the_fives_fields_of_the_view() -> None:
    """Each request's spinner, arms, count and scoring are the view's, and it round-trips."""
    checked = 0
    with_arms = 0
    for states in hands():
        for state in states:
            seat = state.to_move
            if seat is None:
                continue
            view = state.view(seat)
            request = move_request(view, 9, 2, 1000, 0)
            assert request.spinner == view.spinner
            assert request.count == view.end_count
            assert request.scoring == [m.Score(s, p, r) for s, p, r in view.scoring]  # type: ignore[arg-type]
            if view.spinner is None:
                assert request.arms is None
            else:
                arms = dict(view.arms)
                assert isinstance(request.arms, m.Arms)
                assert request.arms.north == list(arms["north"])
                assert request.arms.south == list(arms["south"])
                with_arms += bool(arms["north"] or arms["south"])
            assert request.scores == list(state.scores)
            assert [(e.position, e.value) for e in request.ends] == list(state.open_ends)
            assert [move_from_wire(w) for w in request.legal] == list(state.legal_moves())
            assert decode_to_bot(encode(request)) == request
            checked += 1
    assert checked > 300
    assert with_arms > 20


def test_requests_hold_no_hidden_tile() -> None:
    """Tiles appear only in the seat's own hand, on the table (line, arms, history) and in its
    legal moves: never the other hand's or the stock's."""
    for states in hands():
        for state in states:
            seat = state.to_move
            if seat is None:
                continue
            raw = msgspec.json.decode(encode(move_request(state.view(seat), 1, 1, 1000, 0)))
            assert set(raw) >= FIVES_FIELDS
            hidden = set(state.hand_tiles(1 - seat)) | set(state.boneyard_tiles())
            table = set(state.placed_tiles())
            own = set(state.hand_tiles(seat))
            for field, (a, b) in tile_lists(raw):
                tile = (min(a, b), max(a, b))
                assert tile not in hidden, f"hidden tile {tile} in {field}"
                assert tile in (own if field in ("hand", "legal") else table), field


def test_the_builder_matches_fresh_requests_through_a_hand() -> None:
    """RequestBuilder (history and scoring converted once) builds the same request as a fresh
    move_request at every turn of a hand, encoded the same by request_line, and starts afresh
    after new_hand()."""
    builder = RequestBuilder()
    for states in itertools.islice(hands(), 6):
        builder.new_hand()
        for state in states:
            seat = state.to_move
            if seat is None:
                continue
            view = state.view(seat)
            fresh = encode(move_request(view, 4, 1, 900, 100))
            assert encode(builder.request(view, 4, 1, 900, 100)) == fresh
            assert builder.request_line(view, 4, 1, 900, 100) == fresh
    first = playout(FivesRules(), 1)
    late = next(s for s in reversed(first) if s.to_move is not None and s.view(0).scoring)
    builder.new_hand()
    builder.request(late.view(late.to_move or 0), 1, 1, 1, 0)
    early = first[0].view(first[0].to_move or 0)
    with pytest.raises(ValueError, match="call new_hand"):
        builder.request(early, 2, 1, 1, 0)


def test_hand_start_shows_the_table_after_the_opening() -> None:
    """hand_start for Fives: each seat's own hand, the opener as leader, the opening's table."""
    for states in itertools.islice(hands(), 12):
        start = states[0]
        for seat in (0, 1):
            message = hand_start(start.view(seat), 1, start.leader)
            raw = msgspec.json.decode(encode(message))
            assert raw["leader"] == start.leader
            assert raw["hand"] == [list(t) for t in start.hand_tiles(seat)]
            assert raw["layout"] == [list(t) for t in start.layout()]
            assert raw["count"] == start.count
            assert raw["scores"] == list(start.scores)
            assert raw["scoring"] == [
                {"seat": s, "points": p, "reason": r} for s, p, r in start.scoring
            ]
            assert decode_to_bot(encode(message)) == message


def test_hand_end_carries_every_scoring_event_and_the_cross() -> None:
    """hand_end with a Fives view adds spinner, arms and the whole hand's scoring; without a
    view it is the Matador shape."""
    results = set()
    for states in hands():
        final = states[-1]
        outcome = final.outcome()
        assert outcome is not None
        view = final.view(0)
        left = [list(final.view(s).hand) for s in (0, 1)]
        message = hand_end(outcome, 5, left, view.layout, view)
        assert message.result == outcome.kind.value
        assert message.scoring == [m.Score(s, p, r) for s, p, r in final.scoring]  # type: ignore[arg-type]
        assert message.spinner == view.spinner
        assert decode_to_bot(encode(message)) == message
        plain = msgspec.json.decode(encode(hand_end(outcome, 5, left, view.layout)))
        assert not FIVES_FIELDS & set(plain)
        results.add(message.result)
    assert {"domino", "block"} <= results


@pytest.mark.parametrize(
    "flags",
    [
        {"spinner_sides_first": a, "block_winner": b}
        for a, b in itertools.product((True, False), ("more_points", "fewer_pips"))
    ],
    ids=str,
)
def test_fives_rules_round_trip_through_wire(flags: dict[str, Any]) -> None:
    """Every combination of the Fives flags survives rules_to_wire and rules_from_wire."""
    rules = parse_rules(flags)
    config = rules_to_wire("fives", rules_dict(rules))
    assert isinstance(config, m.FivesRules)
    decoded = msgspec.json.decode(encode(config), type=m.FivesRules)  # type: ignore[arg-type]
    assert parse_rules(rules_from_wire(decoded)) == rules


def test_fives_moves_round_trip() -> None:
    """Plays on west, east, north and south convert both ways, with the end named."""
    for states in itertools.islice(hands(), 6):
        for state in states:
            for move in state.legal_moves():
                wire = move_to_wire(move)
                assert move_from_wire(wire) == move
                if move.kind == "play":
                    assert isinstance(wire, m.Play)
                    assert wire.end in ("west", "east", "north", "south")
