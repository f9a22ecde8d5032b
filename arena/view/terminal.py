"""``arena view``: a replay in the terminal, one step after each event.

On a terminal the viewer pages through the steps with the keys (right/left arrows, n/p, space/b,
Home/End or g/G, ]/[ or PageDown/PageUp for the next/previous hand, q to quit), redrawing the
screen each time. When the output is not a terminal, or with ``--all``, every step is printed
at once, and without terminal codes unless the output is a terminal.

The rendering functions are pure (a step in, a list of lines out); only :func:`view_replay`'s
small key loop and :func:`raw_terminal` touch the terminal.
"""

from __future__ import annotations

import contextlib
import os
import select
import sys
import termios
import tty
from collections.abc import Callable, Iterator, Sequence
from typing import TextIO

from arena.games.tiles import Tile
from arena.replay import Replay, Status
from arena.text import seat_name
from arena.view.steps import (
    Board,
    Step,
    StepKind,
    StepsError,
    build_steps,
    describe,
    failure_text,
    game_of,
    match_length_text,
    placed_arm,
    placed_index,
    printable,
    seat_label,
)
from arena.view.table import boneyard_label, count_scores, multiple_words

CLEAR = "\x1b[H\x1b[2J"
_ALT_SCREEN_ON = "\x1b[?1049h\x1b[?25l"  # alternate screen, cursor hidden
_ALT_SCREEN_OFF = "\x1b[?25h\x1b[?1049l"
_RESET = "\x1b[0m"
_BOLD = "1"
_DIM = "2"
_REVERSE = "7"
_RED = "31"
_GREEN = "32"
_YELLOW = "33"
_CYAN = "36"

FOOTER = (
    "n/space/right: next  p/b/left: back  g/Home: first  G/End: last  "
    "]/[: next/previous hand  q: quit"
)

#: Key name -> what it does in the pager.
KEY_ACTIONS: dict[str, str] = {
    **dict.fromkeys(("right", "down", "n", "j", "l", " ", "enter"), "next"),
    **dict.fromkeys(("left", "up", "p", "b", "k", "h", "backspace"), "prev"),
    **dict.fromkeys(("home", "g"), "first"),
    **dict.fromkeys(("end", "G"), "last"),
    **dict.fromkeys(("pgdn", "]"), "next_hand"),
    **dict.fromkeys(("pgup", "["), "prev_hand"),
    **dict.fromkeys(("q", "Q", "esc", "ctrl-c", "ctrl-d", "eof"), "quit"),
}

_SEQUENCES: dict[bytes, str] = {
    **dict.fromkeys((b"\x1b[A", b"\x1bOA"), "up"),
    **dict.fromkeys((b"\x1b[B", b"\x1bOB"), "down"),
    **dict.fromkeys((b"\x1b[C", b"\x1bOC"), "right"),
    **dict.fromkeys((b"\x1b[D", b"\x1bOD"), "left"),
    **dict.fromkeys((b"\x1b[H", b"\x1bOH", b"\x1b[1~", b"\x1b[7~"), "home"),
    **dict.fromkeys((b"\x1b[F", b"\x1bOF", b"\x1b[4~", b"\x1b[8~"), "end"),
    b"\x1b[5~": "pgup",
    b"\x1b[6~": "pgdn",
}
_CONTROL_KEYS: dict[int, str] = {
    0x03: "ctrl-c",
    0x04: "ctrl-d",
    0x0D: "enter",
    0x0A: "enter",
    0x7F: "backspace",
    0x08: "backspace",
}

KeyReader = Callable[[], str]


# -- rendering (pure) --------------------------------------------------------------------------


def _paint(text: str, codes: Sequence[str], color: bool) -> str:
    """``text`` wrapped in the SGR ``codes`` when ``color`` is on, else unchanged."""
    if not color or not codes:
        return text
    return f"\x1b[{';'.join(codes)}m{text}{_RESET}"


