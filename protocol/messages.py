"""Every message of protocol v1, as msgspec Structs (tagged unions on ``"type"``).

Two families, with two decoding policies (msgspec docs: structs, schema evolution):

- :data:`ToBot`: what the referee sends. Bots must ignore fields they do not know, so new
  optional fields can be added within a protocol version.
- :data:`FromBot`: what bots send. Decoded strictly (``forbid_unknown_fields=True``), so a typo
  is a clear error naming the JSON path instead of a silently ignored field.

Tags are explicit strings, so renaming a class never changes the wire. docs/protocol.md is the
normative description; ``arena schema`` exports the JSON Schema generated from these types.

This package imports nothing of the arena: bots written in Python may use it on their own.
"""

from __future__ import annotations

from typing import Annotated, Literal

import msgspec
from msgspec import UNSET, Meta, UnsetType

PROTOCOL_VERSION = 1

Pip = Annotated[int, Meta(ge=0, le=6, description="One half of a tile: 0 (blank) to 6.")]
Tile = Annotated[
    tuple[Pip, Pip],
    Meta(description="A tile as two halves. In hands and legal moves: [low, high]."),
]
Seat = Annotated[int, Meta(ge=0, le=3, description="A seat number, 0-based.")]
RequestId = Annotated[int, Meta(ge=0, description="The id of the request being answered.")]
Position = Annotated[
    Literal["left", "right", "west", "east", "north", "south"],
    Meta(
        description="An open end, named by position: left/right in Matador; west/east (the "
        "line) and north/south (the spinner's arms) in Fives."
    ),
]
MAX_DEBUG_CHARS = 1024
MAX_NAME_CHARS = 64

# -- moves ------------------------------------------------------------------------------------
#
# The same three moves exist twice: as the referee lists them (tolerant, like every message to a
# bot) and as a bot sends one back (strict, like every message from a bot). Their wire forms are
# identical, so echoing an element of ``legal`` is always a correct reply. That is why a move
# never gains a field within a protocol version (docs/protocol.md, sections 7 and 15): the
# strict reply form would refuse its echo. tests/test_echo_legal.py keeps the two forms equal.


class _Move(msgspec.Struct, frozen=True, tag_field="action"):
    """A move as the referee writes it (in ``legal``, ``history`` and replays)."""


class Play(_Move, tag="play", frozen=True):
    """Place a tile.

    ``end`` names the open end by position (``null`` for the lead); ``out`` is the half that
    faces outward afterwards, i.e. the new value of that end (for the lead, the high half).
    """

    tile: Tile
    out: Pip
    end: Position | None = None


class Draw(_Move, tag="draw", frozen=True):
    """Take the top tile of the boneyard; the same player acts again."""


class Pass(_Move, tag="pass", frozen=True):
    """Knock: only legal when there is nothing to play and nothing may be drawn."""


WireMove = Play | Draw | Pass


class _ReplyMove(msgspec.Struct, frozen=True, forbid_unknown_fields=True, tag_field="action"):
    """A move as a bot sends it: unknown fields are an error."""


class PlayReply(_ReplyMove, tag="play", frozen=True):
    """Place ``tile`` (its halves in either order) on ``end`` (omit it or ``null`` for the lead)
    with ``out`` facing outward (for the lead, either half: the lead is always laid low-high)."""

    tile: Tile
    out: Pip
    end: Position | None = None


class DrawReply(_ReplyMove, tag="draw", frozen=True):
    """Draw from the boneyard."""


class PassReply(_ReplyMove, tag="pass", frozen=True):
    """Pass."""


ReplyMove = PlayReply | DrawReply | PassReply


def as_reply(move: WireMove) -> ReplyMove:
    """The reply form of a move taken from a request's ``legal`` list (same wire form)."""
    if isinstance(move, Play):
        return PlayReply(tile=move.tile, out=move.out, end=move.end)
    return DrawReply() if isinstance(move, Draw) else PassReply()


# -- shared pieces of messages to bots ---------------------------------------------------------


class _ToBotPart(msgspec.Struct, frozen=True):
    """A part of a message to a bot; bots ignore fields they do not know."""


class MatadorRules(_ToBotPart, tag="matador", tag_field="game", frozen=True):
    """The Matador variant flags in force; docs/rules.md (rules 1.1 to 1.15) explains each."""

    hand_size: Literal[5, 7, "9-n"] = 5
    lead: Literal["any", "highest_double"] = "any"
    draw_when_playable: Literal["matador_only", "never", "always"] = "matador_only"
    reserve: Literal[0, 2] = 0
    draw_mode: Literal["until_playable", "one_then_pass"] = "until_playable"


class FivesRules(_ToBotPart, tag="fives", tag_field="game", frozen=True):
    """The Fives variant flags in force; docs/rules.md (rules 2.1 to 2.12) explains each."""

    spinner_sides_first: bool = True
    block_winner: Literal["more_points", "fewer_pips"] = "more_points"


