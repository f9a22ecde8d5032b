"""Matador (Russian dominoes): the engine (:mod:`.engine`), ``arena check``'s positions
(:mod:`.positions`) and the plugin that registers the game (:data:`PLUGIN`)."""

from __future__ import annotations

from arena.games.matador.engine import (
    LEFT,
    MATADOR,
    MATADOR_TILES,
    RIGHT,
    MatadorRules,
    MatadorState,
    _copy,
    deal,
    find_leader,
    parse_rules,
    rules_dict,
    start_hand,
)
from arena.games.matador.positions import MATADOR_FIRST, MATADOR_RULES
from arena.games.plugin import Drawing, GamePlugin, TableFeatures

PLUGIN = GamePlugin(
    name=MATADOR.name,
    title="Matador",
    summary="Russian dominoes: ends join when the touching halves sum to seven, and the "
    "matadors (0-0, 1-6, 2-5, 3-4) go anywhere",
    engine=MATADOR,
    rules_type=MatadorRules,
    min_players=MATADOR.min_players,
    max_players=MATADOR.max_players,
    match_target=None,
    automatic_opening=False,
    features=TableFeatures(),
    drawing=Drawing(
        special_tiles=frozenset(MATADOR_TILES),
        special_label="matador",
        line_ends=(LEFT, RIGHT),
        join_rule="touching halves sum to 7",
    ),
    check_first=MATADOR_FIRST,
    check_rules=MATADOR_RULES,
    rules_doc="rules.md#11-players",
)

__all__ = [
    "LEFT",
    "MATADOR",
    "MATADOR_TILES",
    "PLUGIN",
    "RIGHT",
    "MatadorRules",
    "MatadorState",
    "_copy",
    "deal",
    "find_leader",
    "parse_rules",
    "rules_dict",
    "start_hand",
]