def tile_text(
    tile: Tile, special: frozenset[Tile], *, color: bool = False, extra: Sequence[str] = ()
) -> str:
    """``[3|4]``: a tile as it lies, ``*`` after one of the game's special tiles
    (``Drawing.special_tiles``), coloured on a terminal (``extra`` adds codes, e.g. to pick
    out the tile just played)."""
    a, b = tile
    marked = (min(a, b), max(a, b)) in special
    text = f"[{a}|{b}]" + ("*" if marked else "")
    codes = [*([_BOLD, _YELLOW] if marked else []), *extra]
    return _paint(text, codes, color)


def spinner_text(tile: Tile, *, color: bool = False, extra: Sequence[str] = ()) -> str:
    """``{5|5}``: the spinner, the double laid crosswise that the arms grow from."""
    return _paint(f"{{{tile[0]}|{tile[1]}}}", [_BOLD, _CYAN, *extra], color)


def layout_text(
    board: Board, special: frozenset[Tile], *, color: bool = False, placed: int | None = None
) -> str:
    """The line read from its first end to its last, between its open ends (the names are the
    game's): ``left=3 [3|4]*[4|3] right=3``; with a spinner the line through it, ``west=0
    [0|5]{5|5} east=5``, the spinner in braces.

    Args:
        board: the position.
        special: the tiles to mark (the game's special tiles).
        color: whether to use terminal colours.
        placed: the index in the layout of the tile just played, picked out on a terminal.
    """
    if not board.layout:
        return "(empty)"
    tiles = "".join(
        spinner_text(t, color=color, extra=[_REVERSE] if i == placed else [])
        if i == board.spinner
        else tile_text(t, special, color=color, extra=[_REVERSE] if i == placed else [])
        for i, t in enumerate(board.layout)
    )
    ends = dict(board.ends)
    first, last = board.drawing.line_ends
    return f"{_end_text(ends, first)} {tiles} {_end_text(ends, last)}"


def _end_text(ends: dict[str, int], position: str) -> str:
    """``west=3``, or ``west closed`` for an end that is not open (a line's ends always are
    once a tile is laid; a spinner's side is closed until its arm may grow)."""
    return f"{position}={ends[position]}" if position in ends else f"{position} closed"


def arm_text(board: Board, arm: str, *, color: bool = False, placed: bool = False) -> str:
    """One arm of the spinner read outward from it: ``{5|5} [5|1][1|3] north=3``; ``closed``
    while it may not grow yet (until both sides of the spinner are covered, docs/rules.md
    2.4)."""
    assert board.spinner is not None
    tiles = dict(board.arms).get(arm, ())
    ends = dict(board.ends)
    if not tiles and arm not in ends:
        return "closed until both sides of the spinner are covered"
    shown = "".join(
        tile_text(
            t, frozenset(), color=color, extra=[_REVERSE] if placed and i == len(tiles) - 1 else []
        )
        for i, t in enumerate(tiles)
    )
    spinner = spinner_text(board.layout[board.spinner], color=color)
    return f"{spinner} {shown or '(no tile yet)'} {_end_text(ends, arm)}"


def feature_lines(board: Board, *, color: bool = False, placed_arm: str | None = None) -> list[str]:
    """The rows under the line for the game's table features: the spinner's arms, the count
    of the open ends, and the hand's scoring events (none for a plain line game)."""
    lines = []
    features = board.features
    if features.spinner and board.spinner is not None:
        for arm in board.drawing.arm_ends:
            text = arm_text(board, arm, color=color, placed=placed_arm == arm)
            lines.append(f"  {arm:<9} {text}")
    if features.end_count:
        count = board.count
        multiple = board.drawing.count_multiple
        scores = count is not None and count_scores(count, multiple)
        lines.append(
            f"  count     {count}"
            + (f" (a multiple of {multiple_words(multiple)})" if scores else "")
        )
    if features.hand_scoring and board.scoring:
        events = ", ".join(
            f"seat {seat} {points:+d}" + ("" if reason == "count" else f" ({reason})")
            for seat, points, reason in board.scoring
        )
        lines.append(f"  scored    {events}")
    return lines


