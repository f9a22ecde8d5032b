"""``arena view REPLAY --html OUT.html``: a replay as one self-contained web page.

The page holds everything it needs: the CSS and the JavaScript of the viewer (``viewer.css`` and
``viewer.js`` beside this module, inlined) and the *viewer data*, a JSON document computed here
from :func:`arena.view.steps.build_steps`. Every position, every sentence and every piece of
evidence the page shows is in that data, so the browser decides no rule: it only draws. The page
loads nothing from the network and opens from disk.

The viewer data carries its own version (:data:`VIEWER_DATA_VERSION`) and the replay's format;
the page refuses a version it does not know with a message instead of drawing nonsense.

Integers stay exact in the page: a JavaScript number holds integers exactly only up to 2**53 - 1,
so seeds (up to 2**63 - 1) and request ids are decimal strings in the data, and :func:`embed_json`
writes any other integer beyond that range as a string too (:func:`exact_integers`).

Pure but for :func:`write_html`, which writes the file.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

import msgspec

from arena import PRODUCT
from arena.failure_text import evidence_fields
from arena.games.api import Move
from arena.games.tiles import Tile, tile_str
from arena.replay import ExchangedLine, Failure, Replay, Status
from arena.text import seat_name
from arena.view.analysis_data import analysis_data
from arena.view.page import asset, html_document
from arena.view.steps import (
    Board,
    Step,
    StepKind,
    build_steps,
    describe,
    failure_text,
    game_of,
    match_length_text,
    placed_arm,
    placed_index,
    printable,
    result_text,
    seat_label,
)
from arena.view.table import table_data_of

#: The version of the viewer data layout embedded in a page. The page's script reads only this
#: version (``VIEWER_DATA_VERSION`` in viewer.js must match) and refuses any other. Version 2:
#: seeds and request ids are strings (exact digits; version 1 had JSON numbers, which JavaScript
#: rounds above 2**53).
VIEWER_DATA_VERSION = 2

#: The largest integer a JavaScript number holds exactly (``Number.MAX_SAFE_INTEGER``).
JS_SAFE_INTEGER = 2**53 - 1

#: The most of a bot's stderr the page keeps (its end): enough to read, never a huge page.
STDERR_KEEP = 4000

#: The most of one line exchanged with a bot that the evidence shows: a longer line keeps its
#: first `EXCHANGED_HEAD` and last `EXCHANGED_TAIL` characters (the message's type and id, and
#: its last fields), with what was cut counted between them.
EXCHANGED_HEAD = 160
EXCHANGED_TAIL = 80

#: The evidence labels of the lines exchanged with a bot, by direction (viewer.js knows them).
EXCHANGED_LABELS = {"sent": "referee → bot", "received": "bot → referee"}


# -- the viewer data ---------------------------------------------------------------------------


def viewer_data(replay: Replay, steps: Sequence[Step] | None = None) -> dict[str, Any]:
    """The JSON-ready document the page draws: the match, the seats and every display step.

    Args:
        replay: the replay.
        steps: its display steps (default: :func:`build_steps` of ``replay``).

    Raises:
        arena.view.steps.StepsError: when the replay does not re-run through the engine.
    """
    steps = build_steps(replay) if steps is None else steps
    special = sorted(game_of(replay).drawing.special_tiles)
    names = [seat_name(s) for s in replay.seats]
    data: dict[str, Any] = {
        "viewer_data": VIEWER_DATA_VERSION,
        "replay_format": replay.format,
        "title": _title(replay, names),
        "match": {
            "game": replay.game,
            "players": replay.players,
            "seed": str(replay.seed),  # a string: JavaScript numbers round it above 2**53
            "protocol": replay.protocol,
            "length": match_length_text(replay),
            "hands": replay.match.hands,
            "target": replay.match.target,
            "rules": {str(k): printable(str(v)) for k, v in replay.rules.items()},
            "time": {
                "move_ms": replay.time.move_ms,
                "bank_ms": replay.time.bank_ms,
                "startup_ms": replay.time.startup_ms,
            },
            "started_at": printable(replay.started_at),
            "duration_s": replay.duration_s,
            "hands_played": len(replay.hands),
            "policy": {
                "name": replay.policy.name,
                "strikes": replay.policy.strikes,
                "restarts": replay.policy.restarts,
                "text": replay.policy.describe(),
            },
        },
        "special": [list(t) for t in special],
        "seats": [_seat_data(replay, seat) for seat in range(replay.players)],
        "steps": _steps_data(replay, steps),
    }
    analysis = analysis_data(replay, steps)
    if analysis is not None:  # optional: the replay's analysis (arena analyze), analysis.js
        data["analysis"] = analysis
    return data


def _title(replay: Replay, names: list[str]) -> str:
    """``TITLE: greedy vs random vs greedy-js (seed 7)``: the game's title, the bots."""
    return f"{game_of(replay).title}: {' vs '.join(names)} (seed {replay.seed})"


