"""``arena view``: the terminal replay viewer, on replays of real matches played in the test.

The matches are played by :func:`arena.referee.match.play_match` with in-memory scripted bots
(``scripted_connector``) under trio's ``MockClock``, so they are deterministic to the move and
every timing reads ``0.0 ms``; the strikes and restarts of the ``lenient`` policy come from
:mod:`tests.view.matches` (a restart needs a real process that crashes).
"""

from __future__ import annotations

import functools
import io
import json
import os
import pty
import re
import select
import subprocess
import sys
import termios
import time
from collections.abc import Iterator
from pathlib import Path

import msgspec
import pytest

from arena.cli import main
from arena.games.matador import MATADOR, MatadorRules
from arena.games.match import MatchLength
from arena.referee.channel import Reply, Script, scripted_connector
from arena.referee.match import MatchConfig, play_match
from arena.replay import Action, Replay, Restart, Retirement, Status, write_replay
from arena.view.steps import StepKind, build_steps
from arena.view.terminal import (
    CLEAR,
    next_index,
    render_all,
    render_step,
    split_keys,
    view_replay,
)
from protocol import messages as m
from tests.helpers import run_on_mock_clock
from tests.view import matches

ROOT = Path(__file__).resolve().parents[2]


def scripted_bot(name: str, *, fail_at: int | None = None, debug: str | None = None) -> Script:
    """A bot that plays the first legal move; at request ``fail_at`` it passes (illegal there)."""
    requests = 0

    def script(line: bytes) -> Reply | None:
        nonlocal requests
        message = json.loads(line)
        kind = message["type"]
        if kind == "hello":
            return [json.dumps({"type": "ready", "name": name}).encode()]
        if kind == "request":
            requests += 1
            move = {"action": "pass"} if requests == fail_at else message["legal"][0]
            reply = {"type": "move", "id": message["id"], "move": move}
            if debug is not None:
                reply["debug"] = debug
            return [json.dumps(reply).encode()]
        if kind in ("match_end", "error"):
            return None
        return []

    return script


def play(scripts: list[Script], *, seed: int = 3, hands: int = 1) -> Replay:
    """Play a real match between the scripted bots (seat order) and return its replay."""
    config = MatchConfig(
        game=MATADOR,
        rules=MatadorRules(),
        players=len(scripts),
        seed=seed,
        length=MatchLength(target=None, hands=hands),
    )
    commands = [f"bot{i}" for i in range(len(scripts))]
    connect = scripted_connector(dict(zip(commands, scripts, strict=True)))
    run = functools.partial(play_match, config, commands, connect=connect)
    return run_on_mock_clock(run)


@pytest.fixture(scope="module")
def replay() -> Replay:
    """Seed 3, one hand, two first-legal-move bots ("first" and "second")."""
    return play([scripted_bot("first"), scripted_bot("second")])


@pytest.fixture(scope="module")
def retired_replay() -> Replay:
    """Three seats; seat 2 ("bad") passes illegally at its second request and is retired."""
    return play(
        [scripted_bot("first"), scripted_bot("second"), scripted_bot("bad", fail_at=2)], seed=5
    )


class FakeTerminal(io.StringIO):
    """An output stream that says it is a terminal."""

    def isatty(self) -> bool:
        """Claim to be a terminal."""
        return True


def all_text(replay: Replay) -> str:
    """The viewer's output for ``replay`` written to a plain (non-terminal) stream."""
    out = io.StringIO()
    assert view_replay(replay, out=out) == 0
    return out.getvalue()


def expected_move_text(replay: Replay, action: Action) -> str:
    """How the viewer should word a recorded move, written here from the record alone."""
    who = f"seat {action.seat} ({replay.seats[action.seat].name})"
    move = action.move
    if isinstance(move, m.Play):
        low, high = sorted(move.tile)
        if move.end is None:
            return f"{who} leads {low}-{high}"
        return f"{who} plays {low}-{high} on {move.end}, {move.out} out"
    if isinstance(move, m.Draw):
        return f"{who} draws "
    return f"{who} passes automatically (retired)" if action.auto else f"{who} passes"


