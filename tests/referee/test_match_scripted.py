"""The match runner against in-memory scripted bots, on trio's MockClock (zero real time)."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import trio
import trio.testing

from arena.games.matador import MATADOR, MatadorRules
from arena.games.match import MatchLength
from arena.referee.channel import BotChannel, BotSpec, MemoryChannel, Script, scripted_connector
from arena.referee.clock import TimeLimits
from arena.referee.match import MatchConfig, play_match
from arena.referee.process import ExitStatus
from arena.replay import Action, Replay, Status
from arena.verify import verify_replay
from tests.helpers import autojump_clock


def first_legal(name: str, *, delay_at: int | None = None, delay: float = 0.0) -> Script:
    """A scripted bot playing the first legal move; request ``delay_at`` is answered late."""
    count = 0

    def script(line: bytes) -> list[bytes] | tuple[float, list[bytes]] | None:
        nonlocal count
        msg = json.loads(line)
        if msg["type"] == "hello":
            return [json.dumps({"type": "ready", "name": name}).encode()]
        if msg["type"] == "request":
            count += 1
            reply = [
                json.dumps({"type": "move", "id": msg["id"], "move": msg["legal"][0]}).encode()
            ]
            if count == delay_at:
                return (delay, reply)
            return reply
        if msg["type"] == "match_end":
            return None
        return []

    return script


def run(scripts: dict[str, Script], *, move_ms: int = 1000, bank_ms: int = 0) -> Replay:
    """Play a 2-hand match between scripted bots under MockClock; returns the replay."""
    config = MatchConfig(
        game=MATADOR,
        rules=MatadorRules(),
        players=len(scripts),
        seed=21,
        length=MatchLength(target=None, hands=2),
        time=TimeLimits(startup_ms=1000, move_ms=move_ms, bank_ms=bank_ms),
    )
    connect = scripted_connector(scripts)
    clock = autojump_clock()
    replay: Replay = trio.run(
        lambda: play_match(config, list(scripts), connect=connect), clock=clock
    )
    return replay


def test_scripted_bots_play_a_whole_match() -> None:
    """Two scripted bots finish both hands with ok statuses and a verifiable replay."""
    replay = run({"a": first_legal("a"), "b": first_legal("b")})
    assert [s.status for s in replay.seats] == [Status.OK, Status.OK]
    assert len(replay.hands) == 2
    assert verify_replay(replay).ok


def test_a_very_late_reply_times_out_with_its_overrun_in_mock_time() -> None:
    """A reply due an hour late is a timeout, reported after the allowance, in zero real time."""
    replay = run({"a": first_legal("a", delay_at=2, delay=3600), "b": first_legal("b")})
    failure = replay.seats[0].failure
    assert failure is not None
    assert failure.status is Status.TIMEOUT
    assert failure.request_id is not None
    assert failure.overrun_ms == 0.0
    assert replay.result.winner == 1


def test_the_bank_pays_for_a_slow_move_exactly() -> None:
    """A 1.5 s move with a 1 s limit and a 2 s bank is in time and leaves 1.5 s of bank."""
    replay = run(
        {"a": first_legal("a", delay_at=1, delay=1.5), "b": first_legal("b")},
        move_ms=1000,
        bank_ms=2000,
    )
    assert replay.seats[0].status is Status.OK
    moves = [e for h in replay.hands for e in h.events if isinstance(e, Action) and e.seat == 0]
    assert moves[0].time_left_ms == 3000
    assert moves[0].elapsed_ms == 1500.0
    assert moves[1].time_left_ms == 2500


def test_requests_carry_increasing_ids_and_only_the_seats_own_hand() -> None:
    """Every request has a fresh id; its hand is the seat's own tiles, never another's."""
    seen: list[dict[str, object]] = []
    inner = first_legal("a")

    def spy(line: bytes) -> list[bytes] | tuple[float, list[bytes]] | None:
        msg = json.loads(line)
        if msg["type"] == "request":
            seen.append(msg)
        return inner(line)

    replay = run({"a": spy, "b": first_legal("b")})
    ids = [m["id"] for m in seen]
    assert ids == sorted(set(ids))  # type: ignore[type-var]
    for hand in replay.hands:
        other = {tuple(t) for t in hand.deal.hands[1]}
        for msg in seen:
            if msg["hand_number"] == hand.hand_number:
                assert not {tuple(t) for t in msg["hand"]} & other  # type: ignore[attr-defined]
    assert "boneyard" not in json.dumps(seen).replace("boneyard_size", "")


def paced(name: str, delays: dict[int, float], default: float = 0.0) -> Script:
    """Like `first_legal`, but request N is answered after ``delays.get(N, default)`` s."""
    inner = first_legal(name)
    count = 0

    def script(line: bytes) -> list[bytes] | tuple[float, list[bytes]] | None:
        nonlocal count
        reply = inner(line)
        if json.loads(line)["type"] != "request":
            return reply
        count += 1
        delay = delays.get(count, default)
        assert isinstance(reply, list)
        return (delay, reply) if delay else reply

    return script


def test_a_request_due_before_the_one_before_it_times_out_at_its_own_deadline() -> None:
    """A seat with less bank left than the other is timed out at its own, earlier, deadline."""
    # a spends all but 50 ms of its bank on its first move; b answers every request in 90 ms of
    # its 100 ms limit. a's second request is then due 150 ms after it is sent, sooner than b's
    # request just before it (1.1 s after that one was sent).
    replay = run(
        {"a": paced("a", {1: 1.05, 2: 3600}), "b": paced("b", {}, default=0.09)},
        move_ms=100,
        bank_ms=1000,
    )
    failure = replay.seats[0].failure
    assert failure is not None
    assert failure.status is Status.TIMEOUT
    assert failure.overrun_ms == 0.0
    assert replay.seats[1].status is Status.OK


def test_a_deadline_that_passes_while_a_failed_bot_is_stopped_is_no_timeout() -> None:
    """An illegal move answered at once is recorded as such, though its request's deadline
    passes while the referee waits for the bot to exit."""

    def illegal(line: bytes) -> list[bytes] | None:
        msg = json.loads(line)
        if msg["type"] == "hello":
            return [b'{"type":"ready","name":"a"}']
        if msg["type"] == "request":
            moves = ({"action": "pass"}, {"action": "draw"})
            move = next(m for m in moves if m not in msg["legal"])
            return [json.dumps({"type": "move", "id": msg["id"], "move": move}).encode()]
        return []  # it reads the error and keeps running: the referee waits, then stops it

    replay = run({"a": illegal, "b": first_legal("b")}, move_ms=100)
    assert replay.seats[0].status is Status.ILLEGAL_MOVE
    assert replay.seats[1].status is Status.OK


class _StallingBot(MemoryChannel):
    """An in-memory bot that answers every request at once; from its request ``stall_from``
    on, the referee, having just read the reply, stalls for ``stall_s`` (the mock clock jumps)
    before its next checkpoint (`BotProcess.receive_line` yields once a buffered line is read).
    """

    def __init__(self, script: Script, stall_from: int | None, stall_s: float) -> None:
        self._script = script
        self._stall_from = stall_from
        self._stall_s = stall_s
        self._replies: list[bytes] = []
        self._requests = 0
        self._exit = ExitStatus(None, None)

    async def send_line(self, line: bytes) -> None:
        await trio.lowlevel.checkpoint_if_cancelled()
        if json.loads(line)["type"] == "request":
            self._requests += 1
        reply = self._script(line)
        if reply is None:
            self._exit = ExitStatus(0, None)
        else:
            assert isinstance(reply, list)
            self._replies.extend(reply)

    async def receive_line(self) -> bytes:
        await trio.lowlevel.checkpoint_if_cancelled()
        line = self._replies.pop(0)
        if self._stall_from is not None and self._requests >= self._stall_from:
            clock = trio.lowlevel.current_clock()
            assert isinstance(clock, trio.testing.MockClock)
            clock.jump(self._stall_s)
        await trio.lowlevel.cancel_shielded_checkpoint()
        return line

    def send_line_nowait(self, line: bytes) -> bool:
        return False

    def poll_line_nowait(self) -> bytes | None:
        return self._replies.pop(0) if self._replies else None

    async def wait_exit(self) -> ExitStatus:
        await trio.lowlevel.checkpoint()
        return self._exit


def test_a_reply_read_before_a_referee_stall_past_its_deadline_is_in_time() -> None:
    """A reply read in time is accepted when the referee stalls past the request's deadline
    before its next checkpoint, and no other request is blamed for it."""
    # Stalls at every request of a from its third on: the deadline may be noticed before or
    # after the referee takes up the reply (trio runs a batch of ready tasks in random order).
    config = MatchConfig(
        game=MATADOR,
        rules=MatadorRules(),
        players=2,
        seed=21,
        length=MatchLength(target=None, hands=2),
        time=TimeLimits(startup_ms=1000, move_ms=100),
    )

    @asynccontextmanager
    async def connect(spec: BotSpec) -> AsyncIterator[BotChannel]:
        stall_from = 3 if spec.command == "a" else None
        yield _StallingBot(first_legal(spec.command), stall_from, stall_s=0.5)

    clock = autojump_clock()
    replay: Replay = trio.run(lambda: play_match(config, ["a", "b"], connect=connect), clock=clock)
    assert [s.status for s in replay.seats] == [Status.OK, Status.OK]
    moves = [e for h in replay.hands for e in h.events if isinstance(e, Action) and e.seat == 0]
    assert len(moves) > 10
    # Each stalled reply is charged the whole allowance, not the stall.
    assert {a.elapsed_ms for a in moves[2:]} == {100.0}
    assert verify_replay(replay).ok
