"""The live state a server shows, and the event stream its clients follow.

The match runners feed the hub (:meth:`Hub.feed` with each match's live events; in a
tournament the parent feeds it what every worker forwards; :meth:`Hub.recorded` and
:meth:`Hub.standings` when a result is in the database). Its methods never block and never
await: a match never waits for a watcher.

Every change becomes one :class:`Published` event in a ring of the last
:data:`EVENT_BUFFER` events, numbered in order. A client of ``/events`` is a cursor into that
ring, not a queue of its own: its backlog is at most the ring, and a client that falls further
behind than the ring (it stopped reading) is dropped. Ids are ``TOKEN-N``: ``TOKEN`` is new
for every server process, so a client that comes back with a ``Last-Event-ID`` of another run
(the server restarted) is told to reload (a ``reset`` event) instead of being sent a wrong
resumption.
"""

from __future__ import annotations

import secrets
import time
from collections import OrderedDict, deque
from dataclasses import dataclass, field
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


class BehindError(Exception):
    """A client's cursor fell out of the ring: it is dropped."""


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
        self.live: dict[int, LiveMatch] = {}
        self.kept: OrderedDict[int, LiveMatch] = OrderedDict()
        self.finished: OrderedDict[int, FinishedEntry] = OrderedDict()
        self.broken: set[int] = set()  # matches whose events did not walk: not followed
        self.standings_doc: dict[str, Any] | None = None
        self.moves = 0
        self._lot = trio.lowlevel.ParkingLot()
        self.started_at = time.time()

    # -- feeding ----------------------------------------------------------------------------

    def feed(self, match: int, event: LiveEvent, at: float | None = None) -> None:
        """The next live event of ``match`` (in the order the referee made them), made at
        ``at`` (seconds since the epoch; default: now)."""
        if match in self.broken:
            return
        if isinstance(event, MatchBegan):
            began = self.live[match] = LiveMatch(event)
            self._publish(
                "match_started", match, {"match": match, "seats": self._names(began)}, began, 0
            )
            return
        live = self.live.get(match)
        if live is None:
            return
        before = len(live.steps)
        try:
            live.feed(event)
        except ReplayMismatch as error:  # never happens with the arena's referee
            self.broken.add(match)
            self.live.pop(match, None)
            self._publish("match_dropped", match, {"match": match, "reason": str(error)})
            return
        if isinstance(event, Played):
            payload: dict[str, Any] = {"match": match, "step": len(live.steps), "hand": live.hands}
            payload["time"] = round(time.time() if at is None else at, 6)
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
            payload["scores"] = live.scores
            self._publish(kind, match, payload, live, before)
        elif isinstance(event, HandBegan):
            payload = {"match": match, "hand": live.hands, "step": len(live.steps)}
            self._publish("hand_started", match, payload, live, before)
        elif isinstance(event, HandOver):
            outcome = event.outcome
            payload = {
                "match": match,
                "hand": event.hand_number,
                "step": len(live.steps),
                "kind": None if outcome is None else outcome.kind,
                "winners": [] if outcome is None else outcome.winners,
                "scores": live.scores,
            }
            self._publish("hand_ended", match, payload, live, before)
        elif isinstance(event, MatchOver):
            self._finish(match, live, event, before)

    def _finish(self, match: int, live: LiveMatch, event: MatchOver, before: int) -> None:
        del self.live[match]
        self.kept[match] = live
        while len(self.kept) > FINISHED_KEPT:
            self.kept.popitem(last=False)
        result = event.result
        entry = self.finished.get(match) or FinishedEntry(
            match, self._names(live), list(result.scores), result.winner
        )
        self.finished[match] = entry
        self._trim_finished()
        payload = {
            "match": match,
            "step": len(live.steps),
            "scores": result.scores,
            "winner": result.winner,
            "reason": result.reason,
            "seats": entry.seats,
        }
        self._publish("match_finished", match, payload, live, before)

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

    @staticmethod
    def _names(live: LiveMatch) -> list[str]:
        return [seat_name(s) for s in live.header.seats]

    def _publish(
        self,
        kind: str,
        match: int | None,
        payload: dict[str, Any],
        live: LiveMatch | None = None,
        start: int = 0,
    ) -> None:
        self.seq += 1
        end = len(live.steps) if live is not None else 0
        self.ring.append(Published(self.seq, kind, match, payload, start, end))
        self._lot.unpark_all()

    # -- reading ----------------------------------------------------------------------------

    def match(self, match: int) -> LiveMatch | None:
        """The live data of ``match``, in progress or recently finished."""
        return self.live.get(match) or self.kept.get(match)

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

    async def wait(self, seq: int) -> None:
        """Return once there is an event after ``seq``."""
        while self.seq <= seq:
            await self._lot.park()

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
                    "seats": self._names(live),
                    "scores": live.scores,
                    "hand": live.hands,
                    "steps": len(live.steps),
                }
                for match, live in sorted(self.live.items())
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