def _seat_data(replay: Replay, seat: int) -> dict[str, Any]:
    record = replay.seats[seat]
    failure = record.failure
    return {
        "seat": seat,
        "name": seat_name(record),
        "label": seat_label(replay, seat),
        "command": printable(record.command),
        "status": record.status.value,
        "failure_text": (
            ""
            if record.status is Status.OK
            else failure_text(record.status, failure, record.detail)
        ),
        "startup_failure": failure is not None and failure.phase == "startup",
        "evidence": evidence_rows(failure) if failure is not None else [],
        "stderr_tail": printable_block(record.stderr[-STDERR_KEEP:]),
        "stderr_cut": len(record.stderr) > STDERR_KEEP,
        "strikes": record.strikes,
        "restarts": record.restarts,
    }


def _steps_data(replay: Replay, steps: Sequence[Step]) -> list[dict[str, Any]]:
    data = []
    # The layout index of the hand's lead tile: the plays on the line's first end since the lead.
    anchor = 0
    first = game_of(replay).drawing.line_ends[0]
    struck = [0] * len(replay.seats)  # each seat's strikes played for so far
    for step in steps:
        if step.kind is StepKind.HAND_START:
            anchor = 0
        elif step.kind is StepKind.MOVE and step.move is not None and step.move.end == first:
            anchor += 1
        item = step_data(replay, step, anchor)
        seat = step.seat
        if seat is not None and 0 <= seat < len(struck):
            if item.get("strike"):
                struck[seat] += 1
            elif step.kind is StepKind.RETIRE and replay.seats[seat].strikes > struck[seat]:
                # The strike that forfeits retires the seat: only the seat's record counts it.
                item["strike"] = True
        data.append(item)
    return data


def step_data(replay: Replay, step: Step, anchor: int = 0) -> dict[str, Any]:
    """One display step as JSON-ready data (what the page shows at that step).

    Args:
        replay: the replay the step comes from.
        step: the step.
        anchor: the index in the layout of the hand's lead tile (the page draws the chain
            outward from it, so placed tiles never move as the chain grows).
    """
    item: dict[str, Any] = {
        "kind": step.kind.value,
        "hand": step.hand_number,
        "seat": step.seat,
        "text": describe(replay, step),
        "headline": headline(replay, step),
        "summary": summary(replay, step),
        "board": None if step.board is None else board_data(step.board, anchor),
    }
    if step.scored:  # scoring during a hand: what this step scored, (seat, points, reason)
        item["scored"] = [
            {"seat": seat, "points": points, "reason": reason}
            for seat, points, reason in step.scored
        ]
    if step.drawn is not None and step.move is not None:  # what the other seats saw of it
        item["public_headline"] = headline(replay, step, public=True)
        struck = step.action is not None and step.action.strike is not None
        item["public_summary"] = ("strike: " if struck else "") + _move_summary(
            step.move, None, auto=False
        )
    if step.kind is StepKind.MOVE:
        assert step.move is not None
        assert step.action is not None
        action = step.action
        item["move"] = msgspec.to_builtins(action.move)
        item["placed"] = placed_index(step)
        item["placed_arm"] = placed_arm(step)
        item["drawn"] = None if step.drawn is None else list(step.drawn)
        item["auto"] = action.auto
        item["request_id"] = None if action.request_id is None else str(action.request_id)
        item["elapsed_ms"] = action.elapsed_ms
        item["time_left_ms"] = action.time_left_ms
        item["debug"] = None if action.debug is None else printable(action.debug)
        if action.strike is not None:  # the referee's move for a struck bot (lenient)
            item["strike"] = True
            item.update(_failure_data(action.strike.status, action.strike))
    elif step.kind is StepKind.RESTART:
        assert step.status is not None
        item.update(_failure_data(step.status, step.failure))
    elif step.kind is StepKind.RETIRE:
        assert step.status is not None
        item.update(_failure_data(step.status, step.failure))
        item["forfeit"] = step.forfeit
    elif step.kind is StepKind.HAND_END:
        outcome = step.outcome
        assert outcome is not None
        item["outcome"] = {
            "kind": outcome.kind.value,
            "winners": list(outcome.winners),
            "award": list(outcome.award),
            "scores": list(outcome.scores),
            "pips": list(outcome.pips),
        }
    elif step.kind is StepKind.MATCH_END:
        result = step.result
        assert result is not None
        item["result"] = {
            "scores": list(result.scores),
            "winner": result.winner,
            "reason": result.reason,
            "ranking": list(result.ranking),
            "text": result_text(replay, result),
        }
    return item


