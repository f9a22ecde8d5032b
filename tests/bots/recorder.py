#!/usr/bin/env python3
"""Test bot: logs every line it exchanges, plays the first legal move, and misbehaves at will.

Usage: recorder.py LOG MODE [N] [COUNT]. LOG gets one line per line exchanged, as the bytes
went: ``< `` and the line received, ``> `` and the line sent (written before anything else
happens, so a crash loses nothing). At requests N to N+COUNT-1 (1-based, counted per process;
N defaults to 1, COUNT to 1) it does MODE; before and after, it plays the first legal move:

  ok              never misbehaves
  illegal_held    plays a tile it holds where it does not fit (an illegal_move naming it)
  illegal_unheld  plays a tile it does not hold and that is not on the table (illegal_move)
  echo            a bad message that echoes a tile it holds: as the ``end``, as an unknown
                  field's name, or as the message ``type`` (in turn)
  wrong_id        answers with another request's id
  hang            does not answer (a timeout); it keeps reading
  crash           writes its hand to stderr and exits with code 3
  crash_once      like crash, but only the first process of this LOG: it leaves its hand in a
                  file, and the restarted process puts it in its ready name, then plays on

The same decisions serve the in-memory test double: `decide` is what both run.
"""

from __future__ import annotations

import json
import os
import sys
from typing import Any

HANG = "hang"
CRASH = "crash"
FAULTS = ("illegal_held", "illegal_unheld", "echo", "wrong_id", "hang", "crash", "crash_once")


def tile_text(tile: list[int]) -> str:
    return f"{tile[0]}-{tile[1]}"


def _placed(msg: dict[str, Any]) -> set[tuple[int, int]]:
    tiles = [*msg["layout"]]
    arms = msg.get("arms") or {}
    tiles += [*arms.get("north", []), *arms.get("south", [])]
    return {(min(t), max(t)) for t in tiles}


def decide(
    msg: dict[str, Any], requests: int, mode: str, at: int, count: int, note: str = ""
) -> Any:
    """What to do with one message: a reply (a dict), ``HANG``, ``CRASH``, or ``None``
    (nothing). ``requests`` counts this process's requests, this one included; ``note`` goes
    into the ready name."""
    kind = msg["type"]
    if kind == "hello":
        return {"type": "ready", "name": f"recorder-{mode} {note}".strip()}
    if kind != "request":
        return None
    reply: dict[str, Any] = {"type": "move", "id": msg["id"], "move": msg["legal"][0]}
    if not at <= requests < at + count or mode not in FAULTS:
        return reply
    hand = msg["hand"]
    if mode == "illegal_held":
        tile = hand[0]
        out = next(v for v in range(7) if v not in tile)
        ends = [e["position"] for e in msg["ends"]]
        end = ends[0] if ends else ("west" if msg.get("count") is not None else "left")
        reply["move"] = {"action": "play", "tile": tile, "end": end, "out": out}
    elif mode == "illegal_unheld":
        taken = {tuple(t) for t in hand} | _placed(msg)
        tile = next([a, b] for a in range(7) for b in range(a, 7) if (a, b) not in taken)
        ends = [e["position"] for e in msg["ends"]]
        reply["move"] = {
            "action": "play",
            "tile": tile,
            "end": ends[0] if ends else None,
            "out": tile[1],
        }
    elif mode == "echo":
        shown = tile_text(hand[0])
        variant = requests % 3
        if variant == 0:
            reply["move"] = {"action": "play", "tile": hand[0], "out": hand[0][1], "end": shown}
        elif variant == 1:
            reply[f"[{hand[0][0]}, {hand[0][1]}]"] = shown
        else:
            reply["type"] = shown
    elif mode == "wrong_id":
        reply["id"] = msg["id"] + 1000
    elif mode == "hang":
        return HANG
    elif mode in ("crash", "crash_once"):
        return CRASH
    return reply


def main() -> None:
    log_path, mode = sys.argv[1], sys.argv[2]
    at = int(sys.argv[3]) if len(sys.argv) > 3 else 1
    count = int(sys.argv[4]) if len(sys.argv) > 4 else 1
    log = os.open(log_path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
    crashed_once = log_path + ".crashed"
    requests = 0
    for raw in sys.stdin.buffer:
        os.write(log, b"< " + raw.rstrip(b"\n") + b"\n")
        msg = json.loads(raw)
        if msg["type"] == "request":
            requests += 1
        note = ""
        if os.path.exists(crashed_once):
            with open(crashed_once) as left:
                note = left.read()
        what = decide(msg, requests, mode, at, count, note)
        if what == CRASH and mode == "crash_once" and os.path.exists(crashed_once):
            what = {"type": "move", "id": msg["id"], "move": msg["legal"][0]}
        if what == CRASH:
            with open(crashed_once, "w") as left:
                left.write(" ".join(map(tile_text, msg["hand"])))
            sys.stderr.write(f"recorder crashed holding {' '.join(map(tile_text, msg['hand']))}\n")
            sys.stderr.flush()
            os._exit(3)
        if what is None or what == HANG:
            if msg["type"] in ("match_end", "error"):
                break
            continue
        line = json.dumps(what).encode()
        os.write(log, b"> " + line + b"\n")
        sys.stdout.buffer.write(line + b"\n")
        sys.stdout.buffer.flush()


if __name__ == "__main__":
    main()