def assert_in_order(text: str, fragments: list[str]) -> None:
    """Every fragment occurs in ``text``, each on a line after the previous one's."""
    lines = text.splitlines()
    at = 0
    for fragment in fragments:
        found = next((i for i in range(at, len(lines)) if fragment in lines[i]), None)
        assert found is not None, f"{fragment!r} missing after line {at}"
        at = found + 1


# -- printing every step -----------------------------------------------------------------------


def test_all_output_has_every_move_in_order_and_the_result(replay: Replay) -> None:
    """--all output shows each recorded move, in order, then the hand end and the result."""
    text = all_text(replay)
    events = [e for h in replay.hands for e in h.events if isinstance(e, Action)]
    assert len(events) > 20
    fragments = [expected_move_text(replay, e) for e in events]
    outcome = replay.hands[0].outcome
    assert outcome is not None
    fragments.append(f"Hand 1 ends: {outcome.kind}, won by seat {outcome.winners[0]}")
    fragments.append(
        f"Match over (hands): seat {replay.result.winner} "
        f"({replay.seats[replay.result.winner or 0].name}) wins; "
        f"final scores {replay.result.scores}"
    )
    assert_in_order(text, fragments)
    assert text.count(" -- step ") == len(build_steps(replay))


def test_all_output_ends_with_final_scores_and_each_seats_status(replay: Replay) -> None:
    """The last step ranks the seats with their final scores and status."""
    lines = all_text(replay).splitlines()
    scores = replay.result.scores
    winner, loser = replay.result.ranking
    assert lines[-2:] == [
        f"  1. seat {winner}  {replay.seats[winner].name:<6}  {scores[winner]:>2} points  ok",
        f"  2. seat {loser}  {replay.seats[loser].name:<6}  {scores[loser]:>2} points  ok",
    ]


def test_plain_output_has_no_terminal_codes_even_from_hostile_bots() -> None:
    """Without a terminal nothing is coloured, and escapes in a bot's name or note are shown
    escaped instead of reaching the terminal."""
    evil = play([scripted_bot("red\x1b[31m"), scripted_bot("x", debug="clear\x1b[2J\nnext")])
    text = all_text(evil)
    assert "\x1b" not in text
    assert "seat 0 (red\\x1b[31m)" in text
    assert 'debug: "clear\\x1b[2J\\nnext"' in text


class ClosedPipe(io.StringIO):
    """An output stream whose reader went away after the first line (``arena view | head``)."""

    def write(self, text: str) -> int:
        """Accept one write, then fail as a closed pipe does."""
        if self.getvalue():
            raise BrokenPipeError(32, "Broken pipe")
        return super().write(text)


def test_a_reader_that_stops_early_is_not_an_error(replay: Replay) -> None:
    """A broken pipe while printing every step ends the viewer quietly with exit code 0."""
    out = ClosedPipe()
    assert view_replay(replay, out=out) == 0
    assert out.getvalue() == "Match -- step 1 of 43\n"


# -- one step, checked by hand -----------------------------------------------------------------


