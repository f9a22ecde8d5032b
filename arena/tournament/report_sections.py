"""The sections of the tournament report: the standings, the ratings, the cross-table, every
bot's failures with their evidence, and the match list (:mod:`arena.tournament.html_report`)."""

from __future__ import annotations

import json
from collections import Counter

from arena.replay import Status
from arena.tournament.ratings_view import RatingsView
from arena.tournament.report_markup import (
    COSTS,
    Context,
    bot_tag,
    cost_badge,
    costs,
    esc,
    failure_badges,
    ms,
    num,
    ready_note,
    relative_link,
)
from arena.tournament.report_matches import FailureEntry, MatchEntry
from arena.tournament.standings import BotStanding, Standings


def standings_section(standings: Standings, ctx: Context) -> str:
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


def _standing_row(place: int, bot: BotStanding, ctx: Context, lenient: bool) -> str:
    share = bot.points / bot.matches if bot.matches else 0.0
    medal = f" medal{place}" if place <= 3 else ""
    return (
        f'<tr class="standing" data-entrant="{bot.entrant}" data-name="{esc(bot.name)}" '
        f'data-points="{bot.points!r}" data-wins="{bot.wins}" data-draws="{bot.draws}" '
        f'data-losses="{bot.losses}" data-matches="{bot.matches}" '
        f'data-strikes="{bot.strikes}" data-restarts="{bot.restarts}">'
        f'<td class="num c-place"><span class="place{medal}">{place}</span></td>'
        f'<td class="c-name">{bot_tag(ctx, bot.entrant, bot.name)}{ready_note(bot)}</td>'
        f'<td class="num c-points" data-sort="{bot.points!r}"><span class="pbar">'
        f'<i style="width:{share * 100:.1f}%"></i></span><b>{num(bot.points)}</b></td>'
        f'<td class="num c-wdl" data-sort="{bot.wins}"><span class="w">{bot.wins}</span>-'
        f'<span class="d">{bot.draws}</span>-<span class="l">{bot.losses}</span></td>'
        f'<td class="num c-matches">{bot.matches}</td>'
        f'<td class="num c-avg">{bot.avg_hand_score:.1f}</td>'
        f'<td class="c-failures" data-sort="{sum(bot.failures.values())}">'
        f"{failure_badges(bot.failures)}</td>"
        + (
            f'<td class="num c-strikes">{bot.strikes}</td>'
            f'<td class="num c-restarts">{bot.restarts}</td>'
            if lenient
            else ""
        )
        + f'<td class="num c-median">{ms(bot.median_ms)}</td>'
        f'<td class="num c-p95">{ms(bot.p95_ms)}</td></tr>'
    )


def ratings_section(ratings: RatingsView, ctx: Context) -> str:
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
            f'<td class="num">{place}</td><td>{bot_tag(ctx, line.entrant, line.name)}</td>'
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
                    f'<td class="num c-elo">{esc(estimate.games_text)}</td>'
                    f'<td class="num c-elo-paired">{esc(estimate.paired_text)}</td>'
                    f'<td class="num c-los" data-sort="{estimate.los!r}">'
                    f'<span class="pbar small"><i style="width:{estimate.los * 100:.1f}%"></i>'
                    f"</span>{estimate.los:.1%}</td>"
                )
        rows.append(
            f'<tr class="rating" data-entrant="{line.entrant}" data-name="{esc(line.name)}">'
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
        f'<p class="hint">{esc(explain)}</p>'
        '<div class="scroll"><table class="grid ratings sortable"><thead>'
        + head
        + "</thead><tbody>"
        + "".join(rows)
        + "</tbody></table></div></section>"
    )