def board_lines(
    replay: Replay,
    board: Board,
    *,
    color: bool = False,
    placed: int | None = None,
    drawn: tuple[int, Tile] | None = None,
    placed_arm: str | None = None,
    faults: Sequence[tuple[int, int]] = (),
) -> list[str]:
    """The layout, the boneyard and every seat's row (name, score, tile count, tiles, and its
    strikes and restarts so far); and the rows of the game's table features
    (:func:`feature_lines`).

    Args:
        replay: the replay (for the bots' names and the game).
        board: the position.
        color: whether to use terminal colours.
        placed: the index in the layout of the tile just played (highlighted on a terminal).
        drawn: ``(seat, tile)`` of a tile just drawn (highlighted on a terminal).
        placed_arm: the arm of the spinner the tile just played went on (``"north"``).
        faults: each seat's ``(strikes, restarts)`` so far (failure policy ``lenient``; see
            :func:`faults_so_far`), marked on its row when not zero.
    """
    special = board.drawing.special_tiles
    # The labels make one column: as wide as the longest (Block's "out of play").
    width = max(_LABEL_WIDTH, len(boneyard_label(board.features, board.drawing)))
    lines = [f"  {'layout':<{width}} {layout_text(board, special, color=color, placed=placed)}"]
    lines.extend(feature_lines(board, color=color, placed_arm=placed_arm))
    lines.append(f"  {_boneyard_row(board, width)}")
    names = [seat_name(s) for s in replay.seats]
    name_width = max((len(n) for n in names), default=0)
    score_width = max((len(str(s)) for s in board.scores), default=1)
    for seat, tiles in enumerate(board.hands):
        shown = " ".join(
            tile_text(
                t,
                special,
                color=color,
                extra=[_GREEN, _REVERSE] if drawn == (seat, t) else [],
            )
            for t in tiles
        )
        count = f"{len(tiles)} tile{'' if len(tiles) == 1 else 's'}"
        row = (
            f"  seat {seat}  {names[seat]:<{name_width}}  "
            f"{board.scores[seat]:>{score_width}} points  {count:<8}  {shown}"
        ).rstrip()
        marks = []
        if board.to_move == seat:
            marks.append(_paint("<- to move", [_BOLD], color))
        if seat in board.retired:
            status = replay.seats[seat].status.value
            marks.append(_paint(f"(retired: {status})", [_RED], color))
        if seat < len(faults) and (text := faults_text(*faults[seat])):
            marks.append(_paint(f"({text})", [_YELLOW], color))
        lines.append("  ".join([row, *marks]))
    return lines


#: The width of the labels of a position's rows (``layout``, ``boneyard``, ``count``...).
_LABEL_WIDTH = 9


def _boneyard_row(board: Board, width: int = _LABEL_WIDTH) -> str:
    """``boneyard  14 tiles``, or the game's word for undealt tiles nobody draws
    (``out of play 14 tiles``), its label ``width`` wide."""
    size = board.boneyard_size
    label = boneyard_label(board.features, board.drawing)
    return f"{label:<{width}} {size} tile{'' if size == 1 else 's'}"


def faults_text(strikes: int, restarts: int) -> str:
    """``1 restart, 2 strikes``; empty when there were none."""
    parts = []
    if restarts:
        parts.append(f"{restarts} restart{'' if restarts == 1 else 's'}")
    if strikes:
        parts.append(f"{strikes} strike{'' if strikes == 1 else 's'}")
    return ", ".join(parts)


def faults_so_far(replay: Replay, steps: Sequence[Step], index: int) -> list[tuple[int, int]]:
    """Each seat's ``(strikes, restarts)`` up to step ``index`` included: the moves the referee
    played for it after a strike, the strike that forfeited (a retirement), and its restarts
    (failure policy ``lenient``)."""
    strikes = [0] * len(replay.seats)
    restarts = [0] * len(replay.seats)
    if not any(s.strikes or s.restarts for s in replay.seats):  # no walk for the usual case
        return list(zip(strikes, restarts, strict=True))
    for step in steps[: index + 1]:
        seat = step.seat
        if seat is None or not 0 <= seat < len(replay.seats):
            continue
        if step.kind is StepKind.MOVE and step.action is not None and step.action.strike:
            strikes[seat] += 1
        elif step.kind is StepKind.RESTART:
            restarts[seat] += 1
        elif step.kind is StepKind.RETIRE:  # the seat's record counts a strike that forfeited
            strikes[seat] = max(strikes[seat], replay.seats[seat].strikes)
    return list(zip(strikes, restarts, strict=True))


