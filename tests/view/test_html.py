"""``arena view --html``: the viewer page, driven in headless Chromium.

Each page is generated from a real match played in the test (in-memory scripted bots under
trio's MockClock, or real subprocess bots), loaded from disk, and read back from the DOM. The
expectations come from the replay itself (its recorded moves) and from
:func:`arena.view.steps.build_steps`, never from the page's own data.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from arena.replay import Action, Replay, Retirement, Status
from arena.view.html import render_page, viewer_data, write_html
from arena.view.steps import Step, StepKind, build_steps, describe
from protocol import messages as m
from tests.view.browser import ViewerPage
from tests.view.matches import (
    play_processes,
    play_scripted,
    player_command,
    scripted_bot,
)

# -- the matches -------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def duo() -> Replay:
    """Two seats, two hands, seed 3; seat 0 writes a debug note with every move."""
    replay = play_scripted(
        [scripted_bot("first", debug="note"), scripted_bot("second", pick=1)], seed=3, hands=2
    )
    assert len(replay.hands) == 2
    return replay


@pytest.fixture(scope="module")
def trio_retired() -> Replay:
    """Three seats, two hands; seat 2 ("bad") passes illegally at its 2nd request: retired."""
    return play_scripted(
        [scripted_bot("first"), scripted_bot("second"), scripted_bot("bad", fail_at=2)],
        seed=5,
        hands=2,
    )


@pytest.fixture(scope="module")
def quartet() -> Replay:
    """Four seats, two hands, seed 11."""
    bots = [scripted_bot(f"bot-{i}", pick=i) for i in range(4)]
    return play_scripted(bots, seed=11, hands=2)


@pytest.fixture(scope="module")
def crashed() -> Replay:
    """Real processes: tests/bots/player.py crashes at its 2nd request (stderr, exit code 3)."""
    return play_processes([player_command("ok"), player_command("crash", 2)], seed=2)


@pytest.fixture(scope="module")
def pages(tmp_path_factory: pytest.TempPathFactory) -> Any:
    """Writes a replay's page once per module and returns its path."""
    folder = tmp_path_factory.mktemp("pages")
    # Keyed by id, holding the replay: a replay made in a test and freed must not hand its id,
    # and so its page, to a replay made later.
    written: dict[int, tuple[Replay, Path]] = {}

    def page_of(replay: Replay) -> Path:
        key = id(replay)
        if key not in written:
            written[key] = (replay, write_html(replay, folder / f"replay-{len(written)}.html"))
        return written[key][1]

    return page_of


# -- expectations from the replay record -------------------------------------------------------


def recorded_events(replay: Replay) -> list[Action | Retirement]:
    """Every recorded event in order (moves and retirements, ``retired_after`` included)."""
    events: list[Action | Retirement] = []
    for hand in replay.hands:
        events.extend(hand.events)
        events.extend(hand.retired_after)
    return events


def expected_summary(replay: Replay, event: Action | Retirement, drawn: str | None) -> str:
    """How the move list should word a recorded event, written here from the record alone."""
    if isinstance(event, Retirement):
        return f"retired: {event.status.value}"
    move = event.move
    if isinstance(move, m.Play):
        low, high = sorted(move.tile)
        if move.end is None:
            return f"leads {low}-{high}"
        return f"plays {low}-{high} on {move.end}, {move.out} out"
    if isinstance(move, m.Draw):
        return f"draws {drawn}" if drawn else "draws a tile"
    return "passes automatically (retired)" if event.auto else "passes"


def board_of(step: Step) -> dict[str, Any]:
    """The parts of a step's board the DOM shows, as the page reports them."""
    board = step.board
    assert board is not None
    return {
        "layout": [[i, list(t)] for i, t in enumerate(board.layout)],
        "ends": [[p, v] for p, v in board.ends],
        "hands": [[list(t) for t in hand] for hand in board.hands],
        "boneyard": board.boneyard_size,
        "scores": list(board.scores),
    }


