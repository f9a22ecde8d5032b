"""The failure policy presets and the referee's seeded substitute move (pure)."""

from __future__ import annotations

import re

import pytest
from hypothesis import given
from hypothesis import strategies as st

from arena.policy import FailurePolicy, make_policy, substitute_move
from arena.status import Phase, Status


def test_presets() -> None:
    assert make_policy("strict") == FailurePolicy("strict", 0, 0)
    assert make_policy("classroom") == FailurePolicy("classroom", 0, 0)
    assert make_policy("lenient") == FailurePolicy("lenient", 3, 1)
    assert make_policy("lenient", strikes=5, restarts=0) == FailurePolicy("lenient", 5, 0)
    assert make_policy("classroom").loud
    assert not make_policy("strict").loud
    assert make_policy("lenient").describe() == "lenient (3 strikes, 1 restart)"
    assert make_policy("lenient", restarts=2).describe() == "lenient (3 strikes, 2 restarts)"


@pytest.mark.parametrize(
    ("name", "kwargs", "message"),
    [
        ("harsh", {}, "unknown failure policy 'harsh'; policies: strict, classroom, lenient"),
        (
            "strict",
            {"strikes": 2},
            "strikes and restarts apply to the lenient policy, not 'strict'",
        ),
        ("lenient", {"strikes": 0}, "strikes must be at least 1 (the strike that forfeits), not 0"),
        ("lenient", {"restarts": -1}, "restarts must not be negative, not -1"),
    ],
)
def test_bad_policies_are_refused_by_name(name: str, kwargs: dict[str, int], message: str) -> None:
    with pytest.raises(ValueError, match=re.escape(message)) as error:
        make_policy(name, **kwargs)
    assert str(error.value) == message


@pytest.mark.parametrize(
    ("status", "phase", "strike", "restart"),
    [
        ("timeout", "move", True, False),
        ("bad_message", "move", True, False),
        ("illegal_move", "move", True, False),
        ("line_too_long", "move", False, False),
        ("output_limit", "move", False, False),
        ("cpu_limit", "move", False, False),
        ("timeout", "notify", False, False),
        ("timeout", "startup", False, False),
        ("crash", "move", False, True),
        ("crash", "notify", False, True),
        ("memory_limit", "move", False, True),
        ("crash", "startup", False, False),
    ],
)
def test_what_lenient_strikes_and_restarts(
    status: str, phase: str, strike: bool, restart: bool
) -> None:
    lenient = make_policy("lenient")
    kind, when = Status(status), Phase(phase)
    assert lenient.strikes_for(kind, when) is strike
    assert lenient.restarts_for(kind, when) is restart
    strict = make_policy("strict")
    assert not strict.strikes_for(kind, when)
    assert not strict.restarts_for(kind, when)


def test_the_substitute_move_is_a_fixed_function_of_seed_and_request() -> None:
    """The same on every machine and Python: pinned values."""
    moves = list("abcdefghij")
    assert [substitute_move(7, r, moves) for r in range(1, 9)] == list("hgeegecb")
    with pytest.raises(ValueError, match="no legal move to substitute"):
        substitute_move(7, 1, [])


@given(st.integers(0, 2**63 - 1), st.integers(0, 10**6), st.lists(st.integers(), min_size=1))
def test_the_substitute_is_one_of_the_legal_moves(
    seed: int, request: int, legal: list[int]
) -> None:
    assert substitute_move(seed, request, legal) in legal
