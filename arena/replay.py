"""The replay file: the record of one match, enough to re-run and verify it bit for bit.

One JSON document per match (docs/replay-format.md). Written atomically: the text goes to a
temporary file in the same folder, is flushed to disk, then renamed over the final name, so a
crash never leaves a half file that looks whole.
"""

from __future__ import annotations

import codecs
import errno
import os
import stat
import tempfile
from pathlib import Path
from typing import Any, Literal, TypeVar

import msgspec

from arena.errors import ArenaError
from arena.games.match import EndReason
from arena.policy import STRICT, FailurePolicy
from arena.status import Phase as Phase
from arena.status import Status as Status
from protocol import messages as m

#: The format this arena writes. Format 2 added failure policies (strikes, restarts), the last
#: messages of a failure, and what `arena rematch` needs (bot folders, sandbox, working folder).
REPLAY_FORMAT = 2
#: The formats this arena reads (a format-1 file reads as a strict match).
READABLE_FORMATS = (1, 2)


class ExchangedLine(msgspec.Struct, frozen=True):
    """One line between the referee and a bot, as it went over the pipe (truncated).

    Attributes:
        direction: ``"sent"`` (referee to bot) or ``"received"`` (bot to referee).
        text: the line without its newline, cut to `EXCHANGED_LINE_CHARS` characters.
    """

    direction: Literal["sent", "received"]
    text: str


#: The longest line kept in a failure's ``messages``, in characters.
EXCHANGED_LINE_CHARS = 4000


class Failure(msgspec.Struct, frozen=True, omit_defaults=True):
    """A bot failure with its evidence. Only the fields that apply to the kind are set.

    Attributes:
        status: the kind of failure.
        detail: one sentence for a person.
        phase: when it failed (`Phase`: ``startup`` before ``ready``, ``move`` answering a
            request, ``notify`` while being sent a hand message, ``restart`` the handshake of a
            restarted bot).
        hand_number: the hand in progress, if any.
        request_id: the request being answered, if any.
        overrun_ms: for a timeout, how far past the allowance the referee gave up.
        exit_code: for a crash, the exit code, when the bot exited.
        signal: for a crash, the signal that killed it, when one did.
        line: the offending bytes (truncated to 200) for a bad message or a line too long.
        error: the decoder's message, with the JSON path.
        move: for an illegal move, what the bot asked for.
        legal: for an illegal move, the legal moves.
        stderr_tail: the end of the bot's stderr when it failed.
        cpu_seconds: for a resource limit, the CPU time the bot's process tree used, when the
            sandbox measured it.
        memory_peak_bytes: for a resource limit, the peak memory of the bot's process tree,
            when the sandbox measured it.
        messages: the last lines exchanged with the bot before the failure, oldest first.
    """

    status: Status
    detail: str
    phase: Phase
    hand_number: int | None = None
    request_id: int | None = None
    overrun_ms: float | None = None
    exit_code: int | None = None
    signal: int | None = None
    line: str | None = None
    error: str | None = None
    move: m.ReplyMove | None = None
    legal: list[m.WireMove] | None = None
    stderr_tail: str | None = None
    cpu_seconds: float | None = None
    memory_peak_bytes: int | None = None
    messages: list[ExchangedLine] | None = None


class Action(msgspec.Struct, frozen=True, omit_defaults=True, tag="move", tag_field="event"):
    """One move of a hand.

    ``request_id``, ``time_left_ms`` (what the request said) and ``elapsed_ms`` (as the referee
    measured it, at most the allowance) are absent for an automatic pass of a retired seat
    (``auto``). ``late_ms``, only when there was some, says how long after the deadline the
    referee took up a reply it accepted (it woke late; the true time is ``elapsed_ms`` plus
    ``late_ms``). A move the referee played for a struck bot (failure policy ``lenient``) is
    ``auto`` too, and ``strike`` holds the failure that cost the strike.
    """

    seat: int
    move: m.WireMove
    request_id: int | None = None
    time_left_ms: int | None = None
    elapsed_ms: float | None = None
    late_ms: float | None = None
    debug: str | None = None
    auto: bool = False
    strike: Failure | None = None


class Restart(msgspec.Struct, frozen=True, tag="restart", tag_field="event"):
    """The seat's bot crashed here and was started again (failure policy ``lenient``).

    When the new process fails its handshake, a `Retirement` follows.
    """

    seat: int
    failure: Failure


