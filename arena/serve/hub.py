"""The live state a server shows, and the event stream its clients follow.

The match runners feed the hub (:meth:`Hub.feed` with each match's live events; in a
tournament the parent feeds it what every worker forwards; :meth:`Hub.recorded` and
:meth:`Hub.standings` when a result is in the database). Its methods never block and never
await: a match never waits for a watcher.

Every change becomes one :class:`Published` event in a ring of the last
:data:`EVENT_BUFFER` events, numbered in order. A client of ``/events`` is a cursor into that
ring, not a queue of its own: its backlog is at most the ring, and a client that falls further
behind than the ring (it stopped reading) is dropped.

Every :data:`BATCH_S` the events published since the last cut become one :class:`Batch`
(:meth:`Hub.cut`, run by :meth:`Hub.cut_batches` in the server): its SSE text is made once,
and every client that is up to date is woken once and written that same bytes object. So a
client costs one wake-up and one write per batch however many events a batch holds, and no
client copies or filters events of its own (only one that resumed in the middle of a batch,
or that follows one match, ``?match=ID``). Ids are ``TOKEN-N``: ``TOKEN`` is new
for every server process, so a client that comes back with a ``Last-Event-ID`` of another run
(the server restarted) is told to reload (a ``reset`` event) instead of being sent a wrong
resumption.
"""

from __future__ import annotations

import secrets
import time
from collections import OrderedDict, deque
from dataclasses import dataclass, field
from itertools import islice
from typing import Any

import msgspec
import trio

from arena import PRODUCT
from arena.live_events import HandBegan, HandOver, LiveEvent, MatchBegan, MatchOver, Played
from arena.replay import Action, Restart
from arena.replay_walk import ReplayMismatch
from arena.serve.follow import LiveMatch
from arena.text import seat_name

#: How many events the hub keeps for clients that are behind or reconnect (Last-Event-ID).
EVENT_BUFFER = 20_000
#: The stream is cut into a batch this often (seconds): each client is woken and written to
#: at most once per batch. A twentieth of a second: with each write one send of the batch's
#: own bytes (`arena.serve.passthrough`), 100 clients of 64 busy matches read the moves sooner
#: than at a tenth (benchmarks/serve_bench.py: p95 137 to 198 ms against 188 to 302 ms,
#: alternated), for twenty writes a second per client at most.
BATCH_S = 0.05
#: How many finished matches keep their live data (a finished match is then its replay's).
FINISHED_KEPT = 64
#: How many finished matches the state lists (the most recent).
FINISHED_LISTED = 500

_JSON = msgspec.json.Encoder()


@dataclass(slots=True)
class Published:
    """One event of the stream: its number, its kind (the SSE ``event:``), its match (or
    ``None``), its JSON fields, and for a match's event the steps it added (``start`` and
    ``end``, 0-based, of that match's steps)."""

    seq: int
    kind: str
    match: int | None
    payload: dict[str, Any]
    start: int = 0
    end: int = 0
    text: bytes = b""

    def sse(self, token: str) -> bytes:
        """The event as Server-Sent Events lines (made once)."""
        if not self.text:
            data = _JSON.encode({"event": self.kind, **self.payload})
            self.text = b"id: %s-%d\nevent: %s\ndata: %s\n\n" % (
                token.encode(),
                self.seq,
                self.kind.encode(),
                data,
            )
        return self.text


@dataclass(slots=True)
class Batch:
    """The events numbered ``first`` to ``last``, cut together: one piece of SSE text for
    every client of the whole stream (made once, when it is first asked for)."""

    first: int
    last: int
    events: list[Published]
    _text: bytes = b""

    def sse(self, token: str) -> bytes:
        """Every event's SSE text, in order (the same bytes object on every call)."""
        if not self._text:
            self._text = b"".join(item.sse(token) for item in self.events)
        return self._text


class BehindError(Exception):
    """A client's cursor fell out of the ring: it is dropped."""


class Followed:
    """A match the hub follows: its live events as they came, a few figures kept up as they
    come (the viewer steps so far, the hand, the scores at the last hand's end), and its
    viewer data (:class:`~arena.serve.follow.LiveMatch`), made from the events only when it is
    asked for."""

    def __init__(self, began: MatchBegan) -> None:
        self.began = began
        self.names = [seat_name(s) for s in began.replay.seats]
        self.events: list[LiveEvent] = []
        self.steps = 1  # each event is one viewer step (a forfeited hand's end is none)
        self.hand = 0
        self.scores = [0] * began.replay.players
        self.broken: str | None = None
        self._live: LiveMatch | None = None
        self._fed = 0

    def add(self, event: LiveEvent) -> None:
        """The match's next event."""
        self.events.append(event)
        if isinstance(event, HandBegan):
            self.hand = event.hand.hand_number
        elif isinstance(event, HandOver):
            if event.outcome is None:
                return
            self.scores = list(event.outcome.scores)
        elif isinstance(event, MatchOver):
            self.scores = list(event.result.scores)
        self.steps += 1

    def follow(self) -> LiveMatch | None:
        """The viewer data, caught up with every event; ``None`` when the events do not walk
        through the engine (never with the arena's referee)."""
        if self.broken is not None:
            return None
        if self._live is None:
            self._live = LiveMatch(self.began)
        try:
            for event in self.events[self._fed :]:
                self._live.feed(event)
                self._fed += 1
        except ReplayMismatch as error:
            self.broken = str(error)
            return None
        return self._live


