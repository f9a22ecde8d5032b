"""``arena verify``: re-run a replay through the engine and check every deal, move, award and
the result (the walk in :mod:`arena.replay_walk` does the checking)."""

from __future__ import annotations

from dataclasses import dataclass

from arena.replay import Replay
from arena.replay_walk import ReplayMismatch, WalkKind, walk_replay


@dataclass(frozen=True)
class VerifyReport:
    """The verdict: ``ok``, what was checked, and the first discrepancy (``error``) if any."""

    ok: bool
    checked: str
    error: str | None = None


def verify_replay(replay: Replay) -> VerifyReport:
    """Check ``replay`` against the engine; the report names the first discrepancy."""
    hands = moves = 0
    try:
        for step in walk_replay(replay):
            if step.kind is WalkKind.MOVE:
                moves += 1
            elif step.kind is WalkKind.HAND_START:
                hands += 1
    except ReplayMismatch as mismatch:
        return VerifyReport(False, f"{hands} hands, {moves} moves checked", str(mismatch))
    return VerifyReport(
        True, f"{hands} hands, {moves} moves, scores {list(replay.result.scores)} verified"
    )
