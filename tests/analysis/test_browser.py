"""The analysis in the viewer page, in the session's headless Chromium: the evaluation graph,
the grades in the move list, the played and preferred move, the preferred tile on the table,
the accuracy summary, and what a seat's view hides. Expectations come from the analysis
section and :func:`arena.view.html.viewer_data`, never from the page's own state."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import msgspec
import pytest

from arena.analysis.record import Analysis
from arena.replay import Replay
from arena.view.analysis_data import signed
from arena.view.html import viewer_data, write_html
from tests.view.browser import ViewerPage

MARKED = ("inaccuracy", "mistake", "blunder")


@pytest.fixture
def page(match: Replay, analysis: Analysis, tmp_path: Path) -> tuple[Path, list[Any]]:
    """The analysed match's viewer page, and its analysis entries per step."""
    analysed = msgspec.structs.replace(match, analysis=analysis)
    entries = viewer_data(analysed)["analysis"]["steps"]
    return write_html(analysed, tmp_path / "analysed.html"), entries


def _read(viewer: ViewerPage, script: str) -> Any:
    return viewer.page.evaluate(script)


def test_the_graph_draws_a_line_per_seat_and_marks_every_graded_move(
    viewer: ViewerPage, page: tuple[Path, list[Any]]
) -> None:
    """One polyline per seat and hand with decisions; a mark per inaccuracy, mistake and
    blunder, at its step; the move list carries the same grades."""
    path, entries = page
    viewer.open(path)
    marked = [i + 1 for i, e in enumerate(entries) if e and e["grade"] in MARKED]
    assert marked, "the test match has no graded mistake"
    shown = _read(
        viewer,
        "() => ({ marks: [...document.querySelectorAll('#eval-graph .eval-mark')].map((m) =>"
        " Number(m.dataset.step)), seats: [...new Set([...document.querySelectorAll("
        "'#eval-graph .eval-line')].map((l) => Number(l.dataset.seat)))].sort(),"
        " badges: [...document.querySelectorAll('#move-list li .mv-badge.grade')].map((b) =>"
        " Number(b.closest('li').dataset.step)), graded: [...document.querySelectorAll("
        "'#move-list li[data-grade]')].map((li) => [Number(li.dataset.step), li.dataset.grade]) })",
    )
    assert shown["marks"] == marked
    assert shown["badges"] == marked
    assert shown["seats"] == [0, 1]
    assert shown["graded"] == [[i + 1, e["grade"]] for i, e in enumerate(entries) if e]


def test_clicking_a_mark_goes_to_its_step_and_the_card_tells_the_move(
    viewer: ViewerPage, page: tuple[Path, list[Any]]
) -> None:
    """A click on a mistake's mark shows that step: the move played with its value, the
    preferred one with its value, and the loss with its grade."""
    path, entries = page
    viewer.open(path)
    number = next(i + 1 for i, e in enumerate(entries) if e and e["grade"] in MARKED)
    state = viewer.click(f'#eval-graph .eval-mark[data-step="{number}"]')
    assert state["step"] == number
    entry = entries[number - 1]
    card = _read(viewer, "() => document.getElementById('analysis-move').innerText")
    lines = [line.strip() for line in card.splitlines() if line.strip()]
    assert lines[0].endswith(f"played {entry['played']} {signed(entry['played_value'])}")
    assert lines[1] == f"preferred {entry['best']} {signed(entry['best_value'])}"
    assert lines[2] == f"{entry['grade']}: lost {entry['loss']:.1f} hand points"


def test_the_preferred_tile_is_marked_in_the_hand_before_the_decision(
    viewer: ViewerPage, page: tuple[Path, list[Any]]
) -> None:
    """At the step before a decision with a choice, the tile the evaluator prefers is framed
    in the mover's hand; seen as the other seat, it is not, and the card hides the move."""
    path, entries = page
    number = next(i + 1 for i, e in enumerate(entries) if e and e["choices"] > 1 and e["best_tile"])
    entry = entries[number - 1]
    viewer.open(path, f"#move={number - 1}")
    framed = _read(
        viewer,
        "() => [...document.querySelectorAll('.seat .hand svg.preferred')].map((s) =>"
        " [Number(s.closest('.seat').dataset.seat), s.querySelector('g').dataset.halves])",
    )
    assert framed == [[entry["seat"], f"{entry['best_tile'][0]},{entry['best_tile'][1]}"]]
    other = 1 - entry["seat"]
    viewer.open(path, f"#move={number - 1}&view={other}")
    assert _read(viewer, "() => document.querySelectorAll('.preferred').length") == 0
    viewer.open(path, f"#move={number}&view={other}")
    card = _read(viewer, "() => document.getElementById('analysis-move').innerText")
    assert "Preferred move hidden in this seat's view" in card
    assert entry["best"] not in card.replace(f"played {entry['played']}", "")


def test_the_accuracy_table_shows_each_seats_summary(
    viewer: ViewerPage, page: tuple[Path, list[Any]], analysis: Analysis
) -> None:
    """One row per seat: accuracy, mean loss, decisions, and the three counts."""
    path, _entries = page
    viewer.open(path)
    rows = _read(
        viewer,
        "() => [...document.querySelectorAll('#accuracy tbody tr')].map((tr) =>"
        " [...tr.cells].slice(1).map((c) => c.textContent))",
    )
    assert rows == [
        [
            f"{s.accuracy:.1f}%",
            f"{s.mean_loss:.2f}",
            str(s.decisions),
            f"{s.inaccuracies} / {s.mistakes} / {s.blunders}",
        ]
        for s in analysis.seats
    ]


def test_a_page_without_analysis_has_no_panel(
    viewer: ViewerPage, match: Replay, tmp_path: Path
) -> None:
    """A replay never analysed: no analysis panel, and the viewer works as before."""
    path = write_html(match, tmp_path / "plain.html")
    viewer.open(path)
    assert _read(viewer, "() => document.querySelectorAll('#analysis, #eval-graph').length") == 0
    assert viewer.press("ArrowRight")["step"] == 2
