"""``arena check``: run one bot through numbered, named steps and judge every answer.

The checker plays the referee's part for one bot, with the same messages the referee sends:
``hello`` and ``match_end`` built from the protocol Structs, ``hand_start``, ``request`` and
``hand_end`` built from real engine positions with :mod:`arena.wire` (a
:class:`~arena.wire.RequestBuilder` per match, as the referee keeps). The other seat is played
by the checker (the first legal move each time). docs/checking-a-bot.md describes the steps.

Sessions (each a fresh bot process):

- **A short match** of two hands: step 1 (handshake), step 2 (request id: the first request,
  whose id is not 1), step 3 (first move: that reply's legality, then the rest of the hand),
  step 4 (hand end: silence after ``hand_end``, then a whole second hand) and step 5 (match
  end: the bot exits after ``match_end``).
- **One one-hand match per rule position** (steps 6 on): the scripted position, then the rest
  of the hand.
- **The stop test**: ``hello``, ``hand_start``, then the bot's stdin is closed; it must exit.
- **Response times** over every request answered in all sessions.

A failure ends its session (the bot is told why with ``error``, as the referee does, and
stopped); the steps that session had still to run are skipped. When step 1 or 2 fails nothing
else runs: every later step would fail the same way.

This module never imports the referee (docs/architecture.md: only the CLI, the tournament and
the referee do): the CLI hands it a :class:`Launcher` made of the referee's process layer.
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Awaitable, Callable
from contextlib import AbstractAsyncContextManager, suppress
from dataclasses import dataclass, field
from typing import Any, Literal, NamedTuple, Protocol

import trio

from arena.check.positions import (
    BOT_SEAT,
    OTHER_SEAT,
    PLAYERS,
    Scenario,
    default_rules,
    scenarios_of,
)
from arena.games.api import DRAW, PASS, Game, GameState, HandEnd, Move, SeatView, derive_seed
from arena.games.match import hand_leader, match_target
from arena.games.registry import get_game
from arena.games.tiles import tile_str
from arena.wire import RequestBuilder, hand_end, hand_start, move_from_wire, rules_to_wire
from protocol import messages as m
from protocol.codec import ProtocolError, decode_from_bot, encode

#: After ``match_end`` (or the end of its input), how long a bot has to exit by itself: the
#: referee's grace (``arena.referee.match.EXIT_GRACE_S``; a test keeps them equal).
EXIT_GRACE_S = 0.5
#: After ``hand_start`` and ``hand_end``, how long the checker listens for an answer that
#: should not come.
QUIET_S = 0.2
#: How long a bot gets to take ``hand_start``/``hand_end``/``match_end`` off the pipe (the
#: referee's ``NOTIFY_TIMEOUT_S``).
NOTIFY_TIMEOUT_S = 5.0
#: After its output closed, how long to wait for the process to exit to report its exit code.
EXIT_WAIT_S = 0.5
#: After the ``error`` message, how long a failed bot may take to exit by itself.
ERROR_GRACE_S = 0.2
#: The seed of everything random in a check: the bots' ``hello.seed`` and the second hand.
CHECK_SEED = 20240601
#: Characters of the bot's stderr kept with a failure.
STDERR_CHARS = 1200

StepStatus = Literal["pass", "fail", "skip"]
_ErrorCode = Literal["timeout", "bad_message", "illegal_move", "line_too_long"]


# -- what the checker needs of a bot process (the CLI passes the referee's) ---------------------


class ExitInfo(Protocol):
    """How a bot process ended, or that it has not (``arena.referee.process.ExitStatus``)."""

    @property
    def returncode(self) -> int | None: ...

    @property
    def signal(self) -> int | None: ...

    @property
    def running(self) -> bool: ...

    def describe(self) -> str: ...


class BotLink(Protocol):
    """A running bot, line by line (``arena.referee.process.BotProcess``)."""

    async def send_line(self, line: bytes) -> None: ...

    async def receive_line(self) -> bytes: ...

    def poll_line_nowait(self) -> bytes | None: ...

    def stderr_tail(self, max_chars: int = 2000) -> str: ...

    def exit_status(self) -> ExitInfo: ...

    async def wait_exit(self) -> ExitInfo: ...


@dataclass(frozen=True)
class Launcher:
    """How the checker starts a bot and tells its I/O failures apart.

    Attributes:
        open: starts the bot from its command line; leaving the context stops its whole
            process group.
        close_input: closes the bot's stdin and nothing else (the stop test).
        command_error: raised by ``open`` when the command cannot be started.
        eof_error: raised by ``receive_line`` when the bot's stdout is closed (an
            ``unterminated`` attribute may hold what it wrote after its last newline).
        gone_error: raised by ``send_line`` when the bot's stdin is closed.
        line_too_long_error: raised by ``receive_line`` for an over-long line (``limit``).
    """

    open: Callable[[str], AbstractAsyncContextManager[BotLink]]
    close_input: Callable[[BotLink], None]
    command_error: type[Exception]
    eof_error: type[Exception]
    gone_error: type[Exception]
    line_too_long_error: type[Exception]


# -- results --------------------------------------------------------------------------------------


@dataclass
class StepResult:
    """One step of the check and how it went.

    Attributes:
        number: 1-based, in the order the steps run.
        key: a stable identifier (``"request_id"``, ``"forced_pass"``...).
        name: the step's name as printed.
        about: one sentence: what the step checks.
        status: ``"pass"``, ``"fail"`` or ``"skip"`` (not run).
        detail: what happened; on a failure, what to fix.
        sent: on a failure, the last line sent to the bot.
        received: on a failure, the line the bot sent (if any).
        stderr: on a failure, the end of the bot's stderr (if it wrote any).
    """

    number: int
    key: str
    name: str
    about: str
    status: StepStatus = "skip"
    detail: str = "not run"
    sent: str | None = None
    received: str | None = None
    stderr: str | None = None
    done: bool = field(default=False, repr=False)


@dataclass(frozen=True)
class ResponseTimes:
    """Statistics of the bot's response times over every request it answered, in ms."""

    count: int
    median_ms: float | None
    p95_ms: float | None
    max_ms: float | None

    @classmethod
    def of(cls, seconds: list[float]) -> ResponseTimes:
        """The statistics of ``seconds`` (the nearest-rank 95th percentile)."""
        if not seconds:
            return cls(0, None, None, None)
        ordered = sorted(seconds)
        p95 = ordered[max(0, math.ceil(0.95 * len(ordered)) - 1)]
        return cls(
            len(ordered),
            round(statistics.median(ordered) * 1000, 3),
            round(p95 * 1000, 3),
            round(ordered[-1] * 1000, 3),
        )