def _failure_data(status: Status, failure: Failure | None) -> dict[str, Any]:
    """``status``, ``failure_text`` and ``evidence`` of a strike, a restart or a retirement."""
    return {
        "status": status.value,
        "failure_text": failure_text(status, failure),
        "evidence": evidence_rows(failure) if failure is not None else [],
    }


def board_data(board: Board, anchor: int = 0) -> dict[str, Any]:
    """A board as JSON-ready data (tiles as ``[a, b]`` pairs, the layout's as they lie).

    A board has more by the game's table features (:class:`arena.games.plugin.TableFeatures`):
    with a spinner, ``spinner`` (the layout index of the spinner, or null) and ``arms``
    (``{"north": [...], "south": [...]}`` by the game's arm ends, each read outward from the
    spinner, each tile as ``[inner, outer]``; null before the spinner); with the count of the
    open ends, ``count``; with scoring during a hand, ``scoring`` (the hand's scoring events so
    far, as ``[seat, points, reason]``).
    """
    data: dict[str, Any] = {
        "layout": [list(t) for t in board.layout],
        "anchor": anchor,
        "ends": [[position, value] for position, value in board.ends],
        "hands": [[list(t) for t in hand] for hand in board.hands],
        "boneyard": board.boneyard_size,
        "scores": list(board.scores),
        "to_move": board.to_move,
        "retired": list(board.retired),
    }
    features = board.features
    if features.spinner:
        arms = dict(board.arms)
        data["spinner"] = board.spinner
        data["arms"] = (
            None
            if board.spinner is None
            else {arm: [list(t) for t in arms.get(arm, ())] for arm in board.drawing.arm_ends}
        )
    if features.end_count:
        data["count"] = board.count
    if features.hand_scoring:
        data["scoring"] = [list(event) for event in board.scoring]
    return data


def failure_step(replay: Replay, steps: Sequence[Step], seat: int) -> int | None:
    """The step number (1-based, as in ``#move=N``) that shows ``seat``'s failure: its
    retirement, or the match start for a failure at start-up; ``None`` when it never failed.
    Strikes and restarts (failure policy ``lenient``) are not the seat's failure: a seat that
    played the match out after them has none.

    A report can link straight to the evidence: ``PAGE.html#move=N``.
    """
    failure = replay.seats[seat].failure
    if failure is not None and failure.phase == "startup":
        return 1
    for number, step in enumerate(steps, start=1):
        if step.kind is StepKind.RETIRE and step.seat == seat:
            return number
    return None


