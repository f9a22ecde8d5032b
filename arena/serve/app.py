"""The live server's web application: a small ASGI app over a :class:`~arena.serve.hub.Hub`.

Pages (HTML: `arena.serve.pages`), data (JSON) and the event stream (Server-Sent Events):

- ``/``: the tournament: standings, ratings, cross-table, matches in progress, finished
  matches (``home.js`` keeps it up to date from ``/events``);
- ``/match/ID``: one match in the replay viewer, fed as it is played (``live.js``);
- ``/tv``: the match in progress, large, moving to the next when it ends;
- ``/events``: the stream (``?match=ID`` adds that match's new viewer steps);
- ``/api/state``, ``/match/ID/data.json``, ``/match/ID/steps?from=N``, ``/api/stats``;
- ``/replay/ID``: a finished match's replay page, as ``arena view --html`` makes it;
- ``/files/PATH``: a file of the tournament's folder (the report, replays), nothing outside;
- ``/assets/NAME``: the pages' scripts and styles.

Only GET and HEAD are answered (anything else: 405, and nothing changes); an unknown path,
and any path that tries to leave the folder (``..``, encoded or not, absolute, a link that
points out), is 404. Each ``/events`` client is a cursor into the hub's ring, woken once per
batch the hub cuts (:data:`arena.serve.hub.BATCH_S`) and written it in one write (the
batch's own bytes, the same for every client of the whole stream); a client whose write
stalls for :data:`SEND_TIMEOUT_S` (it stopped reading), or that falls behind the ring, is
dropped.
"""

from __future__ import annotations

import json
import os
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, unquote

import msgspec
import trio

from arena.replay import ReplayError, read_replay
from arena.serve import pages
from arena.serve.follow import LiveMatch
from arena.serve.hub import BehindError, Hub
from arena.view.html import exact_integers, html_page, viewer_data
from arena.view.table import table_data_of

Scope = dict[str, Any]
Receive = Callable[[], Awaitable[dict[str, Any]]]
Send = Callable[[dict[str, Any]], Awaitable[None]]

#: A client whose write has not gone through in this long is dropped (it stopped reading).
SEND_TIMEOUT_S = 5.0
#: A comment line this often keeps an idle stream open through proxies.
KEEPALIVE_S = 15.0
#: How often a browser retries a lost stream (the SSE ``retry:`` field), in milliseconds.
RETRY_MS = 1000
#: Finished matches whose replay viewer data is kept in memory.
REPLAY_CACHE = 16

_JSON = msgspec.json.Encoder()