def sorted_layout(state: dict[str, Any]) -> list[list[Any]]:
    """The layout tiles the page drew, in chain order (left end first)."""
    return sorted(state["layout"], key=lambda item: item[0])


def assert_tells(replay: Replay, step: Step, state: dict[str, Any]) -> None:
    """The page tells the step as the terminal viewer does: its sentence, with the time taken
    and the debug note shown apart (the clock bar and the note box)."""
    action = step.action
    shown = state["text"]
    if action is not None and action.elapsed_ms is not None:
        shown += f" -- {action.elapsed_ms:.1f} ms"
        assert state["clock"] is not None
        assert f"of {action.time_left_ms} ms" in state["clock"]
    if action is not None and action.debug is not None:
        shown += f' -- debug: "{action.debug}"'
        assert state["debug"] == action.debug
    else:
        assert state["debug"] is None
    assert shown == describe(replay, step)


# -- stepping ----------------------------------------------------------------------------------


def test_stepping_forward_follows_the_replay_move_by_move(
    viewer: ViewerPage, duo: Replay, pages: Any
) -> None:
    """Each press of → shows the next step: the layout, the ends, the hands, the highlighted
    tile, the event text and the current move-list entry all as the replay says."""
    steps = build_steps(duo)
    events = iter(recorded_events(duo))
    state = viewer.open(pages(duo))
    assert state["step"] == 1
    assert_tells(duo, steps[0], state)
    previous: list[list[Any]] = []
    for index in range(1, len(steps)):
        state = viewer.press("ArrowRight")
        step = steps[index]
        assert state["step"] == index + 1
        assert state["counter"] == f"Step {index + 1} / {len(steps)}"
        assert_tells(duo, step, state)
        assert state["current"]["step"] == index + 1
        if step.board is not None and step.kind is not StepKind.MATCH_END:
            board = board_of(step)
            layout = sorted_layout(state)
            assert layout == board["layout"]
            assert [[e, v] for e, v in state["ends"]] == board["ends"]
            for seat, tiles in enumerate(board["hands"]):
                assert state["seats"][str(seat)]["faceUp"] == tiles
                assert state["seats"][str(seat)]["count"] == len(tiles)
                assert state["seats"][str(seat)]["score"] == board["scores"][seat]
            assert state["boneyard"] == board["boneyard"]
        if step.kind is StepKind.HAND_START:
            previous = []
            assert state["layout"] == []
        elif step.kind in (StepKind.MOVE, StepKind.RETIRE):
            event = next(events)
            drawn = None if step.drawn is None else f"{step.drawn[0]}-{step.drawn[1]}"
            assert state["current"]["text"] == expected_summary(duo, event, drawn)
            layout = sorted_layout(state)
            if isinstance(event, Action) and isinstance(event.move, m.Play):
                # One more tile, the recorded one, at the recorded end with its out half outward.
                assert len(layout) == len(previous) + 1
                low, high = sorted(event.move.tile)
                at = len(layout) - 1 if event.move.end == "right" else 0
                assert sorted(layout[at][1]) == [low, high]
                if event.move.end is None:  # the lead lies low half left, high half out
                    assert layout == [[0, [low, high]]]
                else:
                    outward = layout[at][1][1] if event.move.end == "right" else layout[at][1][0]
                    assert outward == event.move.out
                assert state["placed"] == [at]
                rest = layout[1:] if at == 0 else layout[:-1]
                assert [t for _, t in rest] == [t for _, t in previous]
            else:
                assert [t for _, t in layout] == [t for _, t in previous]
                assert state["placed"] == []
            previous = layout
    assert next(events, None) is None
    assert state["step"] == len(steps)


