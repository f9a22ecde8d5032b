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
read) and loads nothing: it opens from disk, like the viewer pages it links to.
"""

from __future__ import annotations

import datetime
import html
import json
import os
import urllib.parse
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import msgspec

from arena.failure_report import bundle_path
from arena.failure_text import failures_of
from arena.policy import STRICT, FailurePolicy
from arena.replay import Replay, ReplayError, Status, read_replay
from arena.text import printable
from arena.tournament.ratings_view import RatingsView, compute_ratings
from arena.tournament.settings import TournamentSettings
from arena.tournament.standings import BotStanding, Standings, compute_standings
from arena.tournament.store import MatchRow, Store
from arena.view.html import evidence_rows, failure_step, render_page, viewer_data
from arena.view.page import html_document
from arena.view.steps import Step, StepKind, StepsError, build_steps

#: The most of a bot's stderr tail one failure shows in the report (its end); the viewer page
#: linked next to it has more.
STDERR_KEEP = 1500

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


# -- what the report knows of each match -------------------------------------------------------


@dataclass
class FailureEntry:
    """One bot's failure in one match, with what the report shows of it.

    ``cost`` is what the failure cost (:class:`arena.failure_report.FailureEntry`):
    ``"forfeit"`` (the seat's failure, as stored), or under the failure policy ``lenient`` a
    ``"strike"`` or a ``"restart"`` (found in the replay).
    """

    table: int
    round: int
    seat: int
    entrant: int
    status: str
    detail: str
    opponents: list[str]
    cost: str = "forfeit"
    step: int | None = None
    hand: int | None = None
    evidence: list[list[str]] = field(default_factory=list)


@dataclass
class MatchEntry:
    """A recorded match: who sat where, and where its replay and its viewer page are."""

    row: MatchRow
    names: list[str]
    replay: Path | None = None
    page: Path | None = None
    made: bool = False
    note: str = ""
    failures: list[FailureEntry] = field(default_factory=list)
    bundle: Path | None = None

    @property
    def idx(self) -> int:
        """The match's table number."""
        return self.row.table.idx

    @property
    def failed(self) -> bool:
        """Whether anything failed in the match: a seat's failure, a strike or a restart."""
        return any(
            s.status is not Status.OK or s.strikes or s.restarts for s in self.row.summary.seats
        )


@dataclass(frozen=True)
class ReportResult:
    """What :func:`write_report` did."""

    path: Path
    matches: int
    pages_made: int
    notes: list[str]


def find_replay(stored: str, db_dir: Path, others: Sequence[Path] = ()) -> Path | None:
    """The replay file recorded as ``stored``, wherever it is now, or ``None``.

    First the file of that name in ``replays/`` beside the database (where ``arena tournament``
    writes them, so a tournament folder copied or moved as a whole is reported from its own
    files), then ``stored`` itself (a relative path from the current folder, then from each of
    ``others``).
    """
    path = Path(stored)
    candidates = [db_dir / "replays" / path.name, path]
    if not path.is_absolute():
        candidates += [base / path for base in others]
    for candidate in candidates:
        if candidate.is_file():
            return candidate
    return None


def find_bundle(replay: Path) -> Path | None:
    """The ``README.txt`` of the failure bundle beside ``replay`` (``NAME.failures/``,
    :func:`arena.failure_report.bundle_path`), or ``None`` when there is none."""
    readme = bundle_path(replay) / "README.txt"
    return readme if readme.is_file() else None


def tournament_policy(store: Store) -> FailurePolicy | None:
    """The failure policy of ``store``'s tournament, as stored with its settings (strict for a
    tournament recorded before policies existed); ``None`` when the stored settings do not
    make one (the reports show the rest)."""
    config = store.config()
    if config is None:
        return STRICT
    try:
        return TournamentSettings.from_dict(config).failure_policy()
    except (TypeError, ValueError):
        return None


def _page_of(replay: Path) -> Path:
    return replay.with_suffix(".html")


def collect_matches(store: Store, others: Sequence[Path] = ()) -> list[MatchEntry]:
    """Every recorded match with its replay and viewer page; missing pages are made here.

    ``others``: more folders a relative replay path may start from (see :func:`find_replay`).
    """
    entrants = {e.id: e.name for e in store.entrants()}
    db_dir = store.path.parent
    entries = []
    for row in store.matches():
        names = [entrants.get(e, f"#{e}") for e in row.table.seats]
        entry = MatchEntry(row, names)
        entry.replay = find_replay(row.replay, db_dir, others)
        if entry.replay is None:
            entry.note = f"replay file not found ({row.replay})"
            stored = Path(row.replay)  # a page left from the run still shows the match
            pages = [_page_of(db_dir / "replays" / stored.name), _page_of(stored)]
            entry.page = next((page for page in pages if page.is_file()), None)
        else:
            page = _page_of(entry.replay)
            entry.page = page if page.is_file() else None
            entry.bundle = find_bundle(entry.replay)
        failed = [s for s in row.summary.seats if s.status is not Status.OK]
        entry.failures = [
            FailureEntry(
                table=row.table.idx,
                round=row.table.round,
                seat=s.seat,
                entrant=row.table.seats[s.seat],
                status=s.status.value,
                detail=s.detail,
                opponents=[n for i, n in enumerate(names) if i != s.seat],
            )
            for s in failed
        ]
        if entry.replay is not None and (entry.page is None or entry.failed):
            _read_and_draw(entry)
        entries.append(entry)
    return entries


def _read_and_draw(entry: MatchEntry) -> None:
    """Read the match's replay: make its missing page, and find each failure's step."""
    assert entry.replay is not None
    linked = "linked as JSON" if entry.page is None else "its failures' steps are unknown"
    try:
        replay = read_replay(entry.replay)
        if len(replay.seats) != len(entry.row.table.seats):
            raise ReplayError(
                f"{len(replay.seats)} seats recorded, but the match had "
                f"{len(entry.row.table.seats)}: the replay of another match"
            )
        steps = build_steps(replay)
    except (ReplayError, StepsError) as error:
        entry.note = f"the replay cannot be shown ({error}); {linked}"
        return
    except Exception as error:  # one bad replay must not stop the report of the others
        entry.note = (
            f"the replay cannot be shown (internal error: {type(error).__name__}: {error}); "
            f"{linked}"
        )
        return
    if entry.page is None:
        target = _page_of(entry.replay)
        try:
            target.write_text(render_page(viewer_data(replay, steps)), encoding="utf-8")
        except OSError as error:
            entry.note = f"cannot write its viewer page {target} ({error.strerror or error})"
        else:
            entry.page, entry.made = target, True
    _failure_details(entry, replay, steps)


def _failure_details(entry: MatchEntry, replay: Replay, steps: Sequence[Step]) -> None:
    """Every failure of the match in match order, each with its step and evidence: the stored
    forfeits, and the strikes and restarts the replay records (a forfeit the replay does not
    show stays, as stored, at the end)."""
    stored = {item.seat: item for item in entry.failures}
    # The strike moves and the restarts, in match order: the same order as failures_of's.
    marked = [
        (number, step)
        for number, step in enumerate(steps, start=1)
        if step.kind is StepKind.RESTART
        or (step.kind is StepKind.MOVE and step.action is not None and step.action.strike)
    ]
    found: list[FailureEntry] = []
    for recorded in failures_of(replay):
        failure = recorded.failure
        if recorded.cost == "forfeit":
            item = stored.pop(recorded.seat, None)
            if item is None:  # the store is the record of the seats' results
                continue
            item.step = failure_step(replay, steps, recorded.seat)
            played = None
        else:
            item = FailureEntry(
                table=entry.idx,
                round=entry.row.table.round,
                seat=recorded.seat,
                entrant=entry.row.table.seats[recorded.seat],
                status=failure.status.value,
                detail=failure.detail,
                opponents=[n for i, n in enumerate(entry.names) if i != recorded.seat],
                cost=recorded.cost,
            )
            number, step = marked.pop(0) if marked else (None, None)
            if step is not None and step.seat == recorded.seat and step.failure == failure:
                item.step = number
            played = step.action if step is not None else None
        item.hand = failure.hand_number
        item.evidence = [
            [label, value[-STDERR_KEEP:] if label == "stderr tail" else value]
            for label, value in evidence_rows(failure)
            if label not in ("status", "what happened")
        ]
        if recorded.cost == "strike" and played is not None and item.step is not None:
            item.evidence.insert(0, ["played for the bot", _wire(played.move)])
        found.append(item)
    entry.failures = found + list(stored.values())


def _wire(move: object) -> str:
    """A move as it goes over the wire: ``{"action":"play","tile":[3,5],...}``."""
    return msgspec.json.encode(move).decode()


# -- the page ----------------------------------------------------------------------------------


def _e(value: object) -> str:
    """Text escaped for HTML content and quoted attributes."""
    return html.escape(str(value), quote=True)


def _href(target: Path, base: Path) -> str:
    """A link from a page in ``base`` to ``target``: relative, with ``/`` and %-escapes."""
    try:
        relative = os.path.relpath(os.path.abspath(target), os.path.abspath(base))
    except ValueError:  # another drive (Windows): an absolute link still works from disk
        return Path(os.path.abspath(target)).as_uri()
    return urllib.parse.quote(Path(relative).as_posix(), safe="/")


def _num(value: float) -> str:
    """``1``, ``0.5``, ``1.67``: points as people write them."""
    return f"{round(value, 2):g}"


def _ms(value: float | None) -> str:
    return "–" if value is None else f"{value:.1f}"


@dataclass
class _Context:
    """What every part of the page needs: the folder links start from, the bots' colours."""

    base: Path
    colour: dict[int, str]
    place: dict[int, int]
    names: dict[int, str]


def _ready_note(bot: BotStanding) -> str:
    """`` (ready: greedy-py)`` when the name the bot says differs from the arena's."""
    said = bot.ready_name
    if said is None or said == bot.name:
        return ""
    return f' <span class="muted">(ready: {_e(printable(said))})</span>'


def _bot(ctx: _Context, entrant: int, name: str | None = None) -> str:
    colour = ctx.colour.get(entrant, "#94a3b8")
    label = name if name is not None else ctx.names.get(entrant, f"#{entrant}")
    return (
        f'<span class="bot" style="--bot:{colour}" data-entrant="{entrant}">'
        f'<i class="dot"></i>{_e(label)}</span>'
    )


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
    ctx = _Context(
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
            _standings_section(standings, ctx),
            _ratings_section(ratings, ctx),
            _cross_section(standings, ctx),
            _failures_section(standings, failures, entries, ctx),
            _matches_section(entries, ctx),
            "</main>",
            f'<footer class="foot">Made by Matador Arena at {_e(moment)} from '
            f"<code>{_e(store.path)}</code>: <code>arena report --db {_e(store.path)} -o "
            f"{_e(out)}</code> makes it again.</footer>",
        ]
    )
    title = f"Tournament report: {', '.join(b.name for b in standings.bots[:4])}"
    if len(standings.bots) > 4:
        title += ", …"
    return html_document(title=title, made_by="arena report", css=_CSS, body=body, js=_JS)