def _header(replay: Replay, steps: Sequence[Step], index: int, color: bool) -> str:
    """``Hand 1 of 2 -- step 3 of 41`` (or ``Match -- ...`` at the match start and end)."""
    step = steps[index]
    if step.hand_number is None:
        where = "Match"
    elif replay.match.hands is not None:
        where = f"Hand {step.hand_number} of {replay.match.hands}"
    else:
        where = f"Hand {step.hand_number} ({match_length_text(replay)})"
    return _paint(f"{where} -- step {index + 1} of {len(steps)}", [_BOLD], color)


def render_step(
    replay: Replay, steps: Sequence[Step], index: int, *, color: bool = False
) -> list[str]:
    """The lines showing step ``index``: a header, what just happened, then the position.

    Args:
        replay: the replay the steps come from.
        steps: every step of the replay (:func:`arena.view.steps.build_steps`).
        index: the step to show, 0-based.
        color: whether to use terminal colours (never when the output is not a terminal).
    """
    step = steps[index]
    struck = step.action is not None and step.action.strike is not None
    if step.kind is StepKind.RETIRE:
        codes = [_BOLD, _RED]
    elif struck or step.kind is StepKind.RESTART:
        codes = [_BOLD, _YELLOW]
    else:
        codes = [_CYAN]
    lines = [_header(replay, steps, index, color), _paint(describe(replay, step), codes, color)]
    lines.append("")
    if step.kind is StepKind.MATCH_START:
        lines.extend(_match_start_lines(replay))
    elif step.kind is StepKind.MATCH_END:
        lines.extend(_match_end_lines(replay, steps))
    elif step.board is not None:  # every step of a hand has one
        drawn = (
            (step.seat, step.drawn) if step.drawn is not None and step.seat is not None else None
        )
        lines.extend(
            board_lines(
                replay,
                step.board,
                color=color,
                placed=placed_index(step),
                drawn=drawn,
                placed_arm=placed_arm(step),
                faults=faults_so_far(replay, steps, index),
            )
        )
    return lines


def _match_start_lines(replay: Replay) -> list[str]:
    """The settings and the seats (commands, start-up failures) shown at the match start."""
    rules = " ".join(f"{k}={v}" for k, v in replay.rules.items()) or "none (no rule flags)"
    time = replay.time
    lines = [
        f"  rules     {rules}",
        f"  time      {time.move_ms} ms per move, bank {time.bank_ms} ms, "
        f"start-up {time.startup_ms} ms",
    ]
    if replay.started_at:
        lines.append(f"  played    {replay.started_at}, {replay.duration_s:g} s")
    if replay.policy.name != "strict":
        lines.append(f"  policy    {replay.policy.describe()}")
    names = [seat_name(s) for s in replay.seats]
    width = max((len(n) for n in names), default=0)
    for seat, name in zip(replay.seats, names, strict=True):
        row = f"  seat {seat.seat}  {name:<{width}}  {printable(seat.command)}"
        failure = seat.failure
        if failure is not None and failure.phase == "startup":
            row += f"  (failed at start-up: {failure_text(seat.status, failure, seat.detail)})"
        lines.append(row)
    plugin = game_of(replay)
    drawing = plugin.drawing
    if drawing.special_tiles:
        shown = ", ".join(f"{a}-{b}" for a, b in sorted(drawing.special_tiles))
        lines.append(f"  tiles marked * are {drawing.special_label}s ({shown})")
    if drawing.arm_ends:
        arms = " and ".join(drawing.arm_ends)
        lines.append(f"  the spinner is shown {{d|d}}; {arms} are its arms, read outward from it")
    if not plugin.features.draws:
        lines.append(f"  nobody draws: the undealt tiles are {drawing.boneyard_label}")
    return lines


