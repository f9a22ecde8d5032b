"""One bot process of ``arena check``: the messages the referee would send, and every answer
judged.

A :class:`Session` plays one short match with the bot, seat `positions.BOT_SEAT` (the checker
plays the other seat itself). It sends the referee's own messages (`arena.wire`, a
`RequestBuilder` per match), has each answer judged by the referee's judge (`arena.judge`),
and turns everything that goes wrong (a rejected answer, a silence, a crash, a line too long:
`arena.errors.BotIOError`) into a :class:`StepFailed` worded for the student
(`arena.check.advice`).
"""

from __future__ import annotations

from contextlib import suppress
from typing import Any, Literal, Protocol

import trio

from arena.check.advice import (
    FLUSH_ADVICE,
    STDOUT_ADVICE,
    ExitInfo,
    how_it_ended,
    key_count,
    key_moves,
    move_refusal,
    ms,
    ready_refusal,
)
from arena.check.positions import BOT_SEAT, OTHER_SEAT, PLAYERS, Scenario
from arena.errors import BotEOFError, BotGoneError, LineTooLongError
from arena.games.api import Game, GameState, HandEnd, Move, SeatView, derive_seed
from arena.games.match import hand_leader, match_target
from arena.judge import Accepted, Fault, Judgement, Rejection, judge_move, judge_ready
from arena.wire import RequestBuilder, hand_end, hand_start, rules_to_wire
from protocol import messages as m
from protocol.codec import encode

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

ErrorCode = Literal["timeout", "bad_message", "illegal_move", "line_too_long"]


class BotLink(Protocol):
    """A running bot, line by line (``arena.referee.process.BotProcess``)."""

    async def send_line(self, line: bytes) -> None: ...

    async def receive_line(self) -> bytes: ...

    def poll_line_nowait(self) -> bytes | None: ...

    def stderr_tail(self, max_chars: int = 2000) -> str: ...

    def exit_status(self) -> ExitInfo: ...

    async def wait_exit(self) -> ExitInfo: ...


class StepFailed(Exception):
    """The current step failed; carries what to tell the student."""

    def __init__(
        self,
        detail: str,
        *,
        sent: bytes | None = None,
        received: bytes | None = None,
        stderr: str = "",
        code: ErrorCode | None = None,
    ) -> None:
        super().__init__(detail)
        self.detail = detail
        self.sent = sent
        self.received = received
        self.stderr = stderr
        self.code = code


def text_of(line: bytes | None) -> str | None:
    return None if line is None else line.decode("utf-8", errors="replace")


