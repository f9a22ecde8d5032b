"""What ``arena check`` tells a student: each failure in words, with what to do instead.

The checker's session (`arena.check.session`) meets the failures; the judge (`arena.judge`)
decides what is wrong with a reply; this module only words it, for the person who wrote the bot.
"""

from __future__ import annotations

from typing import Protocol

from arena.games.api import DRAW, PASS, Move, SeatView
from arena.games.tiles import tile_str
from arena.judge import Fault, Rejection, ends_text
from protocol import messages as m
from protocol.codec import ProtocolErrorKind


class ExitInfo(Protocol):
    """How a bot process ended, or that it has not (``arena.referee.process.ExitStatus``)."""

    @property
    def returncode(self) -> int | None: ...

    @property
    def signal(self) -> int | None: ...

    @property
    def running(self) -> bool: ...

    def describe(self) -> str: ...


def ms(seconds: float) -> str:
    """``0.8 ms``, ``12 ms``, ``1500 ms``."""
    value = seconds * 1000
    return f"{value:.1f} ms" if value < 10 else f"{value:.0f} ms"


def how_it_ended(status: ExitInfo) -> str:
    """``exited with exit code 3``, ``was killed by signal SIGSEGV``, ``exited (exit code 0)``."""
    if status.signal is not None:
        return f"was {status.describe()}"
    if status.returncode == 0:
        return "exited (exit code 0)"
    return f"exited with {status.describe()}"


def illegal_advice(view: SeatView, move: Move) -> str:
    """What to do instead of an illegal ``move``, from the position alone."""
    if view.legal == (PASS,):
        return 'when PASS is the only legal move, send {"action": "pass"}'
    if view.legal == (DRAW,):
        return (
            'when DRAW is the only legal move, send {"action": "draw"}; you are asked again at '
            "once with the tile you drew in your hand"
        )
    if not view.ends:
        return 'to lead, play a tile of your hand with "end": null'
    if move.kind == "pass":
        return "PASS is legal only when you can neither play nor draw"
    if move.kind == "draw":
        return "DRAW is legal only when the request lists it"
    if move.tile is not None and move.tile not in view.hand:
        return f"you do not hold {tile_str(move.tile)}: your tiles are the request's hand"
    if move.end not in {p for p, _v in view.ends}:
        return f"there is no open end {move.end!r} here: the ends are the request's ends"
    return "a tile goes on an end only as the legal moves list it, with that out"


def key_count(played: list[Move]) -> int:
    """How many of the bot's first moves in a hand answer the scripted position: the first,
    and while they are draws, the ones after it (at most six)."""
    count = 0
    for move in played[:6]:
        count += 1
        if move.kind != "draw":
            break
    return count


def key_moves(played: list[Move]) -> str:
    """``you played DRAW, then DRAW, then 1-3 on right, 3 out``."""
    moves = [str(move) for move in played[: key_count(played)]]
    return "you played " + ", then ".join(moves)


def moves_text(moves: tuple[Move, ...] | list[Move], limit: int = 12) -> str:
    shown = "; ".join(str(mv) for mv in moves[:limit])
    return shown + (f"; ... ({len(moves)} in all)" if len(moves) > limit else "")


FLUSH_ADVICE = "flush stdout after every line (a reply left in your output buffer never arrives)"
STDOUT_ADVICE = "write only protocol messages to stdout, one per line; logs go to stderr"


READY_FIX = (
    'answer hello with one line {"type": "ready", "name": "..."} (a name of 1 to 64 '
    "characters); " + STDOUT_ADVICE
)


def ready_refusal(rejection: Rejection) -> str:
    """What is wrong with an answer to ``hello``, and how to fix it."""
    if rejection.fault is Fault.WRONG_PROTOCOL:
        return (
            f"your ready says protocol {rejection.protocol}, but the arena speaks protocol "
            f'{m.PROTOCOL_VERSION} — send "protocol": {m.PROTOCOL_VERSION} or leave it out'
        )
    if rejection.fault is Fault.UNEXPECTED_MESSAGE:
        return f"you answered hello with a {rejection.message!r} message — {READY_FIX}"
    return f"your answer to hello is not a valid ready message: {rejection.reason} — {READY_FIX}"


def move_refusal(rejection: Rejection, view: SeatView, hint: str | None) -> str:
    """What is wrong with an answer to a request, and how to fix it.

    ``hint`` says what to do in this position (a scenario's own advice for the position it is
    about); without one, the advice for an illegal move is worked out from the position.
    """
    request_id = rejection.request_id
    fault = rejection.fault
    if fault is Fault.ILLEGAL_MOVE:
        assert rejection.move is not None
        advice = hint or illegal_advice(view, rejection.move)
        return (
            f"your move {rejection.move} is not legal in request {request_id} (open ends: "
            f"{ends_text(view.ends)}); the legal moves were: {moves_text(view.legal)} — "
            f"{advice}; echoing one element of the request's legal list is always right"
        )
    if fault is Fault.UNEXPECTED_MESSAGE:
        return (
            f"you answered request {request_id} with a {rejection.message!r} message — a "
            'request is answered with {"type": "move", ...}; ' + STDOUT_ADVICE
        )
    if fault is Fault.MALFORMED:
        if rejection.error_kind is ProtocolErrorKind.UNKNOWN_FIELD:
            fix = "send only the fields of a move message: type, id, move and, if you like, debug"
        else:
            fix = (
                f'answer with one line {{"type": "move", "id": {request_id}, "move": '
                "<one of the legal moves>}; " + STDOUT_ADVICE
            )
        return (
            f"your answer to request {request_id} is not a valid move message: "
            f"{rejection.reason} — {fix}"
        )
    # WRONG_ID (the checker strikes no request, so no id is ever stale)
    return (
        f"your reply had id {rejection.reply_id} but the request's id was {request_id} — copy "
        "the id of the request you answer (ids are shared by all seats, so the ids you "
        "see have gaps: never count them yourself)"
    )
