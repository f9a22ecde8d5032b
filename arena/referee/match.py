"""Play one match: the engine, the bots and the clocks, and the replay that records it all.

The runner is the only place where the rules meet processes and time. Everything it learns
about a bot's failure becomes a :class:`~arena.replay.Failure` with its evidence; the failing
seat loses (in games of three or four it is retired: it passes from then on and ranks last, and
the others play on). Every bot process is gone when :func:`play_match` returns, however it
returns (normal end, exception, cancellation, Ctrl-C).
"""

from __future__ import annotations

import datetime
import gc
import math
from collections.abc import Sequence
from contextlib import AsyncExitStack, suppress
from dataclasses import dataclass, field
from typing import Any

import msgspec
import trio

from arena.errors import BotCommandError, BotEOFError, BotGoneError, OutputLimitError
from arena.failure_text import explain_for_bot
from arena.games.api import Deal, Game, GameState
from arena.games.match import EndReason, Match, MatchLength, bot_seed, hand_leader, start_match
from arena.judge import Accepted, Fault, Rejection, judge_move, judge_ready
from arena.live_events import HandBegan, HandOver, MatchBegan, MatchObserver, MatchOver, Played
from arena.policy import STRICT, FailurePolicy, substitute_move
from arena.redaction import detail_for_others
from arena.referee.channel import BotChannel, BotSpec, Connector
from arena.referee.clock import TimeLimits, accepted_elapsed, late_ms, ms_to_the_microsecond
from arena.referee.failures import (
    crash_failure,
    io_failure,
    rejected_failure,
    resource_limited,
    timeout_failure,
    with_messages,
)
from arena.referee.framing import LineTooLongError
from arena.referee.process import FAIR_SLICE_S, open_bot_process
from arena.referee.records import hand_record, outcome_record, replay_record
from arena.referee.sandbox import SandboxPlan
from arena.referee.seat import Pending, Seat
from arena.referee.watchdog import Watchdog, service_nursery
from arena.replay import (
    Action,
    Failure,
    HandEvent,
    HandRecord,
    Phase,
    Replay,
    Restart,
    ResultRecord,
    Retirement,
    Status,
)
from arena.wire import (
    RequestBuilder,
    hand_end,
    hand_start,
    move_to_wire,
    rules_to_wire,
)
from protocol import messages as m
from protocol.codec import encode

#: How long a bot gets to take a notification (hand start/end) off the pipe.
NOTIFY_TIMEOUT_S = 5.0
#: How long the referee tries to tell a failing bot why it is being stopped.
ERROR_SEND_TIMEOUT_S = 0.1
#: After the ``error`` message, how long a failed bot may take to exit by itself.
ERROR_READ_GRACE_S = 0.2
#: After ``match_end``, how long a bot has to exit by itself before it is stopped.
EXIT_GRACE_S = 0.5


@dataclass(frozen=True)
class MatchConfig:
    """What to play: the game and rules, the seats, the seed, the length, the clocks.

    ``sandbox`` contains every bot of the match (a plan made once with
    `arena.referee.sandbox.plan_sandbox`; ``None`` runs them uncontained), and
    ``max_stdout_bytes`` caps what each bot may write to its stdout in the whole match
    (``None``: no cap); passing it is an ``output_limit``. ``policy`` says what a failure
    costs (`arena.policy`: strict by default). ``sandbox_settings`` is the sandbox's
    configuration as a mapping, recorded in the replay so `arena rematch` can contain the bots
    the same way.
    """

    game: Game
    rules: Any
    players: int
    seed: int
    length: MatchLength = field(default_factory=MatchLength)
    time: TimeLimits = field(default_factory=TimeLimits)
    max_line_bytes: int = 1 << 16
    sandbox: SandboxPlan | None = None
    max_stdout_bytes: int | None = None
    policy: FailurePolicy = STRICT
    sandbox_settings: dict[str, Any] | None = None


#: `_MatchRunner.resumed` when the pending request's answer is still to be read (a late answer
#: to an earlier, struck request was skipped).
_AWAIT_REPLY = b"\x00await the reply"
#: `_MatchRunner.resumed` when the pending request is still to be sent (`Pending.line`).
_SEND = b"\x00send the request"
_checkpoint = trio.lowlevel.checkpoint


