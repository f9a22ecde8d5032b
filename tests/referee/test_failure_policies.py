"""Failure policies with real misbehaving bot processes: strikes, substitute moves, restarts.

``strict`` is what tests/referee/test_match_failures.py covers (every failure forfeits). Here:
``lenient`` turns timeouts and bad replies into strikes (a seeded random legal move is played
for the bot, which is told with a ``strike`` message) and restarts a crashed bot once;
``classroom`` forfeits like ``strict`` and explains the failure at length in the ``error``
message. Every replay verifies, and no process is left behind.
"""

from __future__ import annotations

import shlex
import sys
import time
import uuid
from pathlib import Path

import msgspec
import pytest
import trio

from arena.games.matador import MATADOR, MatadorRules
from arena.games.match import MatchLength
from arena.policy import FailurePolicy, make_policy, substitute_move
from arena.referee.clock import TimeLimits
from arena.referee.match import MatchConfig, play_match
from arena.replay import Action, Replay, Restart, Retirement, Status
from arena.verify import verify_replay
from tests.helpers import player_command as player
from tests.processes import live_processes_with

MOVE_MS = 300
LENIENT = make_policy("lenient")


def play(
    commands: list[str],
    policy: FailurePolicy,
    *,
    hands: int = 1,
    players: int = 2,
    move_ms: int = MOVE_MS,
    seed: int = 11,
) -> Replay:
    config = MatchConfig(
        game=MATADOR,
        rules=MatadorRules(),
        players=players,
        seed=seed,
        length=MatchLength(target=None, hands=hands),
        time=TimeLimits(startup_ms=5000, move_ms=move_ms),
        policy=policy,
    )
    return trio.run(play_match, config, commands)


def assert_clean(replay: Replay, marker: str) -> None:
    report = verify_replay(replay)
    assert report.ok, report.error
    time.sleep(0.05)
    assert live_processes_with(marker) == []


def strikes(replay: Replay, seat: int) -> list[Action]:
    return [
        e
        for h in replay.hands
        for e in h.events
        if isinstance(e, Action) and e.seat == seat and e.strike is not None
    ]


@pytest.fixture
def marker() -> str:
    return f"arena-test-{uuid.uuid4().hex}"


def test_an_illegal_move_is_a_strike_and_the_seeded_substitute_is_played(marker: str) -> None:
    """One illegal reply under lenient: a strike, the referee's seeded move in its place, a
    'strike' message to the bot, and the bot plays the match out with status ok."""
    replay = play([player("illegal", 2, marker=marker), player("ok", marker=marker)], LENIENT)
    seat = replay.seats[0]
    assert (seat.status, seat.strikes, seat.restarts) == (Status.OK, 1, 0)
    [struck] = strikes(replay, 0)
    assert struck.auto
    assert struck.strike is not None
    assert struck.strike.status is Status.ILLEGAL_MOVE
    assert struck.strike.legal is not None
    assert struck.request_id is not None
    assert struck.strike.request_id == struck.request_id
    # The substitute is the seeded choice among the legal moves the request listed.
    legal = struck.strike.legal
    assert struck.move == substitute_move(replay.seed, struck.request_id, legal)
    # The evidence includes the request and the illegal reply, the last lines exchanged.
    messages = struck.strike.messages or []
    assert [m.direction for m in messages[-2:]] == ["sent", "received"]
    assert f'"id":{struck.request_id}' in messages[-2].text
    assert "player got strike 1/3: illegal_move" in seat.stderr
    assert replay.hands[0].outcome is not None  # the hand was played to its end
    assert_clean(replay, marker)


def test_the_third_strike_forfeits(marker: str) -> None:
    """Illegal replies from request 2 on: two strikes are played for, the third forfeits."""
    replay = play([player("illegal_from", 2, marker=marker), player("ok", marker=marker)], LENIENT)
    seat = replay.seats[0]
    assert seat.status is Status.ILLEGAL_MOVE
    assert seat.strikes == 3
    assert seat.detail.endswith("; strike 3 of 3: forfeit")
    assert len(strikes(replay, 0)) == 2
    assert replay.result.winner == 1
    assert replay.result.reason == "forfeit"
    assert "player got strike 2/3: illegal_move" in seat.stderr
    assert "player got error" in seat.stderr
    assert_clean(replay, marker)