class App:
    """The ASGI application (``await app(scope, receive, send)``).

    Args:
        hub: the live state.
        root: the folder whose files may be served (the tournament's out folder, or the
            folder of ``arena play``'s replay); ``None``: no files.
    """

    def __init__(self, hub: Hub, root: Path | None) -> None:
        self.hub = hub
        self.root = None if root is None else root.resolve()
        self.clients = 0
        self._replays: dict[int, dict[str, Any]] = {}

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "lifespan":
            await _lifespan(receive, send)
            return
        if scope["type"] != "http":
            return  # websockets: not served
        if scope["method"] not in ("GET", "HEAD"):
            await _respond(
                send, 405, b"only GET and HEAD\n", "text/plain", [(b"allow", b"GET, HEAD")]
            )
            return
        await self._route(scope, receive, send)

    async def _route(self, scope: Scope, receive: Receive, send: Send) -> None:
        raw = scope.get("raw_path") or scope["path"].encode()
        path = raw.split(b"?", 1)[0].decode("latin-1")
        query = parse_qs(scope.get("query_string", b"").decode("latin-1"))
        hub = self.hub
        if path == "/":
            await _html(send, pages.home_page(hub.title))
        elif path == "/tv":
            await _html(send, pages.tv_page(hub.title))
        elif path == "/events":
            await self._events(scope, receive, send, query)
        elif path == "/api/state":
            await _json(send, hub.state())
        elif path == "/api/stats":
            stats: dict[str, float] = {"clients": self.clients, "dropped": hub.dropped}
            stats["writes"] = hub.writes
            stats["ring"] = len(hub.ring)
            stats["lag_ms"] = round(hub.lag_s * 1000, 1)
            await _json(send, stats)
        elif path.startswith("/match/"):
            await self._match(send, path.removeprefix("/match/"), query)
        elif path.startswith("/replay/") and _number(path.removeprefix("/replay/")) is not None:
            await self._replay_page(send, int(path.removeprefix("/replay/")))
        elif path.startswith("/assets/"):
            name = path.removeprefix("/assets/")
            found = pages.asset_file(name)
            if found is None:
                await _not_found(send)
            else:
                await _respond(send, 200, found[0].encode("utf-8"), found[1])
        elif path.startswith("/files/"):
            await self._file(send, path.removeprefix("/files/"))
        else:
            await _not_found(send)

    # -- matches ----------------------------------------------------------------------------

    async def _match(self, send: Send, rest: str, query: dict[str, list[str]]) -> None:
        number, _, what = rest.partition("/")
        match = _number(number)
        if match is None:
            await _not_found(send)
            return
        live = self.hub.match(match)
        if what == "":  # also for a match not started yet: the page waits for it
            await _html(send, pages.match_page(self.hub.title, match))
        elif what == "data.json":
            if live is not None:
                await _json(send, live.viewer_data(self.hub.reveal))
                return
            data = await self._replay_data(match)
            if data is None:
                await _not_found(send)
            else:
                await _json(send, data)
        elif what == "steps" and live is not None:
            start = _number((query.get("from") or ["0"])[0]) or 0
            await _json(send, {"match": match, "start": start, "steps": self._steps(live, start)})
        else:
            await _not_found(send)

    def _steps(self, live: LiveMatch, start: int) -> list[dict[str, Any]]:
        return live.step_data(start, self.hub.reveal)

    def _replay_path(self, match: int) -> Path | None:
        entry = self.hub.finished.get(match)
        if entry is None or entry.replay is None:
            return None
        return self._inside(Path(entry.replay))

    async def _replay_data(self, match: int) -> dict[str, Any] | None:
        """A finished match's viewer data from its replay (it shows what a replay shows)."""
        cached = self._replays.get(match)
        if cached is not None:
            return cached
        path = self._replay_path(match)
        if path is None:
            return None
        try:
            replay = await trio.to_thread.run_sync(read_replay, path)
            data = await trio.to_thread.run_sync(viewer_data, replay)
        except (ReplayError, ValueError, OSError):
            return None
        data["live"] = False
        data["revealed"] = True
        data["table"] = table_data_of(replay.game)
        if len(self._replays) >= REPLAY_CACHE:
            self._replays.pop(next(iter(self._replays)))
        self._replays[match] = data
        return data

    async def _replay_page(self, send: Send, match: int) -> None:
        path = self._replay_path(match)
        if path is None:
            await _not_found(send)
            return
        try:
            replay = await trio.to_thread.run_sync(read_replay, path)
            page = await trio.to_thread.run_sync(html_page, replay)
        except (ReplayError, ValueError, OSError):
            await _not_found(send)
            return
        await _respond(send, 200, page.encode("utf-8"), "text/html; charset=utf-8")

    # -- files ------------------------------------------------------------------------------

    async def _file(self, send: Send, rest: str) -> None:
        target = self._safe_file(rest)
        if target is None:
            await _not_found(send)
            return
        try:
            data = await trio.Path(target).read_bytes()
        except OSError:
            await _not_found(send)
            return
        await _respond(send, 200, data, pages.content_type(target.name))

    def _safe_file(self, rest: str) -> Path | None:
        """The file of the served folder that ``rest`` (the raw path after ``/files/``)
        names, or ``None``: anything encoded twice, any ``..`` or ``.``, an absolute path, a
        backslash or NUL, or a path that resolves outside the folder (a link) is refused."""
        if self.root is None:
            return None
        try:
            name = unquote(rest, errors="strict")
        except UnicodeDecodeError:
            return None
        if "%" in name or "\\" in name or "\x00" in name or name.startswith("/"):
            return None
        parts = name.split("/")
        if any(part in ("", ".", "..") for part in parts):
            return None
        target = self._inside(self.root.joinpath(*parts))
        return target if target is not None and target.is_file() else None

    def _inside(self, path: Path) -> Path | None:
        """``path`` resolved, when it is inside the served folder."""
        if self.root is None:
            return None
        resolved = Path(os.path.realpath(path))
        return resolved if resolved.is_relative_to(self.root) else None

    # -- the event stream -------------------------------------------------------------------

    async def _events(
        self, scope: Scope, receive: Receive, send: Send, query: dict[str, list[str]]
    ) -> None:
        hub = self.hub
        headers = dict(scope.get("headers") or [])
        last = (
            headers.get(b"last-event-id", b"").decode("latin-1")
            or (query.get("last_event_id") or [""])[0]
        )
        match = _number((query.get("match") or [""])[0])
        steps_sent = _number((query.get("from") or ["0"])[0]) or 0
        cursor = hub.resume_from(last or None)
        head = b"retry: %d\n\n" % RETRY_MS
        if cursor is None:  # another server run, or too far back: the client reloads
            head += b'event: reset\ndata: {"event":"reset"}\n\n'
            cursor = hub.seq
        await send(
            {
                "type": "http.response.start",
                "status": 200,
                "headers": [
                    (b"content-type", b"text/event-stream; charset=utf-8"),
                    (b"cache-control", b"no-store"),
                    (b"x-content-type-options", b"nosniff"),
                    (b"x-accel-buffering", b"no"),
                ],
            }
        )
        if scope["method"] == "HEAD":
            await send({"type": "http.response.body", "body": b""})
            return
        self.clients += 1
        writer = _Writer(send)
        try:
            async with trio.open_nursery() as nursery:
                nursery.start_soon(_until_disconnect, receive, nursery.cancel_scope)
                if match is not None:
                    head, steps_sent = self._new_steps(head, match, steps_sent, None)
                if await writer.write(head):
                    await self._pump(writer, cursor, match, steps_sent)
                else:
                    self._gone(writer, dropped=True)
                nursery.cancel_scope.cancel()
        finally:
            # cut off by the kernel in the middle of a write: dropped too
            self._gone(writer, dropped=writer.stalled)

    def _gone(self, writer: _Writer, *, dropped: bool) -> None:
        """Count the stream's client as gone (and as dropped), once, at the moment it is:
        ``/api/stats`` never shows a dropped client as still served."""
        if writer.gone:
            return
        writer.gone = True
        self.clients -= 1
        if dropped:
            self.hub.dropped += 1

    def _new_steps(
        self, chunk: bytes, match: int, sent: int, upto: int | None
    ) -> tuple[bytes, int]:
        """``chunk`` with a ``steps`` event of the match's steps from ``sent`` (to ``upto``)."""
        live = self.hub.match(match)
        if live is None:
            return chunk, sent
        end = len(live.steps) if upto is None else min(upto, len(live.steps))
        if end <= sent:
            return chunk, sent
        steps = live.step_data(sent, self.hub.reveal)[: end - sent]
        data = _JSON.encode({"event": "steps", "match": match, "start": sent, "steps": steps})
        return chunk + b"event: steps\ndata: " + data + b"\n\n", end

    async def _pump(self, writer: _Writer, cursor: int, match: int | None, sent: int) -> None:
        """Write the stream from event ``cursor`` on: one write per batch of the hub's
        (:data:`~arena.serve.hub.BATCH_S`), the batch's own bytes for the whole stream."""
        hub = self.hub
        while True:
            with trio.move_on_after(KEEPALIVE_S) as idle:
                await hub.wait(cursor)
            try:
                if match is None:
                    parts, cursor = hub.stream_since(cursor)
                else:
                    parts, cursor, sent = self._match_since(cursor, match, sent)
            except BehindError:
                self._gone(writer, dropped=True)
                return
            if not parts and not idle.cancelled_caught:
                continue  # nothing of this client's match in the batch
            chunk = parts[0] if len(parts) == 1 else b"".join(parts) or b": keep-alive\n\n"
            self.hub.writes += 1
            if not await writer.write(chunk):
                self._gone(writer, dropped=True)
                return

    def _match_since(self, cursor: int, match: int, sent: int) -> tuple[list[bytes], int, int]:
        """The events after ``cursor`` of ``match`` and of the tournament, each of the
        match's followed by its new viewer steps; the new cursor and steps sent."""
        hub = self.hub
        token = hub.token
        events = hub.since(cursor)
        parts: list[bytes] = []
        for item in events:
            if item.match not in (None, match):
                continue
            parts.append(item.sse(token))
            if item.match == match and item.end > sent:
                steps, sent = self._new_steps(b"", match, sent, item.end)
                parts.append(steps)
        return parts, events[-1].seq if events else cursor, sent


