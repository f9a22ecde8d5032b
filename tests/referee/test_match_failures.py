"""Real matches against real misbehaving bot processes: every failure becomes a typed outcome.

Each test plays a match through :func:`arena.referee.match.play_match` with the test bots of
tests/bots/, checks the outcome and its evidence, that the match still has a result that
verifies, that it ended within the time limit plus a small margin, and that no process of any
bot is left behind.
"""

from __future__ import annotations

import time
import uuid

import pytest
import trio

from arena.games.matador import MATADOR, MatadorRules
from arena.games.match import MatchLength
from arena.referee.clock import TimeLimits
from arena.referee.match import MatchConfig, play_match
from arena.replay import Action, Replay, Retirement, Status
from arena.verify import verify_replay
from tests.helpers import bot_command as bot
from tests.helpers import player_command as player
from tests.processes import live_processes_with

MOVE_MS = 400
MARGIN_S = 2.0  # process start-up, kill grace and scheduling on a loaded 2-core CI machine


def play(
    commands: list[str],
    *,
    hands: int = 1,
    move_ms: int = MOVE_MS,
    bank_ms: int = 0,
    startup_ms: int = 5000,
    seed: int = 11,
) -> tuple[Replay, float]:
    """Play a real match; returns the replay and the wall time it took."""
    config = MatchConfig(
        game=MATADOR,
        rules=MatadorRules(),
        players=len(commands),
        seed=seed,
        length=MatchLength(target=None, hands=hands),
        time=TimeLimits(startup_ms=startup_ms, move_ms=move_ms, bank_ms=bank_ms),
    )
    started = time.monotonic()
    replay = trio.run(play_match, config, commands)
    return replay, time.monotonic() - started


def assert_clean(replay: Replay, marker: str) -> None:
    """The replay verifies against the engine and no bot process is left."""
    report = verify_replay(replay)
    assert report.ok, report.error
    time.sleep(0.05)
    assert live_processes_with(marker) == []


@pytest.fixture
def marker() -> str:
    """A unique word put on the command line of every bot of one test."""
    return f"arena-test-{uuid.uuid4().hex}"


def test_two_good_bots_finish_with_ok_statuses(marker: str) -> None:
    """Two well-behaved bots play every hand; both are ok and the replay verifies."""
    replay, _ = play([player("ok", marker=marker), player("ok", marker=marker)], hands=2)
    assert [s.status for s in replay.seats] == [Status.OK, Status.OK]
    assert [s.name for s in replay.seats] == ["player-ok", "player-ok"]
    assert len(replay.hands) == 2
    assert replay.result.reason == "hands"
    assert replay.result.scores == replay.hands[-1].outcome.scores  # type: ignore[union-attr]
    assert_clean(replay, marker)


def test_hanging_bot_times_out_within_the_move_limit(marker: str) -> None:
    """A bot that stops answering loses on time shortly after its per-move limit."""
    replay, took = play([player("hang", 2, marker=marker), player("ok", marker=marker)])
    seat = replay.seats[0]
    assert seat.status is Status.TIMEOUT
    assert seat.failure is not None
    assert seat.failure.phase == "move"
    assert seat.failure.overrun_ms is not None
    assert 0 <= seat.failure.overrun_ms < 1000
    assert seat.detail.startswith("did not answer request ")
    assert replay.result.winner == 1
    assert replay.result.reason == "forfeit"
    assert took < MOVE_MS / 1000 + MARGIN_S
    assert_clean(replay, marker)


def test_crashing_bot_reports_exit_code_and_stderr(marker: str) -> None:
    """A bot that dies mid-game is a crash with its exit code and the tail of its stderr."""
    replay, took = play([player("ok", marker=marker), player("crash", 2, marker=marker)])
    seat = replay.seats[1]
    assert seat.status is Status.CRASH
    assert seat.failure is not None
    assert seat.failure.exit_code == 3
    assert seat.failure.signal is None
    assert seat.detail == "closed its output and exited (exit code 3)"
    assert "deliberately crashed" in (seat.failure.stderr_tail or "")
    assert "deliberately crashed" in seat.stderr
    assert replay.result.winner == 0
    assert took < MARGIN_S
    assert_clean(replay, marker)


