"""A failure's detail as the other seats read it (arena/redaction.py): no tile, nothing quoted."""

from __future__ import annotations

import pytest

from arena.redaction import detail_for_others, hide_tiles, public_decoder_error
from arena.replay import Failure, Status
from protocol import messages as m


def test_an_illegal_move_is_hidden_with_its_strike_count_kept() -> None:
    """The move goes, the request, the open ends and the last strike's words stay."""
    failure = Failure(
        Status.ILLEGAL_MOVE,
        "illegal move 1-5 on east, 5 out in request 28; open ends east=3, west=4; "
        "strike 3 of 3: forfeit",
        "move",
        move=m.PlayReply(tile=(5, 1), out=5, end="east"),
    )
    assert detail_for_others(failure) == (
        "illegal move (hidden) in request 28; open ends east=3, west=4; strike 3 of 3: forfeit"
    )


@pytest.mark.parametrize("move", [m.PassReply(), m.DrawReply()])
def test_an_illegal_pass_or_draw_is_hidden_too(move: m.ReplyMove) -> None:
    """Which move a bot tried says something of its hand, whatever the move."""
    shown = "PASS" if isinstance(move, m.PassReply) else "DRAW"
    failure = Failure(
        Status.ILLEGAL_MOVE,
        f"illegal move {shown} in request 9; open ends left=5",
        "move",
        move=move,
    )
    assert detail_for_others(failure) == "illegal move (hidden) in request 9; open ends left=5"


def test_what_the_decoder_quotes_of_a_restarted_bots_line_is_hidden() -> None:
    """A quoted value (quotes inside it included) goes; the JSON path and the prefix stay."""
    error = "Invalid enum value 'x' - at `$` '2-3' - at `$.move.end`"
    failure = Failure(
        Status.BAD_MESSAGE,
        f"restarted after a crash, then: sent an invalid message: {error}",
        "restart",
        error=error,
    )
    assert detail_for_others(failure) == (
        "restarted after a crash, then: sent an invalid message: Invalid enum value (hidden) - "
        "at `$.move.end`"
    )


@pytest.mark.parametrize(
    ("error", "public"),
    [
        ("Invalid value '1-5' - at `$.type`", "Invalid value (hidden) - at `$.type`"),
        (
            "Object contains unknown field `[1, 5]` - at `$`",
            "Object contains unknown field (hidden) - at `$`",
        ),
        ("Expected `int` <= 6 - at `$.move.tile[1]`", "Expected `int` <= 6 - at `$.move.tile[1]`"),
        ("expected a 'move' message", "expected a 'move' message"),
        (
            "the reply's id 47 is not the request's id 48",
            "the reply's id 47 is not the request's id 48",
        ),
    ],
)
def test_a_decoder_error_keeps_all_but_the_bots_own_words(error: str, public: str) -> None:
    """Only the values msgspec quotes from the line are hidden."""
    assert public_decoder_error(error) == public


@pytest.mark.parametrize(
    "detail",
    [
        "did not answer request 4 in time (over by 0.7 ms)",
        "did not answer 'hello' within 1000 ms",
        "closed its output and exited (exit code 1)",
        "wrote more than 1048576 bytes to its stdout in the match",
        "sent a line longer than 65536 bytes",
        "bot command 'python3 bots/v1-2.py' not found",
    ],
)
def test_a_detail_with_nothing_to_hide_is_the_same_for_everybody(detail: str) -> None:
    """Timeouts, crashes, limits and start-up failures read the same to every seat."""
    assert detail_for_others(Failure(Status.TIMEOUT, detail, "move")) == detail


def test_anything_written_like_a_tile_is_hidden() -> None:
    """``1-5``, ``[1, 5]``, ``(1,5)``; not a date, a version or a decimal."""
    text = "1-5, [1, 5], (1,5) 6 - 0 but 2026-11-30, v1-2, 0.5-1"
    assert hide_tiles(text) == "(hidden), (hidden), (hidden) (hidden) but 2026-11-30, v1-2, 0.5-1"


def test_a_seat_that_did_not_fail_has_no_detail() -> None:
    """``ok`` seats keep the empty detail."""
    assert detail_for_others(None) == ""