def _match_end_lines(replay: Replay, steps: Sequence[Step]) -> list[str]:
    """Each hand's result, then the seats ranked with their scores and status."""
    lines = []
    started: dict[int, bool] = {}
    for step in steps:
        if step.kind is StepKind.HAND_START and step.hand_number is not None:
            started[step.hand_number] = False
        elif step.kind is StepKind.HAND_END and step.hand_number is not None:
            started[step.hand_number] = True
            outcome = step.outcome
            assert outcome is not None
            if len(outcome.winners) == 1:
                who = f"won by {seat_label(replay, outcome.winners[0])}"
            else:
                who = "drawn"
            lines.append(
                f"  hand {step.hand_number}  {outcome.kind.value}, {who}, "
                f"award {list(outcome.award)}, scores {list(outcome.scores)}"
            )
    for number, ended in started.items():
        if not ended:
            lines.append(f"  hand {number}  stopped: the match was forfeited")
    result = steps[-1].result
    assert result is not None
    if lines:
        lines.append("")
    names = [seat_name(s) for s in replay.seats]
    name_width = max((len(n) for n in names), default=0)
    score_width = max((len(str(s)) for s in result.scores), default=1)
    for place, seat in enumerate(result.ranking, start=1):
        record = replay.seats[seat]
        status = (
            "ok"
            if record.status is Status.OK
            else failure_text(record.status, record.failure, record.detail)
        )
        if faults := faults_text(record.strikes, record.restarts):
            status += f" ({faults})"
        lines.append(
            f"  {place}. seat {seat}  {names[seat]:<{name_width}}  "
            f"{result.scores[seat]:>{score_width}} points  {status}"
        )
    return lines


def render_all(replay: Replay, steps: Sequence[Step], *, color: bool = False) -> list[str]:
    """Every step's lines, a blank line between steps."""
    lines: list[str] = []
    for index in range(len(steps)):
        if index:
            lines.append("")
        lines.extend(render_step(replay, steps, index, color=color))
    return lines


# -- keys --------------------------------------------------------------------------------------


def split_keys(data: bytes) -> tuple[list[str], bytes]:
    """The key names in bytes read from a raw terminal, and an incomplete escape sequence left
    at the end (to complete with the next read).

    Arrows and Home/End/PageUp/PageDown become ``"right"``, ``"home"``, ``"pgdn"``...; control
    keys ``"enter"``, ``"backspace"``, ``"ctrl-c"``, ``"ctrl-d"``, ``"esc"``; other bytes their
    character; unknown sequences ``"unknown"``.
    """
    keys: list[str] = []
    i = 0
    while i < len(data):
        byte = data[i]
        if byte != 0x1B:
            keys.append(_CONTROL_KEYS.get(byte, chr(byte) if byte < 0x80 else "unknown"))
            i += 1
            continue
        if i + 1 >= len(data):
            return keys, data[i:]
        if data[i + 1] not in b"[O":
            keys.append("esc")
            i += 1
            continue
        j = i + 2
        while j < len(data) and 0x20 <= data[j] <= 0x3F:  # parameter and intermediate bytes
            j += 1
        if j >= len(data):
            return keys, data[i:]
        keys.append(_SEQUENCES.get(data[i : j + 1], "unknown"))
        i = j + 1
    return keys, b""


def next_index(steps: Sequence[Step], index: int, key: str) -> int | None:
    """The step to show after ``key`` is pressed at step ``index``; ``None`` to quit."""
    action = KEY_ACTIONS.get(key)
    last = len(steps) - 1
    if action == "quit":
        return None
    if action == "next":
        return min(index + 1, last)
    if action == "prev":
        return max(index - 1, 0)
    if action == "first":
        return 0
    if action == "last":
        return last
    starts = [i for i, s in enumerate(steps) if s.kind is StepKind.HAND_START]
    if action == "next_hand":
        return next((i for i in starts if i > index), last)
    if action == "prev_hand":
        return next((i for i in reversed(starts) if i < index), 0)
    return index


def page(
    replay: Replay, steps: Sequence[Step], out: TextIO, read_key: KeyReader, *, color: bool = True
) -> int:
    """The key loop: draw a step, read a key, move, until a quit key. Returns 0.

    Lines end with ``\\r\\n`` because a raw terminal does not turn ``\\n`` into a new line.
    """
    index = 0
    while True:
        lines = [*render_step(replay, steps, index, color=color), "", _paint(FOOTER, [_DIM], color)]
        _write(out, CLEAR + "\r\n".join(lines) + "\r\n")
        out.flush()
        moved = next_index(steps, index, read_key())
        if moved is None:
            return 0
        index = moved