def test_backward_first_last_and_the_slider(viewer: ViewerPage, duo: Replay, pages: Any) -> None:
    """← goes back, Home and End jump to the ends, the buttons and the slider move too."""
    steps = build_steps(duo)
    viewer.open(pages(duo), "#move=10")
    assert viewer.press("ArrowLeft")["step"] == 9
    assert viewer.press("End")["step"] == len(steps)
    assert viewer.press("ArrowRight")["step"] == len(steps)  # stays on the last step
    assert viewer.press("Home")["step"] == 1
    assert viewer.press("ArrowLeft")["step"] == 1
    assert viewer.click("#btn-next")["step"] == 2
    assert viewer.click("#btn-last")["step"] == len(steps)
    assert viewer.click("#btn-prev")["step"] == len(steps) - 1
    assert viewer.click("#btn-first")["step"] == 1
    viewer.page.fill("#slider", "7")  # sets the range input's value and fires `input`
    state = viewer.state()
    assert state["step"] == 7
    assert_tells(duo, steps[6], state)


def test_hand_jumps_reach_every_hand(viewer: ViewerPage, duo: Replay, pages: Any) -> None:
    """Page Down goes to each hand's deal in turn, showing its number, then to the match end."""
    steps = build_steps(duo)
    starts = [i for i, s in enumerate(steps) if s.kind is StepKind.HAND_START]
    assert len(starts) == 2
    viewer.open(pages(duo))
    for number, index in enumerate(starts, start=1):
        state = viewer.press("PageDown")
        assert state["step"] == index + 1
        assert state["hand"] == f"Hand {number} of 2"
        assert state["seats"]["0"]["faceUp"] == board_of(steps[index])["hands"][0]
    assert viewer.press("PageDown")["step"] == len(steps)
    assert viewer.press("PageUp")["step"] == starts[1] + 1


def test_play_runs_through_the_steps_and_pause_stops(
    viewer: ViewerPage, duo: Replay, pages: Any
) -> None:
    """Play at the fastest speed advances on its own; pause stops it where it is."""
    viewer.open(pages(duo))
    viewer.page.select_option("#speed", "4")
    viewer.page.click("#btn-play")
    viewer.wait_for_step(lambda step: step >= 5)
    viewer.page.keyboard.press(" ")
    stopped = viewer.state()["step"]
    viewer.page.wait_for_timeout(350)
    assert viewer.state()["step"] == stopped


# -- whose tiles are shown ---------------------------------------------------------------------


def test_seat_view_hides_exactly_the_other_seats_tiles(
    viewer: ViewerPage, trio_retired: Replay, pages: Any
) -> None:
    """As seat N saw it: N's tiles face up, every other seat's face down and counted, at every
    step; the boneyard is never face up; "All hands" shows them all again."""
    replay = trio_retired
    steps = build_steps(replay)
    viewer.open(pages(replay))
    for seen_by in range(replay.players):
        viewer.page.select_option("#view-select", str(seen_by))
        states = viewer.every_step()
        assert len(states) == len(steps)
        for index in range(1, len(steps)):
            state = states[index]
            assert state["step"] == index + 1
            board = steps[index].board
            assert board is not None
            assert state["view"] == str(seen_by)
            for seat, tiles in enumerate(board.hands):
                shown = state["seats"][str(seat)]
                if seat == seen_by:
                    assert shown["faceUp"] == [list(t) for t in tiles]
                    assert shown["faceDown"] == 0
                else:
                    assert shown["faceUp"] == []
                    assert shown["faceDown"] == len(tiles)
                assert shown["count"] == len(tiles)
            assert state["boneyardFaceUp"] == 0
    viewer.page.focus("#btn-next")  # the keys go to the page, not to the select
    state = viewer.press("a")
    assert state["view"] == "all"
    for seat in range(replay.players):
        assert state["seats"][str(seat)]["faceDown"] == 0
    assert state["boneyardFaceUp"] == 0


