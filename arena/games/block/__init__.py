"""Block (the plain blocking game, as OpenSpiel's ``python_block_dominoes``): the engine
(:mod:`.engine`), ``arena check``'s positions (:mod:`.positions`) and the plugin that registers
the game (:data:`PLUGIN`)."""

from __future__ import annotations

from arena.games.block.engine import (
    BLOCK,
    HAND_SIZE,
    LEFT,
    PLAYERS,
    RIGHT,
    BlockRules,
    BlockState,
    deal,
    parse_rules,
    rules_dict,
    start_hand,
)
from arena.games.block.positions import BLOCK_FIRST, BLOCK_RULES
from arena.games.plugin import Drawing, GamePlugin, TableFeatures

PLUGIN = GamePlugin(
    name=BLOCK.name,
    title="Block",
    summary="the plain blocking game: tiles match by equal halves, nobody draws, a stuck "
    "player passes; the lighter hand scores the other's pips",
    engine=BLOCK,
    rules_type=BlockRules,
    min_players=PLAYERS,
    max_players=PLAYERS,
    match_target=None,
    automatic_opening=False,
    features=TableFeatures(draws=False),
    drawing=Drawing(line_ends=(LEFT, RIGHT), boneyard_label="out of play"),
    check_first=BLOCK_FIRST,
    check_rules=BLOCK_RULES,
    rules_doc="rules.md#block",
)

__all__ = [
    "BLOCK",
    "HAND_SIZE",
    "LEFT",
    "PLAYERS",
    "PLUGIN",
    "RIGHT",
    "BlockRules",
    "BlockState",
    "deal",
    "parse_rules",
    "rules_dict",
    "start_hand",
]
