"""Replies the referee takes up after their deadline because it woke late, on trio's
MockClock: accepted, charged the allowance, and recorded with how late the referee was."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import pytest
import trio
import trio.testing

from arena.games.matador import MATADOR, MatadorRules
from arena.games.match import MatchLength
from arena.referee.channel import (
    BotChannel,
    BotSpec,
    Reply,
    Script,
    ScriptedBot,
    scripted_connector,
)
from arena.referee.clock import TimeLimits
from arena.referee.match import MatchConfig, play_match
from arena.replay import Action, Replay, Status, decode_replay, encode_replay
from arena.verify import verify_replay
from tests.helpers import autojump_clock

MOVE_MS = 100


def thinker(name: str) -> Script:
    """The script of a bot that plays the first legal move of each request after 50 ms."""

    def script(line: bytes) -> Reply | tuple[float, Reply] | None:
        msg = json.loads(line)
        if msg["type"] == "hello":
            return [json.dumps({"type": "ready", "name": name}).encode()]
        if msg["type"] == "request":
            move = {"type": "move", "id": msg["id"], "move": msg["legal"][0]}
            return (0.05, [json.dumps(move).encode()])
        if msg["type"] == "match_end":
            return None
        return []

    return script


def first_legal(name: str) -> ScriptedBot:
    """An in-memory bot that plays the first legal move of each request after 50 ms."""
    return ScriptedBot(thinker(name))


class _StalledReferee(ScriptedBot):
    """From its request ``stall_from`` on, the bot's reply lands in its pipe in time (50 ms),
    and at that very moment the referee loses the CPU for ``stall_s`` (the mock clock jumps
    with no checkpoint in between), so it wakes past the deadline with the reply waiting."""

    def __init__(self, name: str, stall_from: int, stall_s: float) -> None:
        super().__init__(thinker(name))
        self.requests = 0
        self.stall_from = stall_from
        self.stall_s = stall_s

    async def send_line(self, line: bytes) -> None:
        if json.loads(line)["type"] == "request":
            self.requests += 1
        await super().send_line(line)

    async def _later(self, delay: float, lines: Reply) -> None:
        await trio.sleep(delay)
        for out in lines:
            self._send.send_nowait(out)
        if self.requests >= self.stall_from:
            clock = trio.lowlevel.current_clock()
            assert isinstance(clock, trio.testing.MockClock)
            clock.jump(self.stall_s)


def play(connect: object, seed: int = 21) -> Replay:
    config = MatchConfig(
        game=MATADOR,
        rules=MatadorRules(),
        players=2,
        seed=seed,
        length=MatchLength(target=None, hands=2),
        time=TimeLimits(startup_ms=1000, move_ms=MOVE_MS),
    )
    clock = autojump_clock()
    replay: Replay = trio.run(
        lambda: play_match(config, ["a", "b"], connect=connect),  # type: ignore[arg-type]
        clock=clock,
    )
    return replay


def moves_of(replay: Replay, seat: int) -> list[Action]:
    return [e for h in replay.hands for e in h.events if isinstance(e, Action) and e.seat == seat]


@pytest.mark.parametrize("seed", [21, 22, 23, 24])
def test_a_reply_in_time_read_late_is_accepted_and_recorded_with_the_referees_lateness(
    seed: int,
) -> None:
    """A reply in the pipe at 50 ms, taken up at 350 ms because the referee stalled: the move
    stands, is charged the 100 ms allowance, and records the 250 ms the referee was late
    (whichever of the watchdog and the match task trio runs first after the stall)."""

    @asynccontextmanager
    async def connect(spec: BotSpec) -> AsyncIterator[BotChannel]:
        bot = _StalledReferee(spec.command, 3, 0.3) if spec.command == "a" else first_legal("b")
        try:
            yield bot
        finally:
            await bot.aclose()

    replay = play(connect, seed)
    assert [s.status for s in replay.seats] == [Status.OK, Status.OK]
    moves = moves_of(replay, 0)
    assert len(moves) > 4
    assert [a.late_ms for a in moves[:2]] == [None, None]
    assert [a.elapsed_ms for a in moves[:2]] == [50.0, 50.0]
    assert {a.elapsed_ms for a in moves[2:]} == {100.0}
    assert {a.late_ms for a in moves[2:]} == {250.0}
    assert {a.late_ms for a in moves_of(replay, 1)} == {None}
    assert verify_replay(replay).ok


def test_a_match_without_lateness_writes_no_late_field() -> None:
    """Replays of matches where the referee was never late are as before: no ``late_ms``."""
    connect = scripted_connector({"a": thinker("a"), "b": thinker("b")})
    replay = play(connect)
    assert b"late_ms" not in encode_replay(replay)
    assert all(a.late_ms is None for a in moves_of(replay, 0) + moves_of(replay, 1))


def test_a_replay_with_late_moves_reads_back_and_verifies() -> None:
    """``late_ms`` round-trips through the replay file and ``arena verify`` still passes."""

    @asynccontextmanager
    async def connect(spec: BotSpec) -> AsyncIterator[BotChannel]:
        bot = _StalledReferee(spec.command, 1, 0.3) if spec.command == "a" else first_legal("b")
        try:
            yield bot
        finally:
            await bot.aclose()

    replay = play(connect)
    data = encode_replay(replay)
    assert b'"elapsed_ms":100.0,"late_ms":250.0' in data
    again = decode_replay(data)
    assert again == replay
    assert verify_replay(again).ok