def test_seat_view_does_not_tell_another_seats_drawn_tile(
    viewer: ViewerPage, duo: Replay, pages: Any
) -> None:
    """A draw by another seat reads "draws a tile" and shows no debug note; the drawing seat's
    own view names the tile."""
    steps = build_steps(duo)
    index = next(i for i, s in enumerate(steps) if s.drawn is not None)
    step = steps[index]
    assert step.seat is not None
    tile = f"{step.drawn[0]}-{step.drawn[1]}" if step.drawn else ""
    other = 1 - step.seat
    state = viewer.open(pages(duo), f"#move={index + 1}&view={other}")
    assert tile not in state["text"]
    assert "draws (" in state["text"]
    assert state["current"]["text"] == "draws a tile"
    assert viewer.page.locator("#debug").count() == 0
    state = viewer.open(pages(duo), f"#move={index + 1}&view={step.seat}")
    assert_tells(duo, step, state)
    assert state["current"]["text"] == f"draws {tile}"


# -- the URL fragment --------------------------------------------------------------------------


def test_fragment_opens_the_step_and_follows_stepping(
    viewer: ViewerPage, duo: Replay, pages: Any
) -> None:
    """#move=N opens step N; stepping rewrites the fragment; a new fragment moves the page."""
    steps = build_steps(duo)
    path = pages(duo)
    state = viewer.open(path, "#move=17")
    assert state["step"] == 17
    assert_tells(duo, steps[16], state)
    assert state["current"]["step"] == 17
    assert state["slider"] == "17"
    assert viewer.press("ArrowRight")["hash"] == "#move=18"
    assert viewer.press("ArrowLeft")["hash"] == "#move=17"
    assert viewer.press("End")["hash"] == f"#move={len(steps)}"
    # A link to another step of the same page: only the fragment changes, no reload.
    viewer.page.goto(path.resolve().as_uri() + "#move=5")
    assert_tells(duo, steps[4], viewer.wait_for_step(lambda step: step == 5))
    viewer.page.evaluate("location.hash = '#move=9'")
    assert_tells(duo, steps[8], viewer.wait_for_step(lambda step: step == 9))


@pytest.mark.parametrize(
    ("fragment", "step"),
    [("#move=0", 1), ("#move=-3", 1), ("#move=99999", None), ("#move=abc", 1), ("", 1)],
)
def test_fragment_out_of_range_is_clamped(
    viewer: ViewerPage, duo: Replay, pages: Any, fragment: str, step: int | None
) -> None:
    """A step number outside the match opens its first or last step; garbage opens the first."""
    state = viewer.open(pages(duo), fragment)
    assert state["step"] == (step or len(build_steps(duo)))


def test_fragment_carries_the_seat_view(viewer: ViewerPage, duo: Replay, pages: Any) -> None:
    """Choosing a seat's view adds &view=N to the fragment, and such a link opens that view."""
    viewer.open(pages(duo), "#move=4")
    viewer.page.select_option("#view-select", "1")
    assert viewer.state()["hash"] == "#move=4&view=1"
    state = viewer.open(pages(duo), "#move=6&view=0")
    assert state["view"] == "0"
    assert state["seats"]["1"]["faceUp"] == []


# -- failures ----------------------------------------------------------------------------------


@pytest.mark.slow
def test_a_crashed_bot_shows_its_evidence_and_stderr(
    viewer: ViewerPage, crashed: Replay, pages: Any
) -> None:
    """The retirement step of a crashed subprocess bot shows the failure record: what happened,
    the exit code, the request, and the tail of its stderr."""
    seat = crashed.seats[1]
    assert seat.status is Status.CRASH
    assert seat.failure is not None
    steps = build_steps(crashed)
    index = next(i for i, s in enumerate(steps) if s.kind is StepKind.RETIRE)
    state = viewer.open(pages(crashed), f"#move={index + 1}")
    assert_tells(crashed, steps[index], state)
    evidence = state["evidence"]
    assert evidence is not None
    assert "Failure evidence: seat 1 (player-crash)" in evidence
    assert seat.failure.detail in evidence
    assert "exit code3" in evidence.replace(" ", "").replace("exitcode", "exit code")
    assert f"request id{seat.failure.request_id}" in evidence
    assert "Traceback: player.py deliberately crashed" in evidence
    assert "retired: crash" in state["current"]["text"]
    assert state["seats"]["1"]["retired"]