def test_bot_killed_by_a_signal_reports_the_signal(marker: str) -> None:
    """A bot killed by SIGKILL is a crash naming the signal."""
    replay, _ = play([player("signal", 1, marker=marker), player("ok", marker=marker)])
    seat = replay.seats[0]
    assert seat.status is Status.CRASH
    assert seat.failure is not None
    assert seat.failure.signal == 9
    assert seat.failure.exit_code is None
    assert seat.detail == "closed its output and exited (killed by signal SIGKILL)"
    assert_clean(replay, marker)


def test_garbage_is_a_bad_message_with_the_offending_bytes(marker: str) -> None:
    """A reply that is not JSON is a bad message; the evidence keeps the line and the error."""
    replay, _ = play([player("garbage", 1, marker=marker), player("ok", marker=marker)])
    seat = replay.seats[0]
    assert seat.status is Status.BAD_MESSAGE
    assert seat.failure is not None
    assert seat.failure.line == "this is not json"
    assert seat.failure.error is not None
    assert seat.failure.error.startswith("not valid JSON: ")
    assert_clean(replay, marker)


def test_deeply_nested_json_is_a_bad_message_not_a_referee_crash(marker: str) -> None:
    """JSON nested thousands of levels deep is the bot's bad message, never the referee's crash."""
    replay, _ = play([player("deep", 2, marker=marker), player("ok", marker=marker)])
    failure = replay.seats[0].failure
    assert failure is not None
    assert failure.status is Status.BAD_MESSAGE
    assert failure.error == "not valid JSON: nested too deeply"
    assert_clean(replay, marker)


def test_unknown_field_is_a_bad_message_naming_the_field(marker: str) -> None:
    """Strict decoding: an unknown field in a reply is named in the error."""
    replay, _ = play([player("unknown_field", 1, marker=marker), player("ok", marker=marker)])
    failure = replay.seats[0].failure
    assert failure is not None
    assert failure.status is Status.BAD_MESSAGE
    assert failure.error == "Object contains unknown field `mvoe` - at `$`"
    assert_clean(replay, marker)


def test_wrong_request_id_is_a_bad_message(marker: str) -> None:
    """A reply carrying another request's id is refused, naming both ids."""
    replay, _ = play([player("wrong_id", 1, marker=marker), player("ok", marker=marker)])
    failure = replay.seats[0].failure
    assert failure is not None
    assert failure.status is Status.BAD_MESSAGE
    assert failure.request_id is not None
    assert failure.error == (
        f"the reply's id {failure.request_id + 1000} is not the request's id {failure.request_id}"
    )
    assert_clean(replay, marker)


def test_endless_line_is_line_too_long_with_bounded_memory(marker: str) -> None:
    """A bot writing without a newline fails with line_too_long as soon as the cap is passed."""
    replay, took = play([player("endless", 1, marker=marker), player("ok", marker=marker)])
    failure = replay.seats[0].failure
    assert failure is not None
    assert failure.status is Status.LINE_TOO_LONG
    assert replay.seats[0].detail == "sent a line longer than 65536 bytes"
    assert failure.line is not None
    assert set(failure.line) == {"x"}
    assert took < MARGIN_S
    assert_clean(replay, marker)


def test_illegal_move_records_the_move_and_the_legal_ones(marker: str) -> None:
    """A move that is not legal is refused with the move, the open ends and the legal moves."""
    replay, _ = play([player("illegal", 3, marker=marker), player("ok", marker=marker)])
    failure = replay.seats[0].failure
    assert failure is not None
    assert failure.status is Status.ILLEGAL_MOVE
    assert failure.move is not None
    assert failure.legal
    assert failure.move not in failure.legal
    assert replay.seats[0].detail.startswith("illegal move ")
    assert "open ends left=" in replay.seats[0].detail
    assert f"player got error: {replay.seats[0].detail}" in replay.seats[0].stderr
    assert "player got match_end" in replay.seats[1].stderr
    assert_clean(replay, marker)