def test_render_step_after_the_lead_and_after_a_play_on_the_left(replay: Replay) -> None:
    """The lead and the first play on the left show exactly the expected layout and hands."""
    # The deal of seed 3: no doubles, so the highest tile (3-6, seat 1) makes seat 1 lead.
    assert replay.hands[0].deal.hands == [
        [(0, 1), (0, 3), (0, 4), (2, 5), (3, 4)],
        [(1, 4), (1, 5), (2, 4), (3, 5), (3, 6)],
    ]
    steps = build_steps(replay)
    assert [s.kind for s in steps[:4]] == [
        StepKind.MATCH_START,
        StepKind.HAND_START,
        StepKind.MOVE,
        StepKind.MOVE,
    ]
    # Seat 1 leads its first legal tile, 1-4, which lies as dealt: ends 1 and 4.
    assert render_step(replay, steps, 2) == [
        "Hand 1 of 1 -- step 3 of 43",
        "seat 1 (second) leads 1-4 -- 0.0 ms",
        "",
        "  layout    left=1 [1|4] right=4",
        "  boneyard  18 tiles",
        "  seat 0  first   0 points  5 tiles   [0|1] [0|3] [0|4] [2|5]* [3|4]*  <- to move",
        "  seat 1  second  0 points  4 tiles   [1|5] [2|4] [3|5] [3|6]",
    ]
    # Seat 0 can only play matadors (1 and 4 take 6 and 3); it plays 2-5 on the left with 2
    # facing out, so the chain reads 2-5 then 1-4 and the left end is now 2.
    assert render_step(replay, steps, 3) == [
        "Hand 1 of 1 -- step 4 of 43",
        "seat 0 (first) plays 2-5 on left, 2 out -- 0.0 ms",
        "",
        "  layout    left=2 [2|5]*[1|4] right=4",
        "  boneyard  18 tiles",
        "  seat 0  first   0 points  4 tiles   [0|1] [0|3] [0|4] [3|4]*",
        "  seat 1  second  0 points  4 tiles   [1|5] [2|4] [3|5] [3|6]  <- to move",
    ]


def test_hand_start_and_draw_steps(replay: Replay) -> None:
    """The deal is shown before the lead, and a draw names the tile and the boneyard left."""
    steps = build_steps(replay)
    start = render_step(replay, steps, 1)
    assert start[1] == "Hand 1 dealt: seat 1 (second) leads; 18 tiles in the boneyard"
    assert start[3] == "  layout    (empty)"
    draw = next(i for i, s in enumerate(steps) if s.move is not None and s.move.kind == "draw")
    lines = render_step(replay, steps, draw)
    assert lines[1] == "seat 1 (second) draws 0-5 (17 left in the boneyard) -- 0.0 ms"
    assert lines[4] == "  boneyard  17 tiles"
    assert "[0|5]" in lines[6]


# -- the key loop ------------------------------------------------------------------------------


def keys_from(names: list[str]) -> Iterator[str]:
    """A fake key reader's supply: the names, then a failure if the loop asks for more."""
    yield from names
    raise AssertionError("the viewer read a key after quitting")


def shown_steps(screen_text: str) -> list[int]:
    """The step numbers drawn, screen after screen."""
    screens = screen_text.split(CLEAR)[1:]
    return [int(n) for s in screens for n in re.findall(r"-- step (\d+) of", s)]


def test_key_loop_goes_forward_back_first_last_and_quits(replay: Replay) -> None:
    """Driven by fake keys, the viewer redraws the right step after each key and quits on q."""
    out = FakeTerminal()
    keys = ["n", "right", " ", "b", "left", "G", "n", "g", "p", "end", "home", "]", "]", "x", "q"]
    reader = keys_from(keys)
    assert view_replay(replay, out=out, read_key=functools.partial(next, reader)) == 0
    total = len(build_steps(replay))
    # G and End go to the last step, g and Home to the first; moving past either end stays
    # put; ']' goes to the next hand's start, then (no hand left) to the last step.
    last = [total, total]
    assert shown_steps(out.getvalue()) == [1, 2, 3, 4, 3, 2, *last, 1, 1, total, 1, 2, *last]
    assert "\r\n" in out.getvalue()
    assert "\x1b[1;33m[2|5]*\x1b[0m" in out.getvalue()  # a matador, coloured on a terminal


def test_key_loop_quits_on_escape_ctrl_c_and_end_of_input(replay: Replay) -> None:
    """Escape, Ctrl-C and end of input each leave the viewer at once with exit code 0."""
    for key in ("esc", "ctrl-c", "eof", "Q"):
        reader = keys_from(["n", key])
        out = FakeTerminal()
        assert view_replay(replay, out=out, read_key=functools.partial(next, reader)) == 0
        assert shown_steps(out.getvalue()) == [1, 2]