def summary(replay: Replay, step: Step) -> str:
    """The short line of the move list: ``plays 3-5 on right, 3 out`` (the seat is shown apart)."""
    kind = step.kind
    if kind is StepKind.MATCH_START:
        return "Match start"
    if kind is StepKind.HAND_START:
        board = step.board
        if board is not None and game_of(replay).automatic_opening and board.layout:
            a, b = board.layout[0]
            lead = tile_str((min(a, b), max(a, b)))
            return f"Hand {step.hand_number} dealt, {lead} opened" + _scored_summary(step)
        return f"Hand {step.hand_number} dealt"
    if kind is StepKind.MOVE:
        assert step.move is not None
        assert step.action is not None
        if step.action.strike is not None:
            played = _move_summary(step.move, step.drawn, auto=False)
            return f"strike: {played}" + _scored_summary(step)
        return _move_summary(step.move, step.drawn, auto=step.action.auto) + _scored_summary(step)
    if kind is StepKind.RESTART:
        assert step.status is not None
        return f"restarted after {step.status.value}"
    if kind is StepKind.RETIRE:
        assert step.status is not None
        return f"retired: {step.status.value}" + (" (forfeit)" if step.forfeit else "")
    if kind is StepKind.HAND_END:
        outcome = step.outcome
        assert outcome is not None
        if len(outcome.winners) == 1:
            return f"Hand {step.hand_number}: {outcome.kind.value}, seat {outcome.winners[0]} wins"
        return f"Hand {step.hand_number}: {outcome.kind.value}, drawn"
    result = step.result
    assert result is not None
    won = "a draw" if result.winner is None else f"seat {result.winner} wins"
    return f"Match over: {won}"


def _scored_summary(step: Step) -> str:
    """`` (+10)``, `` (+5, domino +10)``: what a step scored during a hand, for the move list."""
    if not step.scored:
        return ""
    parts = [
        ("" if reason == "count" else f"{reason} ") + f"{points:+d}"
        for _seat, points, reason in step.scored
    ]
    return f" ({', '.join(parts)})"


def _move_summary(move: Move, drawn: Tile | None, *, auto: bool) -> str:
    if move.kind == "play":
        assert move.tile is not None
        if move.end is None:
            return f"leads {tile_str(move.tile)}"
        return f"plays {tile_str(move.tile)} on {move.end}, {move.out} out"
    if move.kind == "draw":
        return "draws" + (f" {tile_str(drawn)}" if drawn is not None else " a tile")
    return "passes automatically (retired)" if auto else "passes"


def headline(replay: Replay, step: Step, *, public: bool = False) -> str:
    """:func:`describe` without the time taken and the debug note (the page shows those
    apart); with ``public``, also without the tile drawn, as the other seats saw the move."""
    action = step.action
    if action is None:
        return describe(replay, step)
    bare = msgspec.structs.replace(action, debug=None, elapsed_ms=None)
    return describe(replay, replace(step, action=bare, drawn=None if public else step.drawn))


def evidence_rows(failure: Failure) -> list[list[str]]:
    """A failure's evidence as ``[label, value]`` rows, only the fields that apply, in the
    order a person reads them. The last lines exchanged with the bot follow, oldest first, one
    row each, labelled ``referee → bot`` or ``bot → referee`` (see :func:`exchanged_text`).
    The stderr tail is the last row, when there is one."""
    rows: list[list[str]] = [
        ["status", failure.status.value],
        ["what happened", printable(failure.detail)],
        ["phase", _PHASES.get(failure.phase, failure.phase)],
    ]
    if failure.hand_number is not None:
        rows.append(["hand", str(failure.hand_number)])
    if failure.request_id is not None:
        rows.append(["request id", str(failure.request_id)])
    rows += [[label, printable(value)] for label, value in evidence_fields(failure)]
    for line in failure.messages or ():
        rows.append([EXCHANGED_LABELS[line.direction], exchanged_text(line)])
    if failure.stderr_tail:
        rows.append(["stderr tail", printable_block(failure.stderr_tail)])
    return rows


_PHASES = {
    "startup": "start-up (before ready)",
    "move": "answering a request",
    "notify": "being sent a hand or match message",
}