def _header(
    config: dict[str, Any],
    standings: Standings,
    scheduled: int,
    ctx: _Context,
    policy: FailurePolicy | None,
) -> str:
    game = str(config.get("game", "matador"))
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
            f"{_bot(ctx, b.entrant)}</span>"
            for i, b in enumerate(leaders, start=1)
        )
        if leaders
        else '<span class="muted">no bots</span>'
    )
    return (
        '<header class="topbar"><div class="brand">' + _LOGO + "<div>"
        f'<div class="kicker">{_e(game)} tournament report</div>'
        f'<h1 class="title">{lead}</h1></div></div>'
        '<div class="meta">'
        + "".join(f'<span class="chip">{_e(c)}</span>' for c in chips)
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
    kinds = _kinds(f.status for f in failures) or "none"
    if any(f.cost != "forfeit" for f in failures):
        kinds = f"{_costs(failures)}: {kinds}"
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
            f"<code>arena tournament --resume --db {_e(store.path)}</code> plays "
            f"{'them' if pending != 1 else 'it'}."
        )
    for entrant in store.entrants():
        if entrant.excluded is not None:
            notes.append(f"Left out: <b>{_e(entrant.name)}</b>: {_e(entrant.excluded)}")
    return (
        '<section class="cards" id="summary">'
        + "".join(
            f'<div class="card stat stat-{_e(key.replace(" ", "-"))}"><div class="label">{_e(key)}'
            f'</div><div class="value">{_e(value)}</div><div class="sub">{_e(sub)}</div></div>'
            for key, value, sub in cards
        )
        + "</section>"
        + ("".join(f'<p class="note">{n}</p>' for n in notes))
    )