class _BotFailed(Exception):
    """Internal: raised inside the runner when a bot fails; carries the failure record."""

    def __init__(self, failure: Failure) -> None:
        super().__init__(failure.detail)
        self.failure = failure


def freeze_startup_objects() -> None:
    """Move every object alive now out of the cyclic collector's reach, once per process.

    A long-lived process (``arena play``, a tournament worker) calls it after its imports and
    set-up: the collector then never walks those objects again, which removes the gen-2 pauses
    of tens of milliseconds that otherwise hit a match now and then. Per process, not per
    match: a worker runs many matches at once, and they must not freeze and unfreeze each
    other's objects.
    """
    gc.collect()
    gc.freeze()


async def play_match(
    config: MatchConfig,
    commands: Sequence[str | BotSpec],
    *,
    connect: Connector | None = None,
    observer: MatchObserver | None = None,
) -> Replay:
    """Play a whole match between the bots started by ``commands`` (one per seat).

    Args:
        config: the game, rules, seed, match length and time control.
        commands: one bot per seat, in seat order: a command line, or a :class:`BotSpec`
            with the folder to start it in.
        connect: how to start a bot from its command (default: a subprocess).
        observer: called with each live event (`arena.live_events`) as the match is played;
            it must return at once. Without one no event is built.

    Returns:
        The replay of the match (the caller writes it to disk).
    """
    if len(commands) != config.players:
        raise ValueError(f"{len(commands)} bots for {config.players} players")
    specs = [c if isinstance(c, BotSpec) else BotSpec(c) for c in commands]
    runner = _MatchRunner(config, specs, connect or _process_connector(config), observer)
    return await runner.run()


def _process_connector(config: MatchConfig) -> Connector:
    def connect(spec: BotSpec) -> Any:
        return open_bot_process(
            spec.command,
            cwd=spec.cwd,
            max_line_bytes=config.max_line_bytes,
            max_stdout_bytes=config.max_stdout_bytes,
            sandbox=config.sandbox,
        )

    return connect