def test_strikes_n_sets_the_forfeiting_strike(marker: str) -> None:
    """--strikes 1: the first fault forfeits, nothing is played for the bot."""
    policy = make_policy("lenient", strikes=1)
    replay = play([player("illegal", 2, marker=marker), player("ok", marker=marker)], policy)
    assert replay.seats[0].status is Status.ILLEGAL_MOVE
    assert replay.seats[0].detail.endswith("; strike 1 of 1: forfeit")
    assert strikes(replay, 0) == []
    assert_clean(replay, marker)


def test_a_timeout_is_a_strike_and_the_late_answer_is_skipped(marker: str) -> None:
    """A reply 0.45 s late to a 0.3 s limit: a timeout strike; when the late answer arrives
    (during the next request) it is skipped, and the bot's next answer counts."""
    replay = play([player("late", 2, "0.45", marker=marker), player("ok", marker=marker)], LENIENT)
    seat = replay.seats[0]
    assert (seat.status, seat.strikes) == (Status.OK, 1)
    [struck] = strikes(replay, 0)
    assert struck.strike is not None
    assert struck.strike.status is Status.TIMEOUT
    assert struck.elapsed_ms == pytest.approx(MOVE_MS, abs=1)  # charged the whole allowance
    assert "player got strike 1/3: timeout" in seat.stderr
    assert replay.hands[0].outcome is not None
    assert_clean(replay, marker)


def test_a_bad_message_is_a_strike(marker: str) -> None:
    replay = play([player("garbage", 2, marker=marker), player("ok", marker=marker)], LENIENT)
    [struck] = strikes(replay, 0)
    assert struck.strike is not None
    assert struck.strike.status is Status.BAD_MESSAGE
    assert struck.strike.line == "this is not json"
    assert replay.seats[0].status is Status.OK
    assert_clean(replay, marker)


def test_a_line_too_long_forfeits_even_under_lenient(marker: str) -> None:
    """The rest of an over-long line is still in the pipe: no strike, a forfeit."""
    replay = play([player("endless", 2, marker=marker), player("ok", marker=marker)], LENIENT)
    assert replay.seats[0].status is Status.LINE_TOO_LONG
    assert replay.seats[0].strikes == 0
    assert_clean(replay, marker)


def test_a_crashed_bot_is_restarted_once_and_plays_on(marker: str, tmp_path: Path) -> None:
    """A crash at its third request: a new process is started (hello, then the hand's
    hand_start), asked the same position again, and plays the match out."""
    flag = tmp_path / "crashed"
    replay = play(
        [player("crash_once", 3, str(flag), marker=marker), player("ok", marker=marker)],
        LENIENT,
        hands=2,
    )
    seat = replay.seats[0]
    assert (seat.status, seat.restarts, seat.strikes) == (Status.OK, 1, 0)
    restarts = [e for h in replay.hands for e in h.events if isinstance(e, Restart)]
    assert len(restarts) == 1
    failure = restarts[0].failure
    assert failure.status is Status.CRASH
    assert failure.exit_code == 3
    assert failure.stderr_tail == "Traceback: player.py crashed once\n"
    # The stderr of both processes is kept, with the restart marked between them.
    assert seat.stderr.startswith("Traceback: player.py crashed once\n[arena: the bot was")
    assert len(replay.hands) == 2
    assert all(h.outcome is not None for h in replay.hands)
    assert_clean(replay, marker)


def test_a_second_crash_forfeits(marker: str) -> None:
    """A bot that crashes at its third request every time: restarted once, then forfeits."""
    replay = play([player("crash", 3, marker=marker), player("ok", marker=marker)], LENIENT)
    seat = replay.seats[0]
    assert (seat.status, seat.restarts) == (Status.CRASH, 1)
    events = replay.hands[0].events
    kinds = [type(e).__name__ for e in events if not isinstance(e, Action)]
    assert kinds == ["Restart", "Retirement"]
    assert replay.result.winner == 1
    assert_clean(replay, marker)