class BlockRules(_ToBotPart, tag="block", tag_field="game", frozen=True):
    """Block has no variant flags; docs/rules.md (Block) states its rules."""


RulesConfig = MatadorRules | FivesRules | BlockRules


class MatchLength(_ToBotPart, frozen=True):
    """How long the match lasts: to a ``target`` score, or for a fixed number of ``hands``.

    Exactly one of the two is set.
    """

    target: Annotated[int, Meta(ge=1)] | None = None
    hands: Annotated[int, Meta(ge=1)] | None = None


class TimeControl(_ToBotPart, frozen=True):
    """Time limits in milliseconds, measured by the referee with a monotonic clock.

    ``move_ms`` is the allowance for every move; time over it is taken from the bank, which
    starts at ``bank_ms`` and is shared by all the moves of the match. ``startup_ms`` limits the
    time from start to the ``ready`` reply.
    """

    startup_ms: Annotated[int, Meta(ge=1)]
    move_ms: Annotated[int, Meta(ge=1)]
    bank_ms: Annotated[int, Meta(ge=0)] = 0


class End(_ToBotPart, frozen=True):
    """An open end: its position and the value a tile must match there."""

    position: Position
    value: Pip


class Event(_ToBotPart, frozen=True):
    """One entry of the public history of a hand: who did what (a drawn tile stays hidden)."""

    seat: Seat
    move: WireMove


class Score(_ToBotPart, frozen=True):
    """One scoring event of a Fives hand: ``seat`` scored ``points`` for ``reason``.

    ``count``: the count of the open ends after a placement (the automatic opening included)
    was a positive multiple of five. ``domino`` and ``block``: the hand-end award (a block
    award may be zero or negative).
    """

    seat: Seat
    points: int
    reason: Literal["count", "domino", "block"]


class Arms(_ToBotPart, frozen=True):
    """The spinner's two arms (Fives), each read outward from the spinner, each tile as
    ``[inner_half, outer_half]``; the last tile's outer half is that end's value."""

    north: list[Tile]
    south: list[Tile]


class SeatResult(_ToBotPart, frozen=True):
    """How one seat finished the match."""

    seat: Seat
    name: str
    status: Literal[
        "ok",
        "timeout",
        "crash",
        "bad_message",
        "illegal_move",
        "line_too_long",
        "memory_limit",
        "cpu_limit",
        "output_limit",
    ]
    detail: str = ""


# -- messages to bots --------------------------------------------------------------------------


class _ToBot(msgspec.Struct, frozen=True, tag_field="type"):
    """A message from the referee to a bot."""


class Hello(_ToBot, tag="hello", frozen=True):
    """The handshake: sent once, first. The bot answers with ``ready`` within ``startup_ms``."""

    protocol: int
    game: Literal["matador", "fives", "block"]
    seat: Seat
    players: Annotated[int, Meta(ge=2, le=4)]
    rules: RulesConfig
    match: MatchLength
    time: TimeControl
    seed: Annotated[int, Meta(ge=0, description="A seed for the bot's own randomness.")]


# The Fives-only fields of the messages to bots. Each defaults to UNSET, which msgspec leaves out
# of the encoding: a Matador message never has them, and its bytes are those of before Fives.
_Spinner = Annotated[
    int | None,
    Meta(description="Fives only: the index in layout of the spinner, null before one is laid."),
]
_ArmsField = Annotated[
    Arms | None,
    Meta(description="Fives only: the spinner's north and south arms, null before a spinner."),
]
_Count = Annotated[
    int, Meta(ge=0, description="Fives only: the count of the open ends now (docs/rules.md 2.5).")
]
_Scoring = Annotated[
    list[Score],
    Meta(description="Fives only: every scoring event of this hand so far, oldest first."),
]
_OpeningLayout = Annotated[
    list[Tile], Meta(description="Fives only: the line after the automatic opening.")
]
_OpeningEnds = Annotated[
    list[End], Meta(description="Fives only: the open ends after the automatic opening.")
]


class HandStart(_ToBot, tag="hand_start", frozen=True):
    """A hand begins: your tiles, who leads, every seat's tile count.

    In Fives the opening is automatic: ``leader`` has already laid its tile (shown in
    ``layout`` and ``ends``, its count in ``count`` and ``scoring``, its points in ``scores``),
    and the other seat moves first. The Fives-only fields are absent in Matador.
    """

    hand_number: Annotated[int, Meta(ge=1)]
    leader: Seat
    hand: list[Tile]
    hand_counts: list[int]
    boneyard_size: int
    scores: list[int]
    layout: _OpeningLayout | UnsetType = UNSET
    ends: _OpeningEnds | UnsetType = UNSET
    spinner: _Spinner | UnsetType = UNSET
    arms: _ArmsField | UnsetType = UNSET
    count: _Count | UnsetType = UNSET
    scoring: _Scoring | UnsetType = UNSET