def _kinds(statuses: Iterable[str]) -> str:
    counts = Counter(statuses)
    return ", ".join(f"{k} {v}" for k, v in sorted(counts.items()))


#: The costs of failures, in the order they are counted.
_COSTS = ("forfeit", "strike", "restart")


def _costs(failures: Sequence[FailureEntry]) -> str:
    """``1 forfeit, 2 strikes, 1 restart``: the failures by what they cost (only those seen)."""
    counts = Counter(f.cost for f in failures)
    return ", ".join(
        f"{counts[cost]} {cost}{'s' if counts[cost] != 1 else ''}"
        for cost in _COSTS
        if counts[cost]
    )


def _cost_badge(cost: str, count: int | None = None) -> str:
    """The amber badge of a strike or a restart: ``strike``, or with a count ``strikes 2``."""
    label = _e(cost) if count is None else f"{_e(cost)}{'s' if count != 1 else ''} <b>{count}</b>"
    return f'<span class="badge warn" data-cost="{_e(cost)}">{label}</span>'


def _failure_badges(failures: Counter[str]) -> str:
    if not failures:
        return '<span class="muted">–</span>'
    return " ".join(
        f'<span class="badge bad" data-status="{_e(k)}">{_e(k)} <b>{v}</b></span>'
        for k, v in sorted(failures.items())
    )


def _standings_section(standings: Standings, ctx: _Context) -> str:
    # Strikes and restarts (failure policy lenient) get their columns when a bot had any.
    lenient = any(b.strikes or b.restarts for b in standings.bots)
    head = (
        "<tr><th class='num'>#</th><th>bot</th><th class='num'>points</th>"
        "<th class='num'>W-D-L</th><th class='num'>matches</th><th class='num'>avg/hand</th>"
        "<th>failures</th>"
        + ("<th class='num'>strikes</th><th class='num'>restarts</th>" if lenient else "")
        + "<th class='num'>median ms</th><th class='num'>p95 ms</th></tr>"
    )
    rows = [
        _standing_row(place, bot, ctx, lenient) for place, bot in enumerate(standings.bots, start=1)
    ]
    return (
        '<section id="standings"><h2>Standings <small>after '
        f"{standings.matches} match{'es' if standings.matches != 1 else ''}</small></h2>"
        '<p class="hint">Points: the share of the opponents at a table a bot finished ahead of, '
        "ties counting half (a two-player win is 1, a draw 0.5). Ties on points go to wins, "
        "then the name."
        + (
            " Strikes and restarts (failure policy <i>lenient</i>): a strike is a timeout or a "
            "bad reply the referee answered with a random legal move; the strike that forfeits "
            "counts too. A restart is a crash after which the bot was started again."
            if lenient
            else ""
        )
        + "</p>"
        '<div class="scroll"><table class="grid standings sortable"><thead>'
        + head
        + "</thead><tbody>"
        + "".join(rows)
        + "</tbody></table></div></section>"
    )


def _standing_row(place: int, bot: BotStanding, ctx: _Context, lenient: bool) -> str:
    share = bot.points / bot.matches if bot.matches else 0.0
    medal = f" medal{place}" if place <= 3 else ""
    return (
        f'<tr class="standing" data-entrant="{bot.entrant}" data-name="{_e(bot.name)}" '
        f'data-points="{bot.points!r}" data-wins="{bot.wins}" data-draws="{bot.draws}" '
        f'data-losses="{bot.losses}" data-matches="{bot.matches}" '
        f'data-strikes="{bot.strikes}" data-restarts="{bot.restarts}">'
        f'<td class="num c-place"><span class="place{medal}">{place}</span></td>'
        f'<td class="c-name">{_bot(ctx, bot.entrant, bot.name)}{_ready_note(bot)}</td>'
        f'<td class="num c-points" data-sort="{bot.points!r}"><span class="pbar">'
        f'<i style="width:{share * 100:.1f}%"></i></span><b>{_num(bot.points)}</b></td>'
        f'<td class="num c-wdl" data-sort="{bot.wins}"><span class="w">{bot.wins}</span>-'
        f'<span class="d">{bot.draws}</span>-<span class="l">{bot.losses}</span></td>'
        f'<td class="num c-matches">{bot.matches}</td>'
        f'<td class="num c-avg">{bot.avg_hand_score:.1f}</td>'
        f'<td class="c-failures" data-sort="{sum(bot.failures.values())}">'
        f"{_failure_badges(bot.failures)}</td>"
        + (
            f'<td class="num c-strikes">{bot.strikes}</td>'
            f'<td class="num c-restarts">{bot.restarts}</td>'
            if lenient
            else ""
        )
        + f'<td class="num c-median">{_ms(bot.median_ms)}</td>'
        f'<td class="num c-p95">{_ms(bot.p95_ms)}</td></tr>'
    )


