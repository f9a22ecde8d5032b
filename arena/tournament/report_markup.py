"""The markup every part of the tournament report shares: escaping, links, numbers, the bots'
colours and name tags, the failure badges (:mod:`arena.tournament.html_report`)."""

from __future__ import annotations

import html
import os
import urllib.parse
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from arena.text import printable
from arena.tournament.report_matches import FailureEntry
from arena.tournament.standings import BotStanding

#: Colours given to the bots in standings order (then again from the first).
PALETTE = (
    "#60a5fa",
    "#fb923c",
    "#c084fc",
    "#2dd4bf",
    "#f472b6",
    "#a3e635",
    "#facc15",
    "#38bdf8",
    "#f87171",
    "#94a3b8",
)


def esc(value: object) -> str:
    """Text escaped for HTML content and quoted attributes."""
    return html.escape(str(value), quote=True)


def relative_link(target: Path, base: Path) -> str:
    """A link from a page in ``base`` to ``target``: relative, with ``/`` and %-escapes."""
    try:
        relative = os.path.relpath(os.path.abspath(target), os.path.abspath(base))
    except ValueError:  # another drive (Windows): an absolute link still works from disk
        return Path(os.path.abspath(target)).as_uri()
    return urllib.parse.quote(Path(relative).as_posix(), safe="/")


def num(value: float) -> str:
    """``1``, ``0.5``, ``1.67``: points as people write them."""
    return f"{round(value, 2):g}"


def ms(value: float | None) -> str:
    return "–" if value is None else f"{value:.1f}"


@dataclass
class Context:
    """What every part of the page needs: the folder links start from, the bots' colours."""

    base: Path
    colour: dict[int, str]
    place: dict[int, int]
    names: dict[int, str]


def ready_note(bot: BotStanding) -> str:
    """`` (ready: greedy-py)`` when the name the bot says differs from the arena's."""
    said = bot.ready_name
    if said is None or said == bot.name:
        return ""
    return f' <span class="muted">(ready: {esc(printable(said))})</span>'


def bot_tag(ctx: Context, entrant: int, name: str | None = None) -> str:
    colour = ctx.colour.get(entrant, "#94a3b8")
    label = name if name is not None else ctx.names.get(entrant, f"#{entrant}")
    return (
        f'<span class="bot" style="--bot:{colour}" data-entrant="{entrant}">'
        f'<i class="dot"></i>{esc(label)}</span>'
    )


def failure_kinds(statuses: Iterable[str]) -> str:
    counts = Counter(statuses)
    return ", ".join(f"{k} {v}" for k, v in sorted(counts.items()))


#: The costs of failures, in the order they are counted.
COSTS = ("forfeit", "strike", "restart")


def costs(failures: Sequence[FailureEntry]) -> str:
    """``1 forfeit, 2 strikes, 1 restart``: the failures by what they cost (only those seen)."""
    counts = Counter(f.cost for f in failures)
    return ", ".join(
        f"{counts[cost]} {cost}{'s' if counts[cost] != 1 else ''}" for cost in COSTS if counts[cost]
    )


def cost_badge(cost: str, count: int | None = None) -> str:
    """The amber badge of a strike or a restart: ``strike``, or with a count ``strikes 2``."""
    label = esc(cost) if count is None else f"{esc(cost)}{'s' if count != 1 else ''} <b>{count}</b>"
    return f'<span class="badge warn" data-cost="{esc(cost)}">{label}</span>'


def failure_badges(failures: Counter[str]) -> str:
    if not failures:
        return '<span class="muted">–</span>'
    return " ".join(
        f'<span class="badge bad" data-status="{esc(k)}">{esc(k)} <b>{v}</b></span>'
        for k, v in sorted(failures.items())
    )