@dataclass(frozen=True)
class CheckReport:
    """The result of ``arena check``: every step, and the response times."""

    command: str
    game: str
    move_ms: int
    startup_ms: int
    steps: tuple[StepResult, ...]
    times: ResponseTimes

    @property
    def passed(self) -> bool:
        """True when every step passed."""
        return all(step.status == "pass" for step in self.steps)


class _StepFailed(Exception):
    """Internal: the current step failed; carries what to tell the student."""

    def __init__(
        self,
        detail: str,
        *,
        sent: bytes | None = None,
        received: bytes | None = None,
        stderr: str = "",
        code: _ErrorCode | None = None,
    ) -> None:
        super().__init__(detail)
        self.detail = detail
        self.sent = sent
        self.received = received
        self.stderr = stderr
        self.code = code


def _text(line: bytes | None) -> str | None:
    return None if line is None else line.decode("utf-8", errors="replace")


def _ms(seconds: float) -> str:
    """``0.8 ms``, ``12 ms``, ``1500 ms``."""
    value = seconds * 1000
    return f"{value:.1f} ms" if value < 10 else f"{value:.0f} ms"


def _how_it_ended(status: ExitInfo) -> str:
    """``exited with exit code 3``, ``was killed by signal SIGSEGV``, ``exited (exit code 0)``."""
    if status.signal is not None:
        return f"was {status.describe()}"
    if status.returncode == 0:
        return "exited (exit code 0)"
    return f"exited with {status.describe()}"


def _advice(view: SeatView, move: Move) -> str:
    """What to do instead of an illegal ``move``, from the position alone."""
    if view.legal == (PASS,):
        return 'when PASS is the only legal move, send {"action": "pass"}'
    if view.legal == (DRAW,):
        return (
            'when DRAW is the only legal move, send {"action": "draw"}; you are asked again at '
            "once with the tile you drew in your hand"
        )
    if not view.ends:
        return 'to lead, play a tile of your hand with "end": null'
    if move.kind == "pass":
        return "PASS is legal only when you can neither play nor draw"
    if move.kind == "draw":
        return "DRAW is legal only when the request lists it"
    if move.tile is not None and move.tile not in view.hand:
        return f"you do not hold {tile_str(move.tile)}: your tiles are the request's hand"
    if move.end not in {p for p, _v in view.ends}:
        return f"there is no open end {move.end!r} here: the ends are the request's ends"
    return "a tile goes on an end only as the legal moves list it, with that out"


def _key_count(played: list[Move]) -> int:
    """How many of the bot's first moves in a hand answer the scripted position: the first,
    and while they are draws, the ones after it (at most six)."""
    count = 0
    for move in played[:6]:
        count += 1
        if move.kind != "draw":
            break
    return count


