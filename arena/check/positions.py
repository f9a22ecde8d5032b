"""The scripted positions of ``arena check``: real deals started with the engines, real moves.

Each :class:`Scenario` is one hand of a game: a deal written out tile by tile, started with the
game's own ``start_hand``, and a scripted line of moves (for both seats) applied with ``apply``
before the bot is asked anything. The position reached is what the test is about (a blank end,
a forced pass...); the requests built from it are exactly the ones the referee would send
there. Pure: no I/O, no clock, no randomness (the dealt hands of ``arena check``'s second hand
come from the engine's seeded ``deal``).

The bot always sits in seat :data:`BOT_SEAT` of a two-player match; the checker plays seat
:data:`OTHER_SEAT`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from arena.games.api import DRAW, PASS, Deal, Game, GameState, Move, play
from arena.games.fives import FIVES
from arena.games.matador import MATADOR, MATADOR_TILES
from arena.games.registry import get_game
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
    """The lead of ``tile`` (Matador): laid low half left, high half right."""
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


def _bot_to_move(state: GameState) -> str | None:
    if state.to_move != BOT_SEAT:
        return f"seat {state.to_move} is to move, not the bot's seat {BOT_SEAT}"
    return None


def _legal_is(*expected: Move) -> Expectation:
    def check(state: GameState) -> str | None:
        legal = state.legal_moves()
        if legal != expected:
            return f"legal moves {legal}, expected {expected}"
        return _bot_to_move(state)

    return check


def _draws_then_plays(draws: int) -> Expectation:
    """DRAW is the only legal move ``draws`` times in a row, then a play is legal."""

    def check(state: GameState) -> str | None:
        for number in range(draws):
            if state.to_move != BOT_SEAT or state.legal_moves() != (DRAW,):
                return f"draw {number + 1}: legal moves {state.legal_moves()}"
            state = state.apply(DRAW)
        if not any(m.kind == "play" for m in state.legal_moves()):
            return f"after {draws} draws: legal moves {state.legal_moves()}"
        return _bot_to_move(state)

    return check


def _matador_lead(state: GameState) -> str | None:
    legal = state.legal_moves()
    if not legal or any(m.kind != "play" or m.end is not None for m in legal):
        return f"not a lead: {legal}"
    return _bot_to_move(state)


def _blank_end(state: GameState) -> str | None:
    view = state.view(BOT_SEAT)
    blank = [p for p, v in view.ends if v == 0]
    other = [p for p, v in view.ends if v != 0]
    on_blank = [m for m in view.legal if m.end in blank]
    if not blank or not other or not on_blank:
        return f"no blank end with a legal play: ends {view.ends}"
    if any(m.tile not in MATADOR_TILES for m in on_blank):
        return f"a non-matador is legal on the blank end: {on_blank}"
    if not any(m.tile not in MATADOR_TILES for m in view.legal):
        return "no ordinary play on the other end"
    if not any(0 in t and t not in MATADOR_TILES for t in view.hand):
        return "the hand holds no ordinary blank tile (the trap)"
    return _bot_to_move(state)


def _both_outs(state: GameState) -> str | None:
    legal = state.legal_moves()
    plays = [m for m in legal if m.kind == "play"]
    if not plays or any(m.tile not in MATADOR_TILES for m in plays):
        return f"not only matador plays: {legal}"
    for tile in {m.tile for m in plays}:
        assert tile is not None
        for end in ("left", "right"):
            outs = {m.out for m in plays if m.tile == tile and m.end == end}
            if tile[0] != tile[1] and outs != set(tile):
                return f"{tile} on {end}: outs {outs}"
    if state.view(BOT_SEAT).boneyard_size == 0 or DRAW not in legal:
        return "DRAW should be legal too (the boneyard is open)"
    return _bot_to_move(state)


def _forced_matador(state: GameState) -> str | None:
    view = state.view(BOT_SEAT)
    if view.boneyard_size != 0:
        return f"the boneyard holds {view.boneyard_size} tiles"
    if not view.legal or any(m.kind != "play" or m.tile not in MATADOR_TILES for m in view.legal):
        return f"legal moves are not only matadors: {view.legal}"
    if len(view.hand) == len([t for t in view.hand if t in MATADOR_TILES]):
        return "the hand holds only matadors"
    return _bot_to_move(state)


def _fives_arms(state: GameState) -> str | None:
    view = state.view(BOT_SEAT)
    ends = dict(view.ends)
    if "north" not in ends or "south" not in ends:
        return f"the spinner's arms are closed: ends {view.ends}"
    if not view.legal or any(m.end not in ("north", "south") for m in view.legal):
        return f"not only plays on the arms: {view.legal}"
    return _bot_to_move(state)


def scoring_plays(state: GameState) -> list[tuple[Move, int]]:
    """The legal plays that score, with the points each scores (Fives)."""
    seat = state.to_move
    if seat is None:
        return []
    found = []
    for move in state.legal_moves():
        if move.kind == "play":
            points = state.apply(move).scores[seat] - state.scores[seat]
            if points > 0:
                found.append((move, points))
    return found


def _scoring_note(state: GameState, move: Move) -> str:
    """Whether the bot's move scored, and if not, what would have."""
    seat = state.to_move
    assert seat is not None
    points = state.apply(move).scores[seat] - state.scores[seat]
    if points:
        return f"it scored {points}"
    best, most = max(scoring_plays(state), key=lambda found: found[1])
    return f"legal; {best} would have scored {most}"