def _ratings_section(ratings: RatingsView, ctx: _Context) -> str:
    elo = bool(ratings.elo)
    head = (
        "<tr><th class='num'>#</th><th>bot</th>"
        "<th class='num'>rating <span class='nocase'>μ ± σ</span></th>"
        "<th class='num'>conservative <span class='nocase'>μ − 3σ</span></th>"
        "<th class='num'>matches</th>"
    )
    if elo:
        head += (
            "<th class='num'>Elo from games, 95% CI</th>"
            "<th class='num'>Elo from paired deals, 95% CI</th><th class='num'>LOS</th>"
        )
    head += "</tr>"
    rows = []
    for place, line in enumerate(ratings.lines, start=1):
        cells = (
            f'<td class="num">{place}</td><td>{_bot(ctx, line.entrant, line.name)}</td>'
            f'<td class="num c-mu" data-sort="{line.mu!r}">{line.mu:.2f} '
            f'<span class="muted">± {line.sigma:.2f}</span></td>'
            f'<td class="num c-conservative">{line.conservative:.2f}</td>'
            f'<td class="num">{line.matches}</td>'
        )
        if elo:
            estimate = ratings.elo.get(line.entrant)
            if estimate is None:
                cells += '<td class="num">–</td>' * 3
            else:
                cells += (
                    f'<td class="num c-elo">{_e(estimate.games_text)}</td>'
                    f'<td class="num c-elo-paired">{_e(estimate.paired_text)}</td>'
                    f'<td class="num c-los" data-sort="{estimate.los!r}">'
                    f'<span class="pbar small"><i style="width:{estimate.los * 100:.1f}%"></i>'
                    f"</span>{estimate.los:.1%}</td>"
                )
        rows.append(
            f'<tr class="rating" data-entrant="{line.entrant}" data-name="{_e(line.name)}">'
            f"{cells}</tr>"
        )
    explain = (
        "Plackett-Luce skill over every match in schedule order; the conservative rating is "
        "the one to rank by when matches are few."
    )
    if elo:
        explain += (
            " Elo is each bot's against the field, from single games and from duplicate-deal "
            "pairs (the two games of one deal, once in each seat); LOS is the likelihood that "
            "it is stronger than the field."
        )
    return (
        '<section id="ratings"><h2>Ratings</h2>'
        f'<p class="hint">{_e(explain)}</p>'
        '<div class="scroll"><table class="grid ratings sortable"><thead>'
        + head
        + "</thead><tbody>"
        + "".join(rows)
        + "</tbody></table></div></section>"
    )


def _cross_section(standings: Standings, ctx: _Context) -> str:
    bots = standings.bots
    head = "<tr><th>row against column</th>" + "".join(
        f'<th class="col" title="{_e(b.name)}"><span class="colnum">{i}</span>'
        f'<span class="colname" style="--bot:{ctx.colour[b.entrant]}">{_e(b.name)}</span></th>'
        for i, b in enumerate(bots, start=1)
    )
    head += "<th class='num'>total</th></tr>"
    rows = []
    for i, bot in enumerate(bots, start=1):
        cells = []
        for other in bots:
            if other.entrant == bot.entrant:
                cells.append('<td class="cross self">—</td>')
                continue
            pair = standings.cross.get((bot.entrant, other.entrant))
            if pair is None or pair.games == 0:
                cells.append(
                    f'<td class="cross none" data-row="{_e(bot.name)}" '
                    f'data-col="{_e(other.name)}" data-games="0">·</td>'
                )
                continue
            share = pair.points / pair.games
            cells.append(
                f'<td class="cross" data-row="{_e(bot.name)}" data-col="{_e(other.name)}" '
                f'data-points="{pair.points!r}" data-games="{pair.games}" '
                f'style="background:{_heat(share)}" title="{_e(bot.name)} took {_num(pair.points)} '
                f'of {pair.games} against {_e(other.name)}">'
                f"<b>{_num(pair.points)}</b><small>/{pair.games}</small></td>"
            )
        rows.append(
            f'<tr><th class="rowhead"><span class="rownum">{i}</span>'
            f"{_bot(ctx, bot.entrant, bot.name)}</th>"
            + "".join(cells)
            + f'<td class="num total"><b>{_num(bot.points)}</b><small>/{bot.matches}</small>'
            "</td></tr>"
        )
    return (
        '<section id="cross-table"><h2>Cross-table</h2>'
        '<p class="hint">The points each bot (row) took from each other bot (column) over the '
        "games where both sat at the table: a win over it is 1, a draw 0.5. Green: the row did "
        "better; red: worse.</p>"
        '<div class="scroll"><table class="cross-table"><thead>'
        + head
        + "</thead><tbody>"
        + "".join(rows)
        + "</tbody></table></div></section>"
    )


def _heat(share: float) -> str:
    """A cross-table cell's colour: green as the row took more than half, red as less."""
    if share > 0.5:
        return f"rgba(22, 163, 74, {0.12 + (share - 0.5) * 2 * 0.5:.3f})"
    if share < 0.5:
        return f"rgba(220, 38, 38, {0.12 + (0.5 - share) * 2 * 0.5:.3f})"
    return "rgba(148, 163, 184, 0.12)"


#: How a match ended, in words (the store keeps the referee's word).
_REASONS = {"target": "reached the target", "hands": "every hand played", "forfeit": "by forfeit"}


def _links(entry: MatchEntry, ctx: _Context, step: int | None = None) -> str:
    """The match's viewer link (at ``step`` when given) and its replay link."""
    parts = []
    if entry.page is not None:
        href = _href(entry.page, ctx.base) + (f"#move={step}" if step is not None else "")
        label = f"evidence at step {step}" if step is not None else "view"
        kind = "evidence-link" if step is not None else "view-link"
        parts.append(f'<a class="button {kind}" href="{_e(href)}">▶ {_e(label)}</a>')
    if entry.replay is not None:
        parts.append(
            f'<a class="json-link" href="{_e(_href(entry.replay, ctx.base))}">replay JSON</a>'
        )
    if entry.bundle is not None:
        parts.append(
            f'<a class="bundle-link" href="{_e(_href(entry.bundle, ctx.base))}" '
            'title="every failure of the match explained, and the command that plays it again">'
            "failure bundle</a>"
        )
    if entry.note:
        parts.append(f'<span class="link-note">{_e(entry.note)}</span>')
    return " ".join(parts)