def test_late_answer_past_the_limit_is_a_timeout(marker: str) -> None:
    """An answer that comes after the per-move limit (and no bank) is a timeout."""
    replay, _ = play([player("late", 1, "1.5", marker), player("ok", marker=marker)])
    assert replay.seats[0].status is Status.TIMEOUT
    assert_clean(replay, marker)


def test_the_bank_covers_a_slow_move_and_shrinks(marker: str) -> None:
    """Time over the per-move limit comes out of the bank, and later requests show less time."""
    replay, _ = play(
        [player("late", 1, "0.6", marker), player("ok", marker=marker)],
        move_ms=300,
        bank_ms=2000,
    )
    assert replay.seats[0].status is Status.OK
    seat0 = [e for h in replay.hands for e in h.events if isinstance(e, Action) and e.seat == 0]
    first, later = seat0[0], seat0[-1]
    assert first.time_left_ms == 2300
    assert first.elapsed_ms is not None
    assert first.elapsed_ms >= 600
    assert later.time_left_ms is not None
    assert later.time_left_ms <= 2300 - 250
    assert_clean(replay, marker)


def test_silent_exit_is_a_crash_with_exit_code_zero(marker: str) -> None:
    """A bot that exits without answering is a crash with exit code 0."""
    replay, _ = play([player("silent_exit", 1, marker=marker), player("ok", marker=marker)])
    failure = replay.seats[0].failure
    assert failure is not None
    assert failure.status is Status.CRASH
    assert failure.exit_code == 0
    assert_clean(replay, marker)


def test_closing_stdout_is_a_crash_while_still_running(marker: str) -> None:
    """A bot that closes its stdout but keeps running is a crash, and is killed."""
    replay, _ = play([player("close_stdout", 1, marker=marker), player("ok", marker=marker)])
    seat = replay.seats[0]
    assert seat.status is Status.CRASH
    assert seat.detail == "closed its output but kept running"
    assert_clean(replay, marker)


def test_stderr_flood_does_not_block_the_bot(marker: str) -> None:
    """A bot writing megabytes to stderr keeps playing; its stderr is kept, capped."""
    replay, _ = play([player("flood_stderr", 1, marker=marker), player("ok", marker=marker)])
    seat = replay.seats[0]
    assert seat.status is Status.OK
    assert 0 < len(seat.stderr) <= 17000
    assert_clean(replay, marker)


def test_bot_ignoring_sigterm_is_killed_after_the_match(marker: str) -> None:
    """A bot that ignores SIGTERM and never exits is still gone when the match returns."""
    replay, took = play([player("ignore_term", marker=marker), player("ok", marker=marker)])
    assert [s.status for s in replay.seats] == [Status.OK, Status.OK]
    assert took < MARGIN_S + 1
    assert_clean(replay, marker)


def test_background_child_holding_stdout_is_killed(marker: str) -> None:
    """A bot that leaves a child holding its stdout after the match: both are killed."""
    replay, took = play([player("linger", marker=marker), player("ok", marker=marker)])
    assert [s.status for s in replay.seats] == [Status.OK, Status.OK]
    assert took < MARGIN_S + 1
    assert_clean(replay, marker)


def test_debug_notes_are_kept_beside_the_moves(marker: str) -> None:
    """A reply's debug note is stored in the replay next to the move it came with."""
    replay, _ = play([player("debug", 1, "I like 6-6", marker), player("ok", marker=marker)])
    notes = {
        e.debug for h in replay.hands for e in h.events if isinstance(e, Action) and e.seat == 0
    }
    assert notes == {"I like 6-6"}
    assert_clean(replay, marker)


def test_crash_at_start_is_a_startup_crash(marker: str) -> None:
    """A bot that dies before its ready message fails at start-up; the other bot wins."""
    replay, _ = play([bot("crash_at_start.py", "3", marker), player("ok", marker=marker)])
    failure = replay.seats[0].failure
    assert failure is not None
    assert failure.status is Status.CRASH
    assert failure.phase == "startup"
    assert failure.exit_code == 3
    assert replay.result.winner == 1
    assert replay.result.reason == "forfeit"
    assert replay.hands == []
    assert_clean(replay, marker)


