"""In-memory scripted bots for the golden matches: a choice of legal move, and faults injected at
given requests.

A bot is a :data:`~arena.referee.channel.Script` (a function from the line the referee sent to
the lines it answers). Each one keeps its own count of the requests it has answered; a restarted
bot (policy ``lenient``) is served the same script again, so it counts on and does not repeat a
fault it has already made.
"""

from __future__ import annotations

import json
import random
from collections.abc import Callable, Mapping
from typing import Any

from arena.referee.channel import Reply, Script

#: How a bot chooses among the legal moves of a request: (legal moves, its random generator).
Chooser = Callable[[list[Any], random.Random], Any]

CHOOSERS: dict[str, Chooser] = {
    "first-legal": lambda legal, rng: legal[0],
    "last-legal": lambda legal, rng: legal[-1],
    "random": lambda legal, rng: rng.choice(legal),
}

#: The faults a bot can make at a request, by name (see :func:`scripted`).
FAULTS = ("pass", "garbage", "late", "crash", "long", "wrong_id")

#: A reply this late is a timeout under any time control the golden matches use.
LATE_S = 3600.0


def _line(message: dict[str, Any]) -> bytes:
    return json.dumps(message, separators=(",", ":")).encode()


def scripted(
    name: str,
    choose: str = "first-legal",
    *,
    seed: int = 0,
    faults: Mapping[int, str] | None = None,
    debug: bool = False,
    ready: bool = True,
    quit_on: str | None = None,
) -> Script:
    """A scripted bot that says ``ready`` as ``name`` and answers each request with the move
    ``choose`` picks (:data:`CHOOSERS`; ``random`` draws from a generator seeded with ``seed``).

    ``faults`` maps a request count (1 for the bot's first request) to a fault made there
    instead of a move: ``pass`` (an illegal pass when the bot can play or draw), ``garbage``
    (a line that is not JSON), ``late`` (the right move, an hour late: a timeout), ``crash``
    (the bot closes its output, as a process that exits does), ``long`` (a 70,000-byte line),
    ``wrong_id`` (the move for another request id). ``debug`` adds a ``debug`` note to every
    move; ``ready=False`` makes a bot that never answers ``hello`` (a start-up timeout);
    ``quit_on`` names a notification (``hand_end``) on which the bot closes its output, so that
    the next message finds it gone (a crash in phase ``notify``).
    """
    rng = random.Random(seed)
    pick = CHOOSERS[choose]
    pending = dict(faults or {})
    requests = 0

    def script(line: bytes) -> Reply | tuple[float, Reply] | None:
        nonlocal requests
        message = json.loads(line)
        kind = message["type"]
        if kind == "hello":
            return [_line({"type": "ready", "name": name})] if ready else []
        if kind in ("match_end", "error") or kind == quit_on:
            return None
        if kind != "request":
            return []
        requests += 1
        legal = message["legal"]
        reply: dict[str, Any] = {"type": "move", "id": message["id"], "move": pick(legal, rng)}
        if debug:
            reply["debug"] = f"{name} #{requests}: {len(legal)} legal"
        fault = pending.pop(requests, None)
        if fault == "pass":
            reply["move"] = {"action": "pass"}
        elif fault == "garbage":
            return [b"this is not JSON {"]
        elif fault == "late":
            return (LATE_S, [_line(reply)])
        elif fault == "crash":
            return None
        elif fault == "long":
            return [b'{"type":"move","debug":"' + b"x" * 70_000 + b'"}']
        elif fault == "wrong_id":
            reply["id"] = message["id"] + 1000
        elif fault is not None:
            raise ValueError(f"unknown fault {fault!r}; faults: {', '.join(FAULTS)}")
        return [_line(reply)]

    return script
