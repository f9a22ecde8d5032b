"""A real two-seat match for the analysis tests, written to a file, and its analysis with a
small fixed budget (quick and deterministic)."""

from __future__ import annotations

from pathlib import Path

import pytest

from arena.analysis.analyzer import analyze_replay
from arena.analysis.evaluator import make_evaluator
from arena.analysis.record import Analysis
from arena.replay import Replay, write_replay
from tests.view.matches import play_scripted, scripted_bot

#: The budget of every test: eight worlds per decision.
BOT = "ref:search:samples=8"


@pytest.fixture(scope="session")
def match() -> Replay:
    """Two seats of Matador, two hands, seed 3: seat 0 plays its first legal move, seat 1 its
    second."""
    return play_scripted([scripted_bot("first"), scripted_bot("second", pick=1)], seed=3, hands=2)


@pytest.fixture(scope="session")
def analysis(match: Replay) -> Analysis:
    """The analysis of :func:`match` with :data:`BOT`."""
    return analyze_replay(match, make_evaluator(BOT))


@pytest.fixture
def replay_file(match: Replay, tmp_path: Path) -> Path:
    """:func:`match` written to a file of its own."""
    return write_replay(tmp_path / "match.json", match)