class _MatchRunner:
    def __init__(
        self,
        config: MatchConfig,
        commands: list[BotSpec],
        connect: Connector,
        observer: MatchObserver | None = None,
    ) -> None:
        self.config = config
        self.observe = observer
        self.connect = connect
        self.seats = [Seat(s, c, config.time) for s, c in enumerate(commands)]
        self.hands: list[HandRecord] = []
        self.events: list[HandEvent] = []
        self.request_id = 0
        self.requests = RequestBuilder()
        # The move requests share one cancel scope, cancelled by the watchdog's task when the
        # pending request's deadline passes: a fresh scope per move, or even moving one scope's
        # deadline twice per move, was the largest part of the referee's own cost per move.
        # When it fires, the match loop is left and re-entered where it stood (_play_watched).
        self.watchdog: Watchdog | None = None
        self.pending: Pending | None = None
        self.resumed: bytes | None = None
        self.announced = 0
        self.dealt: Deal | None = None  # the deal of the hand announced last (its record's)
        self.match: Match | None = None
        # trio.current_time(), bound once the run starts (the clock's own method: MockClock's
        # in tests), and the time from which the next request passes the scheduler first.
        self.now = trio.current_time
        self.next_pass = -math.inf
        # One stack for every bot, closed last-in first-out (each bot's context holds a nursery,
        # and trio nurseries must close in order); a failed bot is stopped early with aclose().
        self.stack = AsyncExitStack()
        self.hosts: trio.Nursery | None = None

    async def run(self) -> Replay:
        started = datetime.datetime.now(datetime.UTC)
        self.now = trio.lowlevel.current_clock().current_time
        t0 = trio.current_time()
        config = self.config
        # Every bot's context is entered on this stack and exited when the block ends, however it
        # ends; each exit kills the bot's whole process group (shielded from cancellation).
        async with self.stack:
            # Bots restarted during the match (failure policy lenient) are started from inside
            # the watchdog's cancel scope; each one's context (which holds a nursery) is kept
            # open by a task of this nursery instead, which outlives the scope.
            self.hosts = await self.stack.enter_async_context(service_nursery())
            await self._start_bots()
            if self.observe is not None:
                header = ResultRecord([0] * config.players, None, EndReason.HANDS, [])
                begun = replay_record(config, self.seats, self.hands, started, 0.0, header)
                self.observe(MatchBegan(begun))
            match = start_match(
                config.game, config.rules, config.players, config.seed, config.length
            )
            # Bots that failed at start-up are retired before the first hand.
            match = match.retire(*(s.seat for s in self.seats if not s.live))
            self.match = match
            match = await self._play_watched(match)
            await self._finish(match)
        for seat in self.seats:
            if seat.channel is not None:
                seat.stderr = seat.channel.stderr_text()
        assert self.match is not None
        assert self.match.result is not None
        result = self.match.result
        record = ResultRecord(
            list(result.scores), result.winner, result.reason, list(result.ranking)
        )
        replay = replay_record(
            config, self.seats, self.hands, started, round(trio.current_time() - t0, 3), record
        )
        if self.observe is not None:
            self.observe(MatchOver(replay.result, replay.seats, replay.duration_s))
        return replay

    # -- start-up ------------------------------------------------------------------------------

    async def _start_bots(self) -> None:
        sent_at: dict[int, float] = {}
        for seat in self.seats:
            try:
                sent_at[seat.seat] = await self._launch(seat)
            except _BotFailed as failed:
                await self._stop(seat, failed.failure)
        # Every bot got its hello at about the same time; each has its own deadline from then.
        for seat in self.seats:
            if not seat.live:
                continue
            try:
                await self._await_ready(seat, sent_at[seat.seat])
            except _BotFailed as failed:
                await self._stop(seat, failed.failure)

    async def _launch(self, seat: Seat, phase: Phase = Phase.STARTUP) -> float:
        """Start the seat's bot and send it ``hello``; returns when ``hello`` was sent.

        Raises:
            _BotFailed: when the bot cannot be started or does not take ``hello``.
        """
        config = self.config
        try:
            if phase is Phase.RESTART:
                assert self.hosts is not None
                seat.channel = await self.hosts.start(self._host, seat.spec)
            else:
                seat.channel = await self.stack.enter_async_context(self.connect(seat.spec))
        except BotCommandError as error:
            raise _BotFailed(Failure(Status.CRASH, str(error), phase)) from None
        game: Any = config.game.name
        hello = m.Hello(
            protocol=m.PROTOCOL_VERSION,
            game=game,
            seat=seat.seat,
            players=config.players,
            rules=rules_to_wire(config.game.name, config.game.rules_dict(config.rules)),
            match=m.MatchLength(target=config.length.target, hands=config.length.hands),
            time=m.TimeControl(
                startup_ms=config.time.startup_ms,
                move_ms=config.time.move_ms,
                bank_ms=config.time.bank_ms,
            ),
            seed=bot_seed(config.seed, seat.seat),
        )
        sent_at = trio.current_time()
        line = encode(hello)
        seat.transcript.append(("sent", line))
        await self._send(seat, line, config.time.startup_ms / 1000, phase)
        return sent_at

    async def _host(
        self, spec: BotSpec, *, task_status: trio.TaskStatus[BotChannel] = trio.TASK_STATUS_IGNORED
    ) -> None:
        """Keep one restarted bot's context open until the match is over."""
        async with self.connect(spec) as channel:
            task_status.started(channel)
            await trio.sleep_forever()

    async def _await_ready(self, seat: Seat, sent_at: float, phase: Phase = Phase.STARTUP) -> None:
        """Read the bot's ``ready`` (its start-up limit counts from ``sent_at``).

        Raises:
            _BotFailed: when no valid ``ready`` comes in time.
        """
        deadline = sent_at + self.config.time.startup_ms / 1000
        line = await self._receive(seat, deadline, phase, None)
        seat.transcript.append(("received", line))
        ready = judge_ready(line)
        if isinstance(ready, Rejection):
            raise _BotFailed(rejected_failure(seat.channel, line, ready, phase, None))
        if phase is not Phase.RESTART:
            # A restarted process answers after the deal: what it calls itself could carry
            # what its crashed predecessor held to the other seats (match_end). The seat keeps
            # the name of its first ready.
            seat.name = ready.name

    # -- the match -----------------------------------------------------------------------------

    async def _play_watched(self, match: Match) -> Match:
        """Play the match under the watchdog; when a request's deadline passes, settle it (a
        late look at the pipe, else a timeout) and carry on from where the match stood."""
        watchdog = self.watchdog = Watchdog()
        async with service_nursery() as nursery:
            nursery.start_soon(watchdog.run)
            while True:
                with watchdog.scope:
                    match = await self._play(match)
                    break
                watchdog.renew()
                assert self.match is not None
                match = await self._deadline_passed(self.match)
        self.watchdog = None
        return match

    async def _deadline_passed(self, match: Match) -> Match:
        if self.resumed is not None:
            return match  # the reply had been read already (see _request)
        pending = self.pending
        assert pending is not None
        seat = pending.seat
        channel = seat.channel
        assert channel is not None
        if pending.sent:
            try:
                # One last look at what is already in the pipe, so a bot is not blamed for the
                # referee's own stall.
                line = channel.poll_line_nowait()
            except (BotEOFError, LineTooLongError, OutputLimitError) as error:
                failure = await io_failure(
                    seat.channel, error, Phase.MOVE, pending.hand_number, pending.request_id
                )
                return await self._fail(seat, failure, match)
            if line is not None:
                self.resumed = line  # _turn takes it up as the reply to the pending request
                return match
        overrun = trio.current_time() - pending.deadline
        status = channel.exit_status()
        if not status.running:
            # It exited, but a process it started still holds its output open (so no EOF).
            failure = Failure(
                Status.CRASH,
                f"exited ({status.describe()}) without answering request {pending.request_id}; "
                "a process it started kept its output open",
                Phase.MOVE,
                hand_number=pending.hand_number,
                request_id=pending.request_id,
                exit_code=status.returncode if status.signal is None else None,
                signal=status.signal,
                stderr_tail=channel.stderr_tail(),
            )
        elif pending.sent:
            failure = timeout_failure(
                seat.channel,
                self.config.time.startup_ms,
                overrun,
                pending.hand_number,
                pending.request_id,
            )
            self.pending = None
            return await self._move_failed(seat, failure, pending, match)
        else:
            failure = Failure(
                Status.TIMEOUT,
                f"did not read its input (request {pending.request_id}) in time",
                Phase.MOVE,
                hand_number=pending.hand_number,
                request_id=pending.request_id,
                overrun_ms=round(max(0.0, overrun) * 1000, 1),
                stderr_tail=channel.stderr_tail(),
            )
        self.pending = None
        return await self._fail(seat, failure, match)

    async def _play(self, match: Match) -> Match:
        # Entered again after the watchdog fired (the match perhaps forfeited): a hand announced
        # but not recorded yet still gets its record.
        while not match.over or self.announced > len(self.hands):
            hand = match.hand
            number = match.hand_number
            if self.announced != number:  # not when re-entered
                # The leader: with an automatic opening, the seat whose tile it laid (the other
                # moves first); an opening that reaches the target leaves nobody to ask below.
                leader = hand_leader(hand)
                assert leader is not None
                self.announced = number
                # The record's deal, from the hand as dealt (the finished hand walks every move).
                self.dealt = hand.deal()
                if self.observe is not None:
                    self.observe(HandBegan(hand_record(number, hand, [], [], self.dealt)))
                self.requests.new_hand()
                for seat in self.seats:
                    if seat.live:
                        view = hand.view(seat.seat)
                        message = encode(hand_start(view, number, leader))
                        match = await self._notify(match, seat, message, number)
            # Moves without an await are played on the hand's state; its match is made for an
            # awaited turn (in flight when the watchdog fires; it may retire seats) and at the end.
            move_nowait = self._move_nowait
            state = match.hand
            while not match.over and state.outcome() is None:
                played = move_nowait(state, number)
                if played is None:
                    match = self.match = match if state is match.hand else match.with_hand(state)
                    played = (match := await self._turn(match, number)).hand
                state = played
            match = self.match = match if state is match.hand else match.with_hand(state)
            finished = match.hand
            events, self.events = self.events, []
            outcome = finished.outcome()
            if self.observe is not None:
                self.observe(HandOver(number, outcome_record(outcome)))
            if outcome is None:  # the match was forfeited during the hand
                self._record_hand(number, finished, events, [])
                break
            views = [finished.view(s) for s in range(match.players)]
            hands_left = [list(view.hand) for view in views]
            message = encode(hand_end(outcome, number, hands_left, views[0].layout, views[0]))
            # The award counts and the next hand is dealt before anybody is told: a bot that
            # fails to take the news is retired after this hand, from the next one on.
            match = match.next_hand()
            self.match = match
            for seat in self.seats:
                if seat.live:
                    match = await self._notify(match, seat, message, number)
            after, self.events = self.events, []
            self._record_hand(number, finished, events, after)
        self.match = match
        return match

    def _record_hand(
        self, number: int, hand: GameState, events: list[HandEvent], after: list[HandEvent]
    ) -> None:
        """Append a hand and its events to the record.

        Its ``leader`` is the seat that led: after any retirement before the lead, the one that
        game's leader rule picked among the seats still in play; in a game with an automatic
        opening, the seat of the opening (the first entry of the hand's history, never a
        recorded event).
        """
        self.hands.append(hand_record(number, hand, events, after, self.dealt))

    def _event(self, event: HandEvent) -> None:
        self.events.append(event)
        if self.observe is not None:
            self.observe(Played(event))

    def _move_nowait(self, hand: GameState, number: int) -> GameState | None:
        """A live seat's turn in ``hand`` (the match's current hand) without an await, when its
        bot has answered by the time the request is written (on the referee's CPU it runs as
        soon as it is written to): the hand after the move; else ``None``, with nothing sent, or
        with the request in flight (`pending`, `resumed`) for `_turn` (given the match of
        ``hand``) to send, await or judge (a rejected reply: every failure is `_turn`'s)."""
        now = self.now
        if self.resumed is not None or now() >= self.next_pass:
            return None
        seat_no = hand.to_move
        assert seat_no is not None
        seat = self.seats[seat_no]
        channel = seat.channel
        if channel is None or seat.failure is not None:
            return None
        clock = seat.clock
        self.request_id = request_id = self.request_id + 1
        time_left_ms, bank_ms = clock.request_ms
        view = hand.view(seat_no)
        message = self.requests.request_line(view, request_id, number, time_left_ms, bank_ms)
        started = now()
        deadline = started + clock.allowance
        seat.transcript.append(("sent", message))
        line: bytes | None = None
        sent = False
        try:
            sent = channel.send_line_nowait(message)
            if sent:
                line = channel.poll_line_nowait()
        except (BotGoneError, LineTooLongError, OutputLimitError):
            pass  # raised again by the call `_turn` awaits, which records the failure
        if line is not None:
            elapsed = now() - started
            judged = judge_move(line, request_id, view, seat.struck_ids)
            if type(judged) is Accepted:
                seat.transcript.append(("received", line))
                return self._accepted(
                    hand, seat_no, judged, request_id, time_left_ms, elapsed, clock.allowance
                )
        self.pending = Pending(
            seat, request_id, number, started, deadline, time_left_ms, view, sent, message
        )
        self.resumed = _SEND if not sent else _AWAIT_REPLY if line is None else line
        return None

    async def _turn(self, match: Match, number: int) -> Match:
        hand = match.hand
        seat_no = hand.to_move
        assert seat_no is not None
        seat = self.seats[seat_no]
        if not seat.live:
            legal = hand.legal_moves()
            move = legal[0]  # a retired seat's only legal move is PASS
            self._event(Action(seat=seat_no, move=move_to_wire(move), auto=True))
            return match.apply(move)
        clock = seat.clock
        line = self.resumed
        message = b""
        if line is None:
            if self.now() >= self.next_pass:
                # Requests answered at once take no pass through trio's scheduler
                # (`_move_nowait`): other tasks (stderr drains, the watchdog, a worker's other
                # matches) still run at least once per FAIR_SLICE_S, here, with nothing in
                # flight (a cancellation from outside is taken here too).
                await _checkpoint()
                self.next_pass = self.now() + FAIR_SLICE_S
            self.request_id += 1
            request_id = self.request_id
            time_left_ms, bank_ms = clock.request_ms
            view = hand.view(seat_no)
            message = self.requests.request_line(view, request_id, number, time_left_ms, bank_ms)
            started = self.now()
            deadline = started + clock.allowance
            pending = self.pending = Pending(
                seat, request_id, number, started, deadline, time_left_ms, view
            )
            self.match = match
            seat.transcript.append(("sent", message))
        else:  # a reply found in the pipe just after the deadline fired, or one still awaited
            self.resumed = None
            in_flight = self.pending
            assert in_flight is not None
            pending = in_flight
            assert pending.seat is seat
            request_id, started, deadline = pending.request_id, pending.started, pending.deadline
            time_left_ms, view = pending.time_left_ms, pending.view
        try:
            if line is None:
                line = await self._request(seat, pending, message)
            elif line is _AWAIT_REPLY:
                line = await self._request(seat, pending, None)
            elif line is _SEND:
                line = await self._request(seat, pending, pending.line)
            elapsed = self.now() - started
            seat.transcript.append(("received", line))
            self.pending = None
            judged = judge_move(line, request_id, view, seat.struck_ids)
            if type(judged) is not Accepted:
                assert isinstance(judged, Rejection)
                if judged.fault is Fault.STALE_ID:
                    # A late answer to a request already played for the bot (lenient): skip
                    # it and go on waiting for this request's answer, on the same clock.
                    assert judged.reply_id is not None
                    seat.struck_ids.discard(judged.reply_id)
                    self.pending = pending
                    self.resumed = _AWAIT_REPLY
                    return match
                raise _BotFailed(rejected_failure(seat.channel, line, judged, Phase.MOVE, number))
        except _BotFailed as failed:
            self.pending = None
            return await self._move_failed(seat, failed.failure, pending, match)
        allowance = deadline - started
        played = self._accepted(hand, seat_no, judged, request_id, time_left_ms, elapsed, allowance)
        return match.with_hand(played)

    def _accepted(
        self,
        hand: GameState,
        seat_no: int,
        judged: Accepted,
        request_id: int,
        time_left_ms: int,
        elapsed: float,
        allowance: float,
    ) -> GameState:
        """The hand after a move accepted as in time, taken up ``elapsed`` seconds after its
        request: the seat's clock charged, the move recorded (`Action`) and played.

        A reply in hand was in time: one found by the last look after the deadline fired was
        waiting in the pipe already, so the bot is charged the allowance at most, and the
        replay says how late the referee took it up (`accepted_elapsed`)."""
        late = None
        if elapsed > allowance:
            elapsed, over = accepted_elapsed(elapsed, allowance)
            late = late_ms(over)
        clock = self.seats[seat_no].clock
        if elapsed > clock.move_s:  # `charge` changes nothing below the per-move limit
            clock.charge(elapsed)
        move = judged.move
        # Action's first seven fields, positionally (msgspec matches keywords slowly).
        action = Action(
            seat_no,
            move_to_wire(move),
            request_id,
            time_left_ms,
            round(elapsed * 1_000_000) / 1000,  # `ms_to_the_microsecond`, inline
            late,
            judged.debug,
        )
        self.events.append(action)  # `_event`, inline
        if self.observe is not None:
            self.observe(Played(action))
        return hand.apply(move)

    async def _finish(self, match: Match) -> None:
        result = match.result
        assert result is not None
        # Sent only to the seats still in play, so every detail in it is another seat's: its
        # copy hides whatever the failure shows of a hand (arena.redaction).
        results = [
            m.SeatResult(
                seat=s.seat,
                name=s.name,
                status=(s.failure.status if s.failure else Status.OK).value,
                detail=detail_for_others(s.failure),
            )
            for s in self.seats
        ]
        message = encode(
            m.MatchEnd(
                scores=list(result.scores),
                winner=result.winner,
                reason=result.reason,  # type: ignore[arg-type]
                results=results,
            )
        )
        live = [s for s in self.seats if s.live]
        for seat in live:
            assert seat.channel is not None
            with trio.move_on_after(ERROR_SEND_TIMEOUT_S):
                with suppress(BotGoneError):
                    await seat.channel.send_line(message)
        # Give well-behaved bots a moment to exit by themselves before they are stopped.
        with trio.move_on_after(EXIT_GRACE_S):
            for seat in live:
                assert seat.channel is not None
                await seat.channel.wait_exit()

    # -- talking to one bot --------------------------------------------------------------------

    async def _send(
        self,
        seat: Seat,
        line: bytes,
        timeout_s: float,
        phase: Phase,
        hand_number: int | None = None,
        request_id: int | None = None,
    ) -> None:
        assert seat.channel is not None
        # A line the pipe has room for goes at once, without a timer (a fresh cancel scope for
        # each notification cost ~2 µs per move); any trouble, send_line below meets it again.
        with suppress(BotGoneError):
            if seat.channel.send_line_nowait(line):
                return
        with trio.move_on_after(timeout_s):
            try:
                await seat.channel.send_line(line)
            except BotGoneError:
                raise _BotFailed(
                    await crash_failure(
                        seat.channel, "closed its input", phase, hand_number, request_id
                    )
                ) from None
            return
        raise _BotFailed(
            Failure(
                Status.TIMEOUT,
                f"did not read its input within {timeout_s * 1000:.0f} ms",
                phase,
                hand_number=hand_number,
                request_id=request_id,
                overrun_ms=0.0,
                stderr_tail=seat.channel.stderr_tail(),
            )
        )

    async def _request(self, seat: Seat, pending: Pending, message: bytes | None) -> bytes:
        """Send a move request (``None``: it was sent already) and read the reply under the
        watchdog (watching its deadline)."""
        channel = seat.channel
        watchdog = self.watchdog
        assert channel is not None
        assert watchdog is not None
        watchdog.watch(pending)
        try:
            if message is not None:
                await channel.send_line(message)
                pending.sent = True
            line = await channel.receive_line()
        except (BotGoneError, BotEOFError, LineTooLongError, OutputLimitError) as error:
            watchdog.pending = None
            raise _BotFailed(
                await io_failure(
                    seat.channel, error, Phase.MOVE, pending.hand_number, pending.request_id
                )
            ) from None
        watchdog.pending = None
        if watchdog.fired:
            # The deadline passed while the reply, read in time, waited for the referee to take
            # it up (it stalled past the deadline at its last checkpoint), and the scope is
            # cancelled all the same: leave it with the reply in hand, which _turn takes up when
            # the loop is re-entered, instead of failing the next request at its first await.
            self.resumed = line
            await trio.lowlevel.checkpoint()  # raises Cancelled
        return line

    async def _receive(
        self,
        seat: Seat,
        deadline: float,
        phase: Phase,
        hand_number: int | None,
        request_id: int | None = None,
    ) -> bytes:
        """Read one line before ``deadline`` (in its own cancel scope: start-up only)."""
        channel = seat.channel
        assert channel is not None
        try:
            with trio.move_on_at(deadline):
                return await channel.receive_line()
            line = channel.poll_line_nowait()
            if line is not None:
                return line
        except (BotEOFError, LineTooLongError, OutputLimitError) as error:
            raise _BotFailed(
                await io_failure(seat.channel, error, phase, hand_number, request_id)
            ) from None
        overrun = trio.current_time() - deadline
        raise _BotFailed(
            timeout_failure(
                seat.channel, self.config.time.startup_ms, overrun, hand_number, request_id, phase
            )
        )

    async def _notify(self, match: Match, seat: Seat, message: bytes, number: int) -> Match:
        seat.transcript.append(("sent", message))
        try:
            await self._send(seat, message, NOTIFY_TIMEOUT_S, Phase.NOTIFY, number)
        except _BotFailed as failed:
            return await self._fail(seat, failed.failure, match)
        return match

    async def _move_failed(
        self, seat: Seat, failure: Failure, pending: Pending, match: Match
    ) -> Match:
        """A failure while answering a request: a strike under ``lenient`` (when the request
        reached the bot whole, and the failure is a timeout or a bad reply), else `_fail`."""
        failure = resource_limited(seat.channel, failure)
        if pending.sent and self.config.policy.strikes_for(failure.status, failure.phase):
            return await self._strike(seat, failure, pending, match)
        return await self._fail(seat, failure, match)

    async def _strike(self, seat: Seat, failure: Failure, pending: Pending, match: Match) -> Match:
        """Count a strike: play a random legal move for the bot and tell it, or forfeit at the
        policy's last strike."""
        policy = self.config.policy
        seat.strikes += 1
        if seat.strikes >= policy.strikes:
            failure = msgspec.structs.replace(
                failure,
                detail=f"{failure.detail}; strike {seat.strikes} of {policy.strikes}: forfeit",
            )
            return await self._fail(seat, failure, match)
        failure = with_messages(seat.transcript, failure)
        move = substitute_move(self.config.seed, pending.request_id, pending.view.legal)
        wire_move = move_to_wire(move)
        if failure.status is Status.TIMEOUT:
            seat.struck_ids.add(pending.request_id)  # its answer may still come: skip it then
            elapsed = pending.deadline - pending.started
        else:
            elapsed = min(trio.current_time(), pending.deadline) - pending.started
        seat.clock.charge(elapsed)
        self._event(
            Action(
                seat=seat.seat,
                move=wire_move,
                request_id=pending.request_id,
                time_left_ms=pending.time_left_ms,
                elapsed_ms=ms_to_the_microsecond(elapsed),
                auto=True,
                strike=failure,
            )
        )
        match = match.apply(move)
        self.match = match
        code: Any = failure.status.value
        notice = encode(
            m.Strike(
                id=pending.request_id,
                code=code,
                message=f"{failure.detail}; the referee played {move} for "
                f"you (strike {seat.strikes} of {policy.strikes})",
                move=wire_move,
                strikes=seat.strikes,
                max_strikes=policy.strikes,
            )
        )
        return await self._notify(match, seat, notice, pending.hand_number)

    async def _fail(self, seat: Seat, failure: Failure, match: Match) -> Match:
        """Stop the failed bot and retire its seat; or, when the policy restarts bots after
        this kind of failure and the seat has restarts left, start it again."""
        failure = resource_limited(seat.channel, failure)
        policy = self.config.policy
        if seat.restarts < policy.restarts and policy.restarts_for(failure.status, failure.phase):
            return await self._restart(seat, failure, match)
        await self._stop(seat, failure)
        return self._retire(match, seat)

    async def _restart(self, seat: Seat, failure: Failure, match: Match) -> Match:
        """Replace a crashed bot by a new process: handshake, then (during a hand) the hand's
        ``hand_start``, so it can play from the next request. A new process that fails this
        forfeits."""
        seat.restarts += 1
        self._event(Restart(seat=seat.seat, failure=with_messages(seat.transcript, failure)))
        await self._close(seat)
        seat.earlier_stderr.append(seat.stderr)
        seat.stderr = ""
        seat.channel = None
        seat.struck_ids.clear()
        seat.transcript.clear()
        try:
            await self._await_ready(seat, await self._launch(seat, Phase.RESTART), Phase.RESTART)
            number = match.hand_number
            if not match.over and self.announced == number and match.hand.outcome() is None:
                leader = hand_leader(match.hand)
                assert leader is not None
                notice = encode(hand_start(match.hand.view(seat.seat), number, leader))
                seat.transcript.append(("sent", notice))
                await self._send(seat, notice, NOTIFY_TIMEOUT_S, Phase.NOTIFY, number)
        except _BotFailed as failed:
            again = failed.failure
            again = msgspec.structs.replace(
                again, detail=f"restarted after a crash, then: {again.detail}"
            )
            await self._stop(seat, again)
            return self._retire(match, seat)
        return match

    async def _stop(self, seat: Seat, failure: Failure) -> None:
        """Record the failure, tell the bot why (if it still listens), and stop it."""
        failure = with_messages(seat.transcript, resource_limited(seat.channel, failure))
        seat.failure = failure
        channel = seat.channel
        if channel is not None and failure.status is not Status.CRASH:
            code: Any = failure.status.value
            text = failure.detail
            if self.config.policy.loud:
                text = explain_for_bot(failure)
            error = encode(m.Error(code=code, message=text))
            with trio.move_on_after(ERROR_SEND_TIMEOUT_S):
                with suppress(BotGoneError):
                    await channel.send_line(error)
            # A moment for the bot to read why and log it before it is stopped.
            with trio.move_on_after(ERROR_READ_GRACE_S):
                await channel.wait_exit()
        await self._close(seat)

    def _retire(self, match: Match, seat: Seat) -> Match:
        assert seat.failure is not None
        if seat.seat not in match.retired:
            self._event(Retirement(seat=seat.seat, status=seat.failure.status))
            match = match.retire(seat.seat)
        self.match = match
        return match

    async def _close(self, seat: Seat) -> None:
        if seat.channel is not None:
            await seat.channel.aclose()
            seat.stderr = seat.channel.stderr_text()
