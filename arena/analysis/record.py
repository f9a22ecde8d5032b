"""The replay's optional ``analysis`` section (docs/replay-format.md#the-analysis-section).

Written by ``arena analyze`` into a replay of format 2 as an optional field: ``arena verify``
ignores it (it checks only what the referee recorded), and a reader that does not know the field
skips it (the replay's Struct does not forbid unknown fields), so the format is not bumped. The
section carries its own version, :data:`ANALYSIS_VERSION`.

Values are in **hand points for the seat that moves**: the evaluator's estimate of what the
seat scores from the position to the end of the hand (docs/analysis.md says exactly what the
evaluator counts), higher is better. ``loss`` is the best move's value minus the played move's,
never negative.

Imports only msgspec and the protocol's move type: :mod:`arena.replay` imports this module.
"""

from __future__ import annotations

import msgspec

from protocol import messages as m

#: The layout of the analysis section this arena writes and reads.
ANALYSIS_VERSION = 1


class ExactValues(msgspec.Struct, frozen=True, omit_defaults=True):
    """The double-dummy values of a decision: every hand and the boneyard order known.

    Attributes:
        played: the exact value of the played move for the seat.
        best: the exact value of the best move.
        best_move: a move with that value (the first in the legal order).
    """

    played: float
    best: float
    best_move: m.WireMove


class MoveAnalysis(msgspec.Struct, frozen=True, omit_defaults=True):
    """One decision of one seat: the move played against the move the evaluator prefers.

    Attributes:
        hand: the hand's number.
        event: the event's index in the hand's ``events``, from 1 (as ``arena verify`` counts).
        seat: the seat that moved.
        played: the move played (the replay's).
        best: the move the evaluator prefers from the seat's own information.
        played_value: the estimated value of the played move (hand points for ``seat``; 0 for
            a forced move, which is not valued).
        best_value: the estimated value of ``best``.
        loss: ``best_value - played_value`` (0 when the played move is the best).
        choices: how many legal moves there were (1: a forced move, loss 0).
        exact: the double-dummy values, when the position was small enough (else absent).
    """

    hand: int
    event: int
    seat: int
    played: m.WireMove
    best: m.WireMove
    played_value: float
    best_value: float
    loss: float
    choices: int
    exact: ExactValues | None = None


class SeatAccuracy(msgspec.Struct, frozen=True):
    """One seat's summary (:mod:`arena.analysis.summary` computes it).

    Attributes:
        seat: the seat.
        decisions: its moves with a choice (two legal moves or more).
        accuracy: the share of those, in percent, whose loss is under the inaccuracy threshold.
        mean_loss: the mean loss over those decisions (hand points).
        inaccuracies: decisions with a loss of at least ``thresholds.inaccuracy`` (and less
            than a mistake's).
        mistakes: a loss of at least ``thresholds.mistake`` (less than a blunder's).
        blunders: a loss of at least ``thresholds.blunder``.
    """

    seat: int
    decisions: int
    accuracy: float
    mean_loss: float
    inaccuracies: int
    mistakes: int
    blunders: int


class Thresholds(msgspec.Struct, frozen=True):
    """The losses (hand points) from which a move is an inaccuracy, a mistake, a blunder."""

    inaccuracy: float
    mistake: float
    blunder: float


class Analysis(msgspec.Struct, frozen=True, omit_defaults=True):
    """The analysis section of a replay.

    Attributes:
        version: :data:`ANALYSIS_VERSION`.
        bot: the evaluator's settings as ``--bot`` named them (``ref:strong:samples=64``).
        seed: the analysis seed (each decision's samples are drawn from a seed derived from it,
            the hand and the event, so an analysis is reproducible move by move).
        unit: what the values count (``"hand points"``).
        thresholds: the losses that classify a move.
        moves: every decision of every seat, in replay order (automatic moves are left out).
        seats: each seat's summary, in seat order.
    """

    version: int
    bot: str
    seed: int
    unit: str
    thresholds: Thresholds
    moves: list[MoveAnalysis]
    seats: list[SeatAccuracy]
