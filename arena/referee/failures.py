"""A seat's failure records, with their evidence: what the referee writes down when a bot's
pipe breaks (`arena.errors.BotIOError`), its time runs out, it crashes, the judge rejects its
reply (`arena.judge.Rejection`), or the sandbox's limit ended it.

`arena.referee.match` decides *when* a bot has failed and what it costs (a strike, a restart, a
forfeit); these functions only build the record. The words in them are the replays' (the golden
replays pin them).
"""

from __future__ import annotations

from collections.abc import Iterable

import msgspec
import trio

from arena.errors import BotEOFError, BotGoneError, LineTooLongError, OutputLimitError
from arena.judge import Fault, Rejection
from arena.referee.channel import BotChannel
from arena.replay import EXCHANGED_LINE_CHARS, ExchangedLine, Failure, Phase, Status
from arena.wire import move_to_wire

#: After EOF, how long to wait for the process to exit so its exit code can be reported.
EXIT_WAIT_S = 0.5


async def crash_failure(
    channel: BotChannel | None,
    what: str,
    phase: Phase,
    hand_number: int | None,
    request_id: int | None,
    unterminated: bytes = b"",
) -> Failure:
    """A bot that closed a pipe (``what``): how it exited, if it did within `EXIT_WAIT_S`."""
    assert channel is not None
    with trio.move_on_after(EXIT_WAIT_S):
        await channel.wait_exit()
    status = channel.exit_status()
    if status.running:
        detail = f"{what} but kept running"
    else:
        detail = f"{what} and exited ({status.describe()})"
    return Failure(
        Status.CRASH,
        detail,
        phase,
        hand_number=hand_number,
        request_id=request_id,
        exit_code=status.returncode if status.signal is None else None,
        signal=status.signal,
        line=unterminated[:200].decode("utf-8", "replace") if unterminated else None,
        stderr_tail=channel.stderr_tail(),
    )


async def io_failure(
    channel: BotChannel | None,
    error: BotGoneError | BotEOFError | LineTooLongError | OutputLimitError,
    phase: Phase,
    hand_number: int | None,
    request_id: int | None,
) -> Failure:
    """The failure a broken pipe, an end of output, an over-long line or too much output in
    all amounts to."""
    if isinstance(error, BotGoneError):
        return await crash_failure(channel, "closed its input", phase, hand_number, request_id)
    if isinstance(error, BotEOFError):
        return await crash_failure(
            channel, "closed its output", phase, hand_number, request_id, error.unterminated
        )
    assert channel is not None
    if isinstance(error, OutputLimitError):
        return Failure(
            Status.OUTPUT_LIMIT,
            f"wrote more than {error.limit} bytes to its stdout in the match",
            phase,
            hand_number=hand_number,
            request_id=request_id,
            stderr_tail=channel.stderr_tail(),
        )
    return Failure(
        Status.LINE_TOO_LONG,
        f"sent a line longer than {error.limit} bytes",
        phase,
        hand_number=hand_number,
        request_id=request_id,
        line=error.prefix.decode("utf-8", "replace"),
        stderr_tail=channel.stderr_tail(),
    )


def timeout_failure(
    channel: BotChannel | None,
    startup_ms: int,
    overrun_s: float,
    hand_number: int | None,
    request_id: int | None,
    phase: Phase = Phase.MOVE,
) -> Failure:
    """A bot that did not answer ``hello`` (within ``startup_ms``) or a request in time."""
    assert channel is not None
    if phase in (Phase.STARTUP, Phase.RESTART):
        detail = f"did not answer 'hello' within {startup_ms} ms"
    else:
        detail = f"did not answer request {request_id} in time"
    overrun_ms = round(max(0.0, overrun_s) * 1000, 1)
    return Failure(
        Status.TIMEOUT,
        f"{detail} (over by {overrun_ms} ms)",
        phase,
        hand_number=hand_number,
        request_id=request_id,
        overrun_ms=overrun_ms,
        stderr_tail=channel.stderr_tail(),
    )


def rejected_failure(
    channel: BotChannel | None,
    line: bytes,
    rejection: Rejection,
    phase: Phase,
    hand_number: int | None,
) -> Failure:
    """The failure record of a reply the judge rejected, with its evidence."""
    assert channel is not None
    if rejection.fault is Fault.ILLEGAL_MOVE:
        return Failure(
            Status.ILLEGAL_MOVE,
            rejection.reason,
            phase,
            hand_number=hand_number,
            request_id=rejection.request_id,
            move=rejection.wire_move,
            legal=[move_to_wire(mv) for mv in rejection.legal],
            stderr_tail=channel.stderr_tail(),
        )
    return Failure(
        Status.BAD_MESSAGE,
        rejection.detail,
        phase,
        hand_number=hand_number,
        request_id=rejection.request_id,
        line=line[:200].decode("utf-8", "replace"),
        error=rejection.reason,
        stderr_tail=channel.stderr_tail(),
    )


def with_messages(transcript: Iterable[tuple[str, bytes]], failure: Failure) -> Failure:
    """The failure with the last lines exchanged with the bot (``transcript``) as evidence."""
    if failure.messages is not None:
        return failure
    lines = [
        ExchangedLine(
            direction,  # type: ignore[arg-type]
            line.rstrip(b"\n")[:EXCHANGED_LINE_CHARS].decode("utf-8", "replace"),
        )
        for direction, line in transcript
    ]
    if not lines:
        return failure
    return msgspec.structs.replace(failure, messages=lines)


def resource_limited(channel: BotChannel | None, failure: Failure) -> Failure:
    """A crash or a timeout caused by a sandbox limit, recorded as that limit instead.

    Every crash, end of output and timeout reaches the referee's ``_stop``: this is where the
    sandbox is asked (`BotChannel.resource_outcome`) whether its memory or CPU limit ended the
    bot; when it did, the status and detail become the limit's, with its evidence.
    """
    if channel is None or failure.status not in (Status.CRASH, Status.TIMEOUT):
        return failure
    outcome = channel.resource_outcome()
    if outcome is None:
        return failure
    usage = outcome.usage
    cpu = None if usage.cpu_seconds is None else round(usage.cpu_seconds, 3)
    return msgspec.structs.replace(
        failure,
        status=Status(outcome.status),
        detail=outcome.detail,
        overrun_ms=None,
        cpu_seconds=cpu,
        memory_peak_bytes=usage.memory_peak_bytes,
    )