def test_a_bot_failing_at_start_up_shows_its_evidence_at_the_match_start(
    viewer: ViewerPage, pages: Any
) -> None:
    """A seat that failed before ``ready`` has no retirement step: its evidence is at the match
    start (and the match end), and its card says it failed at start-up."""

    def silent(line: bytes) -> None:
        return None  # exits at hello

    replay = play_scripted([scripted_bot("first"), silent, scripted_bot("third")], seed=6)
    failure = replay.seats[1].failure
    assert failure is not None
    assert failure.phase == "startup"
    state = viewer.open(pages(replay))
    assert state["evidence"] is not None
    assert "start-up (before ready)" in state["evidence"]
    assert failure.detail in state["evidence"]
    assert state["seats"]["1"]["retired"]
    assert "failed at start-up" in viewer.page.inner_text('.seat[data-seat="1"]')
    state = viewer.press("End")
    assert state["evidence"] is not None
    assert "start-up (before ready)" in state["evidence"]


def test_an_illegal_move_shows_the_move_and_the_legal_ones(
    viewer: ViewerPage, trio_retired: Replay, pages: Any
) -> None:
    """The evidence of an illegal move names the move asked for and the legal moves."""
    failure = trio_retired.seats[2].failure
    assert failure is not None
    assert failure.status is Status.ILLEGAL_MOVE
    steps = build_steps(trio_retired)
    index = next(i for i, s in enumerate(steps) if s.kind is StepKind.RETIRE)
    state = viewer.open(pages(trio_retired), f"#move={index + 1}")
    evidence = state["evidence"]
    assert evidence is not None
    assert "move asked forPASS" in evidence
    assert "legal moves" in evidence
    assert failure.detail in evidence
    # After the retirement the seat passes automatically, and says so.
    state = viewer.press("ArrowRight")
    assert state["seats"]["2"]["retired"]


def test_match_end_ranks_the_seats_with_their_status(
    viewer: ViewerPage, trio_retired: Replay, pages: Any
) -> None:
    """The last step shows the result and each seat's status, the failed one with its reason."""
    state = viewer.open(pages(trio_retired), "#move=99999")
    assert state["hand"] == "Match over"
    table = viewer.page.inner_text(".result .score-table")
    assert "illegal_move" in table
    result = trio_retired.result
    assert_tells(trio_retired, build_steps(trio_retired)[-1], state)
    assert [int(c) for c in viewer.page.locator(".result tbody td.strong").all_inner_texts()] == [
        result.scores[s] for s in result.ranking
    ]


# -- versions ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("field", "value", "message"),
    [
        (
            "viewer_data",
            99,
            "This page holds viewer data version 99, but its viewer reads version 2",
        ),
        ("viewer_data", None, "viewer data version null"),
        (
            "replay_format",
            3,
            "made from a replay of format 3, but its viewer reads replay formats 1 and 2",
        ),
    ],
)
def test_an_unknown_version_is_refused_with_a_message(
    viewer: ViewerPage,
    duo: Replay,
    tmp_path: Path,
    field: str,
    value: object,
    message: str,
) -> None:
    """A page whose data has an unknown version shows a clear error and draws nothing."""
    data = viewer_data(duo)
    data[field] = value
    path = tmp_path / "bad.html"
    path.write_text(render_page(data), encoding="utf-8")
    state = viewer.open(path)
    assert state["error"] is not None
    assert message in state["error"]
    assert viewer.page.locator("#layout, .seat, #move-list").count() == 0


# -- 3 and 4 players ---------------------------------------------------------------------------


