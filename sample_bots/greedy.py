#!/usr/bin/env python3
"""A greedy Matador bot written with the typed ``protocol`` package.

Strategy, decided from the ``request`` message alone:

1. Play the heaviest ordinary (non-matador) tile among the legal plays, to shed pips.
2. Otherwise draw, if drawing is legal: matadors (0-0, 6-1, 5-2, 4-3) are kept for later.
3. Otherwise play a matador, choosing the tile, end and orientation that leave the hardest
   end for the opponents: a blank end (out 0) if possible, else the lowest value.
4. Otherwise pass (then PASS is the only legal move).

Ties are broken deterministically, so the bot plays the same moves in the same positions.
``sample_bots/greedy.js`` is the same bot in JavaScript.

Run from the repository root: ``python3 sample_bots/greedy.py`` (it finds ``protocol`` even
when the package is not installed).
"""

from __future__ import annotations

import sys
from pathlib import Path

try:
    import protocol  # noqa: F401  (installed with the arena, or found next to sample_bots/)
except ImportError:
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from protocol import (
    Draw,
    End,
    Error,
    HandEnd,
    HandStart,
    Hello,
    MatchEnd,
    MoveReply,
    MoveRequest,
    Play,
    ProtocolError,
    Ready,
    WireMove,
    as_reply,
    decode_to_bot,
    encode,
)
from protocol.messages import MAX_DEBUG_CHARS

NAME = "greedy"
MATADORS = frozenset({(0, 0), (1, 6), (2, 5), (3, 4)})
_END_RANK = {None: 0, "left": 1, "right": 2}  # tie-break: the lead, then left, then right


def is_matador(tile: tuple[int, int]) -> bool:
    """Whether ``tile`` (in either order) is one of the four wild tiles."""
    low, high = sorted(tile)
    return (low, high) in MATADORS


def tile_name(tile: tuple[int, int]) -> str:
    """A tile as ``low-high``, e.g. ``5-6``."""
    low, high = sorted(tile)
    return f"{low}-{high}"


def ends_after(play: Play, ends: list[End]) -> list[int]:
    """The values of the open ends once ``play`` is made (a lead opens both of its halves)."""
    if play.end is None:
        return sorted(play.tile)
    return [play.out if end.position == play.end else end.value for end in ends]


def heaviest_key(play: Play) -> tuple[int, int, int, int]:
    """Sort key for ordinary plays: most pips first, then the higher top half, then the end."""
    return (-sum(play.tile), -max(play.tile), _END_RANK[play.end], play.out)


def matador_key(play: Play, ends: list[End]) -> tuple[int, int, int]:
    """Sort key for matador plays: lowest end left (0 = blank, which no ordinary tile can
    match), then the most blank ends overall (do not cover a blank end), then the end."""
    blanks = ends_after(play, ends).count(0)
    return (play.out, -blanks, _END_RANK[play.end])


def choose(request: MoveRequest) -> tuple[WireMove, str]:
    """The greedy move for ``request`` and a short note on why (kept in the replay)."""
    plays = [move for move in request.legal if isinstance(move, Play)]
    ordinary = [play for play in plays if not is_matador(play.tile)]
    if ordinary:
        best = min(ordinary, key=heaviest_key)
        return best, f"heaviest {tile_name(best.tile)} ({sum(best.tile)} pips)"
    draw = next((move for move in request.legal if isinstance(move, Draw)), None)
    if draw is not None:
        kept = sorted({tile_name(play.tile) for play in plays})
        why = f"keeping matador {', '.join(kept)}" if kept else "nothing to play"
        return draw, f"draw ({why})"
    if plays:
        best = min(plays, key=lambda play: matador_key(play, request.ends))
        where = "lead" if best.end is None else f"on {best.end}"
        return best, f"matador {tile_name(best.tile)} {where}, {best.out} out"
    return request.legal[0], "nothing to play: pass"  # PASS is then the only legal move


def send(message: Ready | MoveReply) -> None:
    """Write one message as one line of JSON and flush it at once."""
    sys.stdout.buffer.write(encode(message) + b"\n")
    sys.stdout.buffer.flush()


def main() -> int:
    """Answer the referee until the match ends, we are stopped, or stdin closes."""
    for line in sys.stdin.buffer:
        try:
            message = decode_to_bot(line)
        except ProtocolError as error:  # e.g. a message type from a later protocol version
            print(f"{NAME}: ignoring a message: {error}", file=sys.stderr)
            continue
        if isinstance(message, Hello):
            send(Ready(name=NAME))
        elif isinstance(message, MoveRequest):
            move, note = choose(message)
            reply = MoveReply(id=message.id, move=as_reply(move), debug=note[:MAX_DEBUG_CHARS])
            send(reply)
        elif isinstance(message, HandStart | HandEnd):
            pass  # information only: no reply expected (a smarter bot would track tiles here)
        elif isinstance(message, MatchEnd):
            return 0
        elif isinstance(message, Error):
            print(
                f"{NAME}: stopped by the referee: {message.code}: {message.message}",
                file=sys.stderr,
            )
            return 0
    return 0  # EOF: the referee is gone


if __name__ == "__main__":
    sys.exit(main())