class Retirement(msgspec.Struct, frozen=True, tag="retire", tag_field="event"):
    """A seat retired at this point of the hand because its bot failed."""

    seat: int
    status: Status


HandEvent = Action | Restart | Retirement


class DealRecord(msgspec.Struct, frozen=True):
    """The tiles of a hand as dealt: hands in seat order, the boneyard top first."""

    hands: list[list[tuple[int, int]]]
    boneyard: list[tuple[int, int]]


class HandOutcomeRecord(msgspec.Struct, frozen=True):
    """How a hand ended, as the engine computed it."""

    kind: str
    winners: list[int]
    award: list[int]
    scores: list[int]
    pips: list[int]


class HandRecord(msgspec.Struct, frozen=True, omit_defaults=True):
    """One hand: its deal, the seat that led, every event, and how it ended (``None`` when the
    match was forfeited during the hand).

    ``retired_after`` lists seats retired after the hand ended and its award counted (their bot
    failed to take the ``hand_end`` message): they are out from the next hand on.
    """

    hand_number: int
    deal: DealRecord
    leader: int
    events: list[HandEvent]
    outcome: HandOutcomeRecord | None
    retired_after: list[Retirement] = []


class SeatRecord(msgspec.Struct, frozen=True, omit_defaults=True):
    """One seat: the bot's command (and folder) and name, how it finished, its strikes and
    restarts, and its captured stderr (of every process it ran as, in order).

    ``name`` is the name the bot said in ``ready`` (``seatN`` if it never did); ``arena_name``
    the arena's name for it (its ``bot.toml`` name, or the file its command runs, made unique
    in a tournament), the one every output shows first (`arena.text.seat_name`); absent in
    replays written before it was recorded.
    """

    seat: int
    command: str
    name: str
    status: Status
    detail: str = ""
    failure: Failure | None = None
    stderr: str = ""
    folder: str | None = None
    strikes: int = 0
    restarts: int = 0
    arena_name: str | None = None


class ResultRecord(msgspec.Struct, frozen=True):
    """The end of the match."""

    scores: list[int]
    winner: int | None
    reason: EndReason
    ranking: list[int]


class Replay(msgspec.Struct, frozen=True, omit_defaults=True):
    """A whole match (docs/replay-format.md).

    ``policy``, ``sandbox`` (a `arena.referee.sandbox.SandboxConfig` as a mapping),
    ``max_stdout_bytes``, ``max_line_bytes`` and ``workdir`` (the folder the arena ran in,
    where relative bot commands start) are what `arena rematch` needs to play the match again.
    ``host`` and ``mechanism`` say where a match of a cluster ran: the worker's machine and
    the sandbox mechanism that contained its bots there (both absent for a match played here).
    """

    format: int
    protocol: int
    game: str
    rules: dict[str, Any]
    players: int
    seed: int
    match: m.MatchLength
    time: m.TimeControl
    seats: list[SeatRecord]
    hands: list[HandRecord]
    result: ResultRecord
    started_at: str = ""
    duration_s: float = 0.0
    policy: FailurePolicy = STRICT
    sandbox: dict[str, Any] | None = None
    max_stdout_bytes: int | None = None
    max_line_bytes: int = 1 << 16
    workdir: str = ""
    host: str = ""
    mechanism: str = ""


class ReplayError(ArenaError, ValueError):
    """A replay file that cannot be read: missing, not JSON, wrong shape or unknown format."""


_ENCODER = msgspec.json.Encoder()


def encode_replay(replay: Replay) -> bytes:
    """The replay as JSON bytes (compact, one document, newline-terminated)."""
    return _ENCODER.encode(replay) + b"\n"


def write_replay(path: str | os.PathLike[str], replay: Replay) -> Path:
    """Write ``replay`` to ``path`` atomically (temporary file, fsync, rename)."""
    return write_replay_bytes(path, encode_replay(replay))


def write_replay_bytes(path: str | os.PathLike[str], data: bytes) -> Path:
    """Write an encoded replay (`encode_replay`'s bytes) to ``path`` atomically."""
    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
    try:
        os.fchmod(fd, 0o644)  # mkstemp makes the file private; a replay is meant to be shared
        with os.fdopen(fd, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, target)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return target


#: The largest replay file this arena reads (256 MiB: a match of thousands of hands, each move
#: with its full ``debug`` note, stays well below it). No more than this is ever read.
MAX_REPLAY_BYTES = 256 << 20


class _Header(msgspec.Struct):
    """What is read of a replay before its format is known (other fields are skipped)."""

    format: Any = None