@pytest.mark.parametrize("name", ["trio_retired", "quartet"])
def test_every_seat_is_drawn_in_every_hand(
    viewer: ViewerPage, pages: Any, request: pytest.FixtureRequest, name: str
) -> None:
    """With 3 and 4 players every seat has its card, name, tiles and score at every deal and
    at the end of every hand."""
    replay: Replay = request.getfixturevalue(name)
    steps = build_steps(replay)
    viewer.open(pages(replay))
    checked = 0
    for index, step in enumerate(steps):
        if step.kind not in (StepKind.HAND_START, StepKind.HAND_END):
            continue
        state = viewer.open(pages(replay), f"#move={index + 1}")
        assert sorted(state["seats"]) == [str(s) for s in range(replay.players)]
        board = board_of(step)
        for seat in range(replay.players):
            shown = state["seats"][str(seat)]
            assert shown["name"] == replay.seats[seat].name
            assert shown["faceUp"] == board["hands"][seat]
            assert shown["score"] == board["scores"][seat]
        assert state["hand"] == f"Hand {step.hand_number} of {len(replay.hands)}"
        checked += 1
    assert checked == 2 * len(replay.hands)


# -- a page that is safe to open ---------------------------------------------------------------


def test_page_loads_nothing_but_itself(viewer: ViewerPage, quartet: Replay, pages: Any) -> None:
    """Opening and stepping through a page requests no URL other than the file itself."""
    path = pages(quartet)
    viewer.open(path)
    viewer.press("End")
    viewer.press("Home")
    assert viewer.requests == [path.resolve().as_uri()]


def test_hostile_names_and_notes_are_shown_as_text(viewer: ViewerPage, tmp_path: Path) -> None:
    """Markup in a bot's name or debug note is shown literally and never runs."""
    name = '<img src=x onerror="window.pwned=1"></script><!--'
    replay = play_scripted([scripted_bot(name, debug="<b>bold</b>"), scripted_bot("plain")], seed=4)
    path = write_html(replay, tmp_path / "hostile.html")
    state = viewer.open(path, "#move=4")
    assert state["seats"]["0"]["name"] == name
    assert viewer.page.evaluate("window.pwned") is None
    assert viewer.page.locator("img").count() == 0
    steps = build_steps(replay)
    noted = next(i for i, s in enumerate(steps) if s.action is not None and s.action.debug)
    viewer.open(path, f"#move={noted + 1}")
    assert viewer.page.inner_text("#debug q").startswith("<b>bold</b>")
    assert viewer.page.locator("#debug b").count() == 0


# -- strikes and restarts (failure policy lenient) ---------------------------------------------

#: What the event card says under a move the referee played for a struck bot.
STRIKE_NOTE = (
    "The bot's answer did not count: the referee played this move for it, a random legal move "
    "chosen from the match seed and the request id."
)


def fault_badges(state: dict[str, Any], seat: int) -> list[str]:
    """The strike and restart badges on a seat's card."""
    return [b for b in state["seats"][str(seat)]["badges"] if "strike" in b or "restart" in b]