def _failures_section(
    standings: Standings,
    failures: list[FailureEntry],
    entries: list[MatchEntry],
    ctx: _Context,
) -> str:
    by_table = {e.idx: e for e in entries}
    by_bot: dict[int, list[FailureEntry]] = {}
    for item in failures:
        by_bot.setdefault(item.entrant, []).append(item)
    cards = []
    clean = []
    for bot in standings.bots:
        mine = by_bot.get(bot.entrant, [])
        if not mine:
            clean.append(_bot(ctx, bot.entrant, bot.name))
            continue
        rows = [_failure_row(item, by_table[item.table], ctx) for item in mine]
        matches = [by_table[idx] for idx in sorted({item.table for item in mine})]
        bundles = " ".join(_bundle_link(e, ctx) for e in matches if e.replay is not None)
        count = f"{len(mine)} failure{'s' if len(mine) != 1 else ''}"
        if any(item.cost != "forfeit" for item in mine):
            count += f" ({_costs(mine)})"
        forfeits = Counter(i.status for i in mine if i.cost == "forfeit")
        badges = _failure_badges(forfeits) if forfeits else ""
        for cost in _COSTS[1:]:
            number = sum(1 for i in mine if i.cost == cost)
            badges += f" {_cost_badge(cost, number)}" if number else ""
        cards.append(
            f'<article class="card failures-card" data-entrant="{bot.entrant}" '
            f'data-name="{_e(bot.name)}" data-count="{len(mine)}">'
            f'<header class="fhead">{_bot(ctx, bot.entrant, bot.name)}'
            f'<span class="fcount">{count} in '
            f"{bot.matches} match{'es' if bot.matches != 1 else ''}</span>"
            f"{badges}</header>"
            f'<ol class="flist">{"".join(rows)}</ol>'
            + (
                f'<p class="bundles">Failure bundles of these matches: {bundles}</p>'
                if bundles
                else ""
            )
            + "</article>"
        )
    if not cards:
        body = '<p class="good">No bot failed: every match was played to its end.</p>'
    else:
        body = "".join(cards)
        if clean:
            body += f'<p class="good">No failures: {" ".join(clean)}</p>'
    return (
        '<section id="failures"><h2>Failures</h2>'
        '<p class="hint">Every match a bot failed in (a timeout, a crash, a bad message, an '
        "illegal move, a line too long): what the referee recorded, and a link to the step of "
        "the match's viewer page that shows the evidence. Under the failure policy "
        "<i>lenient</i> a strike (the referee played a random legal move for the bot) and a "
        "restart (the bot crashed and was started again) are listed too; a bot's last strike "
        "is its forfeit. Each failed match has a <b>failure bundle</b> beside its replay "
        "(<code>NAME.failures/</code>): <code>README.txt</code> explains every failure, with "
        "the last messages exchanged, the bot's stderr and the command that plays the same "
        "match again.</p>" + body + "</section>"
    )


def _bundle_link(entry: MatchEntry, ctx: _Context) -> str:
    """``t3``, linking the match's failure bundle README.txt, else (an older tournament, or a
    bundle that could not be written) its replay."""
    target = entry.bundle if entry.bundle is not None else entry.replay
    assert target is not None
    kind = "bundle-link" if entry.bundle is not None else "json-link"
    return f'<a class="{kind}" href="{_e(_href(target, ctx.base))}">t{entry.idx}</a>'


def _failure_row(item: FailureEntry, entry: MatchEntry, ctx: _Context) -> str:
    against = ", ".join(_e(n) for n in item.opponents) or "nobody"
    where = [f"table {item.table}", f"round {item.round}", f"seat {item.seat}"]
    if item.hand is not None:
        where.append(f"hand {item.hand}")
    evidence = ""
    if item.evidence:
        cells = "".join(
            f"<tr><th>{_e(label)}</th><td>"
            + (f"<pre>{_e(value)}</pre>" if label == "stderr tail" else _e(value))
            + "</td></tr>"
            for label, value in item.evidence
        )
        evidence = (
            f'<details class="evidence"><summary>evidence</summary>'
            f'<table class="kv">{cells}</table></details>'
        )
    cost = "" if item.cost == "forfeit" else _cost_badge(item.cost)
    return (
        f'<li class="failure" data-table="{item.table}" data-seat="{item.seat}" '
        f'data-status="{_e(item.status)}" data-cost="{_e(item.cost)}" '
        f'data-step="{"" if item.step is None else item.step}">'
        f'<div class="fline"><span class="badge bad">{_e(item.status)}</span>{cost}'
        f'<span class="fwhere">{" · ".join(where)} · against {against}</span></div>'
        f'<div class="fdetail">{_e(item.detail) or "<i>no detail recorded</i>"}</div>'
        f'<div class="flinks">{_links(entry, ctx, item.step)}'
        + (
            f' <a class="match-link" href="#match-{item.table}">in the match list</a>'
            if entry.page is not None or entry.replay is not None
            else ""
        )
        + f"</div>{evidence}</li>"
    )


def _matches_section(entries: list[MatchEntry], ctx: _Context) -> str:
    options = "".join(
        f'<option value="{_e(ctx.names[e])}">{_e(ctx.names[e])}</option>'
        for e in sorted(ctx.place, key=lambda e: ctx.place[e])
    )
    filters = (
        '<div class="filters">'
        '<label>bot <select id="filter-bot"><option value="">every bot</option>'
        + options
        + "</select></label>"
        '<label><input type="checkbox" id="filter-failed"> only matches with a failure</label>'
        '<input type="search" id="filter-text" placeholder="filter: a name, a status, a table…">'
        '<span id="match-count" class="muted"></span></div>'
    )
    head = (
        "<tr><th class='num'>table</th>"
        + "<th class='num'>round</th>"
        + "<th>seats and scores</th><th>result</th><th class='num'>hands</th>"
        "<th class='num'>moves</th><th class='num'>time</th><th>replay</th></tr>"
    )
    rows = [_match_row(entry, ctx) for entry in entries]
    return (
        f'<section id="matches"><h2>Matches <small>{len(entries)}</small></h2>'
        '<p class="hint">Every recorded match in table order. <b>view</b> opens its replay '
        "viewer page; a failed seat's status opens it at the failure.</p>"
        + filters
        + '<div class="scroll"><table class="grid matches sortable"><thead>'
        + head
        + "</thead><tbody>"
        + "".join(rows)
        + "</tbody></table></div></section>"
    )


