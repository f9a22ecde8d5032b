"""Elo with too few games: "too few games" in the text, ``null`` bounds and a flag in the JSON,
empty cells in the CSV, never ``[-inf, +inf]``; intervals from `MIN_ELO_SAMPLES` samples on."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

from arena.tournament.html_report import write_report
from arena.tournament.ratings import elo_from_games
from arena.tournament.ratings_view import MIN_ELO_SAMPLES, EloLine, compute_ratings
from arena.tournament.report import standings_csv, standings_document, standings_text
from arena.tournament.store import Store
from tests.tournament.test_sprt_run import FakeRunner, run_sprt


def one_each(pair: int, rotation: int) -> float:
    """The candidate wins the first game of every deal and loses the second."""
    return 1.0 if rotation == 0 else 0.0


def recorded(tmp_path: Path, pairs: int) -> Store:
    """A database of ``pairs`` duplicate-deal pairs, each split 1-1."""
    _, _, store = run_sprt(tmp_path, FakeRunner(2, one_each), max_pairs=pairs, elo1=1.0)
    assert len(store.matches()) == 2 * pairs
    return store


def test_two_games_say_too_few_games_not_infinite_bounds(tmp_path: Path) -> None:
    """After one pair (two games, one won) the text says how few there are."""
    store = recorded(tmp_path, 1)
    line = compute_ratings(store).elo[1]
    assert line.games_text == f"too few games (2 of {MIN_ELO_SAMPLES})"
    assert line.paired_text == f"too few pairs (1 of {MIN_ELO_SAMPLES})"
    text = standings_text(store)
    assert "too few games (2 of 10)" in text
    assert "inf" not in text


def test_json_has_null_bounds_and_a_flag_when_too_few(tmp_path: Path) -> None:
    """``--json``: the estimate and its bounds are ``null``, ``too_few`` is true."""
    document = standings_document(recorded(tmp_path, 1))
    games = document["ratings"][0]["elo_games"]
    assert games == {
        "elo": None, "lo": None, "hi": None, "los": 0.5, "samples": 2, "saturated": False,
        "too_few": True, "min_samples": MIN_ELO_SAMPLES,
    }  # fmt: skip
    assert "Infinity" not in json.dumps(document)


def test_csv_cells_are_empty_when_too_few(tmp_path: Path) -> None:
    """``--csv``: empty Elo cells, and the number of samples."""
    rows = list(csv.DictReader(io.StringIO(standings_csv(recorded(tmp_path, 1)))))
    assert [(r["elo_games"], r["elo_games_lo"], r["elo_games_hi"]) for r in rows] == [
        ("", "", "")
    ] * 2
    assert [r["elo_games_samples"] for r in rows] == ["2", "2"]
    assert [r["elo_paired_samples"] for r in rows] == ["1", "1"]


def test_report_says_too_few_games(tmp_path: Path) -> None:
    """The web report's Elo cells say the same as the text."""
    store = recorded(tmp_path, 1)
    page = write_report(store, tmp_path / "report.html").path.read_text()
    assert "too few games (2 of 10)" in page
    assert "too few pairs (1 of 10)" in page
    assert "-inf" not in page


def test_enough_games_give_a_finite_interval(tmp_path: Path) -> None:
    """From `MIN_ELO_SAMPLES` pairs on, the interval is shown, and it is finite."""
    store = recorded(tmp_path, MIN_ELO_SAMPLES)
    line = compute_ratings(store).elo[1]
    assert line.paired_text.startswith("+0.0 [-")
    assert "inf" not in line.paired_text
    assert line.games_text.startswith("+0.0 [-")
    assert "inf" not in line.games_text


def test_the_minimum_is_exactly_min_elo_samples() -> None:
    """9 games are too few, 10 are enough."""
    nine = EloLine(elo_from_games([1.0, 0.0] * 4 + [0.5]), elo_from_games([]))
    ten = EloLine(elo_from_games([1.0, 0.0] * 5), elo_from_games([]))
    assert nine.games_text == "too few games (9 of 10)"
    assert ten.games_text == str(ten.games).rsplit(" LOS", 1)[0]
    assert ten.paired_text == "no games"
