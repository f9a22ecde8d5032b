#!/usr/bin/env python3
"""A greedy bot for Matador, Fives and Block, written with the typed ``protocol`` package.

Strategy in Matador, decided from the ``request`` message alone:

1. Play an ordinary (non-matador) tile if one fits: matadors (0-0, 6-1, 5-2, 4-3) are kept for
   the ends nothing else fits. Among them, shed the most: the pips (a block is won by the
   lighter hand), a bonus for a double (it fits one value only), and a bonus for leaving an end
   the opponents cannot answer: a blank (only a matador takes it), or a value that was open
   when an opponent drew or passed (``shown_void`` replays the public ``history``).
2. Otherwise play a matador rather than draw (drawing goes on until a tile fits, and fills the
   hand), leaving the hardest end: one they cannot answer, else blank, else the lowest value.
3. Otherwise draw or pass, the only legal move then.

Strategy in Fives (``hello.game == "fives"``):

1. Play the move that scores the most: the count of the open ends after it (worked out from
   the request's ``layout``, ``spinner`` and ``arms``, rules.md 2.5) when it is a positive multiple
   of five; among equal scores, the heaviest tile.
2. Otherwise (no play) draw or pass: the only legal move then.

Strategy in Block (``hello.game == "block"``): shed the most, as in Matador's step 1 (pips, a
bonus for a double, a bonus for an end the opponent passed on); otherwise pass.

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
    Arms,
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
# Tie-break on the end: the lead, then left/west, then right/east, then north, then south.
_END_RANK = {None: 0, "left": 1, "right": 2, "west": 1, "east": 2, "north": 3, "south": 4}


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


# -- Fives: what a play scores --------------------------------------------------------------

Line = list[tuple[int, int]]


def _end_value(tile: tuple[int, int], outer: int) -> int:
    """What an end tile counts: its outer half, both halves for a double (docs/rules.md 2.5)."""
    return 2 * outer if tile[0] == tile[1] else outer


def fives_count(line: Line, spinner: int | None, north: Line, south: Line) -> int:
    """The count of the open ends of a Fives table (docs/rules.md 2.5).

    ``line`` is the west-east line read from west to east, ``spinner`` the index in it of the
    spinner (or ``None``), ``north`` and ``south`` its arms read outward from the spinner.
    """
    if spinner is None:
        if len(line) == 1:  # a lone tile counts its pips once (a lone double 2d)
            return sum(line[0])
        return _end_value(line[0], line[0][0]) + _end_value(line[-1], line[-1][1])
    count = 0
    covered = (spinner > 0) + (spinner < len(line) - 1)
    if covered <= 1:  # the spinner counts both halves while a side of it is open
        count += 2 * line[spinner][0]
    if spinner > 0:
        count += _end_value(line[0], line[0][0])
    if spinner < len(line) - 1:
        count += _end_value(line[-1], line[-1][1])
    for arm in (north, south):
        if arm:  # an open arm with no tile yet counts nothing
            count += _end_value(arm[-1], arm[-1][1])
    return count


def fives_points(play: Play, request: MoveRequest) -> int:
    """The points ``play`` scores at once: the count after it, if a positive multiple of 5."""
    line: Line = [(a, b) for a, b in request.layout]
    spinner = request.spinner if isinstance(request.spinner, int) else None
    arms = request.arms if isinstance(request.arms, Arms) else None
    north: Line = [(a, b) for a, b in arms.north] if arms else []
    south: Line = [(a, b) for a, b in arms.south] if arms else []
    low, high = play.tile
    inner = low + high - play.out  # the half that touches the end
    double = low == high
    if play.end == "west":
        line.insert(0, (play.out, inner))
        spinner = spinner + 1 if spinner is not None else (0 if double else None)
    elif play.end == "east":
        line.append((inner, play.out))
        if spinner is None and double:
            spinner = len(line) - 1
    elif play.end == "north":
        north.append((inner, play.out))
    elif play.end == "south":
        south.append((inner, play.out))
    count = fives_count(line, spinner, north, south)
    return count if count > 0 and count % 5 == 0 else 0


def choose_fives(request: MoveRequest) -> tuple[WireMove, str]:
    """The greedy Fives move: the play that scores the most, then the heaviest."""
    plays = [move for move in request.legal if isinstance(move, Play)]
    if not plays:
        only = request.legal[0]  # DRAW or PASS, the only legal move then
        return only, "nothing to play: " + ("draw" if isinstance(only, Draw) else "pass")
    best = min(plays, key=lambda play: (-fives_points(play, request), *heaviest_key(play)))
    points = fives_points(best, request)
    where = f"{tile_name(best.tile)} on {best.end}"
    if points:
        return best, f"scores {points}: {where}"
    return best, f"no score: heaviest {where} ({sum(best.tile)} pips)"


def shown_void(request: MoveRequest) -> set[int]:
    """End values some opponent has shown it cannot answer: the ends open when it drew or
    passed (it held no ordinary tile for them then). Replays the public history from the lead."""
    ends: dict[str, int] = {}
    void: set[int] = set()
    for event in request.history:
        move = event.move
        if isinstance(move, Play):
            if move.end is None:  # the lead opens both halves: left the low, right the high
                ends = {"left": min(move.tile), "right": max(move.tile)}
            else:
                ends[move.end] = move.out
        elif event.seat != request.seat:  # a draw or a pass by an opponent
            void.update(ends.values())
    return void


def shed_value(play: Play, hard: set[int]) -> int:
    """How much we like a play: its pips (a lighter hand wins a block), a bonus for a double
    (a double fits only one value, so it is the hardest tile to get rid of later), and a bonus
    for leaving an end in ``hard`` (one the opponents cannot answer)."""
    double = play.tile[0] == play.tile[1]
    return sum(play.tile) + 4 * double + 8 * (play.out in hard)


def choose_block(request: MoveRequest) -> tuple[WireMove, str]:
    """The greedy Block move: shed the most (heavy tiles, doubles, ends the opponent lacks)."""
    plays = [move for move in request.legal if isinstance(move, Play)]
    if not plays:
        return request.legal[0], "nothing to play: pass"  # PASS is then the only legal move
    hard = shown_void(request)
    best = min(plays, key=lambda play: (-shed_value(play, hard), *heaviest_key(play)))
    return best, f"shed {tile_name(best.tile)}, {best.out} out" + (
        " (they lack it)" if best.out in hard else ""
    )


def choose(request: MoveRequest, game: str = "matador") -> tuple[WireMove, str]:
    """The greedy move for ``request`` and a short note on why (kept in the replay)."""
    if game == "fives":
        return choose_fives(request)
    if game == "block":
        return choose_block(request)
    plays = [move for move in request.legal if isinstance(move, Play)]
    if not plays:  # DRAW or PASS is then the only legal move
        only = request.legal[0]
        return only, "nothing to play: " + ("draw" if isinstance(only, Draw) else "pass")
    # A blank end takes only a matador; a void end, nothing the opponents hold.
    hard = shown_void(request) | {0}
    ordinary = [play for play in plays if not is_matador(play.tile)]
    if ordinary:  # keep the matadors for the ends nothing else fits
        best = min(ordinary, key=lambda play: (-shed_value(play, hard), *heaviest_key(play)))
        return best, f"shed {tile_name(best.tile)}, {best.out} out" + (
            " (hard for them)" if best.out in hard else ""
        )
    # Only matadors fit. Drawing instead would fill the hand until a tile fits (and a matador
    # costs 7 pips at a block): play it, leaving the hardest end.
    best = min(plays, key=lambda play: (play.out not in hard, *matador_key(play, request.ends)))
    where = "lead" if best.end is None else f"on {best.end}"
    return best, f"matador {tile_name(best.tile)} {where}, {best.out} out"


def send(message: Ready | MoveReply) -> None:
    """Write one message as one line of JSON and flush it at once."""
    sys.stdout.buffer.write(encode(message) + b"\n")
    sys.stdout.buffer.flush()


def main() -> int:
    """Answer the referee until the match ends, we are stopped, or stdin closes."""
    game = "matador"
    for line in sys.stdin.buffer:
        try:
            message = decode_to_bot(line)
        except ProtocolError as error:  # e.g. a message type from a later protocol version
            print(f"{NAME}: ignoring a message: {error}", file=sys.stderr)
            continue
        if isinstance(message, Hello):
            game = message.game
            send(Ready(name=NAME))
        elif isinstance(message, MoveRequest):
            move, note = choose(message, game)
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