def test_next_index_stays_within_the_steps(replay: Replay) -> None:
    """Back from the first step and forward from the last stay put; unknown keys do nothing."""
    steps = build_steps(replay)
    last = len(steps) - 1
    assert next_index(steps, 0, "left") == 0
    assert next_index(steps, last, "right") == last
    assert next_index(steps, 5, "z") == 5
    assert next_index(steps, 5, "[") == 1  # back to this hand's start
    assert next_index(steps, 1, "[") == 0
    assert next_index(steps, 5, "q") is None


def test_split_keys_reads_arrows_home_end_and_keeps_a_partial_sequence() -> None:
    """Escape sequences become key names; an unfinished one is kept for the next read."""
    data = b"\x1b[C\x1b[Dn \x1b[H\x1b[F\x1bOH\x1b[4~\x1b[6~\r\x7f\x03q"
    assert split_keys(data) == (
        [
            *("right", "left", "n", " ", "home", "end", "home", "end", "pgdn", "enter"),
            *("backspace", "ctrl-c", "q"),
        ],
        b"",
    )
    assert split_keys(b"n\x1b[") == (["n"], b"\x1b[")
    assert split_keys(b"\x1bx") == (["esc", "x"], b"")


def test_show_all_on_a_terminal_prints_everything_without_reading_keys(replay: Replay) -> None:
    """With show_all, a terminal gets every step at once (in colour) and no key is read."""
    out = FakeTerminal()

    def no_keys() -> str:
        raise AssertionError("no key should be read with show_all")

    assert view_replay(replay, show_all=True, out=out, read_key=no_keys) == 0
    text = out.getvalue()
    assert CLEAR not in text
    assert "\x1b[" in text
    assert text.count(" -- step ") == len(build_steps(replay))


# -- failures ----------------------------------------------------------------------------------


def test_a_retired_seat_shows_its_failure_and_automatic_passes(retired_replay: Replay) -> None:
    """The retirement step names the failure, later turns are automatic passes, and the end
    ranks the retired seat last with its status."""
    seat = retired_replay.seats[2]
    assert seat.status is Status.ILLEGAL_MOVE
    assert seat.failure is not None
    events = [e for h in retired_replay.hands for e in h.events]
    assert any(isinstance(e, Retirement) for e in events)
    assert any(isinstance(e, Action) and e.auto for e in events)
    text = all_text(retired_replay)
    assert_in_order(
        text,
        [
            f"seat 2 (bad) is retired: illegal_move: {seat.failure.detail}",
            "(retired: illegal_move)",
            "seat 2 (bad) passes automatically (retired)",
            "Match over (hands):",
            f"  3. seat 2  bad     {retired_replay.result.scores[2]:>2} points  "
            f"illegal_move: {seat.failure.detail}",
        ],
    )


def test_a_start_up_failure_forfeits_before_any_hand() -> None:
    """A bot that dies before 'ready' shows on the first step, and the match ends by forfeit."""
    replay = play([scripted_bot("first"), lambda line: None])
    assert replay.hands == []
    lines = render_all(replay, build_steps(replay))
    assert lines[0] == "Match -- step 1 of 2"
    assert any("seat 1  seat1  bot1  (failed at start-up: crash: " in line for line in lines)
    assert "Match over (forfeit): seat 0 (first) wins; final scores [0, 0]" in lines


def test_a_replay_that_does_not_rerun_is_refused(
    replay: Replay, capsys: pytest.CaptureFixture[str]
) -> None:
    """A move the engine rejects gives exit code 1 and names the hand and event."""
    hand = replay.hands[0]
    events = list(hand.events)
    events[1] = Action(seat=0, move=m.Play(tile=(6, 6), end="left", out=6))
    broken = msgspec.structs.replace(replay, hands=[msgspec.structs.replace(hand, events=events)])
    out = io.StringIO()
    assert view_replay(broken, out=out) == 1
    assert out.getvalue() == ""
    assert "hand 1, event 2: seat 0: illegal move 6-6 on left, 6 out" in capsys.readouterr().err


