"""Whether the machine is big enough for the clocks: a warning before a tournament, a share after.

A referee that has to share too few CPUs with too many thinking bots wakes late: a reply that
was in its pipe in time is taken up past the deadline. The referee accepts it (the lateness is
its own) and records how late it was (``late_ms`` in the replay's move); the bot is charged its
allowance. Such moves are in time only because the referee gave the bot the benefit of the
doubt, so the figures are told: before the run when more matches run at once than there are
CPUs, and after it, the share of moves accepted late with the concurrency that avoids it.
"""

from __future__ import annotations

import os
import sys

#: The default ``--concurrency`` caps at this many matches at once.
DEFAULT_CONCURRENCY = 4


def usable_cpus() -> int:
    """The CPUs this process may run on (its affinity mask where the system has one)."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):  # not on Linux
        return max(1, os.cpu_count() or 1)


def default_concurrency(cpus: int | None = None) -> int:
    """``--concurrency``'s default: 4 matches at once, or one per CPU when there are fewer, so
    a default run never has more matches at once than CPUs."""
    return min(DEFAULT_CONCURRENCY, usable_cpus() if cpus is None else cpus)


def concurrency_warning(concurrency: int, cpus: int, move_ms: int) -> str | None:
    """The warning for more matches at once than CPUs under a move limit (``None``: none)."""
    if concurrency <= cpus:
        return None
    return (
        f"{concurrency} matches at once on {cpus} CPUs with --move-ms {move_ms}: bots' clocks "
        f"may run late; use --concurrency {cpus} or fewer"
    )


def late_share_line(
    late_moves: int, moves: int, worst_ms: float, concurrency: int, cpus: int
) -> str | None:
    """What share of the moves the referee accepted late, and what avoids it (``None`` when
    no move was)."""
    if late_moves <= 0 or moves <= 0:
        return None
    share = 100 * late_moves / moves
    said = (
        f"{late_moves:,} of {moves:,} moves ({share:.2g}%) were accepted late because the "
        f"referee itself woke after their deadline (by up to {worst_ms:.1f} ms; late_ms in "
        "the replays)"
    )
    if concurrency > cpus:
        return (
            f"{said}: {concurrency} matches at once on {cpus} CPUs; use --concurrency {cpus} "
            "or fewer"
        )
    fewer = max(1, concurrency // 2)
    if fewer < concurrency:
        return (
            f"{said}, with {concurrency} matches at once on {cpus} CPUs: other programs were "
            f"using them too; use --concurrency {fewer}, or a longer --move-ms"
        )
    return f"{said}: other programs were using the CPUs; use a longer --move-ms"


def warn_if_crowded(command: str, concurrency: int, move_ms: int) -> None:
    """Warn on stderr when more matches run at once than there are CPUs for their clocks."""
    warning = concurrency_warning(concurrency, usable_cpus(), move_ms)
    if warning is not None:
        print(f"{command}: warning: {warning}", file=sys.stderr, flush=True)


def say_late_moves(late_moves: int, moves: int, worst_ms: float, concurrency: int) -> None:
    """Say on stdout, after a run, what share of its moves the referee took up late (if any)."""
    line = late_share_line(late_moves, moves, worst_ms, concurrency, usable_cpus())
    if line is not None:
        print(line)


__all__ = [
    "DEFAULT_CONCURRENCY",
    "concurrency_warning",
    "default_concurrency",
    "late_share_line",
    "say_late_moves",
    "usable_cpus",
    "warn_if_crowded",
]
