"""Fives through the match runner: real matches between scripted bots (trio's MockClock) and
subprocess bots, checked against the engine, with every message each bot received.

What the referee must get right for Fives, beyond Matador: ``hand_start`` names the seat whose
tile the automatic opening laid (the *other* seat gets the first request); a hand can be over at
its opening (the count takes the leader to 100) and then no request is sent; the requests and
``hand_end`` carry the spinner, its arms, the count and every scoring event, so each bot learns
every score, the other seat's included.
"""

from __future__ import annotations

import functools
import json
import shlex
import sys
from pathlib import Path
from typing import Any

import pytest
import trio
import trio.testing

from arena.games.fives import FIVES, FivesRules
from arena.games.match import MatchLength, hand_leader, hand_seed
from arena.referee.channel import Script, scripted_connector
from arena.referee.clock import TimeLimits
from arena.referee.match import MatchConfig, play_match
from arena.replay import Action, Replay, Status
from arena.replay_walk import WalkKind, walk_replay
from arena.verify import verify_replay
from protocol.codec import decode_to_bot
from protocol.messages import HandEnd, HandStart, Hello, MoveRequest
from tests.helpers import run_on_mock_clock

PLAYER = Path(__file__).resolve().parents[1] / "bots" / "player.py"
#: With first-legal bots, seed 21's hand 3 is over at its opening: seat 0 starts it at 90 and
#: opens 5-5, which counts 10 (found by a search; the test checks it rather than trusts it).
OPENING_SEED = 21


def recording_bot(name: str, log: list[dict[str, Any]], pick: int = 0) -> Script:
    """A scripted bot that plays legal move ``pick`` (the last when there are fewer) and keeps
    every message it receives, decoded, in ``log``."""

    def script(line: bytes) -> list[bytes] | None:
        message = json.loads(line)
        decode_to_bot(line)  # every line is a valid message for a bot's own decoder
        log.append(message)
        kind = message["type"]
        if kind == "hello":
            return [json.dumps({"type": "ready", "name": name}).encode()]
        if kind == "request":
            legal = message["legal"]
            move = legal[min(pick, len(legal) - 1)]
            return [json.dumps({"type": "move", "id": message["id"], "move": move}).encode()]
        if kind in ("match_end", "error"):
            return None
        return []

    return script


def play(
    seed: int,
    *,
    length: MatchLength | None = None,
    rules: FivesRules | None = None,
    picks: tuple[int, int] = (0, 0),
) -> tuple[Replay, list[list[dict[str, Any]]]]:
    """A Fives match between two recording bots; the replay and what each seat received."""
    logs: list[list[dict[str, Any]]] = [[], []]
    config = MatchConfig(
        game=FIVES,
        rules=rules or FivesRules(),
        players=2,
        seed=seed,
        length=length or MatchLength(target=100),
        time=TimeLimits(startup_ms=1000, move_ms=1000, bank_ms=0),
    )
    scripts = {f"bot{s}": recording_bot(f"bot{s}", logs[s], picks[s]) for s in (0, 1)}
    run = functools.partial(play_match, config, list(scripts), connect=scripted_connector(scripts))
    replay: Replay = run_on_mock_clock(run)
    return replay, logs


def of_type(log: list[dict[str, Any]], kind: str) -> list[dict[str, Any]]:
    return [m for m in log if m["type"] == kind]


@pytest.fixture(scope="module")
def match() -> tuple[Replay, list[list[dict[str, Any]]]]:
    """Seed 4, to 100, first legal moves for seat 0 and last legal moves for seat 1."""
    return play(4, picks=(0, 99))


def test_a_fives_match_verifies_and_ends_at_100(
    match: tuple[Replay, list[list[dict[str, Any]]]],
) -> None:
    """The replay re-runs through the engine; the match ends by target with a score >= 100."""
    replay, _logs = match
    assert replay.game == "fives"
    assert replay.rules == {"spinner_sides_first": True, "block_winner": "more_points"}
    report = verify_replay(replay)
    assert report.ok, report.error
    assert replay.result.reason == "target"
    assert max(replay.result.scores) >= 100
    assert [s.status for s in replay.seats] == [Status.OK, Status.OK]


def test_hello_names_the_game_and_its_rules(
    match: tuple[Replay, list[list[dict[str, Any]]]],
) -> None:
    """Each bot's hello says fives, with the Fives rules config and the match to 100."""
    _replay, logs = match
    for seat, log in enumerate(logs):
        hello = decode_to_bot(json.dumps(log[0]).encode())
        assert isinstance(hello, Hello)
        assert (hello.game, hello.seat, hello.players) == ("fives", seat, 2)
        assert log[0]["rules"] == {
            "game": "fives",
            "spinner_sides_first": True,
            "block_winner": "more_points",
        }
        assert log[0]["match"] == {"target": 100, "hands": None}


