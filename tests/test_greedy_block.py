"""The sample greedy bots in Block: exact moves in hand-made positions (both bots), and
greedy.py and greedy.js making the same move, with the same note, in real engine positions."""

from __future__ import annotations

import random
import sys

import pytest

from arena.games.block import PLUGIN, deal, start_hand
from arena.wire import move_request, rules_to_wire
from protocol import (
    Event,
    Hello,
    MatchLength,
    MoveRequest,
    Pass,
    ReplyMove,
    TimeControl,
    WireMove,
    as_reply,
)
from protocol.messages import PROTOCOL_VERSION
from tests.test_sample_bots import (
    BOT_DIR,
    GREEDY_BOTS,
    NODE,
    match_end,
    needs_node,
    p,
    request,
    run_bot,
)


def block_hello() -> Hello:
    """A ``hello`` for seat 0 of a one-hand Block match."""
    return Hello(
        protocol=PROTOCOL_VERSION,
        game="block",
        seat=0,
        players=2,
        rules=rules_to_wire("block", {}),
        match=MatchLength(hands=1),
        time=TimeControl(startup_ms=5000, move_ms=1000),
        seed=1,
    )


# ends (3, 2): the double 3-3 (6 pips, it fits one value only) goes before 2-6 (8 pips).
DOUBLE_FIRST = request(
    1,
    hand=[(2, 6), (3, 3)],
    layout=[(3, 1), (1, 2)],
    legal=[p(3, 3, "left", 3), p(2, 6, "right", 6)],
    boneyard_size=0,
)
# Seat 0 led 4-4 and seat 1 passed (no 4); then 1-4 and 1-2 went left: ends (2, 4). 2-4 with
# 4 out (6 pips) beats 4-5 (9 pips): seat 1 has shown it has no 4.
VOID_END = request(
    2,
    hand=[(2, 4), (4, 5)],
    layout=[(2, 1), (1, 4), (4, 4)],
    legal=[p(2, 4, "left", 4), p(2, 4, "right", 2), p(4, 5, "right", 5)],
    boneyard_size=0,
    history=[
        Event(0, p(4, 4, None, 4)),
        Event(1, Pass()),
        Event(0, p(1, 4, "left", 1)),
        Event(1, p(1, 2, "left", 2)),
    ],
)
ONLY_PASS = request(3, hand=[(5, 5)], layout=[(1, 2)], legal=[Pass()], boneyard_size=0)

CASES = [
    pytest.param(DOUBLE_FIRST, p(3, 3, "left", 3), "shed 3-3, 3 out", id="double-first"),
    pytest.param(VOID_END, p(2, 4, "left", 4), "shed 2-4, 4 out (they lack it)", id="void-end"),
    pytest.param(ONLY_PASS, Pass(), "nothing to play: pass", id="only-pass"),
]


@pytest.mark.parametrize(("command", "name"), GREEDY_BOTS)
@pytest.mark.parametrize(("position", "expected", "note"), CASES)
def test_greedy_block_choice(
    command: list[str], name: str, position: MoveRequest, expected: WireMove, note: str
) -> None:
    """Each greedy bot sheds doubles and heavy tiles and prefers an end the opponent lacks."""
    run = run_bot(command, [block_hello(), position, match_end()])
    assert run.returncode == 0, run.stderr
    (reply,) = run.moves()
    assert reply.move == as_reply(expected), f"{name}: {reply.debug}"
    assert reply.debug == note


def _block_requests(count: int, seed: int) -> list[MoveRequest]:
    """``count`` real Block requests from random playouts of the engine."""
    rules = PLUGIN.parse_rules({})
    rng = random.Random(seed)
    requests: list[MoveRequest] = []
    deal_seed = seed
    while len(requests) < count:
        hand = start_hand(rules, 2, deal(rules, 2, deal_seed))
        while hand.outcome() is None and len(requests) < count:
            assert hand.to_move is not None
            view = hand.view(hand.to_move)
            requests.append(move_request(view, len(requests), 1, 1000, 0))
            hand = hand.apply(rng.choice(view.legal))
        deal_seed += 1
    return requests


@needs_node
def test_greedy_py_and_js_agree_on_block_positions() -> None:
    """greedy.py and greedy.js make the same Block move, with the same note, in 300 real
    positions (passes by the opponent included, so the void tracking is exercised)."""
    requests = _block_requests(300, seed=5)
    assert any(event.move == Pass() for r in requests for event in r.history)

    def replies(command: list[str]) -> list[tuple[ReplyMove, str | None]]:
        run = run_bot(command, [block_hello(), *requests, match_end()])
        assert run.returncode == 0, run.stderr
        return [(r.move, r.debug) for r in run.moves()]

    py = replies([sys.executable, str(BOT_DIR / "greedy.py")])
    assert len(py) == 300
    assert py == replies([NODE or "node", str(BOT_DIR / "greedy.js")])
