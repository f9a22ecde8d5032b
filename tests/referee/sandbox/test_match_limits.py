"""Real matches (play_match) with sandboxed bots: resource limits become outcomes.

A memory hog is ``memory_limit``, a CPU spinner given a move allowance longer than its CPU
budget is ``cpu_limit`` (with a shorter allowance it is a ``timeout``: the referee's clock comes
first), a stdout flood over ``max_stdout_bytes`` is ``output_limit``, and the sample bots play
a whole match under the sandbox with every seat ``ok``.
"""

from __future__ import annotations

import dataclasses
import sys
import time
from pathlib import Path

import pytest
import trio

from arena.games.matador import MATADOR, MatadorRules
from arena.games.match import MatchLength
from arena.referee.clock import TimeLimits
from arena.referee.match import MatchConfig, play_match
from arena.referee.sandbox import Capabilities, SandboxPlan, plan_sandbox
from arena.replay import Replay, Status
from arena.verify import verify_replay
from tests.processes import live_processes_with
from tests.referee.sandbox.conftest import FAST, PYTHON, bot, our_cgroups

REPO = Path(__file__).resolve().parents[3]
SAMPLES = REPO / "sample_bots"


def play(
    commands: list[str],
    plan: SandboxPlan,
    *,
    move_ms: int = 10_000,
    hands: int = 1,
    max_stdout_bytes: int | None = None,
) -> Replay:
    config = MatchConfig(
        game=MATADOR,
        rules=MatadorRules(),
        players=len(commands),
        seed=5,
        length=MatchLength(target=None, hands=hands),
        time=TimeLimits(startup_ms=10_000, move_ms=move_ms),
        sandbox=plan,
        max_stdout_bytes=max_stdout_bytes,
    )
    return trio.run(play_match, config, commands)


def misbehaver(mode: str, marker: str) -> str:
    return " ".join([*bot("protocol_misbehaver", mode), marker])


def random_bot(marker: str) -> str:
    return f"{PYTHON} {SAMPLES / 'random_bot.py'} {marker}"


def after(replay: Replay, marker: str, caps: Capabilities) -> None:
    report = verify_replay(replay)
    assert report.ok, report.error
    deadline = time.monotonic() + 1
    while live_processes_with(marker) and time.monotonic() < deadline:
        time.sleep(0.01)
    assert live_processes_with(marker) == []
    assert our_cgroups(caps) == []


@pytest.fixture
def plan(capabilities: Capabilities) -> SandboxPlan:
    return plan_sandbox(FAST, capabilities)


def test_memory_hog_is_memory_limit(
    plan: SandboxPlan, capabilities: Capabilities, marker: str
) -> None:
    if capabilities.cgroup is None or "memory" not in capabilities.cgroup.controllers:
        pytest.skip("no memory cgroup here: an OOM kill cannot be told from a crash")
    replay = play([misbehaver("hog", marker), random_bot(marker)], plan)
    seat = replay.seats[0]
    assert seat.status is Status.MEMORY_LIMIT, seat
    assert seat.failure is not None
    assert seat.failure.phase == "move"
    assert "memory limit of 128 MB" in seat.failure.detail
    assert seat.failure.memory_peak_bytes is not None
    assert seat.failure.memory_peak_bytes > 64 << 20
    assert replay.seats[1].status is Status.OK
    assert replay.result.winner == 1
    after(replay, marker, capabilities)


def test_cpu_spinner_is_cpu_limit(
    plan: SandboxPlan, capabilities: Capabilities, marker: str
) -> None:
    # FAST allows 1 s of CPU per match; a 10 s allowance lets the sandbox's limit come first.
    replay = play([misbehaver("spin", marker), random_bot(marker)], plan, move_ms=10_000)
    seat = replay.seats[0]
    assert seat.status is Status.CPU_LIMIT, seat
    assert seat.failure is not None
    assert "CPU time" in seat.failure.detail
    if capabilities.cgroup is not None and "cpu" in capabilities.cgroup.controllers:
        assert seat.failure.cpu_seconds is not None
        assert seat.failure.cpu_seconds >= 0.9
    assert replay.seats[1].status is Status.OK
    after(replay, marker, capabilities)


def test_cpu_spinner_with_a_short_allowance_is_a_timeout(
    plan: SandboxPlan, capabilities: Capabilities, marker: str
) -> None:
    # The referee's clock (0.3 s) comes before the sandbox's CPU limit (1 s): a timeout.
    replay = play([misbehaver("spin", marker), random_bot(marker)], plan, move_ms=300)
    seat = replay.seats[0]
    assert seat.status is Status.TIMEOUT, seat
    after(replay, marker, capabilities)


def test_stdout_flood_is_output_limit(
    plan: SandboxPlan, capabilities: Capabilities, marker: str
) -> None:
    replay = play(
        [misbehaver("flood", marker), random_bot(marker)], plan, max_stdout_bytes=16 << 10
    )
    seat = replay.seats[0]
    assert seat.status is Status.OUTPUT_LIMIT, seat
    assert seat.failure is not None
    assert "16384 bytes" in seat.failure.detail
    assert replay.seats[1].status is Status.OK
    after(replay, marker, capabilities)


def test_stdout_cap_without_a_sandbox(capabilities: Capabilities, marker: str) -> None:
    config = MatchConfig(
        game=MATADOR,
        rules=MatadorRules(),
        players=2,
        seed=5,
        length=MatchLength(target=None, hands=1),
        time=TimeLimits(startup_ms=10_000, move_ms=10_000),
        max_stdout_bytes=16 << 10,
    )
    replay = trio.run(play_match, config, [misbehaver("flood", marker), random_bot(marker)])
    assert replay.seats[0].status is Status.OUTPUT_LIMIT
    after(replay, marker, capabilities)


def test_sample_bots_play_a_whole_match_sandboxed(capabilities: Capabilities, marker: str) -> None:
    # greedy.py imports the arena's protocol package (and msgspec): it needs the Python that
    # has msgspec and the protocol folder readable, as docs/security.md says.
    config = dataclasses.replace(FAST, cpu_seconds=30, read_only_paths=(str(REPO / "protocol"),))
    plan = plan_sandbox(config, capabilities)
    commands = [
        random_bot(marker),
        f"{sys.executable} {SAMPLES / 'greedy.py'} {marker}",
        random_bot(marker),
    ]
    replay = play(commands, plan, hands=3)
    assert [s.status for s in replay.seats] == [Status.OK] * 3, [
        (s.status, s.detail, s.stderr[-300:]) for s in replay.seats
    ]
    assert len(replay.hands) == 3
    after(replay, marker, capabilities)