def test_hand_start_names_the_opener_and_the_other_seat_moves_first(
    match: tuple[Replay, list[list[dict[str, Any]]]],
) -> None:
    """hand_start.leader is the seat of the automatic opening (the replay's leader too); the
    first request of the hand goes to the other seat, whose history starts with the opening."""
    replay, logs = match
    for record in replay.hands:
        deal = FIVES.deal(FivesRules(), 2, hand_seed(replay.seed, record.hand_number))
        assert [list(h) for h in deal.hands] == record.deal.hands
        starts = [
            m
            for log in logs
            for m in of_type(log, "hand_start")
            if m["hand_number"] == record.hand_number
        ]
        assert len(starts) == 2
        assert {m["leader"] for m in starts} == {record.leader}
        first_action = next(e for e in record.events if isinstance(e, Action))
        assert first_action.seat == 1 - record.leader
        requests = [
            m
            for log in logs
            for m in of_type(log, "request")
            if m["hand_number"] == record.hand_number
        ]
        first = min(requests, key=lambda m: m["id"])
        assert first["seat"] == 1 - record.leader
        opening = first["history"][0]
        assert opening["seat"] == record.leader
        assert opening["move"]["end"] is None
        # The table after the opening, as hand_start showed it to both seats.
        for start in starts:
            assert start["layout"] == first["layout"]
            assert start["count"] == first["count"]
            assert start["scoring"] == first["scoring"]


def test_requests_carry_the_cross_the_count_and_the_scores(
    match: tuple[Replay, list[list[dict[str, Any]]]],
) -> None:
    """Every request has the Fives fields, consistent with its layout and ends."""
    _replay, logs = match
    requests = [m for log in logs for m in of_type(log, "request")]
    assert requests
    seen_arms = False
    for request in requests:
        assert {"spinner", "arms", "count", "scoring"} <= set(request)
        positions = [e["position"] for e in request["ends"]]
        assert positions[:2] == ["west", "east"]
        if request["spinner"] is None:
            assert request["arms"] is None
            assert positions == ["west", "east"]
        else:
            assert (
                request["layout"][request["spinner"]][0] == request["layout"][request["spinner"]][1]
            )
            assert set(request["arms"]) == {"north", "south"}
            seen_arms = seen_arms or bool(request["arms"]["north"] or request["arms"]["south"])
        for move in request["legal"]:
            if move["action"] == "play":
                assert move["end"] in positions
        decoded = decode_to_bot(json.dumps(request).encode())
        assert isinstance(decoded, MoveRequest)
        assert decoded.count == request["count"]
    assert seen_arms, "the match should put a tile on an arm"


def test_every_bot_learns_every_scoring_event(
    match: tuple[Replay, list[list[dict[str, Any]]]],
) -> None:
    """Per hand and per seat, the scoring events a bot was told (hand_start, each request,
    hand_end) are the engine's, the other seat's included, and always a prefix of the hand's;
    hand_end's scores are the scores before the hand plus every event."""
    replay, logs = match
    engine_events: dict[int, list[list[Any]]] = {}
    for step in walk_replay(replay):
        if step.kind is WalkKind.HAND_END:
            assert step.hand_number is not None
            view = step.match.hand.view(0)
            engine_events[step.hand_number] = [list(e) for e in view.scoring]
    for log in logs:
        before = [0, 0]
        for number, events in engine_events.items():
            told = [m for m in log if m.get("hand_number") == number and m["type"] != "hello"]
            as_lists = [[[e["seat"], e["points"], e["reason"]] for e in m["scoring"]] for m in told]
            for known in as_lists:
                assert known == events[: len(known)]
            end = next(m for m in told if m["type"] == "hand_end")
            assert as_lists[-1] == events  # hand_end: the whole hand
            totals = [sum(e[1] for e in events if e[0] == s) for s in (0, 1)]
            assert end["scores"] == [before[s] + totals[s] for s in (0, 1)]
            before = end["scores"]
    # Both seats scored in this match, and each seat was told the other's points.
    all_events = [e for events in engine_events.values() for e in events]
    assert {e[0] for e in all_events} == {0, 1}