def _match_row(entry: MatchEntry, ctx: _Context) -> str:
    row = entry.row
    summary = row.summary
    steps = {f.seat: f.step for f in entry.failures if f.cost == "forfeit"}
    seats = []
    for s in summary.seats:
        entrant = row.table.seats[s.seat]
        won = summary.winner == s.seat
        status = ""
        if s.status is not Status.OK:
            step = steps.get(s.seat)
            if entry.page is not None and step is not None:
                href = _href(entry.page, ctx.base) + f"#move={step}"
                status = (
                    f'<a class="badge bad status-link" href="{_e(href)}">{_e(s.status.value)}</a>'
                )
            else:
                status = f'<span class="badge bad">{_e(s.status.value)}</span>'
        lenient = ""
        if s.strikes:
            lenient += _cost_badge("strike", s.strikes)
        if s.restarts:
            lenient += _cost_badge("restart", s.restarts)
        seats.append(
            f'<span class="seat{" won" if won else ""}{" failed" if status else ""}" '
            f'data-seat="{s.seat}" data-name="{_e(entry.names[s.seat])}" '
            f'data-score="{s.score}" data-status="{_e(s.status.value)}" data-rank="{s.rank}" '
            f'data-strikes="{s.strikes}" data-restarts="{s.restarts}">'
            f'<span class="seat-tag">S{s.seat}</span>'
            f"{_bot(ctx, entrant, entry.names[s.seat])}"
            f'<span class="score">{s.score}</span>'
            + ('<span class="crown" title="winner">★</span>' if won else "")
            + status
            + lenient
            + "</span>"
        )
    if summary.winner is None:
        result = '<span class="draw">draw</span>'
        winner = ""
    else:
        winner = entry.names[summary.winner]
        result = f'<span class="winner-name">{_e(winner)}</span> wins'
    failed = entry.failed
    words = [*entry.names, *(s.status.value for s in summary.seats), f"t{entry.idx}"]
    if any(s.strikes for s in summary.seats):
        words.append("strike")
    if any(s.restarts for s in summary.seats):
        words.append("restart")
    return (
        f'<tr class="match{" has-failure" if failed else ""}" id="match-{entry.idx}" '
        f'data-table="{entry.idx}" data-round="{row.table.round}" data-winner="{_e(winner)}" '
        f'data-failed="{"1" if failed else "0"}" '
        f'data-bots="{_e(json.dumps(entry.names))}" data-words="{_e(" ".join(words).lower())}">'
        f'<td class="num">{entry.idx}</td><td class="num">{row.table.round}</td>'
        f'<td class="c-seats" data-sort="{_e(" ".join(entry.names))}">{"".join(seats)}</td>'
        f'<td class="c-result">{result}<div class="reason" data-reason="{_e(summary.reason)}">'
        f"{_e(_REASONS.get(summary.reason, summary.reason))}</div></td>"
        f'<td class="num">{summary.hands}</td><td class="num">{summary.moves}</td>'
        f'<td class="num" data-sort="{summary.duration_s!r}">{summary.duration_s:.2f} s</td>'
        f'<td class="c-links">{_links(entry, ctx)}</td></tr>'
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


# -- the page's style and script ---------------------------------------------------------------

_LOGO = (
    '<svg class="logo" viewBox="0 0 46 26" width="46" height="26" aria-hidden="true">'
    '<rect x="1" y="1" width="44" height="24" rx="4" fill="#f3c74f" stroke="#e0a526"/>'
    '<line x1="23" y1="4" x2="23" y2="22" stroke="#b07d12" stroke-width="1.2"/>'
    '<g fill="#7a1d12"><circle cx="7" cy="7" r="2"/><circle cx="12" cy="13" r="2"/>'
    '<circle cx="17" cy="19" r="2"/><circle cx="29" cy="7" r="2"/><circle cx="39" cy="7" r="2"/>'
    '<circle cx="29" cy="19" r="2"/><circle cx="39" cy="19" r="2"/></g></svg>'
)

_CSS = """
:root {
  --bg: #0f1419; --panel: #182028; --panel-2: #1f2933; --line: #2c3946; --text: #e6edf3;
  --muted: #8b9bab; --gold: #f3c74f; --gold-2: #e0a526; --good: #4ade80; --bad: #f87171;
  --bad-bg: #3a1d22; --felt: #1d6b4b; --link: #7cc4ff;
  color-scheme: dark;
}
* { box-sizing: border-box; }
html { scroll-behavior: smooth; scroll-padding-top: 56px; }
body { margin: 0; background: var(--bg); color: var(--text);
  font: 14px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, "Noto Sans", sans-serif; }
code, pre { font-family: ui-monospace, "SFMono-Regular", "DejaVu Sans Mono", Menlo, monospace;
  font-size: 12.5px; }
a { color: var(--link); text-decoration: none; }
a:hover { text-decoration: underline; }
.muted { color: var(--muted); }
.topbar { display: flex; flex-wrap: wrap; gap: 12px 24px; align-items: center;
  justify-content: space-between; padding: 14px 24px;
  background: linear-gradient(180deg, #1a232d, #141b22); border-bottom: 1px solid var(--line); }
.brand { display: flex; gap: 14px; align-items: center; min-width: 0; }
.logo { flex: none; filter: drop-shadow(0 2px 3px rgba(0, 0, 0, 0.5)); }
.kicker { color: var(--muted); font-size: 12px; letter-spacing: 0.08em; text-transform: uppercase; }
.title { margin: 4px 0 0; font-size: 18px; font-weight: 650; display: flex; flex-wrap: wrap;
  gap: 4px 18px; }
.podium { display: inline-flex; align-items: center; gap: 8px; }
.podium .place { width: 22px; height: 22px; font-size: 12px; }
.meta { display: flex; flex-wrap: wrap; gap: 6px; }
.chip { display: inline-block; padding: 3px 10px; border: 1px solid var(--line);
  border-radius: 999px; background: var(--panel); color: var(--muted); font-size: 12.5px;
  white-space: nowrap; }
.chip.strong { color: var(--text); border-color: #3b4d5f; background: var(--panel-2); }
.tabs { position: sticky; top: 0; z-index: 5; display: flex; gap: 4px; padding: 8px 24px;
  background: rgba(15, 20, 25, 0.92); backdrop-filter: blur(6px);
  border-bottom: 1px solid var(--line); overflow-x: auto; }
.tabs a { color: var(--muted); padding: 5px 12px; border-radius: 8px; white-space: nowrap; }
.tabs a:hover { background: var(--panel-2); color: var(--text); text-decoration: none; }
.tabs a b { color: var(--text); font-weight: 650; margin-left: 3px; }
.report { max-width: 1280px; margin: 0 auto; padding: 18px 24px 40px; display: grid;
  grid-template-columns: minmax(0, 1fr); gap: 22px; }
section > h2 { margin: 0 0 4px; font-size: 17px; font-weight: 650; letter-spacing: 0.01em; }
section > h2 small { color: var(--muted); font-weight: 400; font-size: 13px; margin-left: 6px; }
.hint { color: var(--muted); margin: 0 0 10px; max-width: 900px; font-size: 13px; }
.note { margin: 8px 0 0; padding: 8px 12px; border: 1px solid #5b4a1c; background: #2a2414;
  border-radius: 8px; color: #f5deb0; }
.good { color: var(--good); margin: 10px 0 0; display: flex; flex-wrap: wrap; gap: 6px 14px;
  align-items: center; }
.cards { display: grid; grid-template-columns: repeat(auto-fit, minmax(170px, 1fr)); gap: 12px; }
.card { background: var(--panel); border: 1px solid var(--line); border-radius: 12px; }
.stat { padding: 12px 16px; }
.stat .label { color: var(--muted); font-size: 11px; text-transform: uppercase;
  letter-spacing: 0.08em; }
.stat .value { font-size: 26px; font-weight: 700; margin-top: 2px; }
.stat .sub { color: var(--muted); font-size: 12.5px; overflow-wrap: anywhere; }
.stat-failures .value { color: var(--bad); }
.scroll { overflow-x: auto; border: 1px solid var(--line); border-radius: 12px;
  background: var(--panel); }
table { border-collapse: collapse; width: 100%; }
.grid th, .grid td { padding: 8px 12px; border-bottom: 1px solid var(--line); text-align: left;
  vertical-align: middle; }
.grid thead th { color: var(--muted); font-size: 11.5px; font-weight: 600;
  text-transform: uppercase; letter-spacing: 0.06em; background: var(--panel-2);
  white-space: nowrap; }
.grid tbody tr:last-child td { border-bottom: 0; }
.nocase { text-transform: none; letter-spacing: 0; }
.grid tbody tr:hover { background: rgba(255, 255, 255, 0.025); }
.num { text-align: right !important; font-variant-numeric: tabular-nums; white-space: nowrap; }
.sortable thead th { cursor: pointer; user-select: none; }
.sortable thead th:hover { color: var(--text); }
.sortable thead th.sorted-asc::after { content: " ▲"; font-size: 9px; }
.sortable thead th.sorted-desc::after { content: " ▼"; font-size: 9px; }
.bot { display: inline-flex; align-items: center; gap: 7px; font-weight: 600; white-space: nowrap;
  color: var(--text);
  max-width: 260px; overflow: hidden; text-overflow: ellipsis; }
.bot .dot { flex: none; width: 10px; height: 10px; border-radius: 50%; background: var(--bot);
  box-shadow: 0 0 0 2px rgba(0, 0, 0, 0.35); }
.place { display: inline-grid; place-items: center; width: 26px; height: 26px; border-radius: 50%;
  background: var(--panel-2); border: 1px solid var(--line); font-weight: 700; font-size: 13px; }
.place.medal1 { background: linear-gradient(180deg, #f8d76b, #d9a21d); color: #3b2a00;
  border-color: #f3c74f; }
.place.medal2 { background: linear-gradient(180deg, #e5e7eb, #9ca3af); color: #1f2937;
  border-color: #d1d5db; }
.place.medal3 { background: linear-gradient(180deg, #e0a46b, #a8622a); color: #2b1606;
  border-color: #c98a4e; }
.c-points b { font-size: 15px; margin-left: 10px; }
.pbar { display: inline-block; vertical-align: middle; width: 90px; height: 7px;
  background: #0c1116; border: 1px solid var(--line); border-radius: 99px; overflow: hidden; }
.pbar.small { width: 54px; margin-right: 8px; }
.pbar i { display: block; height: 100%; background: linear-gradient(90deg, #22c55e, #86efac);
  border-radius: 99px; }
.w { color: var(--good); } .d { color: var(--muted); } .l { color: var(--bad); }
.badge { display: inline-block; font-size: 11.5px; font-weight: 600; padding: 1px 8px;
  border-radius: 999px; white-space: nowrap; }
.badge.bad { background: var(--bad-bg); color: var(--bad); border: 1px solid #7f2d36; }
.badge.warn { background: #3a2f14; color: #fbbf24; border: 1px solid #7c5e12; margin-left: 4px; }
.bundle-link { font-size: 12.5px; white-space: nowrap; }
a.badge.bad:hover { background: #55222a; text-decoration: none; }
.cross-table { width: auto; min-width: 100%; }
.cross-table th, .cross-table td { padding: 8px 10px; border-bottom: 1px solid var(--line);
  border-right: 1px solid rgba(44, 57, 70, 0.5); }
.cross-table thead th { background: var(--panel-2); color: var(--muted); font-weight: 600;
  font-size: 12px; vertical-align: bottom; }
.cross-table th.col { text-align: center; min-width: 70px; max-width: 110px; }
.colnum, .rownum { display: block; color: var(--muted); font-size: 11px; }
.rownum { display: inline-block; width: 22px; }
.colname { display: block; color: var(--text); overflow: hidden; text-overflow: ellipsis;
  white-space: nowrap; max-width: 110px; border-bottom: 3px solid var(--bot); padding-bottom: 2px; }
.rowhead { text-align: left; white-space: nowrap; background: var(--panel-2); }
td.cross { text-align: center; font-variant-numeric: tabular-nums; }
td.cross small, td.total small { color: rgba(230, 237, 243, 0.65); }
td.cross.self { background: repeating-linear-gradient(135deg, #141b22, #141b22 6px, #1a222b 6px,
  #1a222b 12px); color: var(--muted); }
td.cross.none { background: transparent; color: var(--muted); }
td.total { background: var(--panel-2); }
.failures-card { padding: 12px 16px; margin-top: 10px; border-left: 4px solid var(--bad); }
.fhead { display: flex; flex-wrap: wrap; align-items: center; gap: 8px 14px;
  margin-bottom: 8px; }
.fcount { color: var(--muted); }
.flist { list-style: none; margin: 0; padding: 0; display: grid; gap: 8px; max-height: 900px;
  overflow-y: auto; }
.failure { background: var(--panel-2); border: 1px solid var(--line); border-radius: 10px;
  padding: 8px 12px; }
.fline { display: flex; flex-wrap: wrap; gap: 6px 10px; align-items: center; }
.fwhere { color: var(--muted); font-size: 13px; }
.fdetail { margin: 4px 0 6px; overflow-wrap: anywhere; }
.flinks { display: flex; flex-wrap: wrap; gap: 6px 14px; align-items: center; font-size: 13px; }
.bundles { margin: 10px 0 0; color: var(--muted); font-size: 13px; display: flex;
  flex-wrap: wrap; gap: 4px 8px; }
.button { display: inline-block; padding: 3px 10px; border-radius: 8px; font-weight: 600;
  font-size: 12.5px; background: #1e3a5f; color: #dbeafe; border: 1px solid #2f5c8f;
  white-space: nowrap; }
.button:hover { background: #25497a; text-decoration: none; }
.button.evidence-link { background: var(--bad-bg); color: #fecaca; border-color: #7f2d36; }
.button.evidence-link:hover { background: #55222a; }
.json-link { font-size: 12.5px; white-space: nowrap; }
.link-note { color: #f5deb0; font-size: 12.5px; }
details.evidence { margin-top: 6px; }
details.evidence summary { cursor: pointer; color: var(--muted); font-size: 12.5px; }
table.kv { width: auto; margin-top: 6px; font-size: 13px; }
table.kv th { text-align: left; color: var(--muted); font-weight: 500; padding: 2px 14px 2px 0;
  vertical-align: top; white-space: nowrap; }
table.kv td { padding: 2px 0; overflow-wrap: anywhere; }
table.kv pre { margin: 0; white-space: pre-wrap; max-height: 220px; overflow: auto;
  background: #0c1116; border: 1px solid var(--line); border-radius: 6px; padding: 6px 8px; }
.filters { display: flex; flex-wrap: wrap; gap: 8px 16px; align-items: center; margin: 0 0 10px; }
.filters label { color: var(--muted); display: inline-flex; gap: 6px; align-items: center; }
.filters select, .filters input[type=search] { background: var(--panel); color: var(--text);
  border: 1px solid var(--line); border-radius: 8px; padding: 5px 8px; font: inherit; }
.filters input[type=search] { min-width: 260px; }
.c-seats { display: flex; flex-wrap: wrap; gap: 6px; }
.matches td.c-seats { display: table-cell; }
.seat { display: inline-flex; align-items: center; gap: 7px; padding: 3px 8px 3px 4px;
  margin: 2px 6px 2px 0; border: 1px solid var(--line); border-radius: 8px;
  background: var(--panel-2); }
.seat.won { border-color: var(--gold-2); box-shadow: inset 0 0 0 1px rgba(243, 199, 79, 0.25); }
.seat.failed { border-color: #7f2d36; background: #241a1e; }
.seat-tag { font-size: 10.5px; font-weight: 700; color: #0f1419; background: #8b9bab;
  border-radius: 4px; padding: 0 4px; }
.seat .score { font-weight: 700; font-variant-numeric: tabular-nums; min-width: 1.5em;
  text-align: right; }
.crown { color: var(--gold); }
.reason { color: var(--muted); font-size: 12px; }
.draw { color: var(--muted); font-style: italic; }
.winner-name { font-weight: 650; color: var(--gold); }
.c-links { white-space: nowrap; }
.c-links .link-note { display: block; white-space: normal; max-width: 260px; }
tr.match:target { background: rgba(243, 199, 79, 0.08); outline: 1px solid var(--gold-2); }
tr.match.hidden { display: none; }
.foot { max-width: 1280px; margin: 0 auto; padding: 0 24px 30px; color: var(--muted);
  font-size: 12.5px; }
@media (max-width: 700px) {
  .report { padding: 12px; }
  .topbar, .tabs { padding-left: 12px; padding-right: 12px; }
  .filters input[type=search] { min-width: 0; width: 100%; }
}
"""

_JS = """
(function () {
  "use strict";
  // Sortable columns: a click on a heading sorts by it (again: the other way).
  for (const table of document.querySelectorAll("table.sortable")) {
    const heads = [...table.tHead.rows[0].cells];
    heads.forEach((th, column) => th.addEventListener("click", () => {
      const up = !th.classList.contains("sorted-asc");
      heads.forEach((h) => h.classList.remove("sorted-asc", "sorted-desc"));
      th.classList.add(up ? "sorted-asc" : "sorted-desc");
      const body = table.tBodies[0];
      const key = (row) => {
        const cell = row.cells[column];
        const raw = cell.dataset.sort !== undefined ? cell.dataset.sort : cell.textContent.trim();
        const number = parseFloat(raw);
        return isNaN(number) || !/^[-+]?[0-9.]/.test(raw) ? raw.toLowerCase() : number;
      };
      const rows = [...body.rows].map((row, i) => [key(row), i, row]);
      rows.sort((a, b) => {
        if (a[0] < b[0]) return up ? -1 : 1;
        if (a[0] > b[0]) return up ? 1 : -1;
        return a[1] - b[1];
      });
      for (const [, , row] of rows) body.appendChild(row);
    }));
  }
  // The match list's filters.
  const bot = document.getElementById("filter-bot");
  const failed = document.getElementById("filter-failed");
  const text = document.getElementById("filter-text");
  const count = document.getElementById("match-count");
  const rows = [...document.querySelectorAll("tr.match")];
  function filter() {
    const who = bot.value;
    const words = text.value.trim().toLowerCase().split(/\\s+/).filter(Boolean);
    let shown = 0;
    for (const row of rows) {
      const ok = (!who || JSON.parse(row.dataset.bots).includes(who)) &&
        (!failed.checked || row.dataset.failed === "1") &&
        words.every((w) => row.dataset.words.includes(w));
      row.classList.toggle("hidden", !ok);
      if (ok) shown++;
    }
    count.textContent = shown + " of " + rows.length + " matches";
  }
  if (bot && failed && text && count) {
    bot.addEventListener("change", filter);
    failed.addEventListener("change", filter);
    text.addEventListener("input", filter);
    filter();
  }
})();
"""
