"""Fives' positions for ``arena check`` (see :mod:`arena.games.scenario`)."""

from __future__ import annotations

from arena.games.api import DRAW, PASS, GameState, Move
from arena.games.scenario import (
    BOT_SEAT,
    Scenario,
    bot_to_move,
    deal_of,
    draws_then_plays,
    first_reply,
    legal_is,
    put,
)


def _fives_arms(state: GameState) -> str | None:
    view = state.view(BOT_SEAT)
    ends = dict(view.ends)
    if "north" not in ends or "south" not in ends:
        return f"the spinner's arms are closed: ends {view.ends}"
    if not view.legal or any(m.end not in ("north", "south") for m in view.legal):
        return f"not only plays on the arms: {view.legal}"
    return bot_to_move(state)


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
    return bot_to_move(state)


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
    expect=first_reply(4, automatic=1),
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
        expect=draws_then_plays(3),
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
        expect=legal_is(PASS),
    ),
)