def test_no_ready_within_the_startup_limit_is_a_timeout(marker: str) -> None:
    """A bot that never says ready is a start-up timeout after the start-up limit."""
    replay, took = play([bot("hang.py", marker), player("ok", marker=marker)], startup_ms=500)
    failure = replay.seats[0].failure
    assert failure is not None
    assert failure.status is Status.TIMEOUT
    assert failure.phase == "startup"
    assert replay.seats[0].detail.startswith("did not answer 'hello' within 500 ms")
    assert took < 0.5 + MARGIN_S
    assert_clean(replay, marker)


def test_garbage_instead_of_ready_is_a_bad_message(marker: str) -> None:
    """Answering the handshake with garbage fails the bot at start-up."""
    replay, _ = play([player("ok", marker=marker), bot("garbage.py", marker)])
    failure = replay.seats[1].failure
    assert failure is not None
    assert failure.status is Status.BAD_MESSAGE
    assert failure.phase == "startup"
    assert_clean(replay, marker)


def test_both_bots_failing_at_start_is_a_draw(marker: str) -> None:
    """When every bot fails at start-up nobody wins."""
    replay, _ = play([bot("crash_at_start.py", "1", marker), bot("crash_at_start.py", "2", marker)])
    assert [s.status for s in replay.seats] == [Status.CRASH, Status.CRASH]
    assert replay.result.winner is None
    assert_clean(replay, marker)


def test_missing_program_is_a_startup_crash_naming_the_command(marker: str) -> None:
    """A bot command that cannot be started is a start-up crash saying why."""
    replay, _ = play(["/nonexistent/bot", player("ok", marker=marker)])
    failure = replay.seats[0].failure
    assert failure is not None
    assert failure.status is Status.CRASH
    assert failure.detail == "bot command '/nonexistent/bot': file not found"
    assert_clean(replay, marker)


def test_three_players_play_on_after_one_fails(marker: str) -> None:
    """In a game of three, a failed seat is retired: it passes, the others finish the match."""
    commands = [
        player("ok", marker=marker),
        player("crash", 2, marker=marker),
        player("ok", marker=marker),
    ]
    replay, _ = play(commands, hands=2)
    assert [s.status for s in replay.seats] == [Status.OK, Status.CRASH, Status.OK]
    assert replay.result.reason == "hands"
    assert len(replay.hands) == 2
    assert replay.result.ranking[-1] == 1
    events = [e for h in replay.hands for e in h.events]
    retirements = [e for e in events if isinstance(e, Retirement)]
    assert retirements == [Retirement(seat=1, status=Status.CRASH)]
    auto = [e for e in events if isinstance(e, Action) and e.auto]
    assert auto
    assert {e.seat for e in auto} == {1}
    assert {e.move.__struct_config__.tag for e in auto} == {"pass"}
    assert 1 not in (replay.result.winner,)
    assert_clean(replay, marker)


def test_four_players_two_failures(marker: str) -> None:
    """In a game of four, two failures leave two seats that finish; both failures rank last."""
    commands = [
        player("garbage", 2, marker=marker),
        player("ok", marker=marker),
        player("hang", 3, marker=marker),
        player("ok", marker=marker),
    ]
    replay, _ = play(commands, hands=2)
    assert [s.status for s in replay.seats] == [
        Status.BAD_MESSAGE,
        Status.OK,
        Status.TIMEOUT,
        Status.OK,
    ]
    assert set(replay.result.ranking[2:]) == {0, 2}
    assert replay.result.winner in (1, 3, None)
    assert_clean(replay, marker)


def test_cancelling_a_match_kills_every_bot(marker: str) -> None:
    """When the match is cancelled (as by Ctrl-C), every bot process is gone afterwards."""
    config = MatchConfig(
        game=MATADOR,
        rules=MatadorRules(),
        players=2,
        seed=3,
        length=MatchLength(target=None, hands=1),
        time=TimeLimits(startup_ms=5000, move_ms=60_000),
    )

    async def main() -> bool:
        hanging = [player("hang", 1, marker=marker), player("hang", 1, marker=marker)]
        with trio.move_on_after(1.0) as scope:
            await play_match(config, hanging)
        return scope.cancelled_caught

    started = time.monotonic()
    assert trio.run(main) is True
    assert time.monotonic() - started < 1.0 + MARGIN_S
    time.sleep(0.05)
    assert live_processes_with(marker) == []


