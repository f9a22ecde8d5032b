"""What every registered game's plugin must give, checked for each game of the registry: the
rules dataclass's flags, the protocol's rules message, the CLI's flags, the player range and
``arena check``'s positions. A new game that misses one fails here, by name."""

from __future__ import annotations

from typing import Literal, get_args, get_type_hints

import msgspec
import pytest

from arena.cli.parser import _build_parser
from arena.games.plugin import GamePlugin, rule_specs
from arena.games.registry import DEFAULT_GAME, GAMES, get_game
from arena.games.scenario import start
from arena.wire import rules_from_wire, rules_to_wire
from protocol import messages as m

PLUGINS = [pytest.param(plugin, id=name) for name, plugin in GAMES.items()]


def test_the_registry_holds_the_default_and_refuses_unknown_names() -> None:
    """DEFAULT_GAME is registered; an unknown name is a ValueError naming the known games."""
    assert DEFAULT_GAME in GAMES
    with pytest.raises(ValueError, match="unknown game 'go'; known games: block, fives, matador"):
        get_game("go")


@pytest.mark.parametrize("plugin", PLUGINS)
def test_rules_flags_round_trip_through_the_engine_and_the_wire(plugin: GamePlugin) -> None:
    """Each flag's default is one of its choices; the engine's rules mapping has exactly the
    dataclass's flags; the protocol's rules message tagged with the game's name carries them."""
    defaults = plugin.rules_dict(plugin.parse_rules({}))
    assert list(defaults) == [spec.name for spec in rule_specs(plugin.rules_type)]
    for spec in plugin.rules:
        assert spec.default in spec.flag.choices, spec.name
        assert defaults[spec.name] == spec.default
        for choice in spec.flag.choices:
            rules = plugin.rules_dict(plugin.parse_rules({spec.name: choice}))
            assert rules_from_wire(rules_to_wire(plugin.name, rules)) == rules
    config = rules_to_wire(plugin.name, defaults)
    assert config.__struct_config__.tag == plugin.name
    assert [f.name for f in msgspec.structs.fields(config)] == list(defaults)


@pytest.mark.parametrize("plugin", PLUGINS)
def test_the_protocol_names_the_game(plugin: GamePlugin) -> None:
    """``hello.game`` may be the game's name."""
    literal = get_type_hints(m.Hello)["game"]
    assert literal.__origin__ is Literal
    assert plugin.name in get_args(literal)


@pytest.mark.parametrize("plugin", PLUGINS)
def test_the_cli_offers_the_game_and_its_rules_flags(plugin: GamePlugin) -> None:
    """``--game NAME`` is a choice, and each rules flag is an option of the game's group."""
    parser = _build_parser()
    args = parser.parse_args(["play", "a", "b", "--game", plugin.name])
    assert args.game == plugin.name
    play = parser._subparsers._group_actions[0].choices["play"]  # type: ignore[union-attr]
    groups = {g.title: [a.dest for a in g._group_actions] for g in play._action_groups}
    title = f"{plugin.title} rules (docs/rules.md; only with --game {plugin.name})"
    if plugin.rules:
        assert groups[title] == [spec.flag.dest for spec in plugin.rules]
    else:
        assert title not in groups


@pytest.mark.parametrize("plugin", PLUGINS)
def test_player_range_and_check_positions(plugin: GamePlugin) -> None:
    """The player range is refused outside by the plugin's own message; every ``arena check``
    position reaches what it describes."""
    assert plugin.check_players(plugin.min_players) is None
    assert plugin.check_players(plugin.max_players + 1) == (
        f"{plugin.name} is for {plugin.players_text()} players, not {plugin.max_players + 1}"
    )
    rules = plugin.parse_rules({})
    for scenario in (plugin.check_first, *plugin.check_rules):
        state = start(plugin, rules, scenario)
        assert scenario.expect is not None
        assert scenario.expect(state) is None, (plugin.name, scenario.key)


@pytest.mark.parametrize("plugin", PLUGINS)
def test_features_match_the_views(plugin: GamePlugin) -> None:
    """The table features the plugin declares are the fields its views carry."""
    rules = plugin.parse_rules({})
    state = plugin.start_hand(rules, plugin.min_players, plugin.deal(rules, plugin.min_players, 3))
    view = state.view(0)
    assert (view.end_count is not None) == plugin.features.end_count
    assert bool(view.history) == plugin.automatic_opening
    assert {p for p, _v in view.ends} <= set(plugin.drawing.end_names)
    assert any(mv.kind == "draw" for mv in state.legal_moves()) <= plugin.features.draws
