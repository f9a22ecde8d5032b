"""``arena view`` on Fives replays: the west-east line with the spinner in braces, its north and
south arms, the count and the hand's scoring events, and every score named in the step's line.

The matches are real (first-legal scripted bots under trio's MockClock); the expectations come
from the engine's views of the same positions, through :func:`arena.view.steps.build_steps`.
"""

from __future__ import annotations

import functools
import io
import json

import pytest

from arena.games.fives import FIVES, FivesRules
from arena.games.match import MatchLength
from arena.referee.channel import Script, scripted_connector
from arena.referee.match import MatchConfig, play_match
from arena.replay import Replay
from arena.view.steps import StepKind, build_steps, describe
from arena.view.terminal import render_all, render_step, view_replay
from tests.helpers import run_on_mock_clock


def first_legal(name: str) -> Script:
    def script(line: bytes) -> list[bytes] | None:
        message = json.loads(line)
        if message["type"] == "hello":
            return [json.dumps({"type": "ready", "name": name}).encode()]
        if message["type"] == "request":
            move = message["legal"][0]
            return [json.dumps({"type": "move", "id": message["id"], "move": move}).encode()]
        if message["type"] in ("match_end", "error"):
            return None
        return []

    return script


def play_fives(seed: int, rules: FivesRules | None = None) -> Replay:
    config = MatchConfig(
        game=FIVES, rules=rules or FivesRules(), players=2, seed=seed, length=MatchLength()
    )
    connect = scripted_connector({"a": first_legal("alpha"), "b": first_legal("beta")})
    run = functools.partial(play_match, config, ["a", "b"], connect=connect)
    replay: Replay = run_on_mock_clock(run)
    return replay


@pytest.fixture(scope="module")
def replay() -> Replay:
    """Seed 21: three hands; the last is over at its opening (seat 0 reaches 100)."""
    return play_fives(21)


def test_every_step_shows_the_cross_the_count_and_the_scores(replay: Replay) -> None:
    """Each board step shows the line with its west and east ends, the arms once a spinner is
    laid (its tile in braces), the count and the hand's scoring events so far."""
    steps = build_steps(replay)
    arms_seen = 0
    for index, step in enumerate(steps):
        board = step.board
        if board is None or step.kind is StepKind.MATCH_END:
            continue
        lines = render_step(replay, steps, index)
        text = "\n".join(lines)
        ends = dict(board.ends)
        layout_line = next(line for line in lines if line.startswith("  layout    "))
        assert layout_line.split()[1] == f"west={ends['west']}"
        assert layout_line.split()[-1] == f"east={ends['east']}"
        assert f"  count     {board.count}" in text
        if board.spinner is None:
            assert "  north" not in text
        else:
            a, b = board.layout[board.spinner]
            assert f"{{{a}|{b}}}" in layout_line
            arms = dict(board.arms)
            for arm in ("north", "south"):
                row = next(line for line in lines if line.startswith(f"  {arm}  "))
                shown = "".join(f"[{x}|{y}]" for x, y in arms[arm])
                assert shown in row
                if arm in ends:
                    assert row.endswith(f"{arm}={ends[arm]}")
                    arms_seen += bool(arms[arm])
                else:
                    assert "closed" in row
        if board.scoring:
            row = next(line for line in lines if line.startswith("  scored    "))
            assert row.count("seat ") == len(board.scoring)
    assert arms_seen > 0


def test_step_lines_name_every_score(replay: Replay) -> None:
    """A move that scored says so (count and points, or the award) in its line, and the hand
    start names the opener and the opening's score."""
    steps = build_steps(replay)
    for step in steps:
        text = describe(replay, step)
        for seat, points, reason in step.scored:
            label = f"seat {seat} ({replay.seats[seat].name})"
            head = f"count {points}" if reason == "count" else reason
            assert f"{head}: {label} scores {points}" in text
        if step.kind is StepKind.HAND_START:
            assert step.hand_number is not None
            assert step.seat is not None
            assert step.seat == replay.hands[step.hand_number - 1].leader
            assert f"seat {step.seat} ({replay.seats[step.seat].name}) opens with " in text


def test_a_hand_over_at_its_opening_is_shown(replay: Replay) -> None:
    """The last hand has no move: its start names the opener's winning count, its end the 100."""
    text = "\n".join(render_all(replay, build_steps(replay)))
    last = replay.hands[-1]
    assert last.events == []
    name = replay.seats[last.leader].name
    assert f"Hand {last.hand_number} ends: seat {last.leader} ({name}) reached 100 points" in text
    assert "Match over (target)" in text


def test_view_command_prints_a_fives_replay(replay: Replay) -> None:
    """view_replay writes every step without terminal codes to a plain stream."""
    out = io.StringIO()
    assert view_replay(replay, out=out) == 0
    text = out.getvalue()
    assert "\x1b[" not in text
    assert "the spinner is shown {d|d}" in text
    assert "Match start: fives, 2 players, seed 21, to 100 points" in text