def cross_section(standings: Standings, ctx: Context) -> str:
    bots = standings.bots
    head = "<tr><th>row against column</th>" + "".join(
        f'<th class="col" title="{esc(b.name)}"><span class="colnum">{i}</span>'
        f'<span class="colname" style="--bot:{ctx.colour[b.entrant]}">{esc(b.name)}</span></th>'
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
                    f'<td class="cross none" data-row="{esc(bot.name)}" '
                    f'data-col="{esc(other.name)}" data-games="0">·</td>'
                )
                continue
            share = pair.points / pair.games
            cells.append(
                f'<td class="cross" data-row="{esc(bot.name)}" data-col="{esc(other.name)}" '
                f'data-points="{pair.points!r}" data-games="{pair.games}" '
                f'style="background:{_heat(share)}" title="{esc(bot.name)} took {num(pair.points)} '
                f'of {pair.games} against {esc(other.name)}">'
                f"<b>{num(pair.points)}</b><small>/{pair.games}</small></td>"
            )
        rows.append(
            f'<tr><th class="rowhead"><span class="rownum">{i}</span>'
            f"{bot_tag(ctx, bot.entrant, bot.name)}</th>"
            + "".join(cells)
            + f'<td class="num total"><b>{num(bot.points)}</b><small>/{bot.matches}</small>'
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


def _links(entry: MatchEntry, ctx: Context, step: int | None = None) -> str:
    """The match's viewer link (at ``step`` when given) and its replay link."""
    parts = []
    if entry.page is not None:
        href = relative_link(entry.page, ctx.base) + (f"#move={step}" if step is not None else "")
        label = f"evidence at step {step}" if step is not None else "view"
        kind = "evidence-link" if step is not None else "view-link"
        parts.append(f'<a class="button {kind}" href="{esc(href)}">▶ {esc(label)}</a>')
    if entry.replay is not None:
        parts.append(
            f'<a class="json-link" href="{esc(relative_link(entry.replay, ctx.base))}">'
            "replay JSON</a>"
        )
    if entry.bundle is not None:
        parts.append(
            f'<a class="bundle-link" href="{esc(relative_link(entry.bundle, ctx.base))}" '
            'title="every failure of the match explained, and the command that plays it again">'
            "failure bundle</a>"
        )
    if entry.note:
        parts.append(f'<span class="link-note">{esc(entry.note)}</span>')
    return " ".join(parts)


def failures_section(
    standings: Standings,
    failures: list[FailureEntry],
    entries: list[MatchEntry],
    ctx: Context,
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
            clean.append(bot_tag(ctx, bot.entrant, bot.name))
            continue
        rows = [_failure_row(item, by_table[item.table], ctx) for item in mine]
        matches = [by_table[idx] for idx in sorted({item.table for item in mine})]
        bundles = " ".join(_bundle_link(e, ctx) for e in matches if e.replay is not None)
        count = f"{len(mine)} failure{'s' if len(mine) != 1 else ''}"
        if any(item.cost != "forfeit" for item in mine):
            count += f" ({costs(mine)})"
        forfeits = Counter(i.status for i in mine if i.cost == "forfeit")
        badges = failure_badges(forfeits) if forfeits else ""
        for cost in COSTS[1:]:
            number = sum(1 for i in mine if i.cost == cost)
            badges += f" {cost_badge(cost, number)}" if number else ""
        cards.append(
            f'<article class="card failures-card" data-entrant="{bot.entrant}" '
            f'data-name="{esc(bot.name)}" data-count="{len(mine)}">'
            f'<header class="fhead">{bot_tag(ctx, bot.entrant, bot.name)}'
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


def _bundle_link(entry: MatchEntry, ctx: Context) -> str:
    """``t3``, linking the match's failure bundle README.txt, else (an older tournament, or a
    bundle that could not be written) its replay."""
    target = entry.bundle if entry.bundle is not None else entry.replay
    assert target is not None
    kind = "bundle-link" if entry.bundle is not None else "json-link"
    return f'<a class="{kind}" href="{esc(relative_link(target, ctx.base))}">t{entry.idx}</a>'


def _failure_row(item: FailureEntry, entry: MatchEntry, ctx: Context) -> str:
    against = ", ".join(esc(n) for n in item.opponents) or "nobody"
    where = [f"table {item.table}", f"round {item.round}", f"seat {item.seat}"]
    if item.hand is not None:
        where.append(f"hand {item.hand}")
    evidence = ""
    if item.evidence:
        cells = "".join(
            f"<tr><th>{esc(label)}</th><td>"
            + (f"<pre>{esc(value)}</pre>" if label == "stderr tail" else esc(value))
            + "</td></tr>"
            for label, value in item.evidence
        )
        evidence = (
            f'<details class="evidence"><summary>evidence</summary>'
            f'<table class="kv">{cells}</table></details>'
        )
    cost = "" if item.cost == "forfeit" else cost_badge(item.cost)
    return (
        f'<li class="failure" data-table="{item.table}" data-seat="{item.seat}" '
        f'data-status="{esc(item.status)}" data-cost="{esc(item.cost)}" '
        f'data-step="{"" if item.step is None else item.step}">'
        f'<div class="fline"><span class="badge bad">{esc(item.status)}</span>{cost}'
        f'<span class="fwhere">{" · ".join(where)} · against {against}</span></div>'
        f'<div class="fdetail">{esc(item.detail) or "<i>no detail recorded</i>"}</div>'
        f'<div class="flinks">{_links(entry, ctx, item.step)}'
        + (
            f' <a class="match-link" href="#match-{item.table}">in the match list</a>'
            if entry.page is not None or entry.replay is not None
            else ""
        )
        + f"</div>{evidence}</li>"
    )


def matches_section(entries: list[MatchEntry], ctx: Context) -> str:
    options = "".join(
        f'<option value="{esc(ctx.names[e])}">{esc(ctx.names[e])}</option>'
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


def _match_row(entry: MatchEntry, ctx: Context) -> str:
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
                href = relative_link(entry.page, ctx.base) + f"#move={step}"
                status = (
                    f'<a class="badge bad status-link" href="{esc(href)}">{esc(s.status.value)}</a>'
                )
            else:
                status = f'<span class="badge bad">{esc(s.status.value)}</span>'
        lenient = ""
        if s.strikes:
            lenient += cost_badge("strike", s.strikes)
        if s.restarts:
            lenient += cost_badge("restart", s.restarts)
        seats.append(
            f'<span class="seat{" won" if won else ""}{" failed" if status else ""}" '
            f'data-seat="{s.seat}" data-name="{esc(entry.names[s.seat])}" '
            f'data-score="{s.score}" data-status="{esc(s.status.value)}" data-rank="{s.rank}" '
            f'data-strikes="{s.strikes}" data-restarts="{s.restarts}">'
            f'<span class="seat-tag">S{s.seat}</span>'
            f"{bot_tag(ctx, entrant, entry.names[s.seat])}"
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
        result = f'<span class="winner-name">{esc(winner)}</span> wins'
    failed = entry.failed
    words = [*entry.names, *(s.status.value for s in summary.seats), f"t{entry.idx}"]
    if any(s.strikes for s in summary.seats):
        words.append("strike")
    if any(s.restarts for s in summary.seats):
        words.append("restart")
    return (
        f'<tr class="match{" has-failure" if failed else ""}" id="match-{entry.idx}" '
        f'data-table="{entry.idx}" data-round="{row.table.round}" data-winner="{esc(winner)}" '
        f'data-failed="{"1" if failed else "0"}" '
        f'data-bots="{esc(json.dumps(entry.names))}" data-words="{esc(" ".join(words).lower())}">'
        f'<td class="num">{entry.idx}</td><td class="num">{row.table.round}</td>'
        f'<td class="c-seats" data-sort="{esc(" ".join(entry.names))}">{"".join(seats)}</td>'
        f'<td class="c-result">{result}<div class="reason" data-reason="{esc(summary.reason)}">'
        f"{esc(_REASONS.get(summary.reason, summary.reason))}</div>"
        + (f'<div class="ran-on muted">{esc(entry.ran_on)}</div>' if entry.ran_on else "")
        + "</td>"
        f'<td class="num">{summary.hands}</td><td class="num">{summary.moves}</td>'
        f'<td class="num" data-sort="{summary.duration_s!r}">{summary.duration_s:.2f} s</td>'
        f'<td class="c-links">{_links(entry, ctx)}</td></tr>'
    )