def _key_moves(played: list[Move]) -> str:
    """``you played DRAW, then DRAW, then 1-3 on right, 3 out``."""
    moves = [str(move) for move in played[: _key_count(played)]]
    return "you played " + ", then ".join(moves)


def _ends_text(view: SeatView) -> str:
    return ", ".join(f"{p}={v}" for p, v in view.ends) or "none (the lead)"


def _moves_text(moves: tuple[Move, ...] | list[Move], limit: int = 12) -> str:
    shown = "; ".join(str(mv) for mv in moves[:limit])
    return shown + (f"; ... ({len(moves)} in all)" if len(moves) > limit else "")


FLUSH_ADVICE = "flush stdout after every line (a reply left in your output buffer never arrives)"
STDOUT_ADVICE = "write only protocol messages to stdout, one per line; logs go to stderr"


# -- the checker ----------------------------------------------------------------------------------


class PlannedStep(NamedTuple):
    """A step as planned: its key, its name and what it checks."""

    key: str
    name: str
    about: str


def plan(game_name: str) -> list[PlannedStep]:
    """The steps of a check of ``game_name``, in order."""
    first, rules = scenarios_of(game_name)
    grace = f"{EXIT_GRACE_S * 1000:.0f} ms"
    rest = " Then the rest of the hand is played."
    return [
        PlannedStep(
            "handshake",
            "handshake",
            "The bot answers hello with ready within the startup limit: a name of 1 to 64 "
            "characters, and protocol 1 if it says a protocol.",
        ),
        PlannedStep(
            "request_id",
            "request id",
            "The first request is answered in time with one valid move message carrying the "
            "request's id (and nothing is sent in answer to hand_start).",
        ),
        PlannedStep(first.key, first.name, first.about + rest),
        PlannedStep(
            "hand_end",
            "hand end",
            "After hand_end the bot sends nothing and stays; then it plays a whole second hand.",
        ),
        PlannedStep(
            "match_end",
            "match end",
            f"After match_end the bot exits by itself within {grace}, with exit code 0, "
            "writing nothing more.",
        ),
        *(PlannedStep(s.key, s.name, s.about + rest) for s in rules),
        PlannedStep(
            "stop",
            "stop",
            "When its stdin is closed (the referee stopping it), the bot exits by itself "
            f"within {grace}, with exit code 0.",
        ),
        PlannedStep(
            "response_times",
            "response times",
            "The median, 95th percentile and maximum time the bot took to answer a request, "
            "over every request of the check.",
        ),
    ]


