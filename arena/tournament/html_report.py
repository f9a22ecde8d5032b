"""``arena report``: a tournament as one self-contained web page.

The page shows the standings and the ratings (the same numbers as ``arena standings``, from
:func:`~arena.tournament.standings.compute_standings` and
:func:`~arena.tournament.ratings_view.compute_ratings`), the cross-table, every bot's failures
with their evidence, and every match, each linking to its replay viewer page
(:mod:`arena.view.html`) by a path relative to the report's folder. A failure links straight to
the step of its match's page that shows it (``PAGE.html#move=N``), and to the match's failure
bundle (``NAME.failures/README.txt`` beside the replay, when the worker wrote one). Under the
failure policy ``lenient`` the strikes and restarts are failures too: each is listed, from the
replay (:func:`arena.failure_report.failures_of`), linking to the strike's move or the restart.

The tournament's worker writes each match's viewer page beside its replay (``.json`` becomes
``.html``). A page that is missing is made here from the replay; a replay that cannot be shown
(unreadable, or not re-running through the engine) is linked as JSON, with a note saying why.

The page holds its style and its script (a filter and sortable columns, nothing it needs to be
read) and loads nothing: it opens from disk, like the viewer pages it links to. They are the
files ``report.css`` and ``report.js`` beside the viewer's (:func:`arena.view.page.asset`).

This module writes the page and its header; its parts are :mod:`~arena.tournament.report_matches`
(what the report knows of each match), :mod:`~arena.tournament.report_sections` (the tables and
lists) and :mod:`~arena.tournament.report_markup` (the markup they share).
"""

from __future__ import annotations

import datetime
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from arena import PRODUCT
from arena.games.registry import DEFAULT_GAME
from arena.policy import FailurePolicy
from arena.tournament.ratings_view import compute_ratings
from arena.tournament.report_analysis import bot_accuracy
from arena.tournament.report_markup import PALETTE, Context, bot_tag, costs, esc, failure_kinds
from arena.tournament.report_matches import (
    FailureEntry,
    MatchEntry,
    ReportResult,
    collect_matches,
    find_bundle,
    find_replay,
    tournament_policy,
)
from arena.tournament.report_sections import (
    cross_section,
    failures_section,
    matches_section,
    ratings_section,
    standings_section,
)
from arena.tournament.standings import Standings, compute_standings
from arena.tournament.store import Store
from arena.view.page import asset, html_document

#: What other modules import from here (:mod:`arena.tournament.report` finds replays and
#: bundles as the report does).
__all__ = [
    "ReportResult",
    "find_bundle",
    "find_replay",
    "render_report",
    "tournament_policy",
    "write_report",
]


def render_report(
    store: Store,
    entries: list[MatchEntry],
    out: Path,
    *,
    now: datetime.datetime | None = None,
) -> str:
    """The report page of ``store``'s tournament, linking from ``out``'s folder."""
    entrants = store.entrants()
    standings = compute_standings(entrants, [e.row for e in entries])
    ratings = compute_ratings(store)
    config = store.config() or {}
    policy = tournament_policy(store)
    kept = [b.entrant for b in standings.bots]
    ctx = Context(
        base=out.parent,
        colour={e: PALETTE[i % len(PALETTE)] for i, e in enumerate(kept)},
        place={e: i for i, e in enumerate(kept, start=1)},
        names={e.id: e.name for e in entrants},
    )
    scheduled = len(store.tables())
    failures = [f for entry in entries for f in entry.failures]
    moment = (now or datetime.datetime.now(datetime.UTC)).isoformat(timespec="seconds")
    body = "\n".join(
        [
            _header(config, standings, scheduled, ctx, policy),
            _nav(len(failures), len(entries)),
            '<main class="report">',
            _summary(entries, scheduled, failures, store, policy),
            standings_section(standings, ctx, bot_accuracy(entries)),
            ratings_section(ratings, ctx),
            cross_section(standings, ctx),
            failures_section(standings, failures, entries, ctx),
            matches_section(entries, ctx),
            "</main>",
            f'<footer class="foot">Made by {esc(PRODUCT)} at {esc(moment)} from '
            f"<code>{esc(store.path)}</code>: <code>arena report --db {esc(store.path)} -o "
            f"{esc(out)}</code> makes it again.</footer>",
        ]
    )
    title = f"Tournament report: {', '.join(b.name for b in standings.bots[:4])}"
    if len(standings.bots) > 4:
        title += ", …"
    # The stylesheet and the script, files beside the viewer's, each after the blank line the
    # page has always had there.
    css, js = "\n" + asset("report.css"), "\n" + asset("report.js")
    return html_document(title=title, made_by="arena report", css=css, body=body, js=js)


def _header(
    config: dict[str, Any],
    standings: Standings,
    scheduled: int,
    ctx: Context,
    policy: FailurePolicy | None,
) -> str:
    game = str(config.get("game", DEFAULT_GAME))  # a tournament from before games were chosen
    fmt = str(config.get("format", "round-robin"))
    chips = [
        game,
        fmt,
        f"{config.get('players', 2)} players a table",
        f"{len(standings.bots)} bots",
    ]
    if config.get("hands"):
        chips.append(f"{config['hands']} hand{'s' if config['hands'] != 1 else ''} a match")
    elif config.get("target"):
        chips.append(f"to {config['target']} points")
    if config.get("rounds", 1) != 1:
        chips.append(f"{config['rounds']} rounds")
    chips.append(f"{config.get('move_ms', '?')} ms a move")
    if config.get("seed") is not None:
        chips.append(f"seed {config['seed']}")
    if policy is None or policy.name != "strict":
        chips.append(f"policy {_policy_text(policy, config)}")
    leaders = standings.bots[:3]
    lead = (
        "".join(
            f'<span class="podium"><span class="place medal{i}">{i}</span>'
            f"{bot_tag(ctx, b.entrant)}</span>"
            for i, b in enumerate(leaders, start=1)
        )
        if leaders
        else '<span class="muted">no bots</span>'
    )
    return (
        '<header class="topbar"><div class="brand">' + _LOGO + "<div>"
        f'<div class="kicker">{esc(game)} tournament report</div>'
        f'<h1 class="title">{lead}</h1></div></div>'
        '<div class="meta">'
        + "".join(f'<span class="chip">{esc(c)}</span>' for c in chips)
        + f'<span class="chip strong" id="played">{standings.matches} / {scheduled} matches'
        "</span></div></header>"
    )


