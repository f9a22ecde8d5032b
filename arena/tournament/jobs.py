"""What the tournament parent and its worker processes say to each other.

The parent sends :class:`Job` lines (one match each) on a worker's stdin; the worker answers one
:class:`JobDone` line per finished match on its stdout (and, for a job marked ``live``, a
:class:`JobEvent` line per live event of the match before it). JSON Lines, like the bot
protocol, and framed by the same bounded line buffer.
"""

from __future__ import annotations

from statistics import median
from typing import Any

import msgspec

from arena.live_events import LiveEvent
from arena.policy import STRICT, FailurePolicy
from arena.replay import Action, Replay, Status


class JobBot(msgspec.Struct, frozen=True):
    """One seat of a job: the bot's command line, the folder to start it in, and its name in
    the tournament (recorded in the replay as the seat's ``arena_name``)."""

    command: str
    cwd: str | None = None
    name: str | None = None


class Job(msgspec.Struct, frozen=True, tag="job"):
    """Play one match and write its replay to ``replay``.

    ``sandbox`` is the `arena.referee.sandbox.SandboxConfig` of its bots as a mapping
    (`arena.tournament.settings.sandbox_to_dict`), or ``None``; the worker plans it once.
    """

    table: int
    game: str
    rules: dict[str, Any]
    seed: int
    target: int | None
    hands: int | None
    startup_ms: int
    move_ms: int
    bank_ms: int
    bots: list[JobBot]
    replay: str
    sandbox: dict[str, Any] | None = None
    max_stdout_bytes: int | None = None
    policy: FailurePolicy = STRICT
    #: Forward the match's live events (:class:`JobEvent`): only when someone watches.
    live: bool = False


class SeatSummary(msgspec.Struct, frozen=True):
    """How one seat did in a match, with what standings need about its response times."""

    seat: int
    name: str
    status: Status
    detail: str
    score: int
    rank: int
    failure: str | None
    response_ms: list[float]
    strikes: int = 0
    restarts: int = 0


class MatchSummary(msgspec.Struct, frozen=True):
    """The result of a match as standings and the database need it."""

    winner: int | None
    reason: str
    scores: list[int]
    ranking: list[int]
    hand_scores: list[list[int]]
    hands: int
    moves: int
    duration_s: float
    seats: list[SeatSummary]
    #: Moves the referee took up late and accepted (`Action.late_ms`), and the worst lateness.
    late_moves: int = 0
    late_max_ms: float = 0.0


class JobDone(msgspec.Struct, frozen=True, tag="done"):
    """A finished match (``summary``), or a match the worker could not play (``error``)."""

    table: int
    replay: str
    referee_cpu_s: float
    summary: MatchSummary | None = None
    error: str | None = None


class JobStarted(msgspec.Struct, frozen=True, tag="started"):
    """A worker began a match."""

    table: int


class JobEvent(msgspec.Struct, frozen=True, tag="live", gc=False):
    """One live event of a match in progress (`arena.live_events`; jobs with ``live`` only)."""

    table: int
    event: LiveEvent
    #: When the worker took it from the referee (seconds since the epoch): the live server's
    #: clients measure their lag from it.
    at: float = 0.0


ToWorker = Job
FromWorker = JobDone | JobStarted | JobEvent

_ENCODER = msgspec.json.Encoder()
_TO_WORKER = msgspec.json.Decoder(ToWorker)
_FROM_WORKER = msgspec.json.Decoder(FromWorker)


def encode(message: ToWorker | FromWorker) -> bytes:
    """One message as a JSON line (with its newline)."""
    return _ENCODER.encode(message) + b"\n"


def encode_events(events: list[JobEvent]) -> bytes:
    """Live events as JSON lines (each with its newline), in one call."""
    return _ENCODER.encode_lines(events)


def decode_job(line: bytes) -> Job:
    """A job line from the parent (raises ``msgspec`` errors on nonsense)."""
    return _TO_WORKER.decode(line)


def decode_from_worker(line: bytes) -> FromWorker:
    """A line from a worker (raises ``msgspec`` errors on nonsense)."""
    return _FROM_WORKER.decode(line)


def summarize(replay: Replay) -> MatchSummary:
    """What the standings need of a replay."""
    ranking = replay.result.ranking
    response: dict[int, list[float]] = {s.seat: [] for s in replay.seats}
    moves = late_moves = 0
    late_max_ms = 0.0
    for hand in replay.hands:
        for event in hand.events:
            if isinstance(event, Action):
                moves += 1
                if event.late_ms is not None:
                    late_moves += 1
                    late_max_ms = max(late_max_ms, event.late_ms)
                if event.elapsed_ms is not None and event.strike is None:
                    response[event.seat].append(event.elapsed_ms)
    seats = [
        SeatSummary(
            seat=s.seat,
            name=s.name,
            status=s.status,
            detail=s.detail,
            score=replay.result.scores[s.seat],
            rank=_rank(replay, s.seat),
            failure=None if s.failure is None else s.failure.status.value,
            response_ms=response[s.seat],
            strikes=s.strikes,
            restarts=s.restarts,
        )
        for s in replay.seats
    ]
    assert len(ranking) == replay.players
    return MatchSummary(
        winner=replay.result.winner,
        reason=replay.result.reason,
        scores=list(replay.result.scores),
        ranking=list(ranking),
        hand_scores=[list(h.outcome.scores) for h in replay.hands if h.outcome is not None],
        hands=len(replay.hands),
        moves=moves,
        duration_s=replay.duration_s,
        seats=seats,
        late_moves=late_moves,
        late_max_ms=late_max_ms,
    )


def _rank(replay: Replay, seat: int) -> int:
    """The seat's place, 1 = best; seats level on score (and not retired) share a place."""
    result = replay.result
    retired = {s.seat for s in replay.seats if s.status is not Status.OK}
    position = result.ranking.index(seat)
    if seat in retired:
        return position + 1
    score = result.scores[seat]
    tied = [s for s in result.ranking if s not in retired and result.scores[s] == score]
    return min(result.ranking.index(s) for s in tied) + 1


def median_ms(values: list[float]) -> float | None:
    """The median of a list of response times, or ``None`` for none."""
    return median(values) if values else None
