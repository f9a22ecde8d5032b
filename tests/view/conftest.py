"""Fixtures of the viewer tests: the matches played under the ``lenient`` failure policy (the
browser and its pages are the whole suite's, in tests/conftest.py)."""

from __future__ import annotations

import pytest

from arena.replay import Replay
from tests.view.matches import LENIENT, play_lenient, play_scripted, scripted_bot

# -- matches under the lenient failure policy --------------------------------------------------


@pytest.fixture(scope="module")
def lenient(tmp_path_factory: pytest.TempPathFactory) -> Replay:
    """Policy lenient, seed 2: seat 0 ("wobbly", in-memory) is struck once at its 2nd request,
    seat 1 (tests/bots/player.py, a real process) crashes at its 3rd and is restarted
    (:func:`tests.view.matches.play_lenient`)."""
    return play_lenient(tmp_path_factory.mktemp("lenient") / "crashed")


@pytest.fixture(scope="module")
def struck_out() -> Replay:
    """Policy lenient, three seats, seed 6: seat 2 ("wobbly") passes illegally at its 2nd, 3rd
    and 4th requests: two strikes, then the third forfeits (retired, two seats play on)."""
    return play_scripted(
        [scripted_bot("first"), scripted_bot("second"), scripted_bot("wobbly", fail_at=(2, 3, 4))],
        seed=6,
        policy=LENIENT,
    )