def _scoring(state: GameState) -> str | None:
    plays = [m for m in state.legal_moves() if m.kind == "play"]
    scoring = scoring_plays(state)
    if not scoring or len(scoring) == len(plays):
        return f"expected scoring and non-scoring plays: {plays}, scoring {scoring}"
    return _bot_to_move(state)


def _first_reply(request_id: int, automatic: int = 0) -> Expectation:
    """The bot's first turn of the hand, with ``request_id - 1`` requests to the other seat
    before it: the first request of the check must not have id 1, so that a bot counting its
    own requests is caught. ``automatic``: entries of the history that were no request (Fives'
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
        return _bot_to_move(state)

    return check


# -- Matador -------------------------------------------------------------------------------------

MATADOR_FIRST = Scenario(
    key="first_move",
    name="first move",
    about="The other seat led 6-6 (request 1 went to it): a tile goes on a 6 end when its "
    "touching half is a 1 (1 + 6 = 7), so you play 1-2 or 1-3, on either end.",
    hint="ends join when the touching halves sum to seven: on a 6 end, a tile with a 1",
    deal=deal_of(bot="1-2 1-3 0-4 2-4 3-5", other="6-6 0-0 5-5 4-6 0-6"),
    prefix=(lead("6-6"),),
    expect=_first_reply(2),
)

MATADOR_RULES: tuple[Scenario, ...] = (
    Scenario(
        key="lead",
        name="the lead",
        about='You hold the highest double, so you lead: any tile of your hand, with "end": null.',
        hint='to lead, play a tile of your hand with "end": null',
        deal=deal_of(bot="6-6 1-2 0-3 4-5 2-4", other="5-5 1-1 0-2 3-6 1-5"),
        expect=_matador_lead,
    ),
    Scenario(
        key="blank_ends",
        name="blank ends",
        about="The ends are 0 (blank) and 4: only a matador (0-0, 1-6, 2-5, 3-4) goes on the "
        "blank end, so your 0-2 and 0-5 cannot be played; 3-5 goes on the 4 (3 + 4 = 7).",
        hint="ends join when the touching halves sum to seven, and a blank end takes only a "
        "matador (0-0, 1-6, 2-5, 3-4): a tile with a 0 does not match a blank end",
        deal=deal_of(bot="0-2 0-5 3-4 1-6 3-5", other="6-6 0-4 1-1 2-2 5-5"),
        prefix=(lead("0-4"),),
        expect=_blank_end,
    ),
    Scenario(
        key="matador_orientation",
        name="matador orientation",
        about="The ends are 2 and 6 and your only playable tile is the matador 2-5: it goes on "
        "either end with either half outward (four plays), or you may draw.",
        hint="a matador goes on any end with the half of your choice outward: send the tile, "
        "the end and the `out` exactly as one of the legal moves lists them",
        deal=deal_of(bot="2-5 0-3 0-4 3-3 4-4", other="6-6 2-6 1-1 5-5 0-5"),
        prefix=(lead("2-6"),),
        expect=_both_outs,
    ),
    Scenario(
        key="draw_chain",
        name="draw chain",
        about="The ends are 5 and 6 and nothing in your hand fits: DRAW is the only legal move, "
        "three times in a row (you are asked again after each draw), then the 1-3 you drew "
        "fits the 6.",
        hint='when DRAW is the only legal move, send {"action": "draw"}; you are then asked '
        "again at once with the tile you drew in your hand",
        deal=deal_of(bot="0-3 0-4 3-3 4-4 3-5", other="6-6 5-6 0-6 4-6 5-5", top="0-5 4-5 1-3"),
        prefix=(lead("5-6"),),
        expect=_draws_then_plays(3),
    ),
    Scenario(
        key="forced_matador",
        name="forced matador",
        about="Both ends are blank and the boneyard is empty (you drew all of it): your only "
        "legal moves are your matadors; no draw, no pass.",
        hint="when the boneyard is empty you can neither draw nor pass while you can play: "
        "play one of the matadors the request lists",
        deal=deal_of(bot="0-1 0-2 0-3 1-2 2-3", other="6-6 0-0 5-5 4-4 3-3"),
        prefix=(lead("0-0"), *(DRAW,) * 18),
        expect=_forced_matador,
    ),
    Scenario(
        key="forced_pass",
        name="forced pass",
        about="The ends are 6 and 0 (blank), the boneyard is empty and nothing in your hand "
        "fits: PASS is the only legal move.",
        hint='when PASS is the only legal move, send {"action": "pass"}',
        deal=deal_of(bot="6-6 0-0 2-2 4-4 5-5", other="0-1 0-2 0-3 0-4 0-5"),
        prefix=(lead("0-0"), *(DRAW,) * 18, put("1-6", "left", 6)),
        expect=_legal_is(PASS),
    ),
)

# -- Fives ---------------------------------------------------------------------------------------

FIVES_FIRST = Scenario(
    key="first_move",
    name="first move",
    about="The automatic opening laid your 6-6 (the spinner); the other seat drew twice and "
    "played 3-6 on west (requests 1 to 3 went to it): you play on west (3) or east (6).",
    hint="in Fives tiles match by equal halves: on a 3 end a tile with a 3, on a 6 end a tile "
    "with a 6",
    deal=deal_of(
        bot="6-6 0-6 2-6 1-3 2-2 4-5 0-1",
        other="0-0 1-1 3-3 4-4 5-5 0-2 1-2",
        top="0-3 3-6",
    ),
    prefix=(DRAW, DRAW, put("3-6", "west", 3)),
    expect=_first_reply(4, automatic=1),
)

FIVES_RULES: tuple[Scenario, ...] = (
    Scenario(
        key="spinner_arms",
        name="spinner arms",
        about="The spinner 5-5 has a tile on both sides, so its north and south arms are open: "
        "your 3-5 fits only there (west is 1, east is 2).",
        hint="once both sides of the spinner are covered its north and south ends are open: "
        'play there with "end": "north" or "south" as the legal moves list it',
        deal=deal_of(bot="1-5 3-5 0-3 0-4 3-3 4-4 0-0", other="5-5 2-5 1-1 1-2 2-2 1-3 2-4"),
        prefix=(put("1-5", "west", 1), put("2-5", "east", 2)),
        expect=_fives_arms,
    ),
    Scenario(
        key="scoring",
        name="a scoring play",
        about="After the opening 6-6 (count 12), 3-6 on either side makes the count 15, a "
        "multiple of five that scores; your other plays do not score.",
        hint="any legal move is accepted; a play scores when the count of the open ends "
        "after it is a multiple of five",
        deal=deal_of(bot="3-6 2-6 0-1 1-1 0-2 1-2 0-0", other="6-6 5-5 4-4 3-3 2-2 0-5 4-5"),
        expect=_scoring,
        note=_scoring_note,
    ),
    Scenario(
        key="draw_until_playable",
        name="draw until playable",
        about="After the opening 6-6 nothing in your hand has a 6: DRAW is the only legal move "
        "three times in a row, until the 1-6 you drew fits.",
        hint='when DRAW is the only legal move, send {"action": "draw"}; you are asked again '
        "at once with the tile you drew in your hand",
        deal=deal_of(
            bot="0-1 0-2 1-2 3-4 0-0 1-1 2-3",
            other="6-6 5-5 4-4 3-3 2-2 0-5 3-5",
            top="4-5 0-3 1-6",
        ),
        expect=_draws_then_plays(3),
    ),
    Scenario(
        key="pass",
        name="pass",
        about="The other seat holds every 6 and the spinner 6-6 is down; you drew the whole "
        "stock and still nothing fits: PASS is the only legal move.",
        hint="when PASS is the only legal move (nothing fits and the stock is empty), send "
        '{"action": "pass"}',
        deal=deal_of(bot="0-0 0-1 0-2 0-3 0-4 0-5 1-1", other="6-6 0-6 1-6 2-6 3-6 4-6 5-6"),
        prefix=(DRAW,) * 14,
        expect=_legal_is(PASS),
    ),
)

#: Per game: the scenario of the first hand (its first request is also the request-id step) and
#: the rule scenarios, each played as a one-hand match of its own.
SCENARIOS: dict[str, tuple[Scenario, tuple[Scenario, ...]]] = {
    MATADOR.name: (MATADOR_FIRST, MATADOR_RULES),
    FIVES.name: (FIVES_FIRST, FIVES_RULES),
}


def scenarios_of(game_name: str) -> tuple[Scenario, tuple[Scenario, ...]]:
    """The first-hand scenario and the rule scenarios of a game (``ValueError`` if unknown)."""
    get_game(game_name)
    try:
        return SCENARIOS[game_name]
    except KeyError:
        raise ValueError(f"arena check has no positions for the game {game_name!r}") from None


def check_scenario(game: Game, scenario: Scenario) -> str | None:
    """What is wrong with ``scenario``'s position (``None`` when it is as described)."""
    state = start(game, default_rules(game), scenario)
    return None if scenario.expect is None else scenario.expect(state)
