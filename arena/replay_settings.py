"""What a replay says about how its match was played, checked before anything uses it.

A replay is a file anyone can edit, so every setting it carries is checked here with the limits
the command-line flags enforce, before ``arena rematch`` plays the match again or ``arena
verify`` and the viewers re-run it: the game must be known, its rules valid, the number of
players one the game is for, one seat recorded per player (numbered in order), exactly one match
length, a seed below 2**63, and for a rematch also the bot commands, the line and stdout caps
and the failure policy. The first setting that does not fit raises `ReplaySettingsError` naming it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from arena.errors import ArenaError
from arena.games.match import MatchLength
from arena.games.plugin import GamePlugin
from arena.games.registry import get_game
from arena.policy import make_policy
from arena.replay import Replay

#: Seeds are below this, as ``--seed`` requires.
SEED_LIMIT = 2**63


class ReplaySettingsError(ArenaError, ValueError):
    """A setting of a replay that no match can be played with; the message names it."""


@dataclass(frozen=True)
class MatchSettings:
    """The settings that decide how a replay's match is dealt and scored."""

    game: GamePlugin
    rules: Any
    length: MatchLength


def match_settings(replay: Replay) -> MatchSettings:
    """The game, rules and match length of ``replay``, with its players and seats checked.

    Raises:
        ReplaySettingsError: naming the first setting that does not fit.
    """
    try:
        game = get_game(replay.game)
    except ValueError as error:
        raise ReplaySettingsError(f"game: {error}") from None
    wrong_players = game.check_players(replay.players)
    if wrong_players is not None:
        raise ReplaySettingsError(f"players: {wrong_players}")
    if len(replay.seats) != replay.players:
        raise ReplaySettingsError(
            f"seats: {len(replay.seats)} seats recorded for {replay.players} players"
        )
    for index, seat in enumerate(replay.seats):
        if seat.seat != index:
            raise ReplaySettingsError(f"seats[{index}]: numbered {seat.seat}, not {index}")
    if not 0 <= replay.seed < SEED_LIMIT:
        raise ReplaySettingsError(f"seed: {replay.seed} is not between 0 and 2**63 - 1")
    try:
        rules = game.parse_rules(dict(replay.rules))
    except (TypeError, ValueError) as error:
        raise ReplaySettingsError(f"rules: {error}") from None
    try:
        length = MatchLength(target=replay.match.target, hands=replay.match.hands)
    except ValueError as error:
        raise ReplaySettingsError(f"match: {error}") from None
    return MatchSettings(game, rules, length)


def rematch_settings(replay: Replay) -> MatchSettings:
    """`match_settings`, and the other settings a rematch plays with checked too: each seat's
    command, the line and stdout caps and the failure policy (the clocks are checked as the
    replay is read; the sandbox by ``arena.tournament.settings.sandbox_from_dict``).

    Raises:
        ReplaySettingsError: naming the first setting that does not fit.
    """
    match = match_settings(replay)
    for seat in replay.seats:
        if not seat.command.strip():
            raise ReplaySettingsError(f"seats[{seat.seat}].command: empty")
    if replay.max_line_bytes < 1:
        raise ReplaySettingsError(
            f"max_line_bytes: must be at least 1, not {replay.max_line_bytes}"
        )
    if replay.max_stdout_bytes is not None and replay.max_stdout_bytes < 1:
        raise ReplaySettingsError(
            f"max_stdout_bytes: must be at least 1 (or absent), not {replay.max_stdout_bytes}"
        )
    policy = replay.policy
    lenient = policy.name == "lenient"
    try:
        make_policy(
            policy.name,
            strikes=policy.strikes if lenient else None,
            restarts=policy.restarts if lenient else None,
        )
    except ValueError as error:
        raise ReplaySettingsError(f"policy: {error}") from None
    if not lenient and (policy.strikes or policy.restarts):
        raise ReplaySettingsError(
            f"policy: strikes and restarts apply to the lenient policy, not {policy.name!r}"
        )
    return match
