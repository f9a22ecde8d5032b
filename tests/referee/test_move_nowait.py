"""The runner's turn without an await (`_MatchRunner._move_nowait`): a reply that is there when
its request is written is played at once, and every other case (no reply yet, a full pipe, a
closed pipe, a bad reply) goes on through the awaited path with the same outcome."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager

import trio
import trio.testing

from arena.games.matador import MATADOR, MatadorRules
from arena.games.match import MatchLength
from arena.referee.channel import BotChannel, BotSpec, MemoryChannel, Script, scripted_connector
from arena.referee.clock import TimeLimits
from arena.referee.match import MatchConfig, play_match
from arena.referee.process import FAIR_SLICE_S, BotGoneError, ExitStatus
from arena.replay import Replay, Status
from tests.helpers import autojump_clock
from tests.referee.test_match_scripted import first_legal

CONFIG = MatchConfig(
    game=MATADOR,
    rules=MatadorRules(),
    players=2,
    seed=21,
    length=MatchLength(target=None, hands=2),
    time=TimeLimits(startup_ms=1000, move_ms=1000),
)


class _PipeLikeBot(MemoryChannel):
    """An in-memory bot with a pipe's non-blocking calls: ``send_line_nowait`` takes every
    line, and its answer is there at once (``poll_line_nowait``) or, with ``at_once`` false,
    only for an awaited ``receive_line``; ``tick`` moves the mock clock at each request."""

    def __init__(self, script: Script, *, at_once: bool = True, tick: float = 0.0) -> None:
        self._script = script
        self._at_once = at_once
        self._tick = tick
        self._ready: list[bytes] = []
        self._later: list[bytes] = []
        self._exit = ExitStatus(None, None)
        self._gone_at: int | None = None
        self.requests = 0
        self.awaited = 0  # receive_line calls

    def close_at(self, request: int) -> None:
        """Its input is closed from request number ``request`` on (1 is the first)."""
        self._gone_at = request

    def _take(self, line: bytes) -> None:
        if json.loads(line)["type"] == "request":
            self.requests += 1
            if self._gone_at is not None and self.requests >= self._gone_at:
                self._exit = ExitStatus(1, None)
                raise BotGoneError("the bot closed its input")
            if self._tick:
                clock = trio.lowlevel.current_clock()
                assert isinstance(clock, trio.testing.MockClock)
                clock.jump(self._tick)
        reply = self._script(line)
        if reply is None or line.startswith(b'{"type":"error"'):
            self._exit = ExitStatus(0, None)
            return
        assert isinstance(reply, list)
        (self._ready if self._at_once else self._later).extend(reply)

    async def send_line(self, line: bytes) -> None:
        await trio.lowlevel.checkpoint()
        self._take(line)

    def send_line_nowait(self, line: bytes) -> bool:
        self._take(line)
        return True

    async def receive_line(self) -> bytes:
        self.awaited += 1
        await trio.lowlevel.checkpoint()
        self._ready.extend(self._later)
        self._later.clear()
        return self._ready.pop(0)

    def poll_line_nowait(self) -> bytes | None:
        return self._ready.pop(0) if self._ready else None

    async def wait_exit(self) -> ExitStatus:
        await trio.lowlevel.checkpoint()
        return self._exit


def play(make: Callable[[str], _PipeLikeBot]) -> tuple[Replay, dict[str, _PipeLikeBot]]:
    """A match between ``make("a")`` and ``make("b")`` on the mock clock."""
    bots: dict[str, _PipeLikeBot] = {}

    @asynccontextmanager
    async def connect(spec: BotSpec) -> AsyncIterator[BotChannel]:
        bots[spec.command] = bot = make(spec.command)
        yield bot

    replay = trio.run(
        lambda: play_match(CONFIG, ["a", "b"], connect=connect), clock=autojump_clock()
    )
    return replay, bots


def awaited_path(scripts: dict[str, Script]) -> Replay:
    """The same match with `ScriptedBot`s, whose every request goes the awaited way."""
    connect = scripted_connector(scripts)
    return trio.run(
        lambda: play_match(CONFIG, list(scripts), connect=connect), clock=autojump_clock()
    )


def invalid(name: str) -> Script:
    """Plays the first legal move, except at its second request: a move the protocol refuses
    (no such tile, and a field missing)."""
    legal = first_legal(name)
    count = 0

    def script(line: bytes) -> list[bytes] | tuple[float, list[bytes]] | None:
        nonlocal count
        msg = json.loads(line)
        if msg["type"] == "request":
            count += 1
            if count == 2:
                move = {"type": "play", "tile": [9, 9], "end": "left"}
                return [json.dumps({"type": "move", "id": msg["id"], "move": move}).encode()]
        return legal(line)

    return script


def test_replies_there_at_once_are_played_without_awaiting_them() -> None:
    """On a clock that stands still, only the match's first request (which passes the
    scheduler) is awaited; every later one is played from the reply already there."""
    replay, bots = play(lambda name: _PipeLikeBot(first_legal(name)))
    assert [s.status for s in replay.seats] == [Status.OK, Status.OK]
    assert bots["a"].requests + bots["b"].requests > 40
    # ready once each, and the first request of the match
    assert bots["a"].awaited + bots["b"].awaited == 3


def test_the_scheduler_is_passed_once_per_fair_slice() -> None:
    """Taking replies that are there at once, the runner still passes the scheduler (and then
    awaits that request) once each FAIR_SLICE_S: every fourth request at a quarter slice each."""
    replay, bots = play(lambda name: _PipeLikeBot(first_legal(name), tick=FAIR_SLICE_S / 4))
    assert [s.status for s in replay.seats] == [Status.OK, Status.OK]
    requests = bots["a"].requests + bots["b"].requests
    awaited = bots["a"].awaited + bots["b"].awaited - 2
    assert requests / 5 <= awaited <= requests / 3


def test_a_match_is_the_same_whether_replies_are_there_at_once_or_awaited() -> None:
    """The same moves, records and result with every reply there at once, every reply
    awaited (the bot answers only once waited for), and ScriptedBot's awaited path."""
    at_once, _ = play(lambda name: _PipeLikeBot(first_legal(name)))
    later, bots = play(lambda name: _PipeLikeBot(first_legal(name), at_once=False))
    scripted = awaited_path({"a": first_legal("a"), "b": first_legal("b")})
    assert bots["a"].awaited == bots["a"].requests + 1
    for other in (later, scripted):
        assert at_once.hands == other.hands
        assert at_once.result == other.result
        assert at_once.seats == other.seats


