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
from contextlib import AbstractAsyncContextManager
from dataclasses import dataclass, field
from typing import Any, Literal, NamedTuple

import trio

from arena.check.advice import ExitInfo, how_it_ended, ms
from arena.check.positions import PLAYERS, Scenario, default_rules, scenarios_of
from arena.check.session import (
    CHECK_SEED,
    EXIT_GRACE_S,
    BotLink,
    Session,
    StepFailed,
    text_of,
)
from arena.errors import BotCommandError
from arena.games.api import Game, Move, derive_seed
from arena.games.registry import get_game
from arena.judge import Fault, Rejection

__all__ = [
    "EXIT_GRACE_S",
    "BotLink",
    "CheckReport",
    "ExitInfo",
    "Launcher",
    "PlannedStep",
    "ResponseTimes",
    "StepResult",
    "StepStatus",
    "check_bot",
    "plan",
]

StepStatus = Literal["pass", "fail", "skip"]


@dataclass(frozen=True)
class Launcher:
    """How the checker starts a bot.

    Attributes:
        open: starts the bot from its command line (raising `arena.errors.BotCommandError`
            when it cannot); leaving the context stops its whole process group. Its line I/O
            raises the `arena.errors.BotIOError` family, which the checker catches itself.
        close_input: closes the bot's stdin and nothing else (the stop test).
    """

    open: Callable[[str], AbstractAsyncContextManager[BotLink]]
    close_input: Callable[[BotLink], None]


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

    def _fail(self, key: str, failed: StepFailed) -> None:
        step = self.steps[key]
        step.sent, step.received = text_of(failed.sent), text_of(failed.received)
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

    async def _session(self, body: Callable[[Session], Awaitable[None]]) -> None:
        """Start the bot, run ``body`` with it, and stop it; a failure fails the current step
        and skips the steps the session had still to run."""
        started = self.current
        try:
            async with self.launcher.open(self.command) as link:
                session = Session(
                    link,
                    self.game,
                    self.rules,
                    move_ms=self.move_ms,
                    startup_ms=self.startup_ms,
                    times=self.times,
                )
                try:
                    await body(session)
                except StepFailed as failed:
                    self._fail(self.current, failed)
                    await session.stop(failed)
        except BotCommandError as error:
            self._fail(self.current, StepFailed(f"cannot start your bot: {error}"))
        if started == "handshake":  # the match session: what it did not reach is skipped
            failed_step = self.steps[self.current]
            for key in ("request_id", self.first.key, "hand_end", "match_end"):
                if failed_step.status == "fail":
                    self._skip(
                        key,
                        f"not run: the match stopped at step {failed_step.number} "
                        f"({failed_step.name})",
                    )

    async def _match_session(self, s: Session) -> None:
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
        judged = s.judge(line, view, s.request_id)
        if isinstance(judged, Rejection) and judged.fault is not Fault.ILLEGAL_MOVE:
            s.move_of(judged, view, scenario.hint, message, line)  # raises: the id step fails
        self._pass(
            "request_id",
            f"request {s.request_id} answered in {ms(elapsed)} with a move carrying id "
            f"{s.request_id}",
        )

        self.current = scenario.key
        move = s.move_of(judged, view, scenario.hint, message, line)
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

    def _rule_body(self, scenario: Scenario) -> Callable[[Session], Awaitable[None]]:
        """The session body of a rule step."""

        async def body(s: Session) -> None:
            await self._rule_session(s, scenario)

        return body

    async def _rule_session(self, s: Session, scenario: Scenario) -> None:
        """A rule step: a one-hand match from the scripted position."""
        await s.handshake(hands=1)
        state = await s.begin_hand(scenario, quiet=False)
        played: list[Move] = []
        state = await s.play_out(state, scenario, 1, played)
        scores, _over = await s.hand_end(state, 1, quiet=False)
        await s.match_end(scores, judge=False)
        self._pass(scenario.key, s.hand_summary(played))

    async def _stop_session(self, s: Session) -> None:
        """The stop step: close the bot's stdin after ``hand_start``; it must exit."""
        await s.handshake(hands=1)
        await s.hand_start(self.game.start_hand(self.rules, PLAYERS, self.first.deal), 1)
        self.launcher.close_input(s.link)
        began = trio.current_time()
        with trio.move_on_after(EXIT_GRACE_S):
            await s.link.wait_exit()
        status = s.link.exit_status()
        if status.running:
            raise StepFailed(
                f"your bot was still running {EXIT_GRACE_S * 1000:.0f} ms after its stdin was "
                "closed — when reading stdin reaches end of file, exit (that is how the referee "
                "stops a bot)",
                stderr=s.stderr(),
            )
        if status.returncode != 0:
            raise StepFailed(
                f"your bot {how_it_ended(status)} when its stdin was closed — treat end of input "
                "as the end and exit with code 0 (see its stderr for the error)",
                stderr=s.stderr(),
            )
        self._pass(
            "stop",
            f"exited with code 0, {ms(trio.current_time() - began)} after its stdin closed",
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
