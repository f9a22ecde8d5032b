"""Block's positions for ``arena check`` (see :mod:`arena.games.scenario`).

Seat 0 always leads in Block, and the bot sits in seat 0: its first request is the lead
(request 1), so the first-hand position is the lead itself.
"""

from __future__ import annotations

from arena.games.api import PASS, GameState, play
from arena.games.scenario import Scenario, a_lead, deal_of, first_reply, lead, legal_is, put

_FIRST_REPLY = first_reply(1)


def _first_lead(state: GameState) -> str | None:
    return _FIRST_REPLY(state) or a_lead(state)


BLOCK_FIRST = Scenario(
    key="first_move",
    name="first move",
    about="Seat 0 leads in Block and you sit in seat 0: request 1 is the lead, any tile of your "
    'hand with "end": null.',
    hint='to lead, play a tile of your hand with "end": null',
    deal=deal_of(bot="6-6 1-2 0-3 4-5 2-4 1-3 0-0", other="5-5 1-1 0-2 3-6 1-5 2-2 4-4"),
    expect=_first_lead,
)

BLOCK_RULES: tuple[Scenario, ...] = (
    Scenario(
        key="two_ends",
        name="a tile that fits two ends",
        about="You led 3-4 and the other seat played 4-5 on the right: the ends are 3 and 5, and "
        "your 3-5 fits both (on the left with 5 outward, on the right with 3 outward).",
        hint="a tile joins an end whose value equals one of its halves; the other half faces "
        "outward: send the tile, the end and the `out` exactly as one of the legal moves lists "
        "them",
        deal=deal_of(bot="3-4 3-5 0-0 1-1 0-1 2-2 0-2", other="4-5 6-6 1-6 2-6 4-4 4-6 1-2"),
        prefix=(lead("3-4"), put("4-5", "right", 5)),
        expect=legal_is(play((3, 5), "left", 5), play((3, 5), "right", 3)),
    ),
    Scenario(
        key="forced_pass",
        name="forced pass",
        about="You led 6-6 and the other seat played 1-6: the ends are 1 and 6 and nothing in "
        "your hand fits; nobody draws in Block, so PASS is the only legal move.",
        hint='when PASS is the only legal move, send {"action": "pass"}; in Block there is no '
        "drawing",
        deal=deal_of(bot="6-6 0-0 2-2 3-3 0-2 2-3 0-3", other="1-6 1-1 4-4 5-5 4-5 1-4 1-5"),
        prefix=(lead("6-6"), put("1-6", "left", 1)),
        expect=legal_is(PASS),
    ),
)