def exchanged_text(line: ExchangedLine) -> str:
    """A line exchanged with a bot, escaped, its middle cut when it is long:
    ``{"type":"request","id":3,"hand_number":1,... … [412 characters cut] … ...,"retired":[]}``
    (its first `EXCHANGED_HEAD` and last `EXCHANGED_TAIL` characters)."""
    text = line.text
    if len(text) <= EXCHANGED_HEAD + EXCHANGED_TAIL + 40:  # not worth a cut
        return printable(text)
    cut = len(text) - EXCHANGED_HEAD - EXCHANGED_TAIL
    head, tail = text[:EXCHANGED_HEAD], text[-EXCHANGED_TAIL:]
    return f"{printable(head)} … [{cut} characters cut] … {printable(tail)}"


def printable_block(text: str) -> str:
    """Multi-line text (stderr) with every control character escaped but newlines and tabs."""
    return "".join(ch if ch in "\n\t" else printable(ch) for ch in text)


# -- the page ----------------------------------------------------------------------------------


def exact_integers(data: Any) -> Any:
    """``data`` with every integer that a JavaScript number cannot hold exactly (beyond
    ±`JS_SAFE_INTEGER`) replaced by its decimal string, at any depth; the rest unchanged.

    ``JSON.parse`` turns every JSON number into a 64-bit float, so the seed 3865857861745209631
    would become 3865857861745209856 and show as 3865857861745210000: the page would show, and
    let a user copy, another number than the replay's.
    """
    if isinstance(data, bool):
        return data
    if isinstance(data, int):
        return data if -JS_SAFE_INTEGER <= data <= JS_SAFE_INTEGER else str(data)
    if isinstance(data, dict):
        return {key: exact_integers(value) for key, value in data.items()}
    if isinstance(data, list | tuple):
        return [exact_integers(value) for value in data]
    return data


def embed_json(data: Any) -> str:
    """``data`` as JSON safe inside a ``<script>`` element: no ``<``, ``>`` or ``&`` appears
    literally (so neither ``</script>`` nor ``<!--`` in a bot's name can end the element), and
    no integer that JavaScript would round (:func:`exact_integers`)."""
    text = json.dumps(
        exact_integers(data), ensure_ascii=False, separators=(",", ":"), allow_nan=False
    )
    return (
        text.replace("&", "\\u0026")
        .replace("<", "\\u003c")
        .replace(">", "\\u003e")
        .replace("\u2028", "\\u2028")
        .replace("\u2029", "\\u2029")
    )


def render_page(data: dict[str, Any]) -> str:
    """The whole page for viewer ``data`` (:func:`viewer_data`): one HTML document with the
    stylesheet, the data, the table data of its game (:func:`arena.view.table.table_data`)
    and the script inline."""
    match = data.get("match")
    game = match.get("game") if isinstance(match, dict) else None
    table = table_data_of(game) if isinstance(game, str) else None
    return html_document(
        title=str(data.get("title", f"{PRODUCT} replay")),
        made_by="arena view --html",
        css=asset("viewer.css") + asset("analysis.css"),
        body=_BODY.format(data=embed_json(data), table=embed_json(table)),
        js=asset("analysis.js") + asset("viewer.js"),
    )


def html_page(replay: Replay) -> str:
    """The viewer page of ``replay``.

    Raises:
        arena.view.steps.StepsError: when the replay does not re-run through the engine.
    """
    return render_page(viewer_data(replay))


def write_html(replay: Replay, path: str | Path) -> Path:
    """Write the viewer page of ``replay`` to ``path`` (creating its folder) and return it.

    Raises:
        arena.view.steps.StepsError: when the replay does not re-run through the engine.
        OSError: when the file cannot be written.
    """
    page = html_page(replay)
    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(page, encoding="utf-8")
    return target


# Inside the page's <body>: the viewer data, which viewer.js reads and draws into #app.
_BODY = """\
<noscript><p class="fatal">This replay viewer needs JavaScript to draw the match.</p></noscript>
<div id="app"></div>
<script type="application/json" id="viewer-data">{data}</script>
<script type="application/json" id="viewer-table">{table}</script>"""
