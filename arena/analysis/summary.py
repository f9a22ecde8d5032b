"""Each seat's accuracy from the decisions of an analysis (pure).

A decision is a move with a choice (two legal moves or more); a forced move says nothing about
the bot and is left out. A move is classified by its loss (the best move's value minus the
played move's, in hand points): under :data:`DEFAULT_THRESHOLDS.inaccuracy` it counts as
accurate; from there on it is an inaccuracy, a mistake or a blunder. ``accuracy`` is the share
of accurate decisions in percent.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from arena.analysis.record import MoveAnalysis, SeatAccuracy, Thresholds

#: The default classification, in hand points. A hand of the line games is worth about 10 to
#: 60 points to its winner, a scoring move 5 to 20: a loss of 2 points is a small slip, 5 a
#: real mistake, 10 a blunder that often turns the hand.
DEFAULT_THRESHOLDS = Thresholds(inaccuracy=2.0, mistake=5.0, blunder=10.0)

#: The names of the classes, from the best to the worst, as the viewer and the text print them.
GRADES = ("ok", "inaccuracy", "mistake", "blunder")


def grade(loss: float, thresholds: Thresholds = DEFAULT_THRESHOLDS) -> str:
    """The class of a move that lost ``loss`` points: one of :data:`GRADES`."""
    if loss >= thresholds.blunder:
        return "blunder"
    if loss >= thresholds.mistake:
        return "mistake"
    if loss >= thresholds.inaccuracy:
        return "inaccuracy"
    return "ok"


def seat_accuracy(
    seat: int, moves: Iterable[MoveAnalysis], thresholds: Thresholds = DEFAULT_THRESHOLDS
) -> SeatAccuracy:
    """The summary of ``seat`` over ``moves`` (the moves of other seats are skipped)."""
    losses = [m.loss for m in moves if m.seat == seat and m.choices > 1]
    grades = [grade(loss, thresholds) for loss in losses]
    count = len(losses)
    return SeatAccuracy(
        seat=seat,
        decisions=count,
        accuracy=round(100.0 * grades.count("ok") / count, 1) if count else 100.0,
        mean_loss=round(sum(losses) / count, 3) if count else 0.0,
        inaccuracies=grades.count("inaccuracy"),
        mistakes=grades.count("mistake"),
        blunders=grades.count("blunder"),
    )


def seats_accuracy(
    players: int, moves: Sequence[MoveAnalysis], thresholds: Thresholds = DEFAULT_THRESHOLDS
) -> list[SeatAccuracy]:
    """Every seat's summary, in seat order."""
    return [seat_accuracy(seat, moves, thresholds) for seat in range(players)]


def pooled_accuracy(summaries: Iterable[SeatAccuracy]) -> SeatAccuracy | None:
    """Several summaries of one bot (its seats over many matches) pooled into one, weighted by
    their decisions; ``None`` when there is none. The seat of the result is meaningless (-1)."""
    items = list(summaries)
    if not items:
        return None
    count = sum(s.decisions for s in items)
    if not count:
        return SeatAccuracy(-1, 0, 100.0, 0.0, 0, 0, 0)
    return SeatAccuracy(
        seat=-1,
        decisions=count,
        accuracy=round(sum(s.accuracy * s.decisions for s in items) / count, 1),
        mean_loss=round(sum(s.mean_loss * s.decisions for s in items) / count, 3),
        inaccuracies=sum(s.inaccuracies for s in items),
        mistakes=sum(s.mistakes for s in items),
        blunders=sum(s.blunders for s in items),
    )
