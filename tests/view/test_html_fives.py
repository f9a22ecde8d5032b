"""``arena view --html`` on Fives replays: the viewer data carries the spinner, its arms, the
count and the scoring events, and the page draws the spinner as a cross (a double across the
west-east line, the north arm above it, the south arm below), with a marker on every open end.

The replays are real matches (first-legal and last-legal scripted bots under trio's MockClock);
the expectations come from :func:`arena.view.steps.build_steps`, never from the page's data.
"""

from __future__ import annotations

import functools
import json
from pathlib import Path
from typing import Any

import pytest

from arena.games.fives import FIVES, FivesRules
from arena.games.match import MatchLength
from arena.referee.channel import Script, scripted_connector
from arena.referee.match import MatchConfig, play_match
from arena.replay import Replay
from arena.view import html
from arena.view.steps import StepKind, build_steps
from tests.helpers import run_on_mock_clock
from tests.view.browser import ViewerPage


def picking(name: str, pick: int) -> Script:
    """A scripted bot playing legal move ``pick`` (the last when there are fewer)."""

    def script(line: bytes) -> list[bytes] | None:
        message = json.loads(line)
        if message["type"] == "hello":
            return [json.dumps({"type": "ready", "name": name}).encode()]
        if message["type"] == "request":
            legal = message["legal"]
            move = legal[min(pick, len(legal) - 1)]
            return [json.dumps({"type": "move", "id": message["id"], "move": move}).encode()]
        if message["type"] in ("match_end", "error"):
            return None
        return []

    return script


def play_fives(seed: int, rules: FivesRules) -> Replay:
    config = MatchConfig(game=FIVES, rules=rules, players=2, seed=seed, length=MatchLength())
    connect = scripted_connector({"a": picking("alpha", 0), "b": picking("beta", 99)})
    run = functools.partial(play_match, config, ["a", "b"], connect=connect)
    replay: Replay = run_on_mock_clock(run)
    return replay


@pytest.fixture(scope="module")
def fives_replay() -> Replay:
    """Seed 4 with the flag off: arms open at once, so both arms grow in every hand."""
    return play_fives(4, FivesRules(spinner_sides_first=False))


@pytest.fixture(scope="module")
def fives_page(fives_replay: Replay, tmp_path_factory: pytest.TempPathFactory) -> Path:
    return html.write_html(fives_replay, tmp_path_factory.mktemp("fives") / "fives.html")


# -- the data (no browser) ---------------------------------------------------------------------


def test_fives_boards_carry_the_cross_the_count_and_the_scoring(fives_replay: Replay) -> None:
    """Each board of the data has the spinner, arms, count and scoring of its step; each move
    names where its tile went (the layout index, or the arm)."""
    steps = build_steps(fives_replay)
    data = html.viewer_data(fives_replay)
    arms_seen = 0
    for step, item in zip(steps, data["steps"], strict=True):
        board = step.board
        if board is None:
            assert item["board"] is None
            continue
        shown = item["board"]
        assert shown["spinner"] == board.spinner
        assert shown["count"] == board.count
        assert shown["scoring"] == [list(e) for e in board.scoring]
        if board.spinner is None:
            assert shown["arms"] is None
        else:
            assert shown["arms"] == {arm: [list(t) for t in tiles] for arm, tiles in board.arms}
            arms_seen += bool(shown["arms"]["north"] and shown["arms"]["south"])
        if step.kind is StepKind.MOVE and step.move is not None and step.move.kind == "play":
            end = step.move.end
            if end in ("north", "south"):
                assert (item["placed"], item["placed_arm"]) == (None, end)
            else:
                at = 0 if end == "west" else len(board.layout) - 1
                assert (item["placed"], item["placed_arm"]) == (at, None)
        assert item.get("scored", []) == [
            {"seat": s, "points": p, "reason": r} for s, p, r in step.scored
        ]
    assert arms_seen > 0
    assert data["special"] == []


def test_the_anchor_is_the_opening_tile(fives_replay: Replay) -> None:
    """The anchor (the layout index of the opening tile) counts the west plays since it."""
    data = html.viewer_data(fives_replay)
    steps = build_steps(fives_replay)
    opening = None
    for step, item in zip(steps, data["steps"], strict=True):
        if step.kind is StepKind.HAND_START:
            assert step.board is not None
            opening = step.board.layout[0]
        if step.board is not None and step.board.layout and step.kind is not StepKind.MATCH_END:
            assert item["board"]["layout"][item["board"]["anchor"]] == list(opening or ())


# -- the page, in the browser ------------------------------------------------------------------

