"""Fives (all fives, muggins): the engine (:mod:`.engine`), ``arena check``'s positions
(:mod:`.positions`) and the plugin that registers the game (:data:`PLUGIN`)."""

from __future__ import annotations

from arena.games.fives.engine import (
    EAST,
    FIVES,
    HAND_SIZE,
    NORTH,
    PLAYERS,
    POSITIONS,
    SOUTH,
    TARGET,
    WEST,
    FivesRules,
    FivesState,
    ScoreEvent,
    deal,
    parse_rules,
    rules_dict,
    start_hand,
)
from arena.games.fives.positions import FIVES_FIRST, FIVES_RULES
from arena.games.plugin import Drawing, GamePlugin, TableFeatures

PLUGIN = GamePlugin(
    name=FIVES.name,
    title="Fives",
    summary="all fives with a spinner: tiles match by equal halves, and a count of the open "
    "ends that is a multiple of five scores at once; first to 100",
    engine=FIVES,
    rules_type=FivesRules,
    min_players=PLAYERS,
    max_players=PLAYERS,
    match_target=TARGET,
    automatic_opening=True,
    features=TableFeatures(spinner=True, end_count=True, hand_scoring=True),
    drawing=Drawing(
        line_ends=(WEST, EAST),
        arm_ends=(NORTH, SOUTH),
        boneyard_label="stock",
        join_rule="equal halves",
        count_multiple=5,
    ),
    check_first=FIVES_FIRST,
    check_rules=FIVES_RULES,
    rules_doc="rules.md#fives",
    default_target=TARGET,
)

__all__ = [
    "EAST",
    "FIVES",
    "HAND_SIZE",
    "NORTH",
    "PLAYERS",
    "PLUGIN",
    "POSITIONS",
    "SOUTH",
    "TARGET",
    "WEST",
    "FivesRules",
    "FivesState",
    "ScoreEvent",
    "deal",
    "parse_rules",
    "rules_dict",
    "start_hand",
]