class Checker:
    """Runs the steps of one check (create it, then ``await run()``)."""

    def __init__(
        self,
        command: str,
        game_name: str,
        launcher: Launcher,
        *,
        move_ms: int = 1000,
        startup_ms: int = 5000,
        on_step: Callable[[StepResult], None] | None = None,
    ) -> None:
        self.command = command
        self.game: Game = get_game(game_name)
        self.rules: Any = default_rules(self.game)
        self.launcher = launcher
        self.move_ms = move_ms
        self.startup_ms = startup_ms
        self.first, self.rule_scenarios = scenarios_of(self.game.name)
        self.steps = {
            s.key: StepResult(number, s.key, s.name, s.about)
            for number, s in enumerate(plan(self.game.name), start=1)
        }
        self.times: list[float] = []
        self.current = "handshake"
        self._on_step = on_step
        self._emitted = 0

    # -- book-keeping ------------------------------------------------------------------------

    def _finish(self, key: str, status: StepStatus, detail: str) -> StepResult:
        step = self.steps[key]
        step.status, step.detail, step.done = status, detail, True
        self._emit()
        return step

    def _pass(self, key: str, detail: str) -> None:
        self._finish(key, "pass", detail)

    def _fail(self, key: str, failed: _StepFailed) -> None:
        step = self.steps[key]
        step.sent, step.received = _text(failed.sent), _text(failed.received)
        step.stderr = failed.stderr.strip() or None
        self._finish(key, "fail", failed.detail)

    def _skip(self, key: str, why: str) -> None:
        if not self.steps[key].done:
            self._finish(key, "skip", why)

    def _emit(self) -> None:
        """Report the finished steps in order, as soon as every earlier one is finished."""
        ordered = list(self.steps.values())
        while self._emitted < len(ordered) and ordered[self._emitted].done:
            if self._on_step is not None:
                self._on_step(ordered[self._emitted])
            self._emitted += 1

    # -- the check ---------------------------------------------------------------------------

    async def run(self) -> CheckReport:
        """Run every step; returns the report (the bot processes are all gone by then)."""
        await self._session(self._match_session)
        early = [self.steps[k] for k in ("handshake", "request_id")]
        failed = next((s for s in early if s.status != "pass"), None)
        if failed is not None:
            why = f"not run: step {failed.number} ({failed.name}) failed; fix it first"
            for key in self.steps:
                self._skip(key, why)
        else:
            for scenario in self.rule_scenarios:
                self.current = scenario.key
                await self._session(self._rule_body(scenario))
            self.current = "stop"
            await self._session(self._stop_session)
            self._response_times()
        return CheckReport(
            command=self.command,
            game=self.game.name,
            move_ms=self.move_ms,
            startup_ms=self.startup_ms,
            steps=tuple(self.steps.values()),
            times=ResponseTimes.of(self.times),
        )

    async def _session(self, body: Callable[[_Session], Awaitable[None]]) -> None:
        """Start the bot, run ``body`` with it, and stop it; a failure fails the current step
        and skips the steps the session had still to run."""
        started = self.current
        try:
            async with self.launcher.open(self.command) as link:
                session = _Session(self, link)
                try:
                    await body(session)
                except _StepFailed as failed:
                    self._fail(self.current, failed)
                    await session.stop(failed)
        except self.launcher.command_error as error:
            self._fail(self.current, _StepFailed(f"cannot start your bot: {error}"))
        if started == "handshake":  # the match session: what it did not reach is skipped
            failed_step = self.steps[self.current]
            for key in ("request_id", self.first.key, "hand_end", "match_end"):
                if failed_step.status == "fail":
                    self._skip(
                        key,
                        f"not run: the match stopped at step {failed_step.number} "
                        f"({failed_step.name})",
                    )

    async def _match_session(self, s: _Session) -> None:
        """Steps 1 to 5: a two-hand match."""
        self.current = "handshake"
        detail = await s.handshake(hands=2)
        self._pass("handshake", detail)

        self.current = "request_id"
        scenario = self.first
        state = await s.begin_hand(scenario, quiet=True)
        view, message = s.request(state, 1)
        line, elapsed = await s.exchange(message, f"request {s.request_id}")
        self.times.append(elapsed)
        reply = s.decode_move(line, message, s.request_id)
        self._pass(
            "request_id",
            f"request {reply.id} answered in {_ms(elapsed)} with a move carrying id {reply.id}",
        )

        self.current = scenario.key
        move = s.judge(reply, view, scenario.hint, message, line)
        played = [move]
        state = await s.play_out(state.apply(move), scenario, 1, played)
        self._pass(scenario.key, s.hand_summary(played))

        self.current = "hand_end"
        scores, over = await s.hand_end(state, 1, quiet=True)
        if over:
            self._pass("hand_end", "sent nothing after hand_end (the match ended at the target)")
        else:
            seed = derive_seed(CHECK_SEED, "deal", 2)
            second = self.game.start_hand(
                self.rules, PLAYERS, self.game.deal(self.rules, PLAYERS, seed), scores
            )
            await s.hand_start(second, 2)
            played = []
            state = await s.play_out(second, None, 2, played)
            self._pass(
                "hand_end",
                f"sent nothing after hand_end, then played hand 2 ({len(played)} requests)",
            )
            scores, over = await s.hand_end(state, 2, quiet=False)

        self.current = "match_end"
        self._pass("match_end", await s.match_end(scores, judge=True))

    def _rule_body(self, scenario: Scenario) -> Callable[[_Session], Awaitable[None]]:
        """The session body of a rule step."""

        async def body(s: _Session) -> None:
            await self._rule_session(s, scenario)

        return body

    async def _rule_session(self, s: _Session, scenario: Scenario) -> None:
        """A rule step: a one-hand match from the scripted position."""
        await s.handshake(hands=1)
        state = await s.begin_hand(scenario, quiet=False)
        played: list[Move] = []
        state = await s.play_out(state, scenario, 1, played)
        scores, _over = await s.hand_end(state, 1, quiet=False)
        await s.match_end(scores, judge=False)
        self._pass(scenario.key, s.hand_summary(played))

    async def _stop_session(self, s: _Session) -> None:
        """The stop step: close the bot's stdin after ``hand_start``; it must exit."""
        await s.handshake(hands=1)
        await s.hand_start(self.game.start_hand(self.rules, PLAYERS, self.first.deal), 1)
        self.launcher.close_input(s.link)
        began = trio.current_time()
        with trio.move_on_after(EXIT_GRACE_S):
            await s.link.wait_exit()
        status = s.link.exit_status()
        if status.running:
            raise _StepFailed(
                f"your bot was still running {EXIT_GRACE_S * 1000:.0f} ms after its stdin was "
                "closed — when reading stdin reaches end of file, exit (that is how the referee "
                "stops a bot)",
                stderr=s.stderr(),
            )
        if status.returncode != 0:
            raise _StepFailed(
                f"your bot {_how_it_ended(status)} when its stdin was closed — treat end of input "
                "as the end and exit with code 0 (see its stderr for the error)",
                stderr=s.stderr(),
            )
        self._pass(
            "stop",
            f"exited with code 0, {_ms(trio.current_time() - began)} after its stdin closed",
        )

    def _response_times(self) -> None:
        times = ResponseTimes.of(self.times)
        if times.count == 0:
            self._skip("response_times", "not run: no request was answered")
            return
        detail = (
            f"median {times.median_ms:.1f} ms, p95 {times.p95_ms:.1f} ms, max "
            f"{times.max_ms:.1f} ms over {times.count} requests (limit {self.move_ms} ms)"
        )
        if times.max_ms is not None and times.max_ms > self.move_ms / 2:
            detail += "; the slowest is over half the limit: a busier machine may time you out"
        self._pass("response_times", detail)


