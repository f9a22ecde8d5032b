"""How the viewers draw a game's table, from its plugin's data (no game is named here).

A game's plugin (:class:`arena.games.plugin.GamePlugin`) says which table features its boards
have (:class:`~arena.games.plugin.TableFeatures`: a spinner with arms, the count of the open
ends, scoring during a hand, drawing from the boneyard) and how they are drawn
(:class:`~arena.games.plugin.Drawing`: the names of the ends, the special tiles and their
label, the word for undealt tiles nobody draws, the multiple of the count that scores). The
terminal viewer reads them from each board (:class:`arena.view.steps.Board`); the HTML viewer
gets them as the page's *table data* (:func:`table_data`), a JSON element of its own beside the
viewer data, which ``viewer.js`` draws by feature.

Pure.
"""

from __future__ import annotations

from typing import Any

from arena.games.plugin import Drawing, GamePlugin, TableFeatures
from arena.games.registry import GAMES

#: The version of the table data: viewer.js's ``TABLE_DATA_VERSION`` must match.
TABLE_DATA_VERSION = 1

#: Small numbers in words, for the sentences about the count (``a multiple of five``).
_WORDS = ("zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten")


def multiple_words(multiple: int) -> str:
    """``five`` for 5: a count's scoring multiple as the viewers say it (digits above ten)."""
    return _WORDS[multiple] if 0 <= multiple < len(_WORDS) else str(multiple)


def count_scores(count: int, multiple: int) -> bool:
    """Whether a count of the open ends scores: a positive multiple of ``multiple`` (a game
    whose count scores nothing has ``multiple`` 0)."""
    return multiple > 0 and count > 0 and count % multiple == 0


def table_data(plugin: GamePlugin) -> dict[str, Any]:
    """What ``viewer.js`` needs to draw ``plugin``'s table, JSON-ready (docs/viewer.md).

    - ``title``: the game's title as printed;
    - ``features``: ``spinner``, ``end_count``, ``hand_scoring`` and ``draws``, each a bool;
    - ``line_ends``: the line's two ends, the one whose plays go before the first tile first;
    - ``arm_ends``: the spinner's arms (empty without one);
    - ``special_label``: what a special tile is called (empty when the game has none; the
      tiles are the viewer data's ``special``);
    - ``join_rule``: how tiles join, a short phrase (``"equal halves"``);
    - ``boneyard_label``: what the undealt tiles are called on the table (``"boneyard"``
      where players draw);
    - ``count_multiple``: the multiple of the count that scores (0: none), with
      ``count_multiple_words``.
    """
    features, drawing = plugin.features, plugin.drawing
    multiple = drawing.count_multiple
    return {
        "table_data": TABLE_DATA_VERSION,
        "game": plugin.name,
        "title": plugin.title,
        "features": {
            "spinner": features.spinner,
            "end_count": features.end_count,
            "hand_scoring": features.hand_scoring,
            "draws": features.draws,
        },
        "line_ends": list(drawing.line_ends),
        "arm_ends": list(drawing.arm_ends),
        "special_label": drawing.special_label,
        "join_rule": drawing.join_rule,
        "boneyard_label": boneyard_label(features, drawing),
        "count_multiple": multiple,
        "count_multiple_words": multiple_words(multiple) if multiple else "",
    }


def boneyard_label(features: TableFeatures, drawing: Drawing) -> str:
    """What the viewers call the undealt tiles: ``boneyard`` where players draw from them,
    else the game's word for them (``out of play``)."""
    return "boneyard" if features.draws else drawing.boneyard_label


def table_data_of(game: str) -> dict[str, Any] | None:
    """:func:`table_data` of the game called ``game``, or ``None`` for one the arena does not
    know (the viewer then draws a plain line)."""
    plugin = GAMES.get(game)
    return None if plugin is None else table_data(plugin)