@pytest.mark.slow
def test_a_strike_move_shows_its_badge_and_evidence(
    viewer: ViewerPage, lenient: Replay, pages: Any
) -> None:
    """Stepping onto the move the referee played for a struck bot: the sentence, a "strike"
    badge in the event card and in the move list, the strike's evidence with the last lines
    exchanged, and "1 strike" on the seat's card (not before)."""
    steps = build_steps(lenient)
    index = next(i for i, s in enumerate(steps) if s.action is not None and s.action.strike)
    state = viewer.open(pages(lenient), f"#move={index}")
    assert state["strikeBadge"] is None
    assert fault_badges(state, 0) == []
    state = viewer.press("ArrowRight")
    assert state["step"] == index + 1
    assert_tells(lenient, steps[index], state)
    assert state["text"] == (
        "STRIKE (illegal_move: illegal move PASS in request 3; open ends left=2, right=1); "
        "for seat 0 (wobbly) the referee plays 6-6 on right, 6 out"
    )
    assert state["kind"] == "Move"
    assert state["strikeBadge"] == "strike"
    assert state["current"] == {
        "step": index + 1,
        "text": "strike: plays 6-6 on right, 6 out",
        "strike": True,
        "badges": ["strike"],
    }
    assert viewer.page.inner_text(".strike-note") == STRIKE_NOTE
    assert state["evidenceTitle"] == "Strike evidence: seat 0 (wobbly)"
    rows = state["evidenceRows"]
    assert rows[:8] == [
        ["status", "illegal_move"],
        ["what happened", "illegal move PASS in request 3; open ends left=2, right=1"],
        ["phase", "answering a request"],
        ["hand", "1"],
        ["request id", "3"],
        ["move asked for", "PASS"],
        ["legal moves", "6-6 on right, 6 out"],
        ["last lines exchanged, oldest first"],
    ]
    assert rows[8] == ["bot → referee", '{"type": "ready", "name": "wobbly"}']
    assert rows[-1] == ["bot → referee", '{"type": "move", "id": 3, "move": {"action": "pass"}}']
    assert rows[-2][0] == "referee → bot"
    assert rows[-2][1].startswith('{"type":"request","id":3,"hand_number":1,')
    assert " characters cut] … " in rows[-2][1]
    assert state["stderr"] is None  # the bot lives on: its stderr is not a crash's
    assert fault_badges(state, 0) == ["1 strike"]
    assert fault_badges(state, 1) == []
    # The table shows the substitute move like any other: 6-6 placed on the right.
    assert state["placed"] == [2]
    assert "null" not in viewer.page.inner_text(".felt-info")


@pytest.mark.slow
def test_a_restart_step_shows_the_crash_and_its_evidence(
    viewer: ViewerPage, lenient: Replay, pages: Any
) -> None:
    """The restart step tells the crash, lists "restarted after crash", shows the crash record
    with the last lines exchanged and the crashed process's stderr, and leaves the table as
    it was; the seat's card says "1 restart"."""
    steps = build_steps(lenient)
    index = next(i for i, s in enumerate(steps) if s.kind is StepKind.RESTART)
    failure = steps[index].failure
    assert failure is not None
    assert failure.exit_code == 3
    before = viewer.open(pages(lenient), f"#move={index}")
    state = viewer.press("ArrowRight")
    assert state["step"] == index + 1
    assert state["text"] == (
        f"seat 1 (player-crash_once) is restarted after crash: {failure.detail}"
    )
    assert state["text"] == describe(lenient, steps[index])
    assert state["kind"] == "Restart"
    assert state["strikeBadge"] is None
    assert state["current"] == {
        "step": index + 1,
        "text": "restarted after crash",
        "strike": False,
        "badges": [],
    }
    assert state["evidenceTitle"] == "Restart evidence: seat 1 (player-crash_once)"
    rows = state["evidenceRows"]
    assert rows[:3] == [
        ["status", "crash"],
        ["what happened", failure.detail],
        ["phase", "answering a request"],
    ]
    assert ["exit code", "3"] in rows
    assert ["request id", str(failure.request_id)] in rows
    assert ["last lines exchanged, oldest first"] in rows
    assert rows[-1][0] == "referee → bot"
    assert rows[-1][1].startswith(f'{{"type":"request","id":{failure.request_id},')
    assert state["stderr"] == "Traceback: player.py crashed once\n"
    assert state["layout"] == before["layout"]
    assert state["placed"] == []
    assert state["seats"]["1"]["badges"] == ["to move", "1 restart"]
    assert fault_badges(state, 0) == ["1 strike"]


