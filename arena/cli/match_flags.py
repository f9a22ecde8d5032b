"""The flags of a match: game, length, clocks and each game's rules flags, read into one value."""

from __future__ import annotations

import argparse
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from arena.cli.arg_types import _non_negative, _positive
from arena.cli.errors import UsageError
from arena.games.match import MatchLength
from arena.games.plugin import GamePlugin, RuleSpec
from arena.games.registry import DEFAULT_GAME, GAMES, get_game
from arena.referee.clock import TimeLimits


def _option_text(spec: RuleSpec) -> str:
    """How a rules flag is written in messages: ``--lead``, ``--x/--no-x`` for a switch."""
    option = spec.flag.option
    return f"{option}/--no-{option[2:]}" if spec.flag.is_bool else option


def _value_text(value: Any) -> str:
    """A rules value as typed on the command line (``9-n``, ``2``, ``on``)."""
    if isinstance(value, bool):
        return "on" if value else "off"
    return str(value)


def _choice_parser(spec: RuleSpec) -> Callable[[str], Any]:
    """The argparse ``type`` of a rules flag: the choice whose text is the one given."""
    by_text = {str(choice): choice for choice in spec.flag.choices}
    listed = ", ".join(by_text)

    def parse(text: str) -> Any:
        if text not in by_text:
            raise argparse.ArgumentTypeError(f"{text!r} is not one of {listed}")
        return by_text[text]

    parse.__name__ = spec.name  # argparse names the type in some messages
    return parse


def rule_flag_dests() -> dict[str, tuple[str, str]]:
    """Every game's rules flags: argparse dest -> (rules flag, option as written)."""
    return {
        spec.flag.dest: (spec.name, _option_text(spec))
        for plugin in GAMES.values()
        for spec in plugin.rules
    }


def _target_help() -> str:
    """``play matches to P points (default 100; G is always played to 100)`` for each game G
    with a target of its own."""
    default = GAMES[DEFAULT_GAME].default_target
    fixed = [
        f"{p.name} is always played to {p.match_target}"
        for p in GAMES.values()
        if p.match_target is not None
    ]
    return f"play matches to P points (default {default}" + "".join(f"; {f}" for f in fixed) + ")"


def _add_match_flags(parser: argparse.ArgumentParser) -> None:
    """The flags every command that plays matches shares: game, length, clocks, rules.

    Each game's rules flags come from its plugin's rules dataclass (one argument group per
    game that has any). A rules flag's default is ``None`` here (the game's own default
    applies), so that a flag of another game, given by mistake, can be refused by name
    (:func:`_match_flags`).
    """
    parser.add_argument(
        "--game",
        default=DEFAULT_GAME,
        choices=sorted(GAMES),
        help=f"the game (default {DEFAULT_GAME})",
    )
    length = parser.add_mutually_exclusive_group()
    length.add_argument("--hands", type=_positive, help="play exactly N hands per match")
    length.add_argument("--target", type=_positive, help=_target_help())
    parser.add_argument("--move-ms", type=_positive, default=1000, help="per-move limit (1000)")
    parser.add_argument("--bank-ms", type=_non_negative, default=0, help="time bank (0)")
    parser.add_argument("--startup-ms", type=_positive, default=5000, help="startup limit (5000)")
    added: set[str] = set()
    for plugin in GAMES.values():
        specs = [spec for spec in plugin.rules if spec.flag.dest not in added]
        if not specs:
            continue
        group = parser.add_argument_group(
            f"{plugin.title} rules (docs/rules.md; only with --game {plugin.name})"
        )
        for spec in specs:
            added.add(spec.flag.dest)
            default = f"default {_value_text(spec.default)}"
            if spec.flag.is_bool:
                group.add_argument(
                    spec.flag.option,
                    action=argparse.BooleanOptionalAction,
                    help=f"{spec.flag.help} ({default})",
                )
            else:
                choices = ",".join(str(c) for c in spec.flag.choices)
                group.add_argument(
                    spec.flag.option,
                    type=_choice_parser(spec),
                    metavar="{" + choices + "}",
                    help=f"{spec.flag.help} ({default})",
                )


@dataclass(frozen=True)
class _MatchFlags:
    game: GamePlugin
    rules: Any
    time: TimeLimits
    length: MatchLength


def _rules_flags(args: argparse.Namespace, game: GamePlugin) -> dict[str, Any]:
    """The rules mapping of ``game`` from the flags (its defaults where a flag is not given).

    A rules flag of another game is a usage error naming it and the flags ``game`` takes.
    """
    own = {spec.flag.dest for spec in game.rules}
    for other in GAMES.values():
        if other.name == game.name:
            continue
        given = [
            _option_text(spec)
            for spec in other.rules
            if spec.flag.dest not in own and getattr(args, spec.flag.dest, None) is not None
        ]
        if given:
            takes = [_option_text(spec) for spec in game.rules]
            takes_text = f"--game {game.name} takes " + (_and(takes) if takes else "no rules flags")
            verb = "is a" if len(given) == 1 else "are"
            plural = "" if len(given) == 1 else "s"
            raise UsageError(f"{_and(given)} {verb} {other.name} rules flag{plural}; {takes_text}")
    rules: dict[str, Any] = {}
    for spec in game.rules:
        value = getattr(args, spec.flag.dest, None)
        rules[spec.name] = spec.default if value is None else value
    return rules


def _and(items: list[str]) -> str:
    """``a``, ``a and b``, ``a, b and c``."""
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " and " + items[-1]


def _match_flags(args: argparse.Namespace) -> _MatchFlags:
    """The game, rules, clocks and match length the flags ask for (usage errors named)."""
    game = get_game(args.game)
    rules_map = _rules_flags(args, game)
    try:
        rules = game.parse_rules(rules_map)
        time = TimeLimits(startup_ms=args.startup_ms, move_ms=args.move_ms, bank_ms=args.bank_ms)
    except ValueError as error:
        raise UsageError(str(error)) from None
    own = game.match_target
    if args.hands is not None:
        length = MatchLength(target=None, hands=args.hands)
    elif own is not None and args.target is not None and args.target != own:
        raise UsageError(
            f"--target {args.target}: {game.name} is always played to {own} points (the match "
            f"ends as soon as a score reaches {own}); use --hands N for a fixed number of hands"
        )
    else:
        length = MatchLength(target=args.target or own or game.default_target)
    # `play` seats one bot per command; `tournament` seats --players of its entrants.
    players = args.players if hasattr(args, "players") else len(args.bots)
    wrong = game.check_players(players)
    if wrong is not None:
        what = "--players" if hasattr(args, "players") else "bots"
        raise UsageError(f"{wrong} ({what})")
    return _MatchFlags(game, rules, time, length)