class _Writer:
    """One stream's writes, and whether one is stalled.

    The server's write cannot be cancelled (hypercorn shields it); a client that stopped
    reading is cut off by the kernel instead, after :data:`SEND_TIMEOUT_S` without progress
    (``TCP_USER_TIMEOUT`` on the listening socket, `arena.serve.server.bind`), which ends the
    write and disconnects the stream.
    """

    def __init__(self, send: Send) -> None:
        self.send = send
        self.since: float | None = None  # when the write in progress began
        self.gone = False  # counted as gone (`App._gone`)

    async def write(self, chunk: bytes) -> bool:
        """Write one chunk; ``False`` when it stalled (the client is dropped)."""
        self.since = started = trio.current_time()
        await self.send({"type": "http.response.body", "body": chunk, "more_body": True})
        self.since = None
        return trio.current_time() - started < SEND_TIMEOUT_S

    @property
    def stalled(self) -> bool:
        """Whether a write has been waiting for a second or more."""
        return self.since is not None and trio.current_time() - self.since >= 1.0


async def _until_disconnect(receive: Receive, scope: trio.CancelScope) -> None:
    while True:
        message = await receive()
        if message["type"] == "http.disconnect":
            scope.cancel()
            return


async def _lifespan(receive: Receive, send: Send) -> None:
    while True:
        message = await receive()
        if message["type"] == "lifespan.startup":
            await send({"type": "lifespan.startup.complete"})
        elif message["type"] == "lifespan.shutdown":
            await send({"type": "lifespan.shutdown.complete"})
            return


def _number(text: str) -> int | None:
    return int(text) if text.isdigit() and len(text) < 12 else None


async def _respond(
    send: Send,
    status: int,
    body: bytes,
    content_type: str,
    extra: list[tuple[bytes, bytes]] | None = None,
) -> None:
    headers = [
        (b"content-type", content_type.encode()),
        (b"content-length", str(len(body)).encode()),
        (b"cache-control", b"no-store"),
        (b"x-content-type-options", b"nosniff"),
        (b"referrer-policy", b"no-referrer"),
        *(extra or []),
    ]
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": body})


async def _html(send: Send, page: str) -> None:
    await _respond(send, 200, page.encode("utf-8"), "text/html; charset=utf-8")


async def _json(send: Send, data: Any) -> None:
    body = json.dumps(exact_integers(data), separators=(",", ":"), allow_nan=False).encode()
    await _respond(send, 200, body, "application/json")


async def _not_found(send: Send) -> None:
    await _respond(send, 404, b"not found\n", "text/plain; charset=utf-8")
