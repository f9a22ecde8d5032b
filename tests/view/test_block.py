"""Block in both viewers and the report: a plain line game with no special tiles, no spinner,
no count and nobody drawing is drawn from its plugin's data (tests/view/block_cases.py).

The terminal text and the page data of each case are compared with the committed files
(``python3 -m tests.view.block_cases`` rewrites them after a deliberate change); the page is
stepped through in Chromium and every board checked against the engine's.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from arena.replay import Action, Replay, read_replay, write_replay
from arena.view import html
from arena.view.steps import StepKind, build_steps
from arena.view.table import table_data_of
from protocol import messages as m
from tests.golden.make_golden import unmet
from tests.view.block_cases import CASES, REGENERATE, page_text, paths, shown
from tests.view.browser import ViewerPage
from tests.view.test_html import assert_tells, board_of, sorted_layout

BY_NAME = {case.name: case for case in CASES}
NAMES = list(BY_NAME)


def same(path: Path, actual: str | bytes) -> None:
    """``actual`` is the committed file's content, or the test fails naming the command."""
    expected = path.read_bytes() if isinstance(actual, bytes) else path.read_text("utf-8")
    assert actual == expected, f"{path.name} differs from what the code gives now: {REGENERATE}"


@pytest.fixture(scope="module")
def block() -> Replay:
    """The two-hand Block case: a domino, then a drawn block, with passes."""
    return read_replay(paths("block-2p-hands")[0])


@pytest.mark.parametrize("name", NAMES)
def test_a_fresh_block_match_gives_the_committed_replay(name: str) -> None:
    """Playing the case again gives the committed replay byte for byte, and it shows what the
    case is for."""
    from tests.golden.make_golden import replay_bytes

    path = paths(name)[0]
    same(path, replay_bytes(BY_NAME[name]))
    assert unmet(BY_NAME[name], read_replay(path)) == []


@pytest.mark.parametrize("name", NAMES)
def test_both_viewers_show_each_block_replay_as_committed(name: str, tmp_path: Path) -> None:
    """``arena view --all`` prints the committed text, and the page ``arena view --html``
    writes holds the committed viewer data and table data."""
    replay, text, data = paths(name)
    view, page = shown(replay, tmp_path)
    same(text, view)
    same(data, page)


def test_the_terminal_draws_a_plain_line_where_nobody_draws(block: Replay) -> None:
    """Block's text: the line between its left and right ends, the undealt tiles out of play
    (never "boneyard"), no count, spinner, arms or special tiles, and the passes and both ends
    of a hand told."""
    text = paths("block-2p-hands")[1].read_text("utf-8")
    assert "Match start: block, 2 players, seed 28, 2 hands" in text
    assert "  rules     none (no rule flags)" in text
    assert "  nobody draws: the undealt tiles are out of play" in text
    assert "Hand 1 dealt: seat 0 (first) leads; 14 tiles out of play" in text
    assert "  out of play 14 tiles" in text
    assert "  layout      left=" in text  # the labels' column as wide as "out of play"
    for absent in ("boneyard", "count", "spinner", "north", "west", "*", "matador"):
        assert absent not in text, absent
    assert "seat 1 (random) passes" in text or "seat 0 (first) passes" in text
    assert "Hand 1 ends: domino" in text
    assert "Hand 2 ends: block, drawn between seat 0 (first) and seat 1 (random)" in text


def test_block_boards_carry_only_what_the_game_has(block: Replay) -> None:
    """The viewer data of a Block board has no spinner, arms, count or scoring; the page's
    title and table data are Block's, from its plugin."""
    data = html.viewer_data(block)
    assert data["title"] == "Block: first vs random (seed 28)"
    assert data["special"] == []
    for step in data["steps"]:
        board = step["board"]
        if board is not None:
            assert set(board) == {
                "layout", "anchor", "ends", "hands", "boneyard", "scores", "to_move", "retired",
            }  # fmt: skip
            assert board["boneyard"] == 14
            assert {end for end, _ in board["ends"]} <= {"left", "right"}
        assert step.get("placed_arm") is None
        assert "scored" not in step
    table = table_data_of("block")
    assert table is not None
    assert table["title"] == "Block"
    assert table["features"] == {
        "spinner": False, "end_count": False, "hand_scoring": False, "draws": False,
    }  # fmt: skip
    assert table["boneyard_label"] == "out of play"
    assert table["line_ends"] == ["left", "right"]
    assert table["arm_ends"] == []


def test_the_page_data_element_holds_the_table_data(block: Replay) -> None:
    """The page has the table data as its own element beside the viewer data."""
    text = page_text(html.html_page(block))
    assert text.endswith(
        '{"table_data":1,"game":"block","title":"Block","features":{"spinner":false,'
        '"end_count":false,"hand_scoring":false,"draws":false},"line_ends":["left","right"],'
        '"arm_ends":[],"special_label":"","join_rule":"equal halves",'
        '"boneyard_label":"out of play","count_multiple":0,"count_multiple_words":""}\n'
    )


# -- in the browser ----------------------------------------------------------------------------


