"""The vocabulary of ``arena check``'s scripted positions, used by every game's ``positions``.

Each :class:`Scenario` is one hand of a game: a deal written out tile by tile, started with the
game's own ``start_hand``, and a scripted line of moves (for both seats) applied with ``apply``
before the bot is asked anything. The position reached is what the test is about (a blank end,
a forced pass...); the requests built from it are exactly the ones the referee would send
there. A game lists its scenarios in its plugin (``check_first``, ``check_rules``); the helpers
here (deals, moves, expectations every game can use) keep each game's list short.

The bot always sits in seat :data:`BOT_SEAT` of a two-player match; the checker plays seat
:data:`OTHER_SEAT`. Pure: no I/O, no clock, no randomness.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from arena.games.api import DRAW, Deal, Game, GameState, Move, play
from arena.games.tiles import ALL_TILES, Tile, make_tile

BOT_SEAT = 0
OTHER_SEAT = 1
PLAYERS = 2

#: What a scenario asserts about the position before the bot is asked (a self-check: the tests
#: run it for every scenario). It returns ``None`` when the position is what the scenario says.
Expectation = Callable[[GameState], str | None]
#: A remark on the bot's first move in a scenario (the position, the move), for the report.
Note = Callable[[GameState, Move], str]


@dataclass(frozen=True)
class Scenario:
    """One scripted hand of ``arena check``.

    Attributes:
        key: a stable identifier (``"blank_ends"``), used in the JSON output and the tests.
        name: the step's name as printed (``"blank ends"``).
        about: one sentence: what the position tests.
        hint: what to do when the bot's first reply in this position is not legal (for the
            student; a later illegal reply gets advice worked out from its own position).
        deal: the hands in seat order and the boneyard, top first.
        prefix: moves applied before the bot's first request (both seats; the bot is not
            asked about them, it sees them in the request's ``history``).
        expect: checks that the position after ``prefix`` is the one described.
        note: a remark on the bot's first move there (e.g. whether it scored).
    """

    key: str
    name: str
    about: str
    hint: str
    deal: Deal
    prefix: tuple[Move, ...] = ()
    expect: Expectation | None = field(default=None, compare=False)
    note: Note | None = field(default=None, compare=False)


def tiles(text: str) -> tuple[Tile, ...]:
    """Tiles written ``"6-6 0-4 1-2"`` (either half first), canonical ``(low, high)``."""
    found = []
    for word in text.split():
        low, high = word.split("-")
        found.append(make_tile(int(low), int(high)))
    return tuple(found)


def deal_of(bot: str, other: str, top: str = "") -> Deal:
    """The deal with ``bot``'s tiles in seat 0, ``other``'s in seat 1 and a boneyard of ``top``
    (drawn first, in the order written) followed by every other tile in canonical order."""
    hands = (tuple(sorted(tiles(bot))), tuple(sorted(tiles(other))))
    first = tiles(top)
    used = {t for hand in hands for t in hand} | set(first)
    if len(used) != sum(len(h) for h in hands) + len(first):
        raise ValueError(f"a tile is dealt twice in {bot!r} / {other!r} / {top!r}")
    rest = tuple(t for t in ALL_TILES if t not in used)
    return Deal(hands=hands, boneyard=first + rest)


def lead(tile: str) -> Move:
    """The lead of ``tile``: laid low half left (or west), high half right (or east)."""
    (low, high) = tiles(tile)[0]
    return play((low, high), None, high)


def put(tile: str, end: str, out: int) -> Move:
    """A play of ``tile`` on ``end`` with ``out`` facing outward."""
    return play(tiles(tile)[0], end, out)


def start(game: Game, rules: Any, scenario: Scenario) -> GameState:
    """The position of ``scenario``: its deal started with the engine, then its prefix applied.

    Raises:
        arena.games.api.IllegalMoveError: if a scripted move is not legal (a bug here).
    """
    state: GameState = game.start_hand(rules, PLAYERS, scenario.deal)
    for move in scenario.prefix:
        state = state.apply(move)
    return state


def default_rules(game: Game) -> Any:
    """The game's default rules (what ``arena check`` announces in ``hello``)."""
    return game.parse_rules({})


# -- expectations --------------------------------------------------------------------------------


def bot_to_move(state: GameState) -> str | None:
    """``None`` when the bot's seat is to move, else what is to move."""
    if state.to_move != BOT_SEAT:
        return f"seat {state.to_move} is to move, not the bot's seat {BOT_SEAT}"
    return None


def legal_is(*expected: Move) -> Expectation:
    """The legal moves are exactly ``expected``, the bot to move."""

    def check(state: GameState) -> str | None:
        legal = state.legal_moves()
        if legal != expected:
            return f"legal moves {legal}, expected {expected}"
        return bot_to_move(state)

    return check


def draws_then_plays(draws: int) -> Expectation:
    """DRAW is the only legal move ``draws`` times in a row, then a play is legal."""

    def check(state: GameState) -> str | None:
        for number in range(draws):
            if state.to_move != BOT_SEAT or state.legal_moves() != (DRAW,):
                return f"draw {number + 1}: legal moves {state.legal_moves()}"
            state = state.apply(DRAW)
        if not any(m.kind == "play" for m in state.legal_moves()):
            return f"after {draws} draws: legal moves {state.legal_moves()}"
        return bot_to_move(state)

    return check


def first_reply(request_id: int, automatic: int = 0) -> Expectation:
    """The bot's first turn of the hand, with ``request_id - 1`` requests to the other seat
    before it: the first request of the check must not have id 1, so that a bot counting its
    own requests is caught. ``automatic``: entries of the history that were no request (an
    automatic opening)."""

    def check(state: GameState) -> str | None:
        view = state.view(BOT_SEAT)
        asked = view.history[automatic:]
        if any(event.seat != OTHER_SEAT for event in asked):
            return f"the bot's seat has moved already: {view.history}"
        if len(asked) != request_id - 1:
            return f"{len(asked)} requests before the bot's first, expected {request_id - 1}"
        if not any(move.kind == "play" for move in view.legal):
            return f"no play is legal: {view.legal}"
        return bot_to_move(state)

    return check


def a_lead(state: GameState) -> str | None:
    """The bot is to lead: every legal move is a play with no end."""
    legal = state.legal_moves()
    if not legal or any(m.kind != "play" or m.end is not None for m in legal):
        return f"not a lead: {legal}"
    return bot_to_move(state)