def _nav(failures: int, matches: int) -> str:
    links = [
        ("standings", "Standings"),
        ("ratings", "Ratings"),
        ("cross-table", "Cross-table"),
        ("failures", f"Failures <b>{failures}</b>"),
        ("matches", f"Matches <b>{matches}</b>"),
    ]
    return (
        '<nav class="tabs">'
        + "".join(f'<a href="#{anchor}">{label}</a>' for anchor, label in links)
        + "</nav>"
    )


def _policy_text(policy: FailurePolicy | None, config: dict[str, Any]) -> str:
    """``lenient (3 strikes, 1 restart)``; a stored policy the arena does not know, as stored."""
    if policy is None:
        return f"{json.dumps(config.get('policy'))} (not one the arena knows)"
    return policy.describe()


#: What each failure policy but strict does, in a few words (docs/failure-policies.md).
_POLICY_SUBS: dict[str, Callable[[FailurePolicy], str]] = {
    "classroom": lambda p: "any failure forfeits, explained at length in its failure bundle",
    "lenient": lambda p: (
        "a timeout or bad reply is a strike (a random legal move is played); strike "
        f"{p.strikes} forfeits; {p.restarts} restart{'s' if p.restarts != 1 else ''} after a crash"
    ),
}


def _summary(
    entries: list[MatchEntry],
    scheduled: int,
    failures: list[FailureEntry],
    store: Store,
    policy: FailurePolicy | None,
) -> str:
    hands = sum(e.row.summary.hands for e in entries)
    moves = sum(e.row.summary.moves for e in entries)
    seconds = sum(e.row.summary.duration_s for e in entries)
    kinds = failure_kinds(f.status for f in failures) or "none"
    if any(f.cost != "forfeit" for f in failures):
        kinds = f"{costs(failures)}: {kinds}"
    cards = [
        ("matches", f"{len(entries)}", f"of {scheduled} scheduled"),
        ("hands", f"{hands}", f"{moves} moves"),
        ("failures", f"{len(failures)}", kinds),
        (
            "match time",
            f"{seconds:.1f} s",
            f"{seconds / len(entries):.2f} s a match" if entries else "",
        ),
    ]
    if policy is None:
        cards.append(("failure policy", "?", _policy_text(policy, store.config() or {})))
    elif policy.name != "strict":
        cards.append(("failure policy", policy.name, _POLICY_SUBS[policy.name](policy)))
    notes = []
    pending = scheduled - len(entries)
    if pending > 0:
        notes.append(
            f"{pending} scheduled match{'es' if pending != 1 else ''} not played yet: "
            f"<code>arena tournament --resume --db {esc(store.path)}</code> plays "
            f"{'them' if pending != 1 else 'it'}."
        )
    for entrant in store.entrants():
        if entrant.excluded is not None:
            notes.append(f"Left out: <b>{esc(entrant.name)}</b>: {esc(entrant.excluded)}")
    return (
        '<section class="cards" id="summary">'
        + "".join(
            f'<div class="card stat stat-{esc(key.replace(" ", "-"))}">'
            f'<div class="label">{esc(key)}</div><div class="value">{esc(value)}</div>'
            f'<div class="sub">{esc(sub)}</div></div>'
            for key, value, sub in cards
        )
        + "</section>"
        + ("".join(f'<p class="note">{n}</p>' for n in notes))
    )


# -- writing -----------------------------------------------------------------------------------


def write_report(
    store: Store,
    out: str | Path,
    *,
    now: datetime.datetime | None = None,
) -> ReportResult:
    """Write the report of ``store``'s tournament to ``out`` and return what was done.

    Viewer pages missing beside their replays are made first.

    Args:
        store: the tournament's database.
        out: the report file.
        now: the time written in the page (default: now).

    Raises:
        OSError: when the report cannot be written.
    """
    target = Path(out)
    entries = collect_matches(store, [target.parent])
    page = render_report(store, entries, target, now=now)
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(page, encoding="utf-8")
    notes = [f"table {e.idx}: {e.note}" for e in entries if e.note]
    return ReportResult(target, len(entries), sum(1 for e in entries if e.made), notes)


# -- the page's logo, style and script ---------------------------------------------------------

_LOGO = (
    '<svg class="logo" viewBox="0 0 46 26" width="46" height="26" aria-hidden="true">'
    '<rect x="1" y="1" width="44" height="24" rx="4" fill="#f3c74f" stroke="#e0a526"/>'
    '<line x1="23" y1="4" x2="23" y2="22" stroke="#b07d12" stroke-width="1.2"/>'
    '<g fill="#7a1d12"><circle cx="7" cy="7" r="2"/><circle cx="12" cy="13" r="2"/>'
    '<circle cx="17" cy="19" r="2"/><circle cx="29" cy="7" r="2"/><circle cx="39" cy="7" r="2"/>'
    '<circle cx="29" cy="19" r="2"/><circle cx="39" cy="19" r="2"/></g></svg>'
)
