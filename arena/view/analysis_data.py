"""The viewer data of a replay's analysis section (``arena analyze``), for analysis.js (pure).

Computed here, like everything the page shows: one entry per display step (``None`` for a step
that is no analysed decision), each with the played and the preferred move in words, their
values, the loss and its grade (every number also as the text the page prints), and the
double-dummy values when the analysis has them; and each seat's accuracy summary. viewer.js
draws nothing of it: analysis.js (beside it) draws the evaluation graph, the marks in the move
list, the preferred move and the summary.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from arena.analysis.record import Analysis, MoveAnalysis
from arena.analysis.summary import GRADES, grade
from arena.replay import Replay
from arena.view.steps import Step, StepKind
from arena.wire import move_from_wire


def analysis_data(replay: Replay, steps: Sequence[Step]) -> dict[str, Any] | None:
    """The analysis of ``replay`` as the page draws it, or ``None`` when it has none."""
    analysis = replay.analysis
    if analysis is None:
        return None
    by_event = {(m.hand, m.event): m for m in analysis.moves}
    numbers = {id(e): (h.hand_number, i) for h in replay.hands for i, e in enumerate(h.events, 1)}
    entries: list[dict[str, Any] | None] = []
    for step in steps:
        found = None
        if step.kind is StepKind.MOVE and step.action is not None:
            found = by_event.get(numbers.get(id(step.action), (-1, -1)))
        entries.append(None if found is None else _entry(analysis, found))
    return {
        "bot": analysis.bot,
        "unit": analysis.unit,
        "grades": list(GRADES),
        "thresholds": {
            "inaccuracy": analysis.thresholds.inaccuracy,
            "mistake": analysis.thresholds.mistake,
            "blunder": analysis.thresholds.blunder,
        },
        "seats": [
            {
                "seat": s.seat,
                "decisions": s.decisions,
                "accuracy": s.accuracy,
                "mean_loss": s.mean_loss,
                "inaccuracies": s.inaccuracies,
                "mistakes": s.mistakes,
                "blunders": s.blunders,
                "accuracy_text": f"{s.accuracy:.1f}%",
                "mean_loss_text": f"{s.mean_loss:.2f}",
            }
            for s in analysis.seats
        ],
        "steps": entries,
    }


def signed(value: float) -> str:
    """A value as the page prints it: one decimal, its sign (``+3.5``, ``-1.0``, ``0.0``)."""
    text = f"{value:+.1f}"
    return "0.0" if text in ("+0.0", "-0.0") else text


def _entry(analysis: Analysis, move: MoveAnalysis) -> dict[str, Any]:
    best = move_from_wire(move.best)
    entry: dict[str, Any] = {
        "seat": move.seat,
        "played": str(move_from_wire(move.played)),
        "best": str(best),
        "best_tile": None if best.tile is None else list(best.tile),
        "best_kind": best.kind.value,
        "best_end": best.end,
        "played_value": move.played_value,
        "best_value": move.best_value,
        "loss": move.loss,
        "played_value_text": signed(move.played_value),
        "best_value_text": signed(move.best_value),
        "loss_text": f"{move.loss:.1f}",
        "choices": move.choices,
        "grade": grade(move.loss, analysis.thresholds) if move.choices > 1 else "forced",
        "exact": None,
    }
    if move.exact is not None:
        entry["exact"] = {
            "played": move.exact.played,
            "best": move.exact.best,
            "played_text": signed(move.exact.played),
            "best_text": signed(move.exact.best),
            "best_move": str(move_from_wire(move.exact.best_move)),
        }
    return entry