class _Session:
    """One bot process, one short match: the messages and the judging of every answer."""

    def __init__(self, checker: Checker, link: BotLink) -> None:
        self.checker = checker
        self.link = link
        self.launcher = checker.launcher
        self.game = checker.game
        self.request_id = 0
        self.requests = RequestBuilder()
        self.name = ""
        self.last_sent: bytes | None = None
        self.notes: list[str] = []

    def stderr(self) -> str:
        """The end of what the bot wrote to stderr."""
        return self.link.stderr_tail(STDERR_CHARS)

    # -- low-level exchanges ------------------------------------------------------------------

    async def deliver(self, line: bytes) -> Literal["sent", "gone", "stuck"]:
        """Write a notification (no answer expected) within ``NOTIFY_TIMEOUT_S``: ``sent``, or
        ``gone`` (the bot's stdin is closed) or ``stuck`` (the bot did not read it in time)."""
        self.last_sent = line
        with trio.move_on_after(NOTIFY_TIMEOUT_S):
            try:
                await self.link.send_line(line)
            except self.launcher.gone_error:
                return "gone"
            return "sent"
        return "stuck"

    async def send(self, line: bytes, what: str) -> None:
        """Write a notification (no answer expected); fails if the bot is gone or not reading."""
        delivered = await self.deliver(line)
        if delivered == "sent":
            return
        if delivered == "gone":
            raise await self.crash(f"before reading {what}", line)
        raise _StepFailed(
            f"your bot did not read {what} within {NOTIFY_TIMEOUT_S:.0f} s — keep reading "
            "stdin, line by line, all the time",
            sent=line,
            stderr=self.stderr(),
            code="timeout",
        )

    async def exchange(
        self, line: bytes, what: str, limit_ms: int | None = None
    ) -> tuple[bytes, float]:
        """Send ``line`` and read the answer within the limit (the move limit by default).

        Returns the answer and the time it took, from the start of the write to the end of the
        read, as the referee measures it. A reply found in the pipe just after the deadline
        (the referee's last look) counts as in time, charged the whole limit.
        """
        limit = (self.checker.move_ms if limit_ms is None else limit_ms) / 1000
        self.last_sent = line
        began = trio.current_time()
        launcher = self.launcher
        gone = False
        try:
            with trio.move_on_at(began + limit):
                try:
                    await self.link.send_line(line)
                except launcher.gone_error:
                    gone = True
                else:
                    answer = await self.link.receive_line()
                    return answer, trio.current_time() - began
            late = None if gone else self.link.poll_line_nowait()
        except launcher.eof_error as error:
            unterminated = getattr(error, "unterminated", b"") or None
            raise await self.crash(f"instead of answering {what}", line, unterminated) from None
        except launcher.line_too_long_error as error:
            raise self.too_long(error, line) from None
        if gone:
            raise await self.crash(f"before reading {what}", line)
        if late is not None:
            return late, limit
        status = self.link.exit_status()
        if not status.running:
            raise _StepFailed(
                f"your bot {_how_it_ended(status)} without answering {what}, and a process it "
                "started still holds its stdout open — exit only after match_end, and let no "
                "child process keep your stdout",
                sent=line,
                stderr=self.stderr(),
            )
        if what == "hello":
            advice = (
                'answer hello at once with {"type": "ready", "name": "..."} (load big tables '
                "after that, or faster), and " + FLUSH_ADVICE
            )
        else:
            advice = "answer every request within its time_left_ms, and " + FLUSH_ADVICE
        raise _StepFailed(
            f"no answer to {what} within {limit * 1000:.0f} ms — {advice}",
            sent=line,
            stderr=self.stderr(),
            code="timeout",
        )

    async def crash(
        self, when: str, sent: bytes | None, unterminated: bytes | None = None
    ) -> _StepFailed:
        """The failure of a bot whose output or input closed: how it exited, its stderr."""
        with trio.move_on_after(EXIT_WAIT_S):
            await self.link.wait_exit()
        status = self.link.exit_status()
        if status.running:
            how = "closed its stdout but kept running"
            advice = "never close stdout; answer every request"
        elif status.returncode == 0:
            how = _how_it_ended(status)
            advice = "keep reading stdin until match_end; only match_end ends the match"
        else:
            how = _how_it_ended(status)
            advice = "its stderr below shows the error; fix it"
        if unterminated:
            advice += "; end every line with a newline"
        return _StepFailed(
            f"your bot {how} {when} — {advice}",
            sent=sent,
            received=unterminated,
            stderr=self.stderr(),
        )

    def too_long(self, error: Exception, sent: bytes) -> _StepFailed:
        """The failure of a line over the limit."""
        limit = getattr(error, "limit", 65536)
        prefix = getattr(error, "prefix", b"")
        return _StepFailed(
            f"your bot sent a line longer than {limit} bytes — one message per line, ending "
            "with a newline; " + STDOUT_ADVICE,
            sent=sent,
            received=prefix[:200] if isinstance(prefix, bytes) else None,
            stderr=self.stderr(),
            code="line_too_long",
        )

    def bad_message(self, detail: str, *, sent: bytes | None, received: bytes) -> _StepFailed:
        """The failure of an answer that is not the message it should be, or that should not
        have come at all."""
        return _StepFailed(
            detail, sent=sent, received=received, stderr=self.stderr(), code="bad_message"
        )

    async def quiet(self, after: str) -> None:
        """Listen briefly after a notification: nothing may come, and the bot must stay."""
        sent = self.last_sent
        launcher = self.launcher
        line: bytes | None = None
        try:
            with trio.move_on_after(QUIET_S):
                line = await self.link.receive_line()
        except launcher.eof_error as error:
            unterminated = getattr(error, "unterminated", b"") or None
            raise await self.crash(f"after {after}", sent, unterminated) from None
        except launcher.line_too_long_error as error:
            raise self.too_long(error, sent or b"") from None
        if line is not None:
            raise self.bad_message(
                f"your bot answered {after}, which needs no answer — only hello and request "
                "are answered; " + STDOUT_ADVICE,
                sent=sent,
                received=line,
            )

    async def stop(self, failed: _StepFailed) -> None:
        """After a failure: tell the bot why (as the referee does) and give it a moment."""
        if failed.code is None:
            return
        error = encode(m.Error(code=failed.code, message=failed.detail))
        with trio.move_on_after(0.1), suppress(self.launcher.gone_error):
            await self.link.send_line(error)
        with trio.move_on_after(ERROR_GRACE_S):
            await self.link.wait_exit()

    # -- the messages -------------------------------------------------------------------------

    async def handshake(self, hands: int) -> str:
        """Send ``hello`` for a match of ``hands`` hands and judge the ``ready``."""
        checker = self.checker
        game: Any = self.game.name
        hello = encode(
            m.Hello(
                protocol=m.PROTOCOL_VERSION,
                game=game,
                seat=BOT_SEAT,
                players=PLAYERS,
                rules=rules_to_wire(self.game.name, self.game.rules_dict(checker.rules)),
                match=m.MatchLength(hands=hands),
                time=m.TimeControl(
                    startup_ms=checker.startup_ms, move_ms=checker.move_ms, bank_ms=0
                ),
                seed=derive_seed(CHECK_SEED, "bot", BOT_SEAT),
            )
        )
        line, elapsed = await self.exchange(hello, "hello", checker.startup_ms)
        fix = (
            'answer hello with one line {"type": "ready", "name": "..."} (a name of 1 to 64 '
            "characters); " + STDOUT_ADVICE
        )
        try:
            ready = decode_from_bot(line)
        except ProtocolError as error:
            raise self.bad_message(
                f"your answer to hello is not a valid ready message: {error.detail} — {fix}",
                sent=hello,
                received=line,
            ) from None
        if not isinstance(ready, m.Ready):
            raise self.bad_message(
                f"you answered hello with a {ready.__struct_config__.tag!r} message — {fix}",
                sent=hello,
                received=line,
            )
        if ready.protocol is not None and ready.protocol != m.PROTOCOL_VERSION:
            raise self.bad_message(
                f"your ready says protocol {ready.protocol}, but the arena speaks protocol "
                f'{m.PROTOCOL_VERSION} — send "protocol": {m.PROTOCOL_VERSION} or leave it out',
                sent=hello,
                received=line,
            )
        self.name = ready.name
        echo = "" if ready.protocol is None else f", protocol {ready.protocol}"
        return f"ready {_ms(elapsed)} after hello; name {ready.name!r}{echo}"

    async def hand_start(self, state: GameState, number: int, *, quiet: bool = False) -> None:
        """Send ``hand_start`` for a new hand (and, with ``quiet``, expect no answer)."""
        self.requests.new_hand()
        leader = hand_leader(state)
        assert leader is not None
        await self.send(encode(hand_start(state.view(BOT_SEAT), number, leader)), "hand_start")
        if quiet:
            await self.quiet("hand_start")

    async def begin_hand(self, scenario: Scenario, *, quiet: bool) -> GameState:
        """Hand 1 of the match from ``scenario``'s deal: ``hand_start``, then its scripted
        moves, each of which took a request id (the referee asks a seat for every move)."""
        state = self.game.start_hand(self.checker.rules, PLAYERS, scenario.deal)
        await self.hand_start(state, 1, quiet=quiet)
        for move in scenario.prefix:
            self.request_id += 1
            state = state.apply(move)
        return state

    def request(self, state: GameState, number: int) -> tuple[SeatView, bytes]:
        """The next ``request`` for the bot, at ``state`` (a new request id)."""
        self.request_id += 1
        view = state.view(BOT_SEAT)
        move_ms = self.checker.move_ms
        message = self.requests.request(view, self.request_id, number, move_ms, 0)
        return view, encode(message)

    def decode_move(self, line: bytes, sent: bytes, request_id: int) -> m.MoveReply:
        """The bot's answer as a ``move`` with the right id, or the failure saying why not."""
        try:
            reply = decode_from_bot(line)
        except ProtocolError as error:
            if "unknown field" in error.detail:
                fix = "send only the fields of a move message: type, id, move and, if you like, "
                fix += "debug"
            else:
                fix = (
                    f'answer with one line {{"type": "move", "id": {request_id}, "move": '
                    "<one of the legal moves>}; " + STDOUT_ADVICE
                )
            raise self.bad_message(
                f"your answer to request {request_id} is not a valid move message: "
                f"{error.detail} — {fix}",
                sent=sent,
                received=line,
            ) from None
        if not isinstance(reply, m.MoveReply):
            raise self.bad_message(
                f"you answered request {request_id} with a {reply.__struct_config__.tag!r} "
                'message — a request is answered with {"type": "move", ...}; ' + STDOUT_ADVICE,
                sent=sent,
                received=line,
            )
        if reply.id != request_id:
            raise self.bad_message(
                f"your reply had id {reply.id} but the request's id was {request_id} — copy "
                "the id of the request you answer (ids are shared by all seats, so the ids you "
                "see have gaps: never count them yourself)",
                sent=sent,
                received=line,
            )
        return reply

    def judge(
        self,
        reply: m.MoveReply,
        view: SeatView,
        hint: str | None,
        sent: bytes,
        line: bytes,
    ) -> Move:
        """The engine move of a legal reply, or the failure naming the legal moves.

        ``hint`` says what to do in this position (a scenario's own advice for the position it
        is about); without one, advice is worked out from the position and the move.
        """
        move = move_from_wire(reply.move)
        if move in view.legal:
            return move
        advice = hint or _advice(view, move)
        raise _StepFailed(
            f"your move {move} is not legal in request {reply.id} (open ends: "
            f"{_ends_text(view)}); the legal moves were: {_moves_text(view.legal)} — {advice}; "
            "echoing one element of the request's legal list is always right",
            sent=sent,
            received=line,
            stderr=self.stderr(),
            code="illegal_move",
        )

    async def turn(
        self, state: GameState, scenario: Scenario | None, number: int, played: list[Move]
    ) -> Move:
        """Ask the bot for its move at ``state`` and judge the answer (``played``: the bot's
        moves so far in this hand)."""
        view, message = self.request(state, number)
        request_id = self.request_id
        try:
            line, elapsed = await self.exchange(message, f"request {request_id}")
            self.checker.times.append(elapsed)
            reply = self.decode_move(line, message, request_id)
            hint = scenario.hint if not played and scenario is not None else None
            return self.judge(reply, view, hint, message, line)
        except _StepFailed as failed:
            # The scripted position is the first request and any draws right after it; a
            # failure after that happened in the ordinary play that finishes the hand.
            if scenario is not None and any(move.kind != "draw" for move in played):
                failed.detail = (
                    f"the position itself went well ({_key_moves(played)}); later in hand "
                    f"{number}: {failed.detail}"
                )
            elif scenario is None:
                failed.detail = f"in hand {number}: {failed.detail}"
            raise

    async def play_out(
        self, state: GameState, scenario: Scenario | None, number: int, played: list[Move]
    ) -> GameState:
        """Play the hand to its end: the bot answers its requests, the checker plays the other
        seat (its first legal move). ``played`` collects the bot's moves."""
        while state.outcome() is None:
            seat = state.to_move
            if seat == OTHER_SEAT:
                self.request_id += 1  # the referee would have sent the other seat a request
                state = state.apply(state.legal_moves()[0])
                continue
            assert seat == BOT_SEAT
            move = await self.turn(state, scenario, number, played)
            if not played and scenario is not None and scenario.note is not None:
                self.notes.append(scenario.note(state, move))
            played.append(move)
            state = state.apply(move)
        return state

    def hand_summary(self, played: list[Move]) -> str:
        """What the bot did in a scripted hand, for a passing step."""
        text = _key_moves(played)
        if self.notes:
            text += f" ({self.notes[-1]})"
        rest = len(played) - _key_count(played)
        if rest:
            text += f"; then {rest} more legal moves to the end of the hand"
        return text

    async def hand_end(
        self, state: GameState, number: int, *, quiet: bool
    ) -> tuple[tuple[int, ...], bool]:
        """Send ``hand_end`` for the finished hand; returns the scores and whether the match
        is over (a game's own target reached)."""
        outcome = state.outcome()
        assert outcome is not None
        views = [state.view(seat) for seat in range(PLAYERS)]
        hands_left = [list(view.hand) for view in views]
        message = hand_end(outcome, number, hands_left, views[0].layout, views[0])
        await self.send(encode(message), "hand_end")
        if quiet:
            await self.quiet("hand_end")
        target = match_target(self.game)
        over = outcome.kind is HandEnd.TARGET or (
            target is not None and max(outcome.scores) >= target
        )
        return outcome.scores, over

    async def match_end(self, scores: tuple[int, ...], *, judge: bool) -> str:
        """Send ``match_end``; with ``judge``, the bot must exit cleanly within the grace."""
        best = max(scores)
        leaders = [seat for seat, score in enumerate(scores) if score == best]
        names = {BOT_SEAT: self.name or "bot", OTHER_SEAT: "arena-check"}
        target = match_target(self.game)
        message = encode(
            m.MatchEnd(
                scores=list(scores),
                winner=leaders[0] if len(leaders) == 1 else None,
                reason="target" if target is not None and best >= target else "hands",
                results=[
                    m.SeatResult(seat=seat, name=names[seat], status="ok")
                    for seat in range(PLAYERS)
                ],
            )
        )
        began = trio.current_time()
        gone = await self.deliver(message) == "gone"
        if not judge:
            return ""
        with trio.move_on_after(EXIT_GRACE_S):
            await self.link.wait_exit()
        took = trio.current_time() - began
        status = self.link.exit_status()
        if status.running:
            raise _StepFailed(
                f"your bot was still running {EXIT_GRACE_S * 1000:.0f} ms after match_end — "
                "exit as soon as match_end arrives (the referee stops a bot that stays, and "
                "waiting for it slows every match)",
                sent=message,
                stderr=self.stderr(),
            )
        extra = self._lines_left()
        if extra:
            raise _StepFailed(
                "your bot answered match_end, which needs no answer — just exit; " + STDOUT_ADVICE,
                sent=message,
                received=extra,
                stderr=self.stderr(),
            )
        if status.returncode != 0:
            raise _StepFailed(
                f"your bot {_how_it_ended(status)} after match_end — exit with code 0 (its stderr "
                "below shows what went wrong)",
                sent=message,
                stderr=self.stderr(),
            )
        if gone:
            return "exited with code 0 (already before match_end arrived)"
        return f"exited with code 0, {_ms(took)} after match_end"

    def _lines_left(self) -> bytes | None:
        """A line the bot wrote that nobody asked for, if one is waiting."""
        try:
            return self.link.poll_line_nowait()
        except (self.launcher.eof_error, self.launcher.line_too_long_error):
            return None


async def check_bot(
    command: str,
    game_name: str,
    launcher: Launcher,
    *,
    move_ms: int = 1000,
    startup_ms: int = 5000,
    on_step: Callable[[StepResult], None] | None = None,
) -> CheckReport:
    """Check the bot started by ``command`` at ``game_name``: every step, in order.

    ``on_step`` is called with each step as soon as it and every step before it are done.
    """
    checker = Checker(
        command, game_name, launcher, move_ms=move_ms, startup_ms=startup_ms, on_step=on_step
    )
    return await checker.run()