class Session:
    """One bot process, one short match: the messages and the judging of every answer."""

    def __init__(
        self,
        link: BotLink,
        game: Game,
        rules: Any,
        *,
        move_ms: int,
        startup_ms: int,
        times: list[float],
    ) -> None:
        self.link = link
        self.game = game
        self.rules = rules
        self.move_ms = move_ms
        self.startup_ms = startup_ms
        #: The time of every answered request (the response-times step reads them).
        self.times = times
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
            except BotGoneError:
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
        raise StepFailed(
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
        limit = (self.move_ms if limit_ms is None else limit_ms) / 1000
        self.last_sent = line
        began = trio.current_time()
        gone = False
        try:
            with trio.move_on_at(began + limit):
                try:
                    await self.link.send_line(line)
                except BotGoneError:
                    gone = True
                else:
                    answer = await self.link.receive_line()
                    return answer, trio.current_time() - began
            late = None if gone else self.link.poll_line_nowait()
        except BotEOFError as error:
            unterminated = error.unterminated or None
            raise await self.crash(f"instead of answering {what}", line, unterminated) from None
        except LineTooLongError as error:
            raise self.too_long(error, line) from None
        if gone:
            raise await self.crash(f"before reading {what}", line)
        if late is not None:
            return late, limit
        status = self.link.exit_status()
        if not status.running:
            raise StepFailed(
                f"your bot {how_it_ended(status)} without answering {what}, and a process it "
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
        raise StepFailed(
            f"no answer to {what} within {limit * 1000:.0f} ms — {advice}",
            sent=line,
            stderr=self.stderr(),
            code="timeout",
        )

    async def crash(
        self, when: str, sent: bytes | None, unterminated: bytes | None = None
    ) -> StepFailed:
        """The failure of a bot whose output or input closed: how it exited, its stderr."""
        with trio.move_on_after(EXIT_WAIT_S):
            await self.link.wait_exit()
        status = self.link.exit_status()
        if status.running:
            how = "closed its stdout but kept running"
            advice = "never close stdout; answer every request"
        elif status.returncode == 0:
            how = how_it_ended(status)
            advice = "keep reading stdin until match_end; only match_end ends the match"
        else:
            how = how_it_ended(status)
            advice = "its stderr below shows the error; fix it"
        if unterminated:
            advice += "; end every line with a newline"
        return StepFailed(
            f"your bot {how} {when} — {advice}",
            sent=sent,
            received=unterminated,
            stderr=self.stderr(),
        )

    def too_long(self, error: LineTooLongError, sent: bytes) -> StepFailed:
        """The failure of a line over the limit."""
        limit, prefix = error.limit, error.prefix
        return StepFailed(
            f"your bot sent a line longer than {limit} bytes — one message per line, ending "
            "with a newline; " + STDOUT_ADVICE,
            sent=sent,
            received=prefix[:200] if isinstance(prefix, bytes) else None,
            stderr=self.stderr(),
            code="line_too_long",
        )

    def bad_message(self, detail: str, *, sent: bytes | None, received: bytes) -> StepFailed:
        """The failure of an answer that is not the message it should be, or that should not
        have come at all."""
        return StepFailed(
            detail, sent=sent, received=received, stderr=self.stderr(), code="bad_message"
        )

    async def quiet(self, after: str) -> None:
        """Listen briefly after a notification: nothing may come, and the bot must stay."""
        sent = self.last_sent
        line: bytes | None = None
        try:
            with trio.move_on_after(QUIET_S):
                line = await self.link.receive_line()
        except BotEOFError as error:
            unterminated = error.unterminated or None
            raise await self.crash(f"after {after}", sent, unterminated) from None
        except LineTooLongError as error:
            raise self.too_long(error, sent or b"") from None
        if line is not None:
            raise self.bad_message(
                f"your bot answered {after}, which needs no answer — only hello and request "
                "are answered; " + STDOUT_ADVICE,
                sent=sent,
                received=line,
            )

    async def stop(self, failed: StepFailed) -> None:
        """After a failure: tell the bot why (as the referee does) and give it a moment."""
        if failed.code is None:
            return
        error = encode(m.Error(code=failed.code, message=failed.detail))
        with trio.move_on_after(0.1), suppress(BotGoneError):
            await self.link.send_line(error)
        with trio.move_on_after(ERROR_GRACE_S):
            await self.link.wait_exit()

    # -- the messages -------------------------------------------------------------------------

    async def handshake(self, hands: int) -> str:
        """Send ``hello`` for a match of ``hands`` hands and judge the ``ready``."""
        game: Any = self.game.name
        hello = encode(
            m.Hello(
                protocol=m.PROTOCOL_VERSION,
                game=game,
                seat=BOT_SEAT,
                players=PLAYERS,
                rules=rules_to_wire(self.game.name, self.game.rules_dict(self.rules)),
                match=m.MatchLength(hands=hands),
                time=m.TimeControl(startup_ms=self.startup_ms, move_ms=self.move_ms, bank_ms=0),
                seed=derive_seed(CHECK_SEED, "bot", BOT_SEAT),
            )
        )
        line, elapsed = await self.exchange(hello, "hello", self.startup_ms)
        ready = judge_ready(line)
        if isinstance(ready, Rejection):
            raise self.bad_message(ready_refusal(ready), sent=hello, received=line)
        self.name = ready.name
        echo = "" if ready.protocol is None else f", protocol {ready.protocol}"
        return f"ready {ms(elapsed)} after hello; name {ready.name!r}{echo}"

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
        state = self.game.start_hand(self.rules, PLAYERS, scenario.deal)
        await self.hand_start(state, 1, quiet=quiet)
        for move in scenario.prefix:
            self.request_id += 1
            state = state.apply(move)
        return state

    def request(self, state: GameState, number: int) -> tuple[SeatView, bytes]:
        """The next ``request`` for the bot, at ``state`` (a new request id)."""
        self.request_id += 1
        view = state.view(BOT_SEAT)
        move_ms = self.move_ms
        message = self.requests.request(view, self.request_id, number, move_ms, 0)
        return view, encode(message)

    def judge(self, line: bytes, view: SeatView, request_id: int) -> Judgement:
        """The judge's verdict on the answer to request ``request_id`` (`arena.judge`, the
        referee's own judge)."""
        return judge_move(line, request_id, view)

    def move_of(
        self, judged: Judgement, view: SeatView, hint: str | None, sent: bytes, line: bytes
    ) -> Move:
        """The engine move of an accepted answer, or the failure saying what to do instead."""
        if isinstance(judged, Accepted):
            return judged.move
        failed = StepFailed(
            move_refusal(judged, view, hint),
            sent=sent,
            received=line,
            stderr=self.stderr(),
            code="illegal_move" if judged.fault is Fault.ILLEGAL_MOVE else "bad_message",
        )
        raise failed

    async def turn(
        self, state: GameState, scenario: Scenario | None, number: int, played: list[Move]
    ) -> Move:
        """Ask the bot for its move at ``state`` and judge the answer (``played``: the bot's
        moves so far in this hand)."""
        view, message = self.request(state, number)
        request_id = self.request_id
        try:
            line, elapsed = await self.exchange(message, f"request {request_id}")
            self.times.append(elapsed)
            hint = scenario.hint if not played and scenario is not None else None
            return self.move_of(self.judge(line, view, request_id), view, hint, message, line)
        except StepFailed as failed:
            # The scripted position is the first request and any draws right after it; a
            # failure after that happened in the ordinary play that finishes the hand.
            if scenario is not None and any(move.kind != "draw" for move in played):
                failed.detail = (
                    f"the position itself went well ({key_moves(played)}); later in hand "
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
        text = key_moves(played)
        if self.notes:
            text += f" ({self.notes[-1]})"
        rest = len(played) - key_count(played)
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
            raise StepFailed(
                f"your bot was still running {EXIT_GRACE_S * 1000:.0f} ms after match_end — "
                "exit as soon as match_end arrives (the referee stops a bot that stays, and "
                "waiting for it slows every match)",
                sent=message,
                stderr=self.stderr(),
            )
        extra = self._lines_left()
        if extra:
            raise StepFailed(
                "your bot answered match_end, which needs no answer — just exit; " + STDOUT_ADVICE,
                sent=message,
                received=extra,
                stderr=self.stderr(),
            )
        if status.returncode != 0:
            raise StepFailed(
                f"your bot {how_it_ended(status)} after match_end — exit with code 0 (its stderr "
                "below shows what went wrong)",
                sent=message,
                stderr=self.stderr(),
            )
        if gone:
            return "exited with code 0 (already before match_end arrived)"
        return f"exited with code 0, {ms(took)} after match_end"

    def _lines_left(self) -> bytes | None:
        """A line the bot wrote that nobody asked for, if one is waiting."""
        try:
            return self.link.poll_line_nowait()
        except (BotEOFError, LineTooLongError):
            return None