def test_a_bad_reply_there_at_once_is_the_same_typed_failure() -> None:
    """A bad reply found at once is judged by the awaited path: the same protocol failure,
    evidence included, as when it is awaited."""
    at_once, _ = play(
        lambda name: _PipeLikeBot(invalid(name) if name == "a" else first_legal(name))
    )
    scripted = awaited_path({"a": invalid("a"), "b": first_legal("b")})
    failure = at_once.seats[0].failure
    assert failure is not None
    assert failure.status is Status.BAD_MESSAGE
    assert failure == scripted.seats[0].failure
    assert at_once.result == scripted.result
    assert at_once.hands == scripted.hands


def test_a_closed_input_met_without_awaiting_is_a_crash_with_its_request() -> None:
    """A bot whose input is closed when a request is written without waiting crashes at that
    request, as the awaited write reports it."""

    def closing(name: str) -> _PipeLikeBot:
        bot = _PipeLikeBot(first_legal(name))
        if name == "a":
            bot.close_at(3)
        return bot

    replay, bots = play(closing)
    failure = replay.seats[0].failure
    assert failure is not None
    assert failure.status is Status.CRASH
    assert failure.request_id is not None
    assert replay.seats[1].status is Status.OK
    assert bots["a"].requests == 4  # the nowait write, then the awaited one, both refused
