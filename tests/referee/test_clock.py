"""Time-control arithmetic: the per-move allowance, the bank, and overruns."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from arena.referee.clock import (
    SeatClock,
    TimeLimits,
    accepted_elapsed,
    late_ms,
    ms_to_the_microsecond,
)


def test_a_move_within_the_limit_leaves_the_bank_alone() -> None:
    """Time under the per-move limit costs the bank nothing."""
    clock = SeatClock(TimeLimits(move_ms=100, bank_ms=500))
    assert clock.charge(0.099) == 0.0
    assert clock.bank_ms() == 500
    assert clock.time_left_ms() == 600


def test_time_over_the_limit_comes_out_of_the_bank() -> None:
    """A slow move is paid from the bank, and the next allowance is smaller."""
    clock = SeatClock(TimeLimits(move_ms=100, bank_ms=500))
    assert clock.charge(0.350) == 0.0
    assert clock.bank_ms() == 250
    assert clock.time_left_ms() == 350


def test_overrun_past_the_bank_is_reported_and_time_left_never_negative() -> None:
    """A move longer than limit plus bank reports the overrun; remaining time stays at zero."""
    clock = SeatClock(TimeLimits(move_ms=100, bank_ms=200))
    assert clock.charge(0.450) == pytest.approx(0.150)
    assert clock.bank_ms() == 0
    assert clock.time_left_ms() == 100


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"move_ms": 0}, "move_ms=0"),
        ({"startup_ms": 0}, "startup_ms=0"),
        ({"bank_ms": -1}, "bank_ms=-1"),
    ],
)
def test_invalid_limits_are_refused(kwargs: dict[str, int], message: str) -> None:
    """Zero or negative limits are a clear error naming the value."""
    with pytest.raises(ValueError, match=message):
        TimeLimits(**kwargs)


def test_a_reply_taken_up_after_the_deadline_is_charged_the_allowance_and_flagged_late() -> None:
    """A reply accepted though taken up past the deadline: the allowance is charged, and the
    time past it is the referee's lateness."""
    charged, late = accepted_elapsed(0.137, 0.100)
    assert charged == 0.100
    assert late == pytest.approx(0.037)
    assert late_ms(late) == 37.0


def test_a_reply_in_time_is_charged_what_it_took_and_is_not_late() -> None:
    """A reply taken up before the deadline is charged its time; no lateness is recorded."""
    assert accepted_elapsed(0.042, 0.100) == (0.042, 0.0)
    assert accepted_elapsed(0.100, 0.100) == (0.100, 0.0)
    assert late_ms(0.0) is None
    assert late_ms(1e-7) is None  # under a microsecond: nothing to write


@pytest.mark.parametrize(
    ("seconds", "ms"),
    [(0.0, 0.0), (0.0123, 12.3), (0.000_001_2, 0.001), (0.000_000_4, 0.0), (1.234_567_8, 1234.568)],
)
def test_a_time_is_recorded_in_milliseconds_to_the_microsecond(seconds: float, ms: float) -> None:
    assert ms_to_the_microsecond(seconds) == ms


@given(st.floats(min_value=0.0, max_value=3600.0))
def test_the_recorded_time_is_the_nearest_microsecond_and_prints_so(seconds: float) -> None:
    """Within half a microsecond of the time (and a float's error), and a whole number of
    microseconds: printed with at most three decimals, as the replays show it."""
    ms = ms_to_the_microsecond(seconds)
    assert abs(ms - seconds * 1000) <= 0.0005 + 1e-9 * max(1.0, seconds * 1000)
    decimals = repr(ms).partition(".")[2]
    assert "e" not in repr(ms) or ms == 0.0
    assert len(decimals) <= 3
