"""A remote match seen live: its events batched on the worker, forwarded through the run's
Dask event topic, fed to the coordinator's live view.

A task whose job is marked ``live`` (the tournament runs with ``--serve``) plays its match
with an observer that appends each live event (`arena.live_events`) to an outbox, as a local
worker process does; every ``live_every_s`` seconds, and once more when the match is over, the
outbox goes to the run's topic as one message: the events as JSON lines
(`arena.tournament.jobs.JobEvent`, each stamped with the worker's clock), compressed (the
scheduler keeps a topic's last 1,000 messages, ``distributed.admin.low-level-log-length``:
compressed, a thousand batches hold at most about 20 MB: a whole 20-hand match between
instant bots, 207 KB of JSON, is one batch of 20 KB). The scheduler
forwards a topic's messages to the coordinator in the order each worker sent them; the
coordinator decodes the lines (`events_of`) and feeds them to the live view as a local
worker's lines.

The scheduler forwards every batch, so the coordinator widens the interval for a large cluster
(`batch_interval`): at most about `BATCHES_PER_S` batches a second whatever the number of
matches in flight (a tenth of a second with up to 40 at once, 0.25 s with 100, 2.5 s with
1,000).
"""

from __future__ import annotations

import time
import zlib
from collections.abc import Callable, Sequence

import msgspec
import trio

from arena.live_events import LiveEvent
from arena.referee.channel import BotSpec
from arena.referee.match import MatchConfig, play_match
from arena.replay import Replay
from arena.tournament.jobs import JobEvent, decode_from_worker, encode_events

#: Seconds between two batches of a match's live events, at least.
LIVE_EVERY_S = 0.1
#: About how many batches a second the scheduler forwards to the coordinator at most.
BATCHES_PER_S = 400.0


def batch_interval(capacity: int) -> float:
    """Seconds between two batches of each match when ``capacity`` matches run at once."""
    return max(LIVE_EVERY_S, capacity / BATCHES_PER_S)


class LiveBatches:
    """One match's live events, sent in batches of JSON lines with ``send`` (which must not
    block: Dask's ``Worker.log_event`` only queues the message)."""

    def __init__(self, table: int, send: Callable[[bytes], None], every_s: float) -> None:
        self.table = table
        self.send = send
        self.every_s = every_s
        self.outbox: list[JobEvent] = []

    def observe(self, event: LiveEvent) -> None:
        """The referee's observer: the event joins the next batch."""
        self.outbox.append(JobEvent(self.table, event, time.time()))

    def flush(self) -> None:
        """Send what the outbox holds, if anything."""
        if self.outbox:
            events, self.outbox = self.outbox, []
            self.send(zlib.compress(encode_events(events), 1))

    async def send_every_interval(self) -> None:
        """Flush every ``every_s`` seconds, until cancelled."""
        while True:
            await trio.sleep(self.every_s)
            self.flush()


async def play_live(
    config: MatchConfig, bots: Sequence[str | BotSpec], batches: LiveBatches
) -> Replay:
    """`play_match` with its live events sent in batches; the last batch (the match's end)
    is sent before the replay is returned."""
    try:
        async with trio.open_nursery() as nursery:
            nursery.start_soon(batches.send_every_interval)
            try:
                replay = await play_match(config, bots, observer=batches.observe)
            finally:
                nursery.cancel_scope.cancel()
    except BaseExceptionGroup as group:  # the referee's own error, as without live events
        if len(group.exceptions) == 1:
            raise group.exceptions[0] from None
        raise
    batches.flush()
    return replay


def events_of(batch: bytes) -> list[JobEvent]:
    """The live events of one batch, in order; a line that is not one is left out (a live
    view is never worth stopping a run for)."""
    try:
        lines = zlib.decompress(batch)
    except zlib.error:
        return []
    events = []
    for line in lines.splitlines():
        try:
            message = decode_from_worker(line)
        except (msgspec.DecodeError, msgspec.ValidationError):
            continue
        if isinstance(message, JobEvent):
            events.append(message)
    return events
