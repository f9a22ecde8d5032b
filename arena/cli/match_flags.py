"""The flags of a match: game, length, clocks and each game's rules flags, read into one value."""

from __future__ import annotations

import argparse
from dataclasses import dataclass
from typing import Any

from arena.cli.arg_types import _non_negative, _positive
from arena.cli.errors import UsageError
from arena.games.api import Game
from arena.games.match import MatchLength, match_target
from arena.games.registry import GAMES, get_game
from arena.referee.clock import TimeLimits


def _hand_size(text: str) -> int | str:
    if text == "9-n":
        return text
    if text in ("5", "7"):
        return int(text)
    raise argparse.ArgumentTypeError(f"{text!r} is not one of 5, 7, 9-n")


#: Each game's rules flags: (rules flag, argparse dest, option as written, default).
_RULE_FLAGS: dict[str, tuple[tuple[str, str, str, Any], ...]] = {
    "matador": (
        ("hand_size", "hand_size", "--hand-size", 5),
        ("lead", "lead", "--lead", "any"),
        ("draw_when_playable", "draw_when_playable", "--draw-when-playable", "matador_only"),
        ("reserve", "reserve", "--reserve", 0),
        ("draw_mode", "draw_mode", "--draw-mode", "until_playable"),
    ),
    "fives": (
        (
            "spinner_sides_first",
            "spinner_sides_first",
            "--spinner-sides-first/--no-spinner-sides-first",
            True,
        ),
        ("block_winner", "block_winner", "--block-winner", "more_points"),
    ),
}


def _add_match_flags(parser: argparse.ArgumentParser) -> None:
    """The flags every command that plays matches shares: game, length, clocks, rules.

    A rules flag's default is ``None`` here (the game's own default applies), so that a flag
    of the other game, given by mistake, can be refused by name (:func:`_match_flags`).
    """
    parser.add_argument("--game", default="matador", choices=sorted(GAMES), help="the game")
    length = parser.add_mutually_exclusive_group()
    length.add_argument("--hands", type=_positive, help="play exactly N hands per match")
    length.add_argument(
        "--target",
        type=_positive,
        help="play matches to P points (default 100; fives is always played to 100)",
    )
    parser.add_argument("--move-ms", type=_positive, default=1000, help="per-move limit (1000)")
    parser.add_argument("--bank-ms", type=_non_negative, default=0, help="time bank (0)")
    parser.add_argument("--startup-ms", type=_positive, default=5000, help="startup limit (5000)")
    rules = parser.add_argument_group("Matador rules (docs/rules.md; only with --game matador)")
    rules.add_argument("--hand-size", type=_hand_size, help="5 (default), 7 or 9-n")
    rules.add_argument(
        "--lead", choices=["any", "highest_double"], help="who may lead what (default any)"
    )
    rules.add_argument(
        "--draw-when-playable",
        choices=["matador_only", "never", "always"],
        help="default matador_only",
    )
    rules.add_argument("--reserve", type=int, choices=[0, 2], help="default 0")
    rules.add_argument(
        "--draw-mode", choices=["until_playable", "one_then_pass"], help="default until_playable"
    )
    fives = parser.add_argument_group("Fives rules (docs/rules.md; only with --game fives)")
    fives.add_argument(
        "--spinner-sides-first",
        action=argparse.BooleanOptionalAction,
        help="the spinner's north and south open only once both its sides are covered "
        "(default: on)",
    )
    fives.add_argument(
        "--block-winner",
        choices=["more_points", "fewer_pips"],
        help="who wins a blocked hand (default more_points)",
    )


@dataclass(frozen=True)
class _MatchFlags:
    game: Game
    rules: Any
    time: TimeLimits
    length: MatchLength


def _rules_flags(args: argparse.Namespace, game: str) -> dict[str, Any]:
    """The rules mapping of ``game`` from the flags (its defaults where a flag is not given).

    A rules flag of another game is a usage error naming it and the flags ``game`` takes.
    """
    for other, flags in _RULE_FLAGS.items():
        if other == game:
            continue
        given = [
            option
            for _name, dest, option, _default in flags
            if getattr(args, dest, None) is not None
        ]
        if given:
            own = [option for _name, _dest, option, _default in _RULE_FLAGS.get(game, ())]
            takes = f"--game {game} takes " + (_and(own) if own else "no rules flags")
            verb = "is a" if len(given) == 1 else "are"
            plural = "" if len(given) == 1 else "s"
            raise UsageError(f"{_and(given)} {verb} {other} rules flag{plural}; {takes}")
    rules: dict[str, Any] = {}
    for name, dest, _option, default in _RULE_FLAGS.get(game, ()):
        value = getattr(args, dest, None)
        rules[name] = default if value is None else value
    return rules


def _and(items: list[str]) -> str:
    """``a``, ``a and b``, ``a, b and c``."""
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " and " + items[-1]


def _match_flags(args: argparse.Namespace) -> _MatchFlags:
    """The game, rules, clocks and match length the flags ask for (usage errors named)."""
    game = get_game(args.game)
    rules_map = _rules_flags(args, game.name)
    try:
        rules = game.parse_rules(rules_map)
        time = TimeLimits(startup_ms=args.startup_ms, move_ms=args.move_ms, bank_ms=args.bank_ms)
    except ValueError as error:
        raise UsageError(str(error)) from None
    own = match_target(game)
    if args.hands is not None:
        length = MatchLength(target=None, hands=args.hands)
    elif own is not None and args.target is not None and args.target != own:
        raise UsageError(
            f"--target {args.target}: {game.name} is always played to {own} points (the match "
            f"ends as soon as a score reaches {own}); use --hands N for a fixed number of hands"
        )
    else:
        length = MatchLength(target=args.target or own or 100)
    # `play` seats one bot per command; `tournament` seats --players of its entrants.
    players = args.players if hasattr(args, "players") else len(args.bots)
    low = getattr(game, "min_players", 2)
    high = getattr(game, "max_players", 4)
    if not low <= players <= high:
        span = f"{low}" if low == high else f"{low} to {high}"
        what = "--players" if hasattr(args, "players") else "bots"
        raise UsageError(f"{game.name} is for {span} players, not {players} ({what})")
    return _MatchFlags(game, rules, time, length)