@contextlib.contextmanager
def raw_terminal(inp: TextIO, out: TextIO) -> Iterator[KeyReader]:
    """Put the terminal of ``inp`` in raw mode on the alternate screen, and yield a key reader.

    The terminal settings and the screen are restored on exit, however the block exits
    (a quit key, an exception, Ctrl-C).
    """
    fd = inp.fileno()
    saved = termios.tcgetattr(fd)
    try:
        tty.setraw(fd, termios.TCSADRAIN)  # keep keys typed ahead
        _write(out, _ALT_SCREEN_ON)
        out.flush()
        yield _FdKeyReader(fd)
    finally:
        try:
            _write(out, _ALT_SCREEN_OFF)
            out.flush()
        finally:
            termios.tcsetattr(fd, termios.TCSADRAIN, saved)


class _FdKeyReader:
    """Reads key names from a raw terminal's file descriptor."""

    #: How long to wait for the rest of an escape sequence before taking ESC as a key.
    ESCAPE_WAIT_S = 0.05

    def __init__(self, fd: int) -> None:
        self._fd = fd
        self._pending: list[str] = []
        self._rest = b""

    def __call__(self) -> str:
        while not self._pending:
            data = os.read(self._fd, 64)
            if not data:
                return "eof"
            keys, self._rest = split_keys(self._rest + data)
            self._pending.extend(keys)
            if self._rest and not select.select([self._fd], [], [], self.ESCAPE_WAIT_S)[0]:
                self._pending.append("esc" if self._rest == b"\x1b" else "unknown")
                self._rest = b""
        return self._pending.pop(0)


# -- the command -------------------------------------------------------------------------------


def _write(out: TextIO, text: str) -> None:
    """Write ``text``, escaping what the stream's encoding cannot represent."""
    try:
        out.write(text)
    except UnicodeEncodeError:
        encoding = out.encoding or "ascii"
        out.write(text.encode(encoding, "backslashreplace").decode(encoding))


def _isatty(stream: TextIO) -> bool:
    """Whether ``stream`` is a terminal (``False`` for a closed or fileless stream)."""
    try:
        return stream.isatty()
    except (ValueError, OSError):  # a closed stream, or one without a file
        return False


def view_replay(
    replay: Replay,
    *,
    show_all: bool = False,
    out: TextIO | None = None,
    inp: TextIO | None = None,
    read_key: KeyReader | None = None,
) -> int:
    """Show ``replay``: step by step on a terminal, or every step at once.

    Args:
        replay: the replay to show.
        show_all: print every step at once even on a terminal.
        out: where to write (default: ``sys.stdout`` at the time of the call).
        inp: where keys come from, a terminal put in raw mode while paging (default:
            ``sys.stdin`` at the time of the call).
        read_key: a key reader to use instead of ``inp`` (returns key names such as ``"n"``,
            ``"right"``, ``"home"``, ``"q"``); for tests and other front ends.

    Returns:
        0, or 1 when the replay does not re-run through the engine (the reason goes to stderr).
    """
    out = sys.stdout if out is None else out
    inp = sys.stdin if inp is None else inp
    try:
        steps = build_steps(replay)
    except StepsError as error:
        print(f"arena view: cannot show this replay: {error} (see arena verify)", file=sys.stderr)
        return 1
    color = _isatty(out)
    if not show_all and color and (read_key is not None or _isatty(inp)):
        if read_key is not None:
            return page(replay, steps, out, read_key)
        with raw_terminal(inp, out) as keys:
            return page(replay, steps, out, keys)
    try:
        for line in render_all(replay, steps, color=color):
            _write(out, line + "\n")
        out.flush()
    except BrokenPipeError:  # e.g. `arena view r.json | head`: the reader has seen enough
        _silence_stdout(out)
    return 0


def _silence_stdout(out: TextIO) -> None:
    """After a broken pipe on standard output, point it at /dev/null so that the interpreter's
    final flush does not complain."""
    if out is sys.stdout:
        with contextlib.suppress(OSError, ValueError):
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, out.fileno())
            os.close(devnull)
