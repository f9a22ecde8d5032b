"""The engine + codec row's stages for `referee_bench.py --breakdown`: each stage of a move
(the view, the request line, the judge, the record, apply, the per-hand work) timed in bulk over
the C row's requests.

Imported by `referee_bench.main` only when ``--breakdown`` is given.
"""

from __future__ import annotations

import gc
import itertools
from collections.abc import Callable
from typing import Any

# benchmarks/ is sys.path[0] when referee_bench.py runs as a script.
from referee_bench import (
    MOVE_MS,
    PLAYERS,
    SEED_BASE,
    cpu_self,
    hand_recorder,
    match_config,
    trace_games,
)

from arena.games.api import Deal
from arena.games.match import Match
from arena.judge import judge_move
from arena.replay import Action
from arena.wire import RequestBuilder, hand_end, hand_start, move_from_wire, move_to_wire
from protocol.codec import decode_from_bot, encode


def _bulk_us(setup: Callable[[], Any], work: Callable[[Any], Any], repeat: int, n: int) -> float:
    """CPU µs per item of ``work(setup())``, best of ``repeat``; the set-up is not timed."""
    best = float("inf")
    for _ in range(repeat):
        inputs = setup()
        gc.collect()
        gc.disable()  # the inputs are thousands of live objects: no collections inside
        try:
            c0 = cpu_self()
            work(inputs)
            best = min(best, cpu_self() - c0)
        finally:
            gc.enable()
    return best / n * 1e6


def stage_breakdown(matches: int, hands: int, repeat: int) -> dict[str, float]:
    """CPU µs per move of each stage of the engine row, each timed in bulk.

    The requests of the C row's games are traced first; then each stage runs over all of them
    in one loop between two ``getrusage`` readings (best of ``repeat``), so no timer runs
    inside the loop, and with the garbage collector off (the runner's real gc cost is the
    ``(gc)`` column of the match rows). Per-hand work is divided by the moves too.

    Each stage gets its inputs in the state the runner finds them: ``view()`` runs on states
    fresh from ``apply`` (their parent's public record built, theirs not: the view extends it
    by one action and computes the legal moves), a hand's first view excepted (its record was
    built by the ``hand_start`` views); ``RequestBuilder.request_line`` sees a hand's views in
    order; the per-hand stages start from freshly dealt and freshly finished hands.
    """
    trace = trace_games(matches, hands)
    turns = trace.turns
    moves = len(turns)

    def fresh_states() -> list[Any]:
        states = [turns[0].match.hand]
        for previous, turn in itertools.pairwise(turns):
            if turn.first:
                states.append(turn.match.hand)
            else:
                states.append(previous.match.hand.apply(previous.move))
        return states

    def build_requests(_: None) -> list[bytes]:
        builder = RequestBuilder()
        lines = []
        for t in turns:
            if t.first:
                builder.new_hand()
            lines.append(builder.request_line(t.view, t.request_id, t.hand_number, MOVE_MS, 0))
        return lines

    if build_requests(None) != [t.request for t in turns]:
        raise AssertionError("the stage's requests are not the engine row's")
    replies = [decode_from_bot(t.reply) for t in turns]
    checks = [(r.move, t.view.legal) for r, t in zip(replies, turns, strict=True)]  # type: ignore[union-attr]
    recorder = hand_recorder(match_config(SEED_BASE, hands))

    def hand_starts(matches: list[Match]) -> None:
        builder = RequestBuilder()
        for match in matches:
            hand = match.hand
            number = match.hand_number
            leader = hand.to_move
            assert leader is not None
            builder.new_hand()
            recorder.dealt = hand.deal()
            for seat in range(PLAYERS):
                encode(hand_start(hand.view(seat), number, leader))

    def hand_ends(ended: list[tuple[Match, Deal]]) -> None:
        for match, dealt in ended:
            recorder.dealt = dealt  # taken when the hand started (the stage above)
            finished = match.hand
            number = match.hand_number
            outcome = finished.outcome()
            assert outcome is not None
            hands_left = [list(finished.view(s).hand) for s in range(PLAYERS)]
            encode(hand_end(outcome, number, hands_left, finished.view(0).layout))
            match.next_hand()
            recorder._record_hand(number, finished, [], [])

    def nothing() -> None:
        return None

    stages: dict[str, tuple[Callable[[], Any], Callable[[Any], Any]]] = {
        "hand.outcome()": (nothing, lambda _: [t.match.hand.outcome() for t in turns]),
        "hand.view(seat)": (
            fresh_states,
            lambda states: [s.view(t.seat) for s, t in zip(states, turns, strict=True)],
        ),
        "RequestBuilder.request_line() (build + encode)": (nothing, build_requests),
        "decode_from_bot(reply)": (nothing, lambda _: [decode_from_bot(t.reply) for t in turns]),
        "move_from_wire + legality check": (
            nothing,
            lambda _: [move_from_wire(wire) in legal for wire, legal in checks],
        ),
        "judge_move(reply) (all of the two above)": (
            nothing,
            lambda _: [judge_move(t.reply, t.request_id, t.view) for t in turns],
        ),
        "Action record (move_to_wire)": (
            nothing,
            lambda _: [
                Action(t.seat, move_to_wire(t.move), t.request_id, MOVE_MS, 0.01, None, None)
                for t in turns
            ],
        ),
        "hand.apply(move)": (nothing, lambda _: [t.match.hand.apply(t.move) for t in turns]),
        "per hand: new_hand + deal() + 2 hand_start": (
            lambda: [h.start() for h in trace.hands],
            hand_starts,
        ),
        "per hand: hand_end + next_hand + _record_hand": (
            lambda: [(h.last.match.apply(h.last.move), h.start().hand.deal()) for h in trace.hands],
            hand_ends,
        ),
    }
    return {name: _bulk_us(setup, work, repeat, moves) for name, (setup, work) in stages.items()}


# -- the runner with in-memory bots ------------------------------------------------------------
