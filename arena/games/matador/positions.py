"""Matador's positions for ``arena check`` (see :mod:`arena.games.scenario`)."""

from __future__ import annotations

from arena.games.api import DRAW, PASS, GameState
from arena.games.matador.engine import MATADOR_TILES
from arena.games.scenario import (
    BOT_SEAT,
    Scenario,
    a_lead,
    bot_to_move,
    deal_of,
    draws_then_plays,
    first_reply,
    lead,
    legal_is,
    put,
)


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
    return bot_to_move(state)


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
    return bot_to_move(state)


def _forced_matador(state: GameState) -> str | None:
    view = state.view(BOT_SEAT)
    if view.boneyard_size != 0:
        return f"the boneyard holds {view.boneyard_size} tiles"
    if not view.legal or any(m.kind != "play" or m.tile not in MATADOR_TILES for m in view.legal):
        return f"legal moves are not only matadors: {view.legal}"
    if len(view.hand) == len([t for t in view.hand if t in MATADOR_TILES]):
        return "the hand holds only matadors"
    return bot_to_move(state)


MATADOR_FIRST = Scenario(
    key="first_move",
    name="first move",
    about="The other seat led 6-6 (request 1 went to it): a tile goes on a 6 end when its "
    "touching half is a 1 (1 + 6 = 7), so you play 1-2 or 1-3, on either end.",
    hint="ends join when the touching halves sum to seven: on a 6 end, a tile with a 1",
    deal=deal_of(bot="1-2 1-3 0-4 2-4 3-5", other="6-6 0-0 5-5 4-6 0-6"),
    prefix=(lead("6-6"),),
    expect=first_reply(2),
)

MATADOR_RULES: tuple[Scenario, ...] = (
    Scenario(
        key="lead",
        name="the lead",
        about='You hold the highest double, so you lead: any tile of your hand, with "end": null.',
        hint='to lead, play a tile of your hand with "end": null',
        deal=deal_of(bot="6-6 1-2 0-3 4-5 2-4", other="5-5 1-1 0-2 3-6 1-5"),
        expect=a_lead,
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
        expect=draws_then_plays(3),
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
        expect=legal_is(PASS),
    ),
)