def test_failing_to_take_the_last_hand_end_still_loses(marker: str) -> None:
    """A bot that fails after the last hand, before match_end, still loses the match."""
    replay, _ = play(
        [player("close_after_out", marker=marker), player("ok", marker=marker)], hands=2, seed=6
    )
    assert [s.status for s in replay.seats] == [Status.CRASH, Status.OK]
    assert replay.seats[0].detail == "closed its input but kept running"
    assert replay.seats[0].failure is not None
    assert replay.seats[0].failure.phase == "notify"
    assert len(replay.hands) == 2
    assert replay.hands[-1].retired_after == [Retirement(seat=0, status=Status.CRASH)]
    assert replay.result.scores[0] > replay.result.scores[1]
    assert replay.result.winner == 1
    assert replay.result.ranking == [1, 0]
    assert_clean(replay, marker)


def test_failing_to_take_a_hand_end_forfeits_before_the_next_hand(marker: str) -> None:
    """A bot that fails to read a hand's end is retired after that hand's award counted."""
    replay, _ = play(
        [player("close_after_out", marker=marker), player("ok", marker=marker)], hands=2, seed=10
    )
    assert [s.status for s in replay.seats] == [Status.CRASH, Status.OK]
    assert len(replay.hands) == 1
    assert replay.hands[0].outcome is not None
    assert replay.hands[0].outcome.winners == [0]
    assert replay.result.reason == "forfeit"
    assert replay.result.winner == 1
    assert_clean(replay, marker)


def test_in_three_players_a_seat_failing_between_hands_sits_out_the_next(marker: str) -> None:
    """In a game of three, a seat that fails to read a hand's end passes all the next hand."""
    commands = [
        player("ok", marker=marker),
        player("ok", marker=marker),
        player("close_after_out", marker=marker),
    ]
    replay, _ = play(commands, hands=2, seed=19)
    assert [s.status for s in replay.seats] == [Status.OK, Status.OK, Status.CRASH]
    assert replay.hands[0].retired_after == [Retirement(seat=2, status=Status.CRASH)]
    second = [e for e in replay.hands[1].events if isinstance(e, Action) and e.seat == 2]
    assert second
    assert all(e.auto for e in second)
    assert replay.result.ranking[-1] == 2
    assert_clean(replay, marker)


def test_bot_exiting_while_its_child_holds_stdout_is_a_crash_at_the_deadline(marker: str) -> None:
    """A bot that exits leaving a child with its stdout open: a crash found at the deadline,
    and the child is killed."""
    replay, took = play([player("orphan", 2, marker=marker), player("ok", marker=marker)])
    seat = replay.seats[0]
    assert seat.status is Status.CRASH
    assert seat.failure is not None
    assert seat.failure.exit_code == 0
    assert seat.detail.startswith("exited (exit code 0) without answering request ")
    assert seat.detail.endswith("a process it started kept its output open")
    assert took < MOVE_MS / 1000 + MARGIN_S
    assert_clean(replay, marker)


def test_lone_surrogate_escape_is_named_in_the_recorded_detail(marker: str) -> None:
    """A reply with a lone \\ud800 escape is a bad message whose detail names the escape."""
    replay, _ = play([player("lone_surrogate", 1, marker=marker), player("ok", marker=marker)])
    failure = replay.seats[0].failure
    assert failure is not None
    assert failure.status is Status.BAD_MESSAGE
    assert failure.line is not None
    assert failure.line.endswith('"debug": "x\\ud800"}')
    offset = failure.line.index("\\ud800")
    expected = (
        f"not valid JSON: lone surrogate escape \\ud800 at byte {offset}"
        " (JSON strings must be valid Unicode)"
    )
    assert failure.error == expected
    assert expected in replay.seats[0].detail
    assert_clean(replay, marker)