# Per step: the spinner group and its box, the arms' tiles (with their boxes), the line's tiles,
# the end markers and the count chip.
_CROSS_JS = """
() => {
  const viewer = window.arenaViewer;
  const states = [];
  const box = (g) => { const b = g.querySelector("rect.body").getBBox();
                       return {x: b.x, y: b.y, w: b.width, h: b.height}; };
  for (let i = 0; i < viewer.steps.length; i++) {
    viewer.go(i);
    const svg = document.querySelector("#layout svg.chain");
    const q = (sel) => svg ? [...svg.querySelectorAll(sel)] : [];
    const spinner = q("g.tile.spinner-tile");
    const arm = (name) => q(`g.tile[data-arm="${name}"]`).map((g) => ({
      index: Number(g.dataset.armIndex), halves: g.dataset.halves, box: box(g) }));
    const count = document.getElementById("count");
    states.push({
      cross: svg ? svg.classList.contains("cross") : false,
      spinner: spinner.map((g) => ({ index: Number(g.dataset.index), box: box(g) })),
      north: arm("north"),
      south: arm("south"),
      line: q("g.tile[data-index]").map((g) => Number(g.dataset.index)).sort((a, b) => a - b),
      ends: q(".end-marker").map((g) => [g.dataset.end, Number(g.dataset.value)]),
      count: count ? Number(count.dataset.count) : null,
      placed: q("g.tile.placed").map((g) => g.dataset.arm || Number(g.dataset.index)),
    });
  }
  return states;
}
"""


def test_the_page_draws_the_spinner_as_a_cross_and_marks_every_end(
    viewer: ViewerPage, fives_replay: Replay, fives_page: Path
) -> None:
    """At every step: the line's tiles, the spinner drawn across the line (taller than wide),
    the north arm's tiles above it and the south arm's below, one marker per open end, the
    count, and the tile just played picked out where it went."""
    state = viewer.open(fives_page)
    assert state["error"] is None
    steps = build_steps(fives_replay)
    drawn: list[dict[str, Any]] = viewer.page.evaluate(_CROSS_JS)
    assert len(drawn) == len(steps)
    crosses = 0
    for step, shown in zip(steps, drawn, strict=True):
        board = step.board
        if board is None or not board.layout:
            continue
        assert shown["cross"]
        assert shown["line"] == list(range(len(board.layout)))
        assert sorted(shown["ends"]) == sorted([p, v] for p, v in board.ends)
        assert shown["count"] == board.count
        if board.spinner is None:
            assert shown["spinner"] == []
            assert shown["north"] == shown["south"] == []
            continue
        (spinner,) = shown["spinner"]
        assert spinner["index"] == board.spinner
        body = spinner["box"]
        assert body["h"] > body["w"]  # laid across the west-east line
        arms = dict(board.arms)
        for name, above in (("north", True), ("south", False)):
            tiles = sorted(shown[name], key=lambda t: t["index"])
            assert [t["halves"] for t in tiles] == [f"{a},{b}" for a, b in arms[name]]
            for tile in tiles:
                if above:
                    assert tile["box"]["y"] + tile["box"]["h"] <= body["y"] + 0.01
                else:
                    assert tile["box"]["y"] >= body["y"] + body["h"] - 0.01
                # On the spinner's column.
                middle = tile["box"]["x"] + tile["box"]["w"] / 2
                assert abs(middle - (body["x"] + body["w"] / 2)) < 0.01
        crosses += bool(arms["north"] and arms["south"])
        if step.kind is StepKind.MOVE and step.move is not None and step.move.kind == "play":
            end = step.move.end
            expected = (
                end
                if end in ("north", "south")
                else (0 if end == "west" else len(board.layout) - 1)
            )
            assert shown["placed"] == [expected]
    assert crosses > 0


def test_the_page_tells_the_scores(
    viewer: ViewerPage, fives_replay: Replay, fives_page: Path
) -> None:
    """A move that scored names the points in its sentence and in the move list; the hand's end
    lists every scoring event of the hand."""
    steps = build_steps(fives_replay)
    scored = next(i for i, s in enumerate(steps) if s.kind is StepKind.MOVE and s.scored)
    state = viewer.open(fives_page, f"#move={scored + 1}")
    seat, points, _reason = steps[scored].scored[0]
    assert f"count {points}: seat {seat} (" in state["text"]
    assert f"(+{points}" in state["current"]["text"]
    end = next(i for i, s in enumerate(steps) if s.kind is StepKind.HAND_END)
    viewer.open(fives_page, f"#move={end + 1}")
    items = viewer.page.eval_on_selector_all(
        "#scoring li", "(els) => els.map((e) => e.textContent)"
    )
    board = steps[end].board
    assert board is not None
    assert items == [f"S{s} {'+' if p >= 0 else ''}{p} {r}" for s, p, r in board.scoring]