def test_a_restart_that_fails_its_handshake_forfeits(marker: str, tmp_path: Path) -> None:
    """restarts=1, but the restarted process crashes at once: recorded as a failed restart."""
    script = tmp_path / "once.py"
    script.write_text(
        "import json, os, sys\n"
        f"flag = {str(tmp_path / 'started')!r}\n"
        "if os.path.exists(flag):\n"
        "    sys.exit(5)\n"
        "open(flag, 'w').close()\n"
        "for raw in sys.stdin:\n"
        "    msg = json.loads(raw)\n"
        "    if msg['type'] == 'hello':\n"
        "        print(json.dumps({'type': 'ready', 'name': 'once'}), flush=True)\n"
        "    elif msg['type'] == 'request':\n"
        "        sys.exit(4)\n"
    )
    command = f"{shlex.quote(sys.executable)} {shlex.quote(str(script))} {marker}"
    replay = play([command, player("ok", marker=marker)], LENIENT, seed=2)
    seat = replay.seats[0]
    assert seat.restarts == 1
    assert seat.status is Status.CRASH
    assert seat.failure is not None
    assert seat.failure.phase == "restart"
    assert seat.detail.startswith("restarted after a crash, then: ")
    assert_clean(replay, marker)


def test_strict_forfeits_what_lenient_would_strike(marker: str) -> None:
    replay = play(
        [player("illegal", 2, marker=marker), player("ok", marker=marker)], FailurePolicy()
    )
    assert replay.seats[0].status is Status.ILLEGAL_MOVE
    assert replay.seats[0].strikes == 0
    assert strikes(replay, 0) == []
    assert_clean(replay, marker)


def test_classroom_sends_the_long_explanation_in_the_error(marker: str) -> None:
    """classroom forfeits like strict; its error message adds advice and the last lines."""
    replay = play(
        [player("illegal", 2, marker=marker), player("ok", marker=marker)],
        make_policy("classroom"),
    )
    seat = replay.seats[0]
    assert seat.status is Status.ILLEGAL_MOVE
    assert "player got error: illegal move" in seat.stderr
    assert "Answer with one of the moves listed in the request's 'legal' array" in seat.stderr
    assert '  referee -> bot: {"type":"request"' in seat.stderr
    assert_clean(replay, marker)


def test_three_players_strike_and_retire(marker: str) -> None:
    """Three players under lenient: one bot is struck out, the other two play on."""
    replay = play(
        [
            player("illegal_from", 1, marker=marker),
            player("ok", marker=marker),
            player("ok", marker=marker),
        ],
        LENIENT,
        players=3,
    )
    assert replay.seats[0].status is Status.ILLEGAL_MOVE
    assert replay.seats[0].strikes == 3
    retirements = [e for e in replay.hands[0].events if isinstance(e, Retirement)]
    assert [r.seat for r in retirements] == [0]
    assert replay.result.ranking[-1] == 0
    assert_clean(replay, marker)


def test_a_tampered_substitute_move_fails_verification(marker: str) -> None:
    """The substitute is not the referee's to pick freely: verify recomputes it."""
    # Seed 4: the strike's request has 9 legal moves, so another one can be put in its place.
    replay = play(
        [player("illegal", 2, marker=marker), player("ok", marker=marker)], LENIENT, seed=4
    )
    hand = replay.hands[0]
    index, struck = next(
        (i, e) for i, e in enumerate(hand.events) if isinstance(e, Action) and e.strike
    )
    legal = struck.strike.legal if struck.strike else None
    assert legal is not None
    assert len(legal) == 9
    other = next(m for m in legal if m != struck.move)
    events = list(hand.events)
    events[index] = msgspec.structs.replace(struck, move=other)
    tampered = msgspec.structs.replace(
        replay, hands=[msgspec.structs.replace(hand, events=events), *replay.hands[1:]]
    )
    report = verify_replay(tampered)
    assert not report.ok
    assert report.error is not None
    assert "the referee's seeded choice for request" in report.error


def test_lenient_fives_plays_a_substitute_and_verifies(marker: str) -> None:
    """The same strike in Fives: the substitute is one of the Fives request's legal moves, and
    the match to 100 verifies."""
    from arena.games.fives import FIVES, FivesRules

    config = MatchConfig(
        game=FIVES,
        rules=FivesRules(),
        players=2,
        seed=11,
        length=MatchLength(target=100),
        time=TimeLimits(move_ms=MOVE_MS),
        policy=LENIENT,
    )
    replay = trio.run(
        play_match, config, [player("illegal", 2, marker=marker), player("ok", marker=marker)]
    )
    [struck] = strikes(replay, 0)
    assert struck.strike is not None
    assert struck.strike.status is Status.ILLEGAL_MOVE
    assert struck.strike.legal is not None
    assert struck.request_id is not None
    assert struck.move == substitute_move(replay.seed, struck.request_id, struck.strike.legal)
    assert replay.seats[0].status is Status.OK
    assert max(replay.result.scores) >= 100
    assert_clean(replay, marker)
