"""The match runner's book-keeping: one seat's bot, clock and evidence, and the move request in
flight (`arena.referee.match`)."""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass

from arena.games.api import SeatView
from arena.referee.channel import BotChannel, BotSpec
from arena.referee.clock import SeatClock, TimeLimits
from arena.replay import Failure

#: How many of the last lines exchanged with a bot a failure record keeps.
TRANSCRIPT_LINES = 6


@dataclass(slots=True)
class Pending:
    """The move request in flight: whom it went to, when, and what it showed."""

    seat: Seat
    request_id: int
    hand_number: int
    started: float
    deadline: float
    time_left_ms: int
    view: SeatView
    sent: bool = False
    #: The request's line (kept while it is still to be sent).
    line: bytes = b""


class Seat:
    """The runner's book-keeping for one seat."""

    def __init__(self, seat: int, spec: BotSpec, limits: TimeLimits) -> None:
        self.seat = seat
        self.spec = spec
        self.command = spec.command
        self.name = f"seat{seat}"
        self.clock = SeatClock(limits)
        self.channel: BotChannel | None = None
        self.failure: Failure | None = None
        self.stderr = ""
        # The stderr of processes this seat ran as before a restart, in order.
        self.earlier_stderr: list[str] = []
        # The last lines sent to and received from the bot: a failure's evidence.
        self.transcript: deque[tuple[str, bytes]] = deque(maxlen=TRANSCRIPT_LINES)
        self.strikes = 0
        self.restarts = 0
        # Requests struck by a timeout: a late answer to one of them is skipped, not a fault.
        self.struck_ids: set[int] = set()

    @property
    def live(self) -> bool:
        return self.channel is not None and self.failure is None

    def __repr__(self) -> str:
        state = "live" if self.live else (self.failure.status.value if self.failure else "down")
        return f"<Seat {self.seat} {self.name!r} {state}>"