@dataclass
class FinishedEntry:
    """A finished match as the state lists it."""

    match: int
    seats: list[str]
    scores: list[int]
    winner: int | None
    replay: str | None = None  # the replay file, once recorded


@dataclass
class Hub:
    """The live state of one tournament or match, and its event stream.

    ``reveal`` is the server's view (``--serve-reveal``): every hand, or the public view.
    ``title`` names what is shown; ``total`` is the number of matches, when known.
    """

    reveal: bool = False
    title: str = PRODUCT
    total: int | None = None
    token: str = field(default_factory=lambda: secrets.token_hex(4))
    running: bool = True

    def __post_init__(self) -> None:
        self.seq = 0
        self.ring: deque[Published] = deque(maxlen=EVENT_BUFFER)
        self.live: dict[int, Followed] = {}
        self.kept: OrderedDict[int, Followed] = OrderedDict()
        self.finished: OrderedDict[int, FinishedEntry] = OrderedDict()
        self.standings_doc: dict[str, Any] | None = None
        self.moves = 0
        self.lag_s = 0.0
        # The stream's dropped clients and writes (``/api/stats``), over every server of this
        # hub: a tournament's server is started again for its finished pages.
        self.dropped = 0
        self.writes = 0
        #: The batches whose events are all still in the ring, oldest first.
        self.batches: deque[Batch] = deque()
        #: The number of the last event cut into a batch.
        self.batched = 0
        self._lot = trio.lowlevel.ParkingLot()  # clients waiting for the next batch

    # -- feeding ----------------------------------------------------------------------------

    def feed(self, match: int, event: LiveEvent, at: float | None = None) -> None:
        """The next live event of ``match`` (in the order the referee made them), made at
        ``at`` (seconds since the epoch; default: now). Cheap: the event is kept, and walked
        through the engine only when somebody asks for the match's viewer data."""
        if isinstance(event, MatchBegan):
            began = self.live[match] = Followed(event)
            self._publish("match_started", match, {"match": match, "seats": began.names}, 1, 1)
            return
        followed = self.live.get(match)
        if followed is None:
            return
        before = followed.steps
        followed.add(event)
        if isinstance(event, Played):
            payload: dict[str, Any] = {"match": match, "step": followed.steps}
            payload["hand"] = followed.hand
            now = time.time()
            payload["time"] = round(now if at is None else at, 6)
            if at is not None:  # how far behind the referee the hub is (``/api/stats``)
                self.lag_s = max(self.lag_s * 0.99, now - at)
            inner = event.event
            payload["seat"] = inner.seat
            if isinstance(inner, Action):
                self.moves += 1
                payload["move"] = msgspec.to_builtins(inner.move)
                payload["elapsed_ms"] = inner.elapsed_ms
                payload["time_left_ms"] = inner.time_left_ms
                kind = "move"
            else:
                kind = "restart" if isinstance(inner, Restart) else "retire"
            self._publish(kind, match, payload, before, followed.steps)
        elif isinstance(event, HandBegan):
            payload = {"match": match, "hand": followed.hand, "step": followed.steps}
            self._publish("hand_started", match, payload, before, followed.steps)
        elif isinstance(event, HandOver):
            outcome = event.outcome
            payload = {
                "match": match,
                "hand": event.hand_number,
                "step": followed.steps,
                "kind": None if outcome is None else outcome.kind,
                "winners": [] if outcome is None else outcome.winners,
                "scores": followed.scores,
            }
            self._publish("hand_ended", match, payload, before, followed.steps)
        elif isinstance(event, MatchOver):
            self._finish(match, followed, event, before)

    def _finish(self, match: int, followed: Followed, event: MatchOver, before: int) -> None:
        del self.live[match]
        self.kept[match] = followed
        while len(self.kept) > FINISHED_KEPT:
            self.kept.popitem(last=False)
        result = event.result
        entry = self.finished.get(match) or FinishedEntry(
            match, followed.names, list(result.scores), result.winner
        )
        self.finished[match] = entry
        self._trim_finished()
        payload = {
            "match": match,
            "step": followed.steps,
            "scores": result.scores,
            "winner": result.winner,
            "reason": result.reason,
            "seats": entry.seats,
        }
        self._publish("match_finished", match, payload, before, followed.steps)

    def recorded(self, entry: FinishedEntry) -> None:
        """A finished match is in the results (its replay file is written)."""
        known = self.finished.get(entry.match)
        self.finished[entry.match] = entry
        self._trim_finished()
        payload = {
            "match": entry.match,
            "seats": entry.seats,
            "scores": entry.scores,
            "winner": entry.winner,
            "replay": None if entry.replay is None else f"/replay/{entry.match}",
            "new": known is None,
        }
        self._publish("match_recorded", entry.match, payload)

    def standings(self, document: dict[str, Any]) -> None:
        """The standings changed (`arena.tournament.report.standings_document`)."""
        self.standings_doc = document
        self._publish("standings", None, {"matches": document.get("matches", 0)})

    def done(self) -> None:
        """Nothing more will be played: the pages show what is finished."""
        self.running = False
        self._publish("finished", None, {})

    def _trim_finished(self) -> None:
        while len(self.finished) > FINISHED_LISTED:
            self.finished.popitem(last=False)

    def _publish(
        self, kind: str, match: int | None, payload: dict[str, Any], start: int = 0, end: int = 0
    ) -> None:
        self.seq += 1
        self.ring.append(Published(self.seq, kind, match, payload, start, end))

    # -- batches ----------------------------------------------------------------------------

    def cut(self) -> Batch | None:
        """Make the events published since the last cut one batch, and wake every client
        waiting for one; ``None`` when there was none."""
        if self.seq <= self.batched:
            return None
        ring = self.ring
        first = max(self.batched + 1, ring[0].seq)  # a burst longer than the ring: the rest
        events = list(islice(reversed(ring), self.seq - first + 1))  # from the newest end
        events.reverse()
        batch = Batch(first, self.seq, events)
        self.batches.append(batch)
        self.batched = self.seq
        while self.batches[0].first < ring[0].seq:  # its oldest events are gone from the ring
            self.batches.popleft()
        self._lot.unpark_all()
        return batch

    async def cut_batches(self, every: float = BATCH_S) -> None:
        """Cut a batch every ``every`` seconds, forever (a task of the server)."""
        while True:
            await trio.sleep(every)
            self.cut()

    async def wait(self, seq: int) -> None:
        """Return once a batch holds an event after ``seq``."""
        while self.batched <= seq:
            await self._lot.park()

    def stream_since(self, seq: int) -> tuple[list[bytes], int]:
        """The SSE text of the batched events after number ``seq`` (the whole stream), and
        the number of the last of them.

        A client whose cursor is at the end of a batch (every client once it has been sent
        one batch) is given the batches' own texts: the same bytes objects as every other
        such client. Only events of a batch that ``seq`` falls inside (a client that joined
        or resumed between two cuts), or older than the batches kept, are given one by one.

        Raises:
            BehindError: when some of them are no longer kept.
        """
        if seq >= self.batched:
            return [], seq
        newer: list[Batch] = []
        for batch in reversed(self.batches):  # from the newest: usually one batch is new
            if batch.last <= seq:
                break
            newer.append(batch)
        newer.reverse()
        token = self.token
        parts: list[bytes] = []
        if not newer or newer[0].first != seq + 1:
            upto = newer.pop(0).last if newer and newer[0].first <= seq else None
            if upto is None:
                upto = newer[0].first - 1 if newer else self.batched
            parts = [item.sse(token) for item in self.since(seq) if item.seq <= upto]
        parts += [batch.sse(token) for batch in newer]
        return parts, self.batched

    # -- reading ----------------------------------------------------------------------------

    def match(self, match: int) -> LiveMatch | None:
        """The live viewer data of ``match`` (in progress or recently finished), caught up
        with its events; ``None`` for another match, or one whose events did not walk."""
        followed = self.live.get(match) or self.kept.get(match)
        return None if followed is None else followed.follow()

    def since(self, seq: int) -> list[Published]:
        """The events after number ``seq``.

        Raises:
            BehindError: when some of them are no longer kept.
        """
        ring = self.ring
        if not ring or seq >= self.seq:
            return []
        first = ring[0].seq
        if seq + 1 < first:
            raise BehindError(f"{first - seq - 1} events behind the ring")
        newer = []
        for item in reversed(ring):  # from the newest: a client is usually a few events behind
            if item.seq <= seq:
                break
            newer.append(item)
        newer.reverse()
        return newer

    def resume_from(self, last_event_id: str | None) -> int | None:
        """The event number to resume after, from a client's ``Last-Event-ID``; ``None``
        when it cannot be resumed (another server run, or too old: the client reloads)."""
        if not last_event_id:
            return self.seq
        token, _, number = last_event_id.partition("-")
        if token != self.token or not number.isdigit():
            return None
        seq = int(number)
        if seq > self.seq or (self.ring and seq + 1 < self.ring[0].seq):
            return None
        return seq

    def state(self) -> dict[str, Any]:
        """Everything a page shows, as JSON-ready data (``/api/state``)."""
        return {
            "title": self.title,
            "running": self.running,
            "reveal": self.reveal,
            "total": self.total,
            "last_event": f"{self.token}-{self.seq}",
            "moves": self.moves,
            "in_progress": [
                {
                    "match": match,
                    "seats": followed.names,
                    "scores": followed.scores,
                    "hand": followed.hand,
                    "steps": followed.steps,
                }
                for match, followed in sorted(self.live.items())
            ],
            "finished": [
                {
                    "match": e.match,
                    "seats": e.seats,
                    "scores": e.scores,
                    "winner": e.winner,
                    "replay": None if e.replay is None else f"/replay/{e.match}",
                }
                for e in reversed(self.finished.values())
            ],
            "standings": self.standings_doc,
        }