def test_hand_end_carries_the_result_the_cross_and_the_award(
    match: tuple[Replay, list[list[dict[str, Any]]]],
) -> None:
    """hand_end in Fives: the result (target for the last hand), spinner, arms and scoring."""
    replay, logs = match
    ends = of_type(logs[0], "hand_end")
    assert len(ends) == len(replay.hands)
    for message, record in zip(ends, replay.hands, strict=True):
        decoded = decode_to_bot(json.dumps(message).encode())
        assert isinstance(decoded, HandEnd)
        assert record.outcome is not None
        assert message["result"] == record.outcome.kind
        assert message["scores"] == record.outcome.scores
        assert {"spinner", "arms", "scoring"} <= set(message)
    assert ends[-1]["result"] == "target"
    assert ends[-1]["award"] == [0, 0]
    assert of_type(logs[1], "match_end")[0]["reason"] == "target"


def test_a_hand_over_at_its_opening_sends_no_request() -> None:
    """An opening whose count reaches 100 ends the hand at once: hand_start, then hand_end
    ("target"), then match_end, with no request; the replay records a hand with no event and
    verifies."""
    replay, logs = play(OPENING_SEED)
    last = replay.hands[-1]
    assert last.events == []
    assert last.outcome is not None
    assert last.outcome.kind == "target"
    assert replay.result.reason == "target"
    assert verify_replay(replay).ok
    walked = [s for s in walk_replay(replay) if s.hand_number == last.hand_number]
    assert [s.kind for s in walked] == [WalkKind.HAND_START, WalkKind.HAND_END]
    assert hand_leader(walked[0].match.hand) == last.leader
    for log in logs:
        tail = [m["type"] for m in log if m.get("hand_number") in (last.hand_number, None)]
        assert tail[-3:] == ["hand_start", "hand_end", "match_end"]
        start = next(
            m for m in log if m["type"] == "hand_start" and m["hand_number"] == last.hand_number
        )
        assert isinstance(decode_to_bot(json.dumps(start).encode()), HandStart)
        assert start["leader"] == last.leader
        assert max(start["scores"]) >= 100
        assert start["scoring"][-1]["seat"] == last.leader


def test_fixed_hands_match_still_ends_at_100() -> None:
    """A match for 50 hands ends as soon as a score reaches 100 (reason "target")."""
    replay, _logs = play(4, length=MatchLength(target=None, hands=50), picks=(0, 99))
    assert replay.result.reason == "target"
    assert len(replay.hands) < 50
    assert verify_replay(replay).ok


def test_fixed_hands_match_below_100_ends_by_hands() -> None:
    """One hand below 100: the match ends by "hands"."""
    replay, _logs = play(4, length=MatchLength(target=None, hands=1))
    assert replay.result.reason == "hands"
    assert len(replay.hands) == 1
    assert verify_replay(replay).ok


def test_flags_reach_the_bots_and_the_replay() -> None:
    """Non-default flags go to hello.rules and the replay, and the match verifies under them."""
    rules = FivesRules(spinner_sides_first=False, block_winner="fewer_pips")
    replay, logs = play(9, rules=rules)
    assert logs[0][0]["rules"] == {
        "game": "fives",
        "spinner_sides_first": False,
        "block_winner": "fewer_pips",
    }
    assert replay.rules == {"spinner_sides_first": False, "block_winner": "fewer_pips"}
    assert verify_replay(replay).ok


def test_tampered_leader_is_refused_by_verify(
    match: tuple[Replay, list[list[dict[str, Any]]]],
) -> None:
    """A Fives replay whose recorded leader is not the seat of the opening does not verify."""
    import msgspec

    replay, _logs = match
    first = replay.hands[0]
    bad_hand = msgspec.structs.replace(first, leader=1 - first.leader)
    bad = msgspec.structs.replace(replay, hands=[bad_hand, *replay.hands[1:]])
    report = verify_replay(bad)
    assert not report.ok
    assert report.error is not None
    assert "opened" in report.error


@pytest.mark.slow
def test_subprocess_bots_play_fives() -> None:
    """Real processes (tests/bots/player.py, which plays the first legal move) play a whole
    Fives match; the replay verifies."""
    command = " ".join(shlex.quote(p) for p in (sys.executable, str(PLAYER), "ok"))
    config = MatchConfig(
        game=FIVES,
        rules=FivesRules(),
        players=2,
        seed=OPENING_SEED,
        length=MatchLength(target=100),
        time=TimeLimits(startup_ms=10_000, move_ms=2_000),
    )
    replay = trio.run(play_match, config, [command, command])
    assert [s.status for s in replay.seats] == [Status.OK, Status.OK]
    assert replay.result.reason == "target"
    assert verify_replay(replay).ok
    # The same deterministic choices in memory play the very same match.
    scripted, _logs = play(OPENING_SEED)

    def actions(played: Replay) -> list[list[tuple[int, Any]]]:
        return [[(e.seat, e.move) for e in h.events if isinstance(e, Action)] for h in played.hands]

    assert actions(replay) == actions(scripted)