class MoveRequest(_ToBot, tag="request", frozen=True):
    """Your move: everything this seat may know, the legal moves and the time left.

    Answer with a ``move`` carrying the same ``id``. A bot can play from this message alone. In
    Fives it also carries the spinner, its arms, the count and the hand's scoring events (absent
    in Matador).
    """

    id: RequestId
    hand_number: Annotated[int, Meta(ge=1)]
    seat: Seat
    hand: list[Tile]
    layout: Annotated[
        list[Tile],
        Meta(
            description="The chain from the left end to the right end, each tile as it lies "
            "(in Fives the west-east line, from west to east, the spinner included)."
        ),
    ]
    ends: list[End]
    hand_counts: list[int]
    boneyard_size: int
    scores: list[int]
    draws: Annotated[list[int], Meta(description="Tiles each seat drew in this hand.")]
    passes: Annotated[list[int], Meta(description="Times each seat passed in this hand.")]
    history: list[Event]
    legal: list[WireMove]
    time_left_ms: Annotated[
        int, Meta(ge=0, description="Time for this move: the per-move limit plus the bank left.")
    ]
    bank_ms: Annotated[int, Meta(ge=0, description="The bank left (included in time_left_ms).")]
    retired: list[Seat] = []
    spinner: _Spinner | UnsetType = UNSET
    arms: _ArmsField | UnsetType = UNSET
    count: _Count | UnsetType = UNSET
    scoring: _Scoring | UnsetType = UNSET


class HandEnd(_ToBot, tag="hand_end", frozen=True):
    """A hand is over: how it ended, every hand revealed, the award and the scores.

    ``result`` is ``"target"`` when a Fives score reached 100 during the hand (the match ends
    there; the award is then zero). In Fives, ``scoring`` lists every scoring event of the
    hand, the last count and the award included, so every bot learns every score.
    """

    hand_number: Annotated[int, Meta(ge=1)]
    result: Literal["domino", "block", "target"]
    winners: list[Seat]
    award: list[int]
    scores: list[int]
    pips: list[int]
    hands: Annotated[list[list[Tile]], Meta(description="Every seat's tiles left, in seat order.")]
    layout: list[Tile]
    spinner: _Spinner | UnsetType = UNSET
    arms: _ArmsField | UnsetType = UNSET
    scoring: _Scoring | UnsetType = UNSET


class MatchEnd(_ToBot, tag="match_end", frozen=True):
    """The match is over. The bot should exit; it is stopped after a short grace."""

    scores: list[int]
    winner: Seat | None
    reason: Literal["target", "hands", "forfeit"]
    results: list[SeatResult]


class Error(_ToBot, tag="error", frozen=True):
    """Why the referee is stopping this bot (sent when the pipe is still open), then it is
    stopped."""

    code: Literal[
        "timeout",
        "bad_message",
        "illegal_move",
        "line_too_long",
        "memory_limit",
        "cpu_limit",
        "output_limit",
    ]
    message: str


class Strike(_ToBot, tag="strike", frozen=True):
    """A fault that cost a strike under the ``lenient`` failure policy: the referee played
    ``move`` for the bot in request ``id`` and the hand goes on; no answer is expected. The
    strike numbered ``max_strikes`` forfeits the match instead (an ``error`` follows). Under
    the other policies this message is never sent."""

    id: RequestId
    code: Literal["timeout", "bad_message", "illegal_move"]
    message: str
    move: WireMove
    strikes: Annotated[int, Meta(ge=1, description="The bot's strikes so far, this one included.")]
    max_strikes: Annotated[int, Meta(ge=1, description="The strike that forfeits the match.")]


ToBot = Hello | HandStart | MoveRequest | HandEnd | MatchEnd | Error | Strike


# -- messages from bots ------------------------------------------------------------------------


class _FromBot(msgspec.Struct, frozen=True, forbid_unknown_fields=True, tag_field="type"):
    """A message from a bot to the referee; unknown fields are an error."""


class Ready(_FromBot, tag="ready", frozen=True):
    """The answer to ``hello``."""

    name: Annotated[str, Meta(min_length=1, max_length=MAX_NAME_CHARS)]
    protocol: int | None = None


class MoveReply(_FromBot, tag="move", frozen=True):
    """The answer to a ``request``: one of its legal moves, with the request's ``id``.

    ``debug`` is an optional note (at most 1024 characters) kept in the replay beside the move.
    """

    id: RequestId
    move: ReplyMove
    debug: Annotated[str, Meta(max_length=MAX_DEBUG_CHARS)] | None = None


FromBot = Ready | MoveReply
