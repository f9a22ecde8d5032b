"""The referee benchmark's own mechanics (`benchmarks/referee_bench.py`): the engine row's
variants that leave calls out (its floor for ratio 1) still play the C row's games. Its figures
are the benchmark's to print, never asserted here."""

from __future__ import annotations

import sys
from pathlib import Path
from types import ModuleType

import pytest

BENCHMARKS = Path(__file__).parents[1] / "benchmarks"


@pytest.fixture(scope="module")
def bench() -> ModuleType:
    sys.path.insert(0, str(BENCHMARKS))
    try:
        import referee_bench
    finally:
        sys.path.remove(str(BENCHMARKS))
    return referee_bench


def _moves(bench: ModuleType, **leave_out: bool) -> list[tuple[int, int, object]]:
    trace = bench.Trace()
    bench.engine_loop(bench.SEED_BASE, 3, trace, **leave_out)
    return [(turn.hand_number, turn.seat, turn.move) for turn in trace.turns]


@pytest.mark.parametrize(
    "leave_out", [{"request": False}, {"view": False, "request": False}], ids=["request", "both"]
)
def test_the_floor_s_variants_play_the_engine_row_s_moves(
    bench: ModuleType, leave_out: dict[str, bool]
) -> None:
    played = _moves(bench)
    assert len({number for number, _, _ in played}) == 3
    assert _moves(bench, **leave_out) == played


def test_the_whole_row_makes_every_request_line(bench: ModuleType) -> None:
    trace = bench.Trace()
    bench.engine_loop(bench.SEED_BASE, 1, trace)
    ids = [turn.request_id for turn in trace.turns]
    assert ids == list(range(1, len(ids) + 1))
    for turn in trace.turns:
        assert turn.request.startswith(b'{"type":"request","id":%d,' % turn.request_id)