def read_replay(path: str | os.PathLike[str]) -> Replay:
    """Read and check a replay file: a regular file or a pipe, at most `MAX_REPLAY_BYTES`.

    Raises:
        ReplayError: one line naming the file and what is wrong with it.
    """
    return decode_replay(read_replay_bytes(path), repr(str(path)))


def read_replay_bytes(path: str | os.PathLike[str], limit: int = MAX_REPLAY_BYTES) -> bytes:
    """The bytes of the replay file at ``path``, refusing what is not a file or is larger than
    ``limit`` bytes before reading it (a pipe is read up to ``limit`` + 1 bytes, no further).

    Raises:
        ReplayError: naming the file and why it cannot be read.
    """
    name = repr(str(path))
    try:
        # Non-blocking, so that opening a FIFO with no writer does not wait for one.
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    except OSError as error:
        raise ReplayError(f"cannot read replay {name}: {_reason(error)}") from None
    try:
        info = os.fstat(fd)
        if stat.S_ISDIR(info.st_mode):
            raise ReplayError(f"cannot read replay {name}: it is a folder, not a file")
        if not (stat.S_ISREG(info.st_mode) or stat.S_ISFIFO(info.st_mode)):
            raise ReplayError(f"cannot read replay {name}: not a regular file (a device)")
        if info.st_size > limit:
            raise ReplayError(f"cannot read replay {name}: {_too_large(limit)}")
        os.set_blocking(fd, True)
        chunks: list[bytes] = []
        size = 0
        while size <= limit:
            chunk = os.read(fd, min(1 << 20, limit + 1 - size))
            if not chunk:
                break
            chunks.append(chunk)
            size += len(chunk)
        if size > limit:
            raise ReplayError(f"cannot read replay {name}: {_too_large(limit)}")
        return b"".join(chunks)
    except OSError as error:
        raise ReplayError(f"cannot read replay {name}: {_reason(error)}") from None
    finally:
        os.close(fd)


def _reason(error: OSError) -> str:
    if error.errno == errno.EISDIR:
        return "it is a folder, not a file"
    return error.strerror or str(error)


def _too_large(limit: int) -> str:
    return f"larger than {_size(limit)}, the most a replay may be"


def _size(count: int) -> str:
    return f"{count >> 20} MiB" if count >= 1 << 20 and count % (1 << 20) == 0 else f"{count} bytes"


def decode_replay(data: bytes, name: str = "<replay>") -> Replay:
    """Decode replay bytes, refusing an unknown format version with a clear message.

    Raises:
        ReplayError: one line naming ``name`` and what is wrong: not UTF-8, not JSON, nested too
            deeply, an unknown format, or a field of the wrong type (with its JSON path).
    """
    if data.startswith(codecs.BOM_UTF8):  # an editor's byte order mark is not the replay's
        data = data[len(codecs.BOM_UTF8) :]
    if not data.strip():
        raise ReplayError(f"{name} is not a replay file (it is empty)")
    try:
        data.decode("utf-8")
    except UnicodeDecodeError as error:
        raise ReplayError(
            f"{name} is not a replay file (not UTF-8 text: byte {error.start} is "
            f"0x{data[error.start]:02x})"
        ) from None
    try:
        version = _decode(data, _Header, name).format
    except msgspec.ValidationError:
        raise ReplayError(f"{name} is not a replay file (not a JSON object)") from None
    if type(version) is not int or version not in READABLE_FORMATS:
        raise ReplayError(
            f"{name} has replay format {version!r}; this arena reads formats "
            + " and ".join(str(f) for f in READABLE_FORMATS)
        )
    try:
        return _decode(data, Replay, name)
    except msgspec.ValidationError as error:
        raise ReplayError(f"{name} is not a valid replay: {error}") from None


_T = TypeVar("_T")


def _decode(data: bytes, kind: type[_T], name: str) -> _T:
    """``data`` decoded as ``kind``; JSON that cannot be decoded is a `ReplayError` naming
    ``name`` (a ``msgspec.ValidationError`` is left to the caller)."""
    try:
        return msgspec.json.decode(data, type=kind)
    except msgspec.ValidationError:  # a subclass of DecodeError: the caller names it
        raise
    except msgspec.DecodeError as error:
        raise ReplayError(f"{name} is not a replay file (not JSON: {error})") from None
    except RecursionError:
        raise ReplayError(
            f"{name} is not a replay file (its JSON is nested too deeply to read)"
        ) from None
