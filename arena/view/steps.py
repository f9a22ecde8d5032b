"""A replay as a list of display steps: what a viewer shows, one position after each event.

Pure, and shared by every viewer (the terminal one, a later HTML one). Nothing here decides a
rule: like :mod:`arena.verify`, the steps come from applying the recorded events through the
same match layer and engine the referee used, so every position shown is the engine's own.

The steps of a match, in order:

- ``MATCH_START``: the settings and the seats (with any start-up failure); no board.
- per hand: ``HAND_START`` (the deal, the leader to move; in a game whose hands start with an
  automatic opening, the position after it, the opener as its seat), then one ``MOVE``,
  ``RESTART`` or ``RETIRE`` per recorded event, then ``HAND_END`` (unless the match was
  forfeited during the hand).
- ``MATCH_END``: the result, with the last board shown.

No game is named here: what a board has beyond every game's (a spinner and its arms, the count
of the open ends, the scoring during a hand), the names of its ends and its special tiles come
from the game's plugin (:class:`arena.games.plugin.GamePlugin`), carried by every
:class:`Board` for the viewers.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, replace

from arena.games.api import HandEnd, HandOutcome, Move
from arena.games.match import Match, MatchResult, match_target
from arena.games.plugin import Drawing, GamePlugin, TableFeatures
from arena.games.registry import get_game
from arena.games.tiles import Tile, tile_str
from arena.replay import Action, Failure, Replay, Status
from arena.replay_walk import ReplayMismatch, WalkKind, WalkStep, walk_replay
from arena.text import printable as printable  # re-exported: the viewers import it from here
from arena.text import seat_name
from arena.view.table import boneyard_label

#: A replay whose events do not re-run through the engine.
StepsError = ReplayMismatch


#: The table of a plain line game (no spinner, no count, no scoring during a hand, a boneyard to
#: draw from): a :class:`Board`'s features and drawing when none are given.
PLAIN_FEATURES = TableFeatures()
PLAIN_DRAWING = Drawing()


class StepKind(enum.Enum):
    """What a step shows."""

    MATCH_START = "match_start"
    HAND_START = "hand_start"
    MOVE = "move"
    RETIRE = "retire"
    RESTART = "restart"
    HAND_END = "hand_end"
    MATCH_END = "match_end"


@dataclass(frozen=True, slots=True)
class Board:
    """The position at a step, with every seat's tiles (a replay hides nothing).

    Attributes:
        layout: the line from its first end to its last (``drawing.line_ends``), each tile as
            it lies (with a spinner, the line through it, the spinner included).
        ends: the open ends as ``(position, value)``; empty before the lead.
        hands: each seat's tiles, canonical order, in seat order.
        boneyard_size: tiles left in the boneyard (drawable or not: ``features.draws``).
        scores: the match scores (at a hand's end, with its award counted; where a game
            scores during a hand, ``features.hand_scoring``, every point scored so far).
        to_move: the seat to act, or ``None`` when the hand is over.
        retired: the retired seats, in seat order.
        features: the game's table features (:class:`arena.games.plugin.TableFeatures`): which
            of the fields below it has.
        drawing: the game's drawing data (:class:`arena.games.plugin.Drawing`): its end names,
            special tiles and their label.
        arms: ``features.spinner``: the spinner's arms, ``(end, tiles)`` per arm end, read
            outward, each tile as ``(inner, outer)``; empty before the spinner is laid.
        spinner: ``features.spinner``: the index in ``layout`` of the spinner, or ``None``.
        count: ``features.end_count``: the count of the open ends now (else ``None``).
        scoring: ``features.hand_scoring``: the scoring events of the hand so far,
            ``(seat, points, reason)``.
    """

    layout: tuple[Tile, ...]
    ends: tuple[tuple[str, int], ...]
    hands: tuple[tuple[Tile, ...], ...]
    boneyard_size: int
    scores: tuple[int, ...]
    to_move: int | None
    retired: tuple[int, ...]
    features: TableFeatures = PLAIN_FEATURES
    drawing: Drawing = PLAIN_DRAWING
    arms: tuple[tuple[str, tuple[Tile, ...]], ...] = ()
    spinner: int | None = None
    count: int | None = None
    scoring: tuple[tuple[int, int, str], ...] = ()


@dataclass(frozen=True, slots=True)
class Step:
    """One display step: the board after an event, and the event itself.

    Attributes:
        kind: what happened.
        hand_number: the hand the step belongs to (``None`` for the match start and end).
        board: the position after the event (``None`` at the match start, and at the match end
            when no hand was ever dealt).
        seat: the seat that acted (``MOVE``), retired (``RETIRE``), was restarted
            (``RESTART``) or leads (``HAND_START``).
        move: for ``MOVE``, the engine move.
        action: for ``MOVE``, the replay's record (timing, debug note, ``auto`` flag, and the
            failure of a strike).
        drawn: for a draw, the tile drawn.
        status: for ``RETIRE`` and ``RESTART``, the failure status; for a ``MOVE`` played for
            a struck bot, the strike's.
        failure: for ``RETIRE``, the seat's failure record, when the replay has one; for
            ``RESTART``, the crash; for a strike's ``MOVE``, the strike's.
        forfeit: for ``RETIRE``, true when this retirement ended the match.
        outcome: for ``HAND_END``, how the hand ended, as the engine computed it.
        result: for ``MATCH_END``, the match result, as the engine computed it.
        scored: where a game scores during a hand: the scoring events of this step,
            ``(seat, points, reason)`` (an automatic opening's at ``HAND_START``; a count,
            and a hand's award, at the ``MOVE`` or ``RETIRE`` that caused them).
    """

    kind: StepKind
    hand_number: int | None
    board: Board | None
    seat: int | None = None
    move: Move | None = None
    action: Action | None = None
    drawn: Tile | None = None
    status: Status | None = None
    failure: Failure | None = None
    forfeit: bool = False
    outcome: HandOutcome | None = None
    result: MatchResult | None = None
    scored: tuple[tuple[int, int, str], ...] = ()


def build_steps(replay: Replay) -> list[Step]:
    """Walk ``replay`` through the engine and return its display steps, in order.

    Raises:
        StepsError: when the replay disagrees with the engine; the message names the hand and
            event (``arena verify`` says the same).
    """
    maker = StepMaker(replay)
    return [maker.first(), *(maker.step(walked) for walked in walk_replay(replay))]


class StepMaker:
    """Display steps from the walk's steps, one at a time (:func:`build_steps` over a whole
    replay; a live watcher as a match's events arrive, `arena.replay_walk.ReplayFollower`).
    ``replay`` is the match's replay, or its header so far (a seat's failure is read from it
    at the seat's retirement)."""

    def __init__(self, replay: Replay) -> None:
        self.replay = replay
        self.plugin = game_of(replay)
        self.board: Board | None = None
        self.scored = 0  # the scoring events of the hand shown so far

    def first(self) -> Step:
        """The match start."""
        return Step(StepKind.MATCH_START, None, None)

    def step(self, walked: WalkStep) -> Step:
        """The display step of one step of the walk."""
        match, plugin = walked.match, self.plugin
        kind = walked.kind
        if kind is WalkKind.HAND_START:
            board = self.board = board_of(match, plugin)
            self.scored = len(board.scoring)
            return Step(
                StepKind.HAND_START,
                walked.hand_number,
                board,
                seat=walked.seat,
                scored=board.scoring,
            )
        if kind is WalkKind.MOVE:
            strike = walked.action.strike if walked.action is not None else None
            board = self.board = board_of(match, plugin)
            new, self.scored = board.scoring[self.scored :], len(board.scoring)
            return Step(
                StepKind.MOVE,
                walked.hand_number,
                board,
                seat=walked.seat,
                move=walked.move,
                action=walked.action,
                drawn=walked.drawn,
                scored=new,
                status=None if strike is None else strike.status,
                failure=strike,
            )
        if kind is WalkKind.RESTART:
            assert walked.restart is not None
            return Step(
                StepKind.RESTART,
                walked.hand_number,
                self.board,
                seat=walked.seat,
                status=walked.restart.failure.status,
                failure=walked.restart.failure,
            )
        if kind is WalkKind.RETIRE:
            assert walked.seat is not None
            assert walked.retirement is not None
            board = self.board = board_of(match, plugin)
            new, self.scored = board.scoring[self.scored :], len(board.scoring)
            return Step(
                StepKind.RETIRE,
                walked.hand_number,
                board,
                seat=walked.seat,
                status=walked.retirement.status,
                failure=self.replay.seats[walked.seat].failure,
                forfeit=match.over,
                scored=new,
            )
        if kind is WalkKind.HAND_END:
            assert walked.outcome is not None
            board = self.board = replace(board_of(match, plugin), scores=walked.outcome.scores)
            return Step(StepKind.HAND_END, walked.hand_number, board, outcome=walked.outcome)
        return Step(StepKind.MATCH_END, None, self.board, result=match.result)


def game_of(replay: Replay) -> GamePlugin:
    """The game ``replay`` was played in.

    Raises:
        StepsError: for a game the arena does not know (as the walk says it).
    """
    try:
        return get_game(replay.game)
    except ValueError as error:
        raise StepsError(f"the replay's settings are invalid: game: {error}") from None


def board_of(match: Match, plugin: GamePlugin) -> Board:
    """The board of the match's current hand, every seat's tiles included; ``plugin`` is the
    match's game."""
    hand = match.hand
    views = [hand.view(seat) for seat in range(match.players)]
    first = views[0]
    return Board(
        layout=first.layout,
        ends=first.ends,
        hands=tuple(view.hand for view in views),
        boneyard_size=first.boneyard_size,
        scores=first.scores,
        to_move=hand.to_move,
        retired=tuple(sorted(match.retired)),
        features=plugin.features,
        drawing=plugin.drawing,
        arms=first.arms,
        spinner=first.spinner,
        count=first.end_count,
        scoring=tuple((s, p, r) for s, p, r in first.scoring),
    )


def placed_index(step: Step) -> int | None:
    """Where in the layout the tile just played lies: its first tile for a play on the line's
    first end, its last for the other; ``None`` when nothing was played, or a tile went on a
    spinner's arm (see :func:`placed_arm`)."""
    move, board = step.move, step.board
    if move is None or move.kind != "play" or board is None or move.end in board.drawing.arm_ends:
        return None
    return len(board.layout) - 1 if move.end == board.drawing.line_ends[1] else 0


def placed_arm(step: Step) -> str | None:
    """The arm of the spinner the tile just played went on (its last tile), or ``None``."""
    move, board = step.move, step.board
    if move is None or move.kind != "play" or board is None:
        return None
    return move.end if move.end in board.drawing.arm_ends else None


# -- words -------------------------------------------------------------------------------------


def seat_label(replay: Replay, seat: int) -> str:
    """``seat 1 (greedy)``: the seat and its bot's name."""
    name = seat_name(replay.seats[seat]) if seat < len(replay.seats) else "?"
    return f"seat {seat} ({name})"


def game_target(replay: Replay) -> int | None:
    """The game's own target (:attr:`GamePlugin.match_target`), which ends a match whatever
    its length."""
    try:
        return match_target(get_game(replay.game))
    except ValueError:  # an unknown game: the walk refuses it anyway
        return None


def boneyard_words(board: Board) -> str:
    """``14 tiles in the boneyard``; in a game where nobody draws, the undealt tiles by the
    game's word for them (``14 tiles out of play``)."""
    tiles = f"{board.boneyard_size} tiles"  # "1 tiles", as the viewers always said
    label = boneyard_label(board.features, board.drawing)
    return f"{tiles} in the {label}" if board.features.draws else f"{tiles} {label}"


def match_length_text(replay: Replay) -> str:
    """``2 hands``, ``to 100 points``, or in a game with its own target ``2 hands or first to
    100 points``."""
    if replay.match.hands is not None:
        text = f"{replay.match.hands} hand{'s' if replay.match.hands != 1 else ''}"
        own = game_target(replay)
        return text if own is None else f"{text} or first to {own} points"
    return f"to {replay.match.target} points"


def _seats_text(seats: tuple[int, ...] | list[int], replay: Replay) -> str:
    """``seat 0 (a), seat 1 (b) and seat 2 (c)``."""
    labels = [seat_label(replay, s) for s in seats]
    if len(labels) <= 1:
        return "".join(labels)
    return ", ".join(labels[:-1]) + " and " + labels[-1]


def failure_text(status: Status, failure: Failure | None, detail: str = "") -> str:
    """``illegal_move: illegal move 3-4 on left, ...``: a failure's status and its sentence."""
    sentence = failure.detail if failure is not None else detail
    return f"{status.value}: {printable(sentence)}" if sentence else status.value


def describe(replay: Replay, step: Step) -> str:
    """One plain-text line saying what happened at ``step`` (no terminal codes)."""
    kind = step.kind
    if kind is StepKind.MATCH_START:
        return (
            f"Match start: {replay.game}, {replay.players} players, seed {replay.seed}, "
            f"{match_length_text(replay)}"
        )
    if kind is StepKind.HAND_START:
        assert step.board is not None
        assert step.seat is not None
        board = step.board
        if game_of(replay).automatic_opening and board.layout:
            opening = board.layout[0]
            lead = f"{min(opening)}-{max(opening)}"
            text = (
                f"Hand {step.hand_number} dealt: {seat_label(replay, step.seat)} opens with {lead}"
            )
            text += "".join(f"; {scored_text(replay, e)}" for e in step.scored)
            if board.to_move is not None:
                text += f"; {seat_label(replay, board.to_move)} to move"
            return text + f"; {boneyard_words(board)}"
        return (
            f"Hand {step.hand_number} dealt: {seat_label(replay, step.seat)} leads; "
            f"{boneyard_words(board)}"
        )
    if kind is StepKind.MOVE:
        return _describe_move(replay, step)
    if kind is StepKind.RESTART:
        assert step.seat is not None
        assert step.status is not None
        return f"{seat_label(replay, step.seat)} is restarted after " + failure_text(
            step.status, step.failure
        )
    if kind is StepKind.RETIRE:
        assert step.seat is not None
        assert step.status is not None
        text = f"{seat_label(replay, step.seat)} is retired: " + failure_text(
            step.status, step.failure
        )
        text += "".join(f"; {scored_text(replay, e)}" for e in step.scored)
        return text + (" -- the match is forfeited" if step.forfeit else "")
    if kind is StepKind.HAND_END:
        outcome = step.outcome
        assert outcome is not None
        if outcome.kind is HandEnd.TARGET:
            return (
                f"Hand {step.hand_number} ends: {seat_label(replay, outcome.winners[0])} "
                f"reached {game_target(replay)} points; pips left {list(outcome.pips)}"
                f"; scores {list(outcome.scores)}"
            )
        return (
            f"Hand {step.hand_number} ends: {outcome.kind.value}, {_winners_text(replay, outcome)}"
            f"; pips left {list(outcome.pips)}; award {list(outcome.award)}"
            f"; scores {list(outcome.scores)}"
        )
    result = step.result
    assert result is not None
    return f"Match over ({result.reason}): {result_text(replay, result)}"


def _describe_move(replay: Replay, step: Step) -> str:
    """The line of a ``MOVE`` step: who did what, the time taken and the bot's debug note."""
    move, action = step.move, step.action
    assert move is not None
    assert action is not None
    assert step.seat is not None
    who = seat_label(replay, step.seat)
    if move.kind == "play":
        assert move.tile is not None
        if move.end is None:
            text = f"{who} leads {tile_str(move.tile)}"
        else:
            text = f"{who} plays {tile_str(move.tile)} on {move.end}, {move.out} out"
    elif move.kind == "draw":
        tile = f" {tile_str(step.drawn)}" if step.drawn is not None else ""
        left = step.board.boneyard_size if step.board is not None else 0
        text = f"{who} draws{tile} ({left} left in the boneyard)"
    elif action.auto and action.strike is None:
        text = f"{who} passes automatically (retired)"
    else:
        text = f"{who} passes"
    if action.strike is not None:
        text = (
            f"STRIKE ({failure_text(action.strike.status, action.strike)}); for "
            f"{who} the referee {text.removeprefix(who + ' ')}"
        )
    text += "".join(f"; {scored_text(replay, e)}" for e in step.scored)
    if action.elapsed_ms is not None:
        text += f" -- {action.elapsed_ms:.1f} ms"
    if action.debug:
        text += f' -- debug: "{printable(action.debug)}"'
    return text


def scored_text(replay: Replay, event: tuple[int, int, str]) -> str:
    """One scoring event of a hand in words: ``count 15: seat 0 (a) scores 15``, ``domino:
    seat 1 (b) scores 10``, ``block: seat 0 (a) scores -3``."""
    seat, points, reason = event
    head = f"count {points}" if reason == "count" else reason
    return f"{head}: {seat_label(replay, seat)} scores {points}"


def _winners_text(replay: Replay, outcome: HandOutcome) -> str:
    """``won by seat 1 (b)``, or who drew a blocked hand."""
    winners = outcome.winners
    if len(winners) == 1:
        return f"won by {seat_label(replay, winners[0])}"
    if outcome.kind is HandEnd.BLOCK:
        return f"drawn between {_seats_text(winners, replay)}, no award"
    return "no winner"


def result_text(replay: Replay, result: MatchResult) -> str:
    """``seat 1 (random) wins`` or ``a draw``, with the final scores."""
    head = "a draw" if result.winner is None else f"{seat_label(replay, result.winner)} wins"
    return f"{head}; final scores {list(result.scores)}"