# -- the command line --------------------------------------------------------------------------


def test_cli_view_all_prints_every_step(
    replay: Replay, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``arena view FILE --all`` exits 0 and prints the steps through the result."""
    path = write_replay(tmp_path / "r.json", replay)
    assert main(["view", str(path), "--all"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("Match -- step 1 of 43\n")
    assert "Match over (hands): seat 1 (second) wins" in out


def test_cli_view_missing_file_is_a_usage_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A replay file that does not exist gives exit code 2 and a message naming it."""
    missing = tmp_path / "nope.json"
    assert main(["view", str(missing)]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert str(missing) in captured.err


# -- a real terminal ---------------------------------------------------------------------------


def read_until(fd: int, pattern: bytes, seen: bytearray, timeout_s: float = 20.0) -> None:
    """Read the pty master ``fd`` into ``seen`` until ``pattern`` appears in it."""
    deadline = time.monotonic() + timeout_s
    while pattern not in seen:
        left = deadline - time.monotonic()
        assert left > 0, f"{pattern!r} never appeared; got {bytes(seen[-500:])!r}"
        if select.select([fd], [], [], left)[0]:
            try:
                chunk = os.read(fd, 65536)
            except OSError:  # the child closed the terminal
                chunk = b""
            assert chunk, f"{pattern!r} never appeared; got {bytes(seen[-500:])!r}"
            seen += chunk


@pytest.mark.skipif(sys.platform == "win32", reason="needs a pseudo-terminal")
def test_real_terminal_pages_with_arrow_keys_and_restores_the_terminal(
    replay: Replay, tmp_path: Path
) -> None:
    """Under a pseudo-terminal, arrows and q page and quit, and the terminal modes come back."""
    path = write_replay(tmp_path / "r.json", replay)
    master, slave = pty.openpty()
    before = termios.tcgetattr(slave)
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    proc = subprocess.Popen(
        [sys.executable, "-m", "arena", "view", str(path)],
        stdin=slave,
        stdout=slave,
        stderr=slave,
        cwd=ROOT,
        env=env,
    )
    seen = bytearray()
    try:
        read_until(master, b"step 1 of 43", seen)
        assert termios.tcgetattr(slave)[3] & termios.ICANON == 0  # raw mode while paging
        os.write(master, b"\x1b[C")
        read_until(master, b"step 2 of 43", seen)
        os.write(master, b"\x1b[F")
        read_until(master, b"step 43 of 43", seen)
        os.write(master, b"\x1b[D")
        read_until(master, b"step 42 of 43", seen)
        os.write(master, b"q")
        assert proc.wait(timeout=20) == 0
        read_until(master, b"\x1b[?1049l", seen)  # left the alternate screen
        assert termios.tcgetattr(slave) == before
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        os.close(master)
        os.close(slave)


# -- strikes and restarts (failure policy lenient) ---------------------------------------------


@pytest.fixture(scope="module")
def lenient(tmp_path_factory: pytest.TempPathFactory) -> Replay:
    """Seat 0 ("wobbly") struck once; seat 1 (a real process) crashes once and is restarted."""
    return matches.play_lenient(tmp_path_factory.mktemp("lenient") / "crashed")


@pytest.mark.slow
def test_strikes_and_restarts_are_told_in_the_all_at_once_output(lenient: Replay) -> None:
    """The match start names the policy; the strike says what the bot did and what the referee
    played instead; the restart names the crash; each seat's row counts its strikes and
    restarts from then on; the end ranks the seats with them."""
    restart = next(e for h in lenient.hands for e in h.events if isinstance(e, Restart))
    text = all_text(lenient)
    assert_in_order(
        text,
        [
            "  policy    lenient (3 strikes, 1 restart)",
            "seat 0 (wobbly) leads 0-1 -- ",
            "STRIKE (illegal_move: illegal move PASS in request 3; open ends left=2, right=1); "
            "for seat 0 (wobbly) the referee plays 6-6 on right, 6 out -- ",
            "  seat 0  wobbly             0 points  3 tiles   [0|2] [1|3] [3|3]  (1 strike)",
            f"seat 1 (player-crash_once) is restarted after crash: {restart.failure.detail}",
            "  seat 0  wobbly             0 points  2 tiles   [1|3] [3|3]  (1 strike)",
            "  seat 1  player-crash_once  0 points  3 tiles   [1|4] [2|3] [3|6]  <- to move  "
            "(1 restart)",
            "seat 1 (player-crash_once) plays 1-4 on right, 4 out -- ",
            "Match over (hands): seat 1 (player-crash_once) wins; final scores [0, 21]",
            "  1. seat 1  player-crash_once  21 points  ok (1 restart)",
            "  2. seat 0  wobbly              0 points  ok (1 strike)",
        ],
    )
    # Seat 0's row from the strike (step 5) to the hand's end (step 17), and the ranking.
    assert text.count("(1 strike)") == 13 + 1
    steps = build_steps(lenient)
    index = next(i for i, s in enumerate(steps) if s.kind is StepKind.RESTART)
    assert render_step(lenient, steps, index) == [
        f"Hand 1 of 1 -- step {index + 1} of {len(steps)}",
        f"seat 1 (player-crash_once) is restarted after crash: {restart.failure.detail}",
        "",
        "  layout    left=0 [0|2][5|5][2|5]*[0|1][6|6] right=6",
        "  boneyard  18 tiles",
        "  seat 0  wobbly             0 points  2 tiles   [1|3] [3|3]  (1 strike)",
        "  seat 1  player-crash_once  0 points  3 tiles   [1|4] [2|3] [3|6]  <- to move  "
        "(1 restart)",
    ]
    # On a terminal, a strike and a restart stand out in bold yellow.
    strike = next(i for i, s in enumerate(steps) if s.action is not None and s.action.strike)
    assert render_step(lenient, steps, strike, color=True)[1].startswith("\x1b[1;33mSTRIKE (")
    assert render_step(lenient, steps, index, color=True)[1].startswith("\x1b[1;33mseat 1 (")


def test_the_strike_that_forfeits_retires_the_seat() -> None:
    """Two strikes are played for the bot, the third retires it: the retired row counts three
    strikes, and the end gives the forfeit with them."""
    replay = matches.play_scripted(
        [
            matches.scripted_bot("first"),
            matches.scripted_bot("second"),
            matches.scripted_bot("wobbly", fail_at=(2, 3, 4)),
        ],
        seed=6,
        policy=matches.LENIENT,
    )
    forfeit = "illegal_move: illegal move PASS in request 10; open ends left=0, right=2; "
    forfeit += "strike 3 of 3: forfeit"
    assert_in_order(
        all_text(replay),
        [
            "  policy    lenient (3 strikes, 1 restart)",
            "STRIKE (illegal_move: illegal move PASS in request 4; open ends left=0, right=1); "
            "for seat 2 (wobbly) the referee plays 3-4 on left, 4 out -- 0.0 ms",
            "  seat 2  wobbly  0 points  3 tiles   [2|2] [5|5] [6|6]  (1 strike)",
            "STRIKE (illegal_move: illegal move PASS in request 7; open ends left=5, right=1); "
            "for seat 2 (wobbly) the referee plays 2-2 on left, 2 out -- 0.0 ms",
            "  seat 2  wobbly  0 points  2 tiles   [5|5] [6|6]  (2 strikes)",
            f"seat 2 (wobbly) is retired: {forfeit}",
            "(retired: illegal_move)  (3 strikes)",
            "seat 2 (wobbly) passes automatically (retired)",
            f"  3. seat 2  wobbly   0 points  {forfeit} (3 strikes)",
        ],
    )


def test_a_strict_match_names_no_policy(replay: Replay) -> None:
    """The default policy (strict) goes unsaid, and no row counts strikes or restarts."""
    text = all_text(replay)
    assert "policy" not in text
    assert "strike" not in text
    assert "restart" not in text