_FELT_JS = """
() => ({
  game: document.querySelector(".topbar .game").textContent,
  legend: [...document.querySelectorAll(".legend .legend-item")].map((i) => i.textContent),
  boneyardLabel: (document.querySelector(".boneyard .felt-label") || {}).textContent || null,
  count: document.getElementById("count") !== null,
  spinner: document.querySelectorAll("#layout [data-spinner], #layout [data-arm]").length,
  special: document.querySelectorAll("#layout .tile.special, .hand .tile.special").length,
  cross: document.querySelector("#layout svg.chain.cross") !== null,
  hint: (document.querySelector(".match-card .hint") || {}).textContent || null,
  rules: [...document.querySelectorAll(".match-card .rules")].map((u) => u.textContent),
})
"""


def test_stepping_a_block_replay_draws_every_board(
    viewer: ViewerPage, block: Replay, tmp_path: Path
) -> None:
    """At every step the page draws the engine's board: the line's tiles in order between its
    left and right end markers, each hand, the scores, the 14 tiles out of play face down; no
    count, spinner, special tile or "just drawn" legend; the passes and hand ends told."""
    steps = build_steps(block)
    page = html.write_html(block, tmp_path / "block.html")
    viewer.open(page)
    felt = viewer.page.evaluate(_FELT_JS)
    assert felt["game"] == "Block replay"
    assert felt["legend"] == ["just played"]
    assert felt["hint"] == (
        "Press → or ▶ to start. Tiles join by equal halves. Nobody draws: the undealt tiles "
        "are out of play."
    )
    assert felt["rules"][0] == "none: the game has no rule flags"
    states = viewer.every_step()
    assert len(states) == len(steps)
    passes = 0
    for step, state in zip(steps, states, strict=True):
        assert_tells(block, step, state)
        if step.board is None or step.kind is StepKind.MATCH_END:
            continue
        board = board_of(step)
        assert sorted_layout(state) == board["layout"]
        assert sorted(state["ends"]) == sorted(board["ends"])
        for seat, tiles in enumerate(board["hands"]):
            assert state["seats"][str(seat)]["faceUp"] == tiles
            assert state["seats"][str(seat)]["score"] == board["scores"][seat]
        assert state["boneyard"] == 14
        assert state["boneyardFaceUp"] == 0
        action = step.action
        if isinstance(action, Action) and isinstance(action.move, m.Play):
            at = len(board["layout"]) - 1 if action.move.end == "right" else 0
            assert state["placed"] == [at]
        if isinstance(action, Action) and isinstance(action.move, m.Pass):
            passes += 1
            assert state["current"]["text"] == "passes"
    assert passes >= 2
    for number in (2, len(steps) // 2, len(steps) - 1):  # the felt at a few steps
        viewer.open(page, f"#move={number}")
        felt = viewer.page.evaluate(_FELT_JS)
        assert felt["boneyardLabel"] == "out of play"
        assert not felt["count"]
        assert not felt["cross"]
        assert felt["spinner"] == 0
        assert felt["special"] == 0
    assert viewer.state()["error"] is None


def test_a_block_retirement_shows_its_evidence(viewer: ViewerPage, tmp_path: Path) -> None:
    """The illegal pass of the Block case retires its seat: the page opens at the retirement
    with the evidence, the seat marked retired, the match forfeited."""
    replay = read_replay(paths("block-2p-illegal")[0])
    steps = build_steps(replay)
    number = html.failure_step(replay, steps, 1)
    assert number is not None
    state = viewer.open(html.write_html(replay, tmp_path / "illegal.html"), f"#move={number}")
    assert state["kind"] == "Retirement"
    assert state["seats"]["1"]["retired"]
    assert state["evidenceTitle"] is not None
    assert ["status", "illegal_move"] in state["evidenceRows"]


def test_the_report_of_a_block_tournament_links_its_pages(
    viewer: ViewerPage, tmp_path: Path
) -> None:
    """A Block tournament's report names the game, makes the match's missing viewer page,
    and its failure link opens that page at the retirement."""
    from arena.tournament.html_report import write_report
    from arena.tournament.jobs import summarize
    from arena.tournament.settings import TournamentSettings
    from arena.tournament.store import EntrantRow, Store, TableRow

    replay = read_replay(paths("block-2p-illegal")[0])
    replay_path = write_replay(tmp_path / "replays" / "t00000.json", replay)
    store = Store(tmp_path / "tournament.db")
    store.create(
        TournamentSettings(game="block", hands=2, target=None).to_dict(),
        [EntrantRow(i + 1, n, f"bot{i}", None, None, None) for i, n in enumerate(["a", "b"])],
        [TableRow(0, 1, replay.seed, 0, 0, (1, 2))],
    )
    store.record(store.tables()[0], summarize(replay), str(replay_path), "2026-01-01T00:00:00")
    result = write_report(store, tmp_path / "report.html")
    store.close()
    assert result.pages_made == 1
    viewer.page.goto((tmp_path / "report.html").resolve().as_uri())
    viewer.page.wait_for_selector("tr.match")
    kicker: Any = viewer.page.evaluate("() => document.querySelector('.kicker').textContent")
    assert kicker == "block tournament report"
    href: Any = viewer.page.evaluate(
        "() => document.querySelector('.failure .evidence-link').getAttribute('href')"
    )
    page, fragment = href.split("#")
    number = html.failure_step(replay, build_steps(replay), 1)
    assert fragment == f"move={number}"
    state = viewer.open(tmp_path / page, "#" + fragment)
    assert state["kind"] == "Retirement"
    assert viewer.page.evaluate("() => document.querySelector('.topbar .game').textContent") == (
        "Block replay"
    )