@pytest.mark.slow
def test_seat_badges_count_strikes_and_restarts_as_they_happen(
    viewer: ViewerPage, lenient: Replay, pages: Any
) -> None:
    """At every step each seat's card counts the strikes and restarts so far; the match end
    ranks the seats with them."""
    steps = build_steps(lenient)
    viewer.open(pages(lenient))
    states = viewer.every_step()
    strikes = restarts = 0
    for step, state in zip(steps, states, strict=True):
        strikes += step.action is not None and step.action.strike is not None
        restarts += step.kind is StepKind.RESTART
        assert fault_badges(state, 0) == (["1 strike"] if strikes else [])
        assert fault_badges(state, 1) == (["1 restart"] if restarts else [])
    assert (strikes, restarts) == (1, 1)
    viewer.press("End")
    statuses = viewer.page.locator(".result tbody td:last-child").all_inner_texts()
    assert statuses == ["ok (1 restart)", "ok (1 strike)"]  # seat 1 won


@pytest.mark.slow
def test_the_policy_is_shown_at_the_match_start_unless_strict(
    viewer: ViewerPage, lenient: Replay, duo: Replay, pages: Any
) -> None:
    """The match start names a lenient policy with its numbers; a strict match says nothing."""
    viewer.open(pages(lenient))
    assert viewer.page.inner_text("#policy") == "lenient (3 strikes, 1 restart)"
    viewer.open(pages(duo))
    assert viewer.page.locator("#policy").count() == 0
    assert viewer.page.locator(".match-card h3").all_text_contents() == [
        "Rules",
        "Clock",
        "Played",
    ]


def test_the_strike_that_forfeits_is_a_retirement_marked_strike(
    viewer: ViewerPage, struck_out: Replay, pages: Any
) -> None:
    """Two strikes are moves; the third retires the seat: a retirement with its failure
    evidence, marked "strike" in the list, and "3 strikes" on the retired seat's card."""
    steps = build_steps(struck_out)
    strikes = [i for i, s in enumerate(steps) if s.action is not None and s.action.strike]
    retire = next(i for i, s in enumerate(steps) if s.kind is StepKind.RETIRE)
    assert len(strikes) == 2
    assert strikes[-1] < retire
    state = viewer.open(pages(struck_out), f"#move={strikes[-1] + 1}")
    assert state["seats"]["2"]["badges"] == ["2 strikes"]
    state = viewer.open(pages(struck_out), f"#move={retire + 1}")
    assert_tells(struck_out, steps[retire], state)
    assert state["kind"] == "Retirement"
    assert state["strikeBadge"] == "strike"
    assert state["current"]["text"] == "retired: illegal_move"
    assert state["current"]["badges"] == ["strike"]
    assert state["evidenceTitle"] == "Failure evidence: seat 2 (wobbly)"
    assert [
        "what happened",
        "illegal move PASS in request 10; open ends left=0, right=2; strike 3 of 3: forfeit",
    ] in state["evidenceRows"]
    # Its turn is still on: the referee passes for it next.
    assert state["seats"]["2"]["badges"] == ["to move", "retired: illegal_move", "3 strikes"]


def test_a_retirement_shows_the_last_lines_exchanged(
    viewer: ViewerPage, trio_retired: Replay, pages: Any
) -> None:
    """A strict retirement's evidence ends with the last lines exchanged, the bot's reply last."""
    failure = trio_retired.seats[2].failure
    assert failure is not None
    steps = build_steps(trio_retired)
    index = next(i for i, s in enumerate(steps) if s.kind is StepKind.RETIRE)
    state = viewer.open(pages(trio_retired), f"#move={index + 1}")
    rows = state["evidenceRows"]
    head = rows.index(["last lines exchanged, oldest first"])
    assert rows[head - 1][0] == "legal moves"
    reply = f'{{"type": "move", "id": {failure.request_id}, "move": {{"action": "pass"}}}}'
    assert rows[-1] == ["bot → referee", reply]
    assert [label for label, _ in rows[head + 1 :]] == [
        "referee → bot" if line.direction == "sent" else "bot → referee"
        for line in failure.messages or []
    ]
