"""The ``arena`` command: argument parsing and wiring only.

Exit codes: 0 when the command did its job (a match with a result, even a bot's failure, or a
replay that verifies), 1 for a replay that does not verify or an internal error, 2 for a usage
error (a bad flag, a bot command that cannot be run, a file that cannot be read), 128 + the
signal's number when Ctrl-C, SIGTERM or SIGHUP stopped it (130, 143, 129; arena/stop_signals.py).
"""

from __future__ import annotations

import argparse
import contextlib
import datetime
import functools
import json
import logging
import os
import secrets
import shlex
import sys
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

import msgspec

from arena.cli_errors import OneLineParser, internal_error
from arena.cli_sandbox import (
    UNCONTAINED_WARNING,
    match_outputs,
    print_bot_warnings,
)
from arena.failure_report import explain, failures_of, rematch_command, write_failure_bundle
from arena.games.api import Game
from arena.games.match import MatchLength, match_target
from arena.games.registry import GAMES, get_game
from arena.out_paths import (
    Output,
    OutputPathError,
    check_output,
    prepare_outputs,
    tournament_outputs,
)
from arena.policy import POLICY_NAMES, FailurePolicy, make_policy
from arena.referee.channel import BotSpec
from arena.referee.clock import TimeLimits
from arena.referee.commands import BotCommandError, parse_command
from arena.referee.match import MatchConfig, freeze_startup_objects, play_match
from arena.referee.sandbox import SandboxConfig, SandboxError, SandboxPlan, plan_sandbox
from arena.replay import Replay, ReplayError, Status, read_replay, write_replay
from arena.stop_signals import exit_code as _stopped_exit_code
from arena.stop_signals import install as _install_stop_signals
from arena.stop_signals import mute_output as _mute_output
from arena.stop_signals import received as _stop_received
from arena.stop_signals import run as _run_stoppable
from arena.tournament.clock_load import default_concurrency, say_late_moves, warn_if_crowded

if TYPE_CHECKING:
    from arena.tournament.html_report import ReportResult
    from arena.tournament.session import Opened
    from arena.tournament.settings import TournamentSettings
    from arena.tournament.store import Store

EXIT_OK = 0
EXIT_FAILED = 1
EXIT_USAGE = 2

_SCRIPT_SUFFIXES = (".py", ".js", ".mjs", ".rb", ".pl", ".sh", ".jar", ".lua", ".php")


class UsageError(Exception):
    """A mistake in how the command was called; the message says which."""


def _whole_number(
    least: int, too_small: str, *, below: int | None = None, too_large: str = ""
) -> Callable[[str], int]:
    """An argparse type: a whole number, at least ``least`` and, if given, below ``below``.
    ``too_small`` and ``too_large`` say what is wrong with a number out of range, after it."""

    def whole_number(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
        if value < least:
            raise argparse.ArgumentTypeError(f"{value} {too_small}")
        if below is not None and value >= below:
            raise argparse.ArgumentTypeError(f"{value} {too_large}")
        return value

    return whole_number


_positive = _whole_number(1, "must be at least 1")
_non_negative = _whole_number(0, "must not be negative")
_seed = _whole_number(
    0, "must not be negative", below=2**63, too_large="is too large (seeds are below 2**63)"
)


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


SANDBOX_CHOICES = ("auto", "bwrap", "unshare", "rlimits", "none")
_LIMIT_FLAGS = {
    "memory_mb": "--memory-mb",
    "cpu_seconds": "--cpu-seconds",
    "max_processes": "--max-processes",
    "file_size_mb": "--file-size-mb",
}


def _add_sandbox_flags(
    parser: argparse.ArgumentParser, default: str, *, stdout_cap: bool = True
) -> None:
    """``--sandbox`` and the limits of the sandbox (docs/security.md); ``--max-stdout-mb``
    too, unless ``stdout_cap`` is false."""
    box = parser.add_argument_group(
        "containment (docs/security.md)",
        f"--sandbox defaults to {default} for this command; the limits apply only in a sandbox"
        + (" (except --max-stdout-mb)" if stdout_cap else ""),
    )
    box.add_argument(
        "--sandbox",
        choices=SANDBOX_CHOICES,
        default=default,
        help=f"how bots are contained: auto = the strongest that works here (default {default})",
    )
    box.add_argument("--memory-mb", type=_positive, help="memory per bot's process tree (1024)")
    box.add_argument("--cpu-seconds", type=_positive, help="CPU seconds per bot per match (300)")
    box.add_argument("--max-processes", type=_positive, help="processes per bot at once (128)")
    box.add_argument("--file-size-mb", type=_positive, help="largest file a bot may write (64)")
    if stdout_cap:
        box.add_argument(
            "--max-stdout-mb",
            type=_positive,
            help="most a bot may write to stdout in a match: output_limit (default: no cap)",
        )
    box.add_argument("--allow-network", action="store_true", help="let bots use the host's network")


def _add_policy_flags(parser: argparse.ArgumentParser) -> None:
    """``--policy`` and lenient's numbers (docs/failure-policies.md)."""
    group = parser.add_argument_group(
        "failure policy (docs/failure-policies.md)",
        "what a bot's failure costs; a failure bundle is written next to each replay with one",
    )
    group.add_argument(
        "--policy",
        choices=POLICY_NAMES,
        default="strict",
        help="strict: any failure forfeits (default); classroom: the same, explained at "
        "length; lenient: timeouts and bad replies are strikes, crashes restart the bot",
    )
    group.add_argument(
        "--strikes", type=_positive, help="lenient: the strike that forfeits (default 3)"
    )
    group.add_argument(
        "--restarts", type=_non_negative, help="lenient: restarts after a crash (default 1)"
    )


def _policy(args: argparse.Namespace) -> FailurePolicy:
    """The failure policy the flags ask for (a usage error names what does not fit)."""
    try:
        return make_policy(args.policy, strikes=args.strikes, restarts=args.restarts)
    except ValueError as error:
        raise UsageError(f"--policy {args.policy}: {error}") from None


def _sandbox_config(args: argparse.Namespace) -> SandboxConfig | None:
    """The sandbox configuration the flags ask for, or ``None`` for ``--sandbox none``."""
    given = {field: getattr(args, field) for field in _LIMIT_FLAGS}
    given = {field: value for field, value in given.items() if value is not None}
    if args.sandbox == "none":
        named = [_LIMIT_FLAGS[f] for f in given] + (["--allow-network"] * args.allow_network)
        if named:
            raise UsageError(f"{', '.join(named)}: only in a sandbox (--sandbox auto, say)")
        return None
    from arena.tournament.settings import PROTOCOL_DIR

    return SandboxConfig(
        **given,
        allow_network=args.allow_network,
        mechanism=args.sandbox,
        read_only_paths=(PROTOCOL_DIR,),
    )


def _max_stdout_bytes(args: argparse.Namespace) -> int | None:
    return None if args.max_stdout_mb is None else args.max_stdout_mb << 20


def _sandbox_plan(
    config: SandboxConfig | None, prog: str, hidden: Sequence[str] = ()
) -> SandboxPlan | None:
    """Plans the sandbox (a forced mechanism missing here is a usage error) and says on stderr
    which mechanism contains the bots and what falls back; ``hidden``: what the run writes,
    which bots must not see (`arena.tournament.settings.run_outputs`)."""
    if config is None:
        print(f"{prog}: warning: {UNCONTAINED_WARNING}", file=sys.stderr)
        return None
    # The warnings are printed here, once, and not by the logger's last-resort handler.
    logging.getLogger("arena.referee.sandbox").addHandler(logging.NullHandler())
    print_bot_warnings(prog)
    try:
        plan = plan_sandbox(config)
    except SandboxError as error:
        raise UsageError(f"--sandbox {config.mechanism}: {error}") from None
    print(f"{prog}: {plan.describe().splitlines()[0]}", file=sys.stderr)
    for warning in plan.warnings:
        print(f"{prog}: sandbox warning: {warning}", file=sys.stderr)
    return plan.with_hidden(hidden)


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


def _build_parser() -> argparse.ArgumentParser:
    parser = OneLineParser(
        prog="arena",
        description="Matador Arena: play domino bots against each other under a referee.",
    )
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    play = commands.add_parser(
        "play",
        help="play one match between 2 to 4 bots",
        description="Play one match between 2 to 4 bots and write its replay.",
    )
    play.add_argument(
        "bots",
        nargs="+",
        metavar="BOT",
        help="a bot command line, quoted, e.g. 'python3 sample_bots/greedy.py' (2 to 4 bots)",
    )
    play.add_argument("--seed", type=_seed, help="match seed (default: a random one, printed)")
    play.add_argument("--replay", type=Path, help="replay file (default: replays/TIME-SEED.json)")
    play.add_argument("--json", action="store_true", help="print one JSON object as the result")
    _add_match_flags(play)
    _add_policy_flags(play)
    _add_sandbox_flags(play, "auto")

    rematch = commands.add_parser(
        "rematch",
        help="play the match of a replay again: same bots, deal, clocks, policy and sandbox",
        description="Play the match recorded in REPLAY again: the same bot commands (from the "
        "folder the arena ran in, or each bot's own folder), game, rules, seed, match length, "
        "clocks, failure policy and sandbox. Bots that take their randomness from hello.seed "
        "play the same moves. The line in a failure bundle's rematch.sh.",
    )
    rematch.add_argument("replay", type=Path, help="the replay of the match to play again")
    rematch.add_argument(
        "--replay", dest="out", type=Path, help="new replay file (default: replays/TIME-SEED.json)"
    )
    rematch.add_argument("--json", action="store_true", help="print one JSON object as the result")
    rematch.add_argument(
        "--policy",
        choices=POLICY_NAMES,
        help="play under this failure policy instead of the recorded one",
    )
    rematch.add_argument(
        "--sandbox",
        choices=SANDBOX_CHOICES,
        help="contain the bots so instead of as recorded (a replay recorded without a sandbox "
        "is played under auto unless this says none)",
    )

    check = commands.add_parser(
        "check",
        help="check that a bot follows the protocol and the rules, step by step",
        description="Run one bot through numbered, named steps against scripted positions "
        "(handshake, request ids, each rule, hand end, match end, stop, response times) and "
        "print PASS or FAIL for each, with what was sent and received on a failure. Exit code "
        "0 only when every step passes. docs/checking-a-bot.md",
    )
    check.add_argument(
        "bot", metavar="BOT", help="the bot's command line, quoted, e.g. 'python3 mybot.py'"
    )
    check.add_argument("--game", default="matador", choices=sorted(GAMES), help="the game")
    check.add_argument("--json", action="store_true", help="print one JSON document")
    check.add_argument("--move-ms", type=_positive, default=1000, help="per-move limit (1000)")
    check.add_argument("--startup-ms", type=_positive, default=5000, help="startup limit (5000)")
    _add_sandbox_flags(check, "auto", stdout_cap=False)

    tournament = commands.add_parser(
        "tournament",
        help="play a tournament between bots: standings, ratings, replays",
        description="Play a tournament between bots (command lines, bot folders, or folders of "
        "bot folders) and print the standings. Results go to a database as each match "
        "finishes; --resume continues an interrupted tournament exactly where it stopped.",
    )
    tournament.add_argument(
        "bots",
        nargs="*",
        metavar="BOT",
        help="a bot command line (quoted), a bot folder with bot.toml, or a folder of them",
    )
    tournament.add_argument(
        "--format", choices=["round-robin", "gauntlet", "swiss"], default="round-robin"
    )
    tournament.add_argument("--players", type=int, choices=[2, 3, 4], default=2)
    tournament.add_argument(
        "--rounds", type=_positive, default=1, help="times the schedule is played (Swiss: rounds)"
    )
    tournament.add_argument(
        "--concurrency",
        type=_positive,
        default=default_concurrency(),
        help="matches at once, in all (4, or one per CPU if fewer)",
    )
    tournament.add_argument(
        "--workers",
        type=_positive,
        default=os.cpu_count() or 1,
        help="worker processes (default: one per core)",
    )
    tournament.add_argument("--seed", type=_seed, help="tournament seed (default: random, shown)")
    tournament.add_argument(
        "--out", type=Path, help="output folder (default: tournaments/TIME-SEED)"
    )
    tournament.add_argument("--db", type=Path, help="database (default: OUT/tournament.db)")
    tournament.add_argument(
        "--resume", action="store_true", help="continue the tournament in --db (or --out)"
    )
    tournament.add_argument(
        "--events", type=Path, help="append one JSON line per match started and finished"
    )
    tournament.add_argument(
        "--build-timeout", type=_positive, default=300, help="seconds a bot's build may take"
    )
    _add_match_flags(tournament)
    _add_policy_flags(tournament)
    _add_sandbox_flags(tournament, "auto")

    sprt = commands.add_parser(
        "sprt",
        help="is bot A stronger than bot B? paired games until the SPRT decides",
        description="Play BOT_A against BOT_B on duplicate deals (each deal in both seatings) "
        "until the sequential probability ratio test accepts H0 (A is not better by ELO1) or "
        "H1 (A is better by ELO1 rather than only ELO0), showing the LLR as it goes.",
    )
    sprt.add_argument("bot_a", metavar="BOT_A", help="the candidate")
    sprt.add_argument("bot_b", metavar="BOT_B", help="the baseline")
    sprt.add_argument("--elo0", type=float, default=0.0, help="H0's Elo difference (0)")
    sprt.add_argument("--elo1", type=float, default=10.0, help="H1's Elo difference (10)")
    sprt.add_argument("--alpha", type=float, default=0.05, help="false-positive rate (0.05)")
    sprt.add_argument("--beta", type=float, default=0.05, help="false-negative rate (0.05)")
    sprt.add_argument(
        "--max-pairs", type=_positive, default=20000, help="stop undecided after N pairs"
    )
    sprt.add_argument(
        "--concurrency",
        type=_positive,
        default=default_concurrency(),
        help="games at once (4, or one per CPU if fewer)",
    )
    sprt.add_argument(
        "--workers", type=_positive, default=os.cpu_count() or 1, help="worker processes"
    )
    sprt.add_argument("--seed", type=_seed, help="seed of the deals (default: random, shown)")
    sprt.add_argument("--out", type=Path, help="output folder (default: sprt/TIME-SEED)")
    sprt.set_defaults(players=2)
    _add_match_flags(sprt)
    _add_policy_flags(sprt)
    _add_sandbox_flags(sprt, "auto")

    standings = commands.add_parser(
        "standings",
        help="show a tournament's standings from its database",
        description="Print the standings, ratings and cross-table of a tournament database.",
    )
    standings.add_argument("--db", type=Path, required=True)
    fmt = standings.add_mutually_exclusive_group()
    fmt.add_argument("--json", action="store_true", help="one JSON document")
    fmt.add_argument("--csv", action="store_true", help="the standings as CSV")

    report = commands.add_parser(
        "report",
        help="write a tournament's report: one web page linking every match's replay",
        description="Write one self-contained web page with a tournament's standings, ratings, "
        "cross-table, failures with their evidence, and every match linked to its replay "
        "viewer page (viewer pages missing beside their replays are made). docs/tournaments.md",
    )
    report.add_argument("--db", type=Path, required=True, help="the tournament's database")
    report.add_argument(
        "-o",
        "--out",
        type=Path,
        metavar="OUT.html",
        help="the page to write (default: report.html beside the database)",
    )

    verify = commands.add_parser(
        "verify",
        help="re-run a replay through the engine and check it",
        description="Re-run a replay through the engine: exit 0 when every move was legal and "
        "every score right, 1 naming the first discrepancy.",
    )
    verify.add_argument("replay", type=Path)
    verify.add_argument("--json", action="store_true", help="print the report as JSON")

    view = commands.add_parser(
        "view",
        help="show a replay move by move in the terminal, or write it as a web page",
        description="Show a replay: step with the keys on a terminal, or print every step when "
        "the output is not a terminal or with --all; with --html, write a self-contained page "
        "that shows it in a browser (docs/viewer.md).",
    )
    view.add_argument("replay", type=Path)
    shown = view.add_mutually_exclusive_group()
    shown.add_argument("--all", action="store_true", help="print every step at once")
    shown.add_argument(
        "--html", type=Path, metavar="OUT.html", help="write the replay viewer page to OUT.html"
    )

    schema = commands.add_parser(
        "schema",
        help="write the protocol's JSON Schema",
        description="Write the JSON Schema generated from the protocol's message types.",
    )
    schema.add_argument(
        "--out", type=Path, help="file to write (default: standard output); docs keep a copy"
    )
    return parser


def _check_bot_command(command: str) -> None:
    """Refuse, before any match starts, a bot command that cannot possibly run."""
    try:
        argv = parse_command(command)
    except BotCommandError as error:
        raise UsageError(str(error)) from None
    for arg in argv[1:]:
        if arg.endswith(_SCRIPT_SUFFIXES) and not arg.startswith("-") and not os.path.exists(arg):
            raise UsageError(f"bot command {command!r}: file {arg!r} not found")


def _check_replay_path(path: Path) -> None:
    """Refuse, before the match, a replay path that cannot be written (the match would be lost)."""
    prepare_outputs([Output(path, "--replay")])


def _play(args: argparse.Namespace) -> int:
    if not 2 <= len(args.bots) <= 4:
        raise UsageError(f"a match needs 2 to 4 bots, {len(args.bots)} given")
    for command in args.bots:
        _check_bot_command(command)
    flags = _match_flags(args)
    game, rules, time, length = flags.game, flags.rules, flags.time, flags.length
    seed = args.seed if args.seed is not None else secrets.randbelow(2**63)
    replay_path: Path = args.replay or Path(
        "replays", f"{datetime.datetime.now():%Y%m%d-%H%M%S}-{seed}.json"
    )
    policy = _policy(args)
    sandbox = _sandbox_config(args)
    _check_replay_path(replay_path)
    plan = _sandbox_plan(sandbox, "arena play", match_outputs(replay_path))
    config = MatchConfig(
        game=game,
        rules=rules,
        players=len(args.bots),
        seed=seed,
        length=length,
        time=time,
        sandbox=plan,
        max_stdout_bytes=_max_stdout_bytes(args),
        policy=policy,
        sandbox_settings=_sandbox_settings(sandbox),
    )
    return _run_match(config, [BotSpec(c) for c in args.bots], replay_path, "play", args.json)


def _sandbox_settings(config: SandboxConfig | None) -> dict[str, Any] | None:
    from arena.tournament.settings import sandbox_to_dict

    return None if config is None else sandbox_to_dict(config)


def _run_match(
    config: MatchConfig, bots: list[BotSpec], replay_path: Path, command: str, as_json: bool
) -> int:
    """Play the match, write its replay and failure bundle, and print the result."""
    if not as_json:
        print(
            f"Playing {config.game.name}, {config.players} players, seed {config.seed}"
            + ("" if config.policy.name == "strict" else f", policy {config.policy.describe()}")
            + " ...",
            flush=True,
        )
    freeze_startup_objects()
    replay = _run_stoppable(play_match, config, bots)
    written: Path | None
    bundle: Path | None = None
    try:
        written = write_replay(replay_path, replay)
    except OSError as error:  # the result is still printed: a finished match is not lost
        written = None
        print(
            f"arena {command}: error: cannot write the replay {str(replay_path)!r}: {error}",
            file=sys.stderr,
        )
    if written is not None:
        try:
            bundle = write_failure_bundle(replay, written)
        except OSError as error:  # the replay holds the same evidence
            print(
                f"arena {command}: error: cannot write the failure bundle beside "
                f"{str(written)!r}: {error}",
                file=sys.stderr,
            )
    if as_json:
        print(json.dumps(_result_json(replay, written, bundle)))
    else:
        print(_result_text(replay, written, bundle))
        if replay.policy.loud and written is not None:
            rematch = rematch_command(bundle / "replay.json" if bundle else written)
            for entry in failures_of(replay):
                print("\n" + explain(replay, entry, rematch))
    return EXIT_OK if written is not None else EXIT_FAILED


def _rematch(args: argparse.Namespace) -> int:
    from arena.replay_settings import rematch_settings

    recorded = _read(args.replay)
    name = repr(str(args.replay))
    try:
        settings = rematch_settings(recorded)
        game, rules = settings.game, settings.rules
        time = TimeLimits(
            startup_ms=recorded.time.startup_ms,
            move_ms=recorded.time.move_ms,
            bank_ms=recorded.time.bank_ms,
        )
    except ValueError as error:
        raise UsageError(f"{name}: the recorded settings are invalid: {error}") from None
    policy = recorded.policy if args.policy is None else make_policy(args.policy)
    sandbox: SandboxConfig | None = None
    if recorded.sandbox is not None:
        from arena.tournament.settings import sandbox_from_dict

        try:
            sandbox = sandbox_from_dict(recorded.sandbox)
        except (TypeError, ValueError) as error:
            raise UsageError(f"{name}: the recorded sandbox is invalid: {error}") from None
    seed = recorded.seed
    out: Path = args.out or Path("replays", f"{datetime.datetime.now():%Y%m%d-%H%M%S}-{seed}.json")
    out = out.absolute()
    # Bot commands with relative paths start from the folder the arena ran in.
    workdir = recorded.workdir
    if workdir and os.path.abspath(workdir) != os.getcwd():
        if not os.path.isdir(workdir):
            raise UsageError(
                f"{name}: the match ran in {workdir!r}, which does not exist here; its "
                "bot commands may name files relative to it"
            )
        os.chdir(workdir)
        if not args.json:
            print(f"(running from {workdir}, where the match was played)")
    bots = [BotSpec(s.command, s.folder) for s in recorded.seats]
    for spec in bots:
        if spec.cwd is not None and not os.path.isdir(spec.cwd):
            raise UsageError(f"bot folder {spec.cwd!r} (from {name}) does not exist")
        if spec.cwd is None:
            _check_bot_command(spec.command)
    _check_replay_path(out)
    sandbox = _rematch_sandbox(sandbox, args.sandbox)  # after the checks: it may say so
    config = MatchConfig(
        game=game,
        rules=rules,
        players=recorded.players,
        seed=seed,
        length=settings.length,
        time=time,
        max_line_bytes=recorded.max_line_bytes,
        sandbox=_sandbox_plan(sandbox, "arena rematch", match_outputs(out)),
        max_stdout_bytes=recorded.max_stdout_bytes,
        policy=policy,
        sandbox_settings=_sandbox_settings(sandbox),
    )
    return _run_match(config, bots, out, "rematch", args.json)


def _rematch_sandbox(recorded: SandboxConfig | None, asked: Any) -> SandboxConfig | None:
    """The sandbox a rematch plays under: the recorded one, with ``--sandbox`` (``asked``, if
    given) as its mechanism; a replay recorded without one is played under ``auto`` unless
    ``none`` is asked for: bots are contained wherever they run."""
    if asked == "none":
        return None
    if recorded is not None:
        return recorded if asked is None else replace(recorded, mechanism=asked)
    from arena.tournament.settings import PROTOCOL_DIR

    if asked is None:
        print(
            "arena rematch: the replay was recorded without a sandbox; playing it under"
            " --sandbox auto (--sandbox none plays it uncontained, as recorded)",
            file=sys.stderr,
        )
    return SandboxConfig(mechanism=asked or "auto", read_only_paths=(PROTOCOL_DIR,))


def _result_json(replay: Replay, path: Path | None, bundle: Path | None = None) -> dict[str, Any]:
    return {
        "game": replay.game,
        "seed": replay.seed,
        "winner": replay.result.winner,
        "scores": replay.result.scores,
        "players": [
            {
                "seat": s.seat,
                "name": s.name,
                "status": s.status.value,
                "detail": s.detail,
                "strikes": s.strikes,
                "restarts": s.restarts,
            }
            for s in replay.seats
        ],
        "replay": None if path is None else str(path),
        "failure_bundle": None if bundle is None else str(bundle),
    }


def _result_text(replay: Replay, path: Path | None, bundle: Path | None = None) -> str:
    lines = []
    for hand in replay.hands:
        outcome = hand.outcome
        if outcome is None:
            lines.append(f"hand {hand.hand_number}: stopped (forfeit)")
            continue
        who = ", ".join(replay.seats[w].name for w in outcome.winners)
        lines.append(
            f"hand {hand.hand_number}: {outcome.kind}, won by {who}, "
            f"award {outcome.award}, scores {outcome.scores}"
        )
    result = replay.result
    lines.append("")
    for seat in replay.seats:
        status = "" if seat.status is Status.OK else f"  [{seat.status.value}: {seat.detail}]"
        if seat.strikes or seat.restarts:
            strikes = f"{seat.strikes} strike" + ("" if seat.strikes == 1 else "s")
            restarts = f"{seat.restarts} restart" + ("" if seat.restarts == 1 else "s")
            status += f"  ({strikes}, {restarts})"
        lines.append(
            f"  seat {seat.seat} {seat.name:<16} {result.scores[seat.seat]:>4} points{status}"
        )
    if result.winner is None:
        lines.append(f"Result: a draw ({result.reason}).")
    else:
        winner = replay.seats[result.winner]
        lines.append(f"Result: seat {winner.seat} ({winner.name}) wins ({result.reason}).")
    if path is not None:
        lines.append(f"Replay: {path}  (arena view {path}; arena verify {path})")
    else:
        lines.append("Replay: not written (see the error above)")
    if bundle is not None:
        lines.append(
            f"Failure bundle: {bundle}  (README.txt explains each failure; rematch.sh plays "
            "the match again)"
        )
    return "\n".join(lines)


def _check(args: argparse.Namespace) -> int:
    from arena.check import (
        BotLink,
        Launcher,
        StepResult,
        check_bot,
        header,
        report_document,
        step_lines,
        summary,
    )
    from arena.referee.framing import LineTooLongError
    from arena.referee.process import BotEOFError, BotGoneError, BotProcess, open_bot_process

    _check_bot_command(args.bot)
    plan = _sandbox_plan(_sandbox_config(args), "arena check")

    def close_input(link: BotLink) -> None:
        # Closes stdin alone (aclose() would also signal the group); aclose() finishes later.
        assert isinstance(link, BotProcess)
        link.close_input()

    launcher = Launcher(
        open=open_bot_process
        if plan is None
        else functools.partial(open_bot_process, sandbox=plan),
        close_input=close_input,
        command_error=BotCommandError,
        eof_error=BotEOFError,
        gone_error=BotGoneError,
        line_too_long_error=LineTooLongError,
    )

    def show(step: StepResult) -> None:
        print("\n".join(step_lines(step)), flush=True)

    if not args.json:
        print(header(args.bot, args.game, args.move_ms, args.startup_ms), flush=True)
        print(flush=True)
    report = _run_stoppable(
        lambda: check_bot(
            args.bot,
            args.game,
            launcher,
            move_ms=args.move_ms,
            startup_ms=args.startup_ms,
            on_step=None if args.json else show,
        )
    )
    if args.json:
        print(json.dumps(report_document(report), indent=2))
    else:
        print()
        print(summary(report))
    return EXIT_OK if report.passed else EXIT_FAILED


def _verify(args: argparse.Namespace) -> int:
    from arena.verify import verify_replay

    replay = _read(args.replay)
    report = verify_replay(replay)
    if args.json:
        print(json.dumps({"ok": report.ok, "checked": report.checked, "error": report.error}))
    elif report.ok:
        print(f"OK: {args.replay}: {report.checked}")
    else:
        print(f"FAILED: {args.replay}: {report.error}")
    return EXIT_OK if report.ok else EXIT_FAILED


def _view(args: argparse.Namespace) -> int:
    if args.html is not None:
        check_output(Output(args.html, "--html"))
        return _view_html(_read(args.replay), args.html)
    from arena.view.terminal import view_replay

    return view_replay(_read(args.replay), show_all=args.all)


def _view_html(replay: Replay, out: Path) -> int:
    from arena.view.html import write_html
    from arena.view.steps import StepsError

    prepare_outputs([Output(out, "--html")])
    try:
        written = write_html(replay, out)
    except StepsError as error:
        print(f"arena view: cannot show this replay: {error} (see arena verify)", file=sys.stderr)
        return EXIT_FAILED
    except OSError as error:
        raise UsageError(f"cannot write {str(out)!r}: {error.strerror or error}") from None
    print(f"wrote {written} (open it in a browser)")
    return EXIT_OK


def _schema(args: argparse.Namespace) -> int:
    from protocol.schema import schema_json

    text = schema_json()
    if args.out is None:
        sys.stdout.write(text)
    else:
        prepare_outputs([Output(args.out, "--out")])
        try:
            args.out.write_text(text)
        except OSError as error:
            raise UsageError(
                f"--out {str(args.out)!r}: cannot write it: {error.strerror or error}"
            ) from None
        print(f"wrote {args.out}")
    return EXIT_OK


def _read(path: Path) -> Replay:
    try:
        return read_replay(path)
    except ReplayError as error:
        raise UsageError(str(error)) from None


def _tournament_settings(args: argparse.Namespace, seed: int) -> TournamentSettings:
    """The settings of the tournament the flags ask for (usage errors named)."""
    from arena.tournament.settings import TournamentSettings, sandbox_to_dict

    flags = _match_flags(args)
    policy = _policy(args)
    sandbox = _sandbox_config(args)
    try:
        return TournamentSettings(
            game=flags.game.name,
            rules=flags.game.rules_dict(flags.rules),
            players=args.players,
            format=args.format,
            rounds=args.rounds,
            hands=flags.length.hands,
            target=flags.length.target,
            startup_ms=flags.time.startup_ms,
            move_ms=flags.time.move_ms,
            bank_ms=flags.time.bank_ms,
            seed=seed,
            sandbox=None if sandbox is None else sandbox_to_dict(sandbox),
            max_stdout_bytes=_max_stdout_bytes(args),
            policy=msgspec.to_builtins(policy),
        )
    except ValueError as error:
        raise UsageError(str(error)) from None


def _resume_differences(args: argparse.Namespace, opened: Opened, out_dir: Path) -> list[str]:
    """How the flags and bots given differ from the tournament being resumed."""
    from arena.tournament.entrants import EntrantError
    from arena.tournament.resume import given_flags, resume_differences

    given = given_flags(_build_parser(), getattr(args, "argv", sys.argv[1:]), args.bots)
    rules = {d: (n, o) for g in _RULE_FLAGS.values() for n, d, o, _ in g}
    try:
        return resume_differences(args, given, opened, out_dir, _tournament_settings, rules)
    except EntrantError as error:
        raise UsageError(str(error)) from None


def _resume(
    args: argparse.Namespace, outputs: Callable[[Path, Path, Path | None], list[Output]]
) -> tuple[Opened, Path, Path]:
    """Open the tournament to resume, check it is the one the flags ask for, and build and
    check its bots again: the opened tournament, its database and its out folder."""
    from arena.tournament.resume import stored_out_dir
    from arena.tournament.session import SessionError, open_existing, recheck_bots
    from arena.tournament.settings import run_outputs, sandbox_from_dict
    from arena.tournament.store import StoreError

    db = args.db or (args.out / "tournament.db" if args.out else None)
    if db is None:
        raise UsageError("--resume needs the tournament's --db (or its --out folder)")
    if args.events is not None:  # checked before the database is opened, as for a new run
        check_output(Output(args.events, "--events"))
    try:
        opened = open_existing(db)
    except SessionError as error:
        raise UsageError(str(error)) from None
    try:
        out_dir = stored_out_dir(opened.store) or args.out or db.parent
        differences = _resume_differences(args, opened, out_dir)
        if differences:
            raise UsageError(
                "--resume continues the tournament as it was started; leave out the flags "
                f"that differ, or start a new tournament: {'; '.join(differences)}"
            )
        prepare_outputs(outputs(out_dir, db, args.events))
        print(f"Resuming the tournament in {db} (seed {opened.settings.seed})", flush=True)
        # The stored sandbox is kept (the flags of this run are not used on a resume).
        stored = opened.settings.sandbox
        plan = _sandbox_plan(
            None if stored is None else sandbox_from_dict(stored),
            "arena tournament",
            run_outputs(out_dir, db, args.events),
        )
        print("Checking the bots again (build and handshake) ...", flush=True)
        recheck_bots(opened, build_timeout_s=args.build_timeout, sandbox=plan)
    except (SessionError, StoreError) as error:
        opened.store.close()
        raise UsageError(str(error)) from None
    except BaseException:
        opened.store.close()
        raise
    return opened, db, out_dir


def _tournament(args: argparse.Namespace) -> int:
    from arena.tournament.entrants import EntrantError
    from arena.tournament.live import LiveReporter, PlainReporter, Reporter
    from arena.tournament.report import final_report
    from arena.tournament.runner import RunOptions, TournamentError
    from arena.tournament.session import SessionError, open_new
    from arena.tournament.session import run as run_session
    from arena.tournament.settings import run_outputs, sandbox_from_dict
    from arena.tournament.store import StoreError

    outputs = functools.partial(
        tournament_outputs, out_given=args.out is not None, db_given=args.db is not None
    )
    if args.resume:
        opened, db, out_dir = _resume(args, outputs)
    else:
        if not args.bots:
            raise UsageError("give the bots to play (command lines or bot folders)")
        seed = args.seed if args.seed is not None else secrets.randbelow(2**63)
        settings = _tournament_settings(args, seed)
        stamp = f"{datetime.datetime.now():%Y%m%d-%H%M%S}-{seed}"
        out_dir = args.out or Path("tournaments", stamp)
        db = args.db or out_dir / "tournament.db"
        # Every output is checked before anything is created (the database included).
        prepare_outputs(outputs(out_dir, db, args.events))
        # Planned here too, so that a forced mechanism missing here stops the tournament
        # before it starts; each worker plans the same configuration again for its bots.
        # The builds and handshakes before the first match run in this plan.
        stored = settings.sandbox
        plan = _sandbox_plan(
            None if stored is None else sandbox_from_dict(stored),
            "arena tournament",
            run_outputs(out_dir, db, args.events),
        )
        print(f"Tournament seed {seed}: checking {len(args.bots)} bot argument(s) ...", flush=True)
        try:
            opened = open_new(
                args.bots,
                settings,
                db,
                build_timeout_s=args.build_timeout,
                sandbox=plan,
                out_dir=out_dir,
            )
        except (EntrantError, SessionError) as error:
            raise UsageError(str(error)) from None
        for line in opened.skipped:
            print(f"  skipped {line}")
        for excluded in opened.excluded:
            print(f"  left out {excluded.entrant.name}: {excluded.stage}: {excluded.reason}")
    options = RunOptions(
        out_dir=out_dir, concurrency=args.concurrency, workers=args.workers, events=args.events
    )
    warn_if_crowded("arena tournament", args.concurrency, opened.settings.move_ms)
    reporter: Reporter = LiveReporter() if sys.stdout.isatty() else PlainReporter()
    try:
        summary = run_session(opened, options, reporter)
    except KeyboardInterrupt:
        done = len(opened.store.finished())
        total = len(opened.store.tables())
        # The out folder is stored with the tournament; named here too when it is not the
        # database's folder, so the command reads as what it does.
        elsewhere = os.path.abspath(out_dir) != os.path.abspath(db.parent)
        keep = f" --out {shlex.quote(str(out_dir))}" if elsewhere else ""
        print(
            f"\nInterrupted: every running match was stopped and its bots ended; {done} of "
            f"{total} matches are recorded in {db}.\nResume with: arena tournament --resume "
            f"--db {shlex.quote(str(db))}{keep}",
            file=sys.stderr,
        )
        return _stopped_exit_code()
    except TournamentError as error:
        print(f"arena tournament: {error}", file=sys.stderr)
        return EXIT_FAILED
    except StoreError as error:  # a full disk: what is recorded is kept
        raise UsageError(str(error)) from None
    report = _write_report(opened.store, out_dir / "report.html", "arena tournament")
    where = None if report is None else report.path
    print(final_report(opened.store, summary.standings, out_dir, db, report=where))
    print(summary.line())
    progress = summary.progress
    say_late_moves(progress.late_moves, progress.moves, progress.late_max_ms, args.concurrency)
    return EXIT_OK


def _sprt(args: argparse.Namespace) -> int:
    from arena.tournament.entrants import EntrantError, prepare, scan
    from arena.tournament.ratings import elo_from_counts
    from arena.tournament.settings import TournamentSettings, run_outputs, sandbox_to_dict
    from arena.tournament.sprt import Sprt
    from arena.tournament.sprt_run import SprtRun
    from arena.tournament.store import EntrantRow, Store, StoreError

    flags = _match_flags(args)
    sandbox = _sandbox_config(args)
    seed = args.seed if args.seed is not None else secrets.randbelow(2**63)
    out_dir = args.out or Path("sprt", f"{datetime.datetime.now():%Y%m%d-%H%M%S}-{seed}")
    outputs = tournament_outputs(
        out_dir, out_dir / "tournament.db", None, out_given=args.out is not None, db_given=False
    )
    try:
        sprt = Sprt(args.elo0, args.elo1, args.alpha, args.beta)
        found = scan([args.bot_a, args.bot_b])
    except (ValueError, EntrantError) as error:
        raise UsageError(str(error)) from None
    if len(found.entrants) != 2:
        raise UsageError("give exactly two bots: the candidate and the baseline")
    policy = msgspec.to_builtins(_policy(args))
    prepare_outputs(outputs[:3])  # an SPRT run writes no report
    plan = _sandbox_plan(sandbox, "arena sprt", run_outputs(out_dir, out_dir / "tournament.db"))
    settings = TournamentSettings(
        game=flags.game.name,
        rules=flags.game.rules_dict(flags.rules),
        players=2,
        format="sprt",
        hands=flags.length.hands,
        target=flags.length.target,
        startup_ms=flags.time.startup_ms,
        move_ms=flags.time.move_ms,
        bank_ms=flags.time.bank_ms,
        seed=seed,
        sandbox=None if sandbox is None else sandbox_to_dict(sandbox),
        max_stdout_bytes=_max_stdout_bytes(args),
        policy=policy,
    )
    kept, excluded = _run_stoppable(
        lambda: prepare(
            found.entrants, startup_ms=settings.startup_ms, build_timeout_s=300, sandbox=plan
        )
    )
    if excluded:
        reasons = "; ".join(f"{x.entrant.name}: {x.stage}: {x.reason}" for x in excluded)
        raise UsageError(f"both bots must pass their build and handshake: {reasons}")
    rows = [
        EntrantRow(i + 1, e.name, e.command, e.cwd, e.language, None) for i, e in enumerate(kept)
    ]
    sprt_meta = {"elo0": args.elo0, "elo1": args.elo1, "alpha": args.alpha, "beta": args.beta}
    try:
        store = Store(out_dir / "tournament.db")
        store.create(settings.to_dict(), rows, [], {"sprt": json.dumps(sprt_meta)})
    except StoreError as error:
        raise UsageError(str(error)) from None
    a, b = rows
    print(
        f"SPRT {a.name} vs {b.name}: H0 elo {args.elo0:g}, H1 elo {args.elo1:g}, "
        f"alpha {args.alpha:g}, beta {args.beta:g}; seed {seed}; bounds "
        f"[{sprt.lower:+.3f}, {sprt.upper:+.3f}]",
        flush=True,
    )
    warn_if_crowded("arena sprt", args.concurrency, settings.move_ms)
    run = SprtRun(
        settings, store, a, b, sprt, out_dir=out_dir, concurrency=args.concurrency,
        workers=args.workers, max_pairs=args.max_pairs,
        say=lambda line: print(line, flush=True),
    )  # fmt: skip
    try:
        outcome = _run_stoppable(run.run)
    except KeyboardInterrupt:
        print(f"\nInterrupted after {sprt.n} pairs (LLR {sprt.llr:+.3f}); games recorded in "
              f"{out_dir / 'tournament.db'}", file=sys.stderr)  # fmt: skip
        return _stopped_exit_code()
    elo = elo_from_counts(outcome.counts)
    verdict = {
        "H1": f"H1 accepted: {a.name} is stronger than {b.name} (by {args.elo1:g} Elo rather "
        f"than {args.elo0:g})",
        "H0": f"H0 accepted: {a.name} is not stronger than {b.name} by {args.elo1:g} Elo",
        "continue": f"no decision after {outcome.pairs} pairs (--max-pairs)",
    }[outcome.status]
    print(verdict)
    print(
        f"LLR {outcome.llr:+.3f} in [{outcome.lower:+.3f}, {outcome.upper:+.3f}] after "
        f"{outcome.pairs} pairs ({outcome.games} games); pair scores 0/0.5/1/1.5/2: "
        f"{list(outcome.counts)}; Elo {elo}"
    )
    print(f"database: {out_dir / 'tournament.db'}   replays: {out_dir / 'replays'}")
    say_late_moves(run.late_moves, run.moves, run.late_max_ms, args.concurrency)
    return EXIT_OK


def _standings(args: argparse.Namespace) -> int:
    from arena.tournament.report import standings_csv, standings_document, standings_text
    from arena.tournament.store import StoreError

    with _reading(args.db) as store:
        try:
            if args.json:
                text = json.dumps(standings_document(store), indent=2) + "\n"
            elif args.csv:
                text = standings_csv(store)
            else:
                text = standings_text(store) + "\n"
        except StoreError as error:  # damage found while reading the rows
            raise UsageError(str(error)) from None
    sys.stdout.write(text)
    return EXIT_OK


@contextlib.contextmanager
def _reading(db: Path) -> Iterator[Store]:
    """The tournament database ``db``, opened read-only (a usage error names what is wrong)."""
    from arena.tournament.store import Store, StoreError

    if not db.exists():
        raise UsageError(f"no tournament database at {str(db)!r}")
    try:
        store = Store(db, read_only=True)
    except StoreError as error:
        raise UsageError(str(error)) from None
    try:
        if store.config() is None:
            raise UsageError(f"{str(db)!r} holds no tournament")
        yield store
    except StoreError as error:
        raise UsageError(str(error)) from None
    finally:
        store.close()


def _report(args: argparse.Namespace) -> int:
    if not args.db.is_file() and not args.db.is_dir():
        raise UsageError(f"no tournament database at {str(args.db)!r}")
    out: Path = args.out or args.db.parent / "report.html"
    check_output(Output(out, "-o" if args.out else "the report"))
    with _reading(args.db) as store:
        result = _write_report(store, out, "arena report")
    if result is None:
        return EXIT_FAILED
    made = ""
    if result.pages_made:
        made = f", {result.pages_made} viewer page(s) made from their replays"
    print(f"wrote {result.path} ({result.matches} matches{made}; open it in a browser)")
    return EXIT_OK


def _write_report(store: Store, out: Path, command: str) -> ReportResult | None:
    """Write the tournament's web page, or say on stderr why it could not be (``None``)."""
    from arena.tournament.html_report import write_report
    from arena.tournament.store import StoreError

    try:
        result = write_report(store, out)
    except StoreError:  # a damaged database: the caller says so
        raise
    except OSError as error:
        print(
            f"{command}: cannot write the report {str(out)!r}: {error.strerror or error} "
            f"(arena report --db {store.path} -o FILE writes it elsewhere)",
            file=sys.stderr,
        )
        return None
    except (
        Exception
    ) as error:  # a bug in the report must not hide a finished tournament's standings
        print(internal_error(f"{command}: writing the report", error), file=sys.stderr)
        return None
    for note in result.notes:
        print(f"{command}: {note}", file=sys.stderr)
    return result


_HANDLERS = {
    "play": _play,
    "rematch": _rematch,
    "check": _check,
    "tournament": _tournament,
    "sprt": _sprt,
    "standings": _standings,
    "report": _report,
    "verify": _verify,
    "view": _view,
    "schema": _schema,
}


def main(argv: Sequence[str] | None = None) -> int:
    """Run the ``arena`` command; returns the exit code."""
    parser = _build_parser()
    args = parser.parse_args(argv)
    _install_stop_signals()  # SIGTERM and SIGHUP stop a command as Ctrl-C does
    args.argv = list(sys.argv[1:] if argv is None else argv)  # to tell given flags from defaults
    try:
        code = _HANDLERS[args.command](args)
        sys.stdout.flush()  # a closed pipe shows here, inside the handler below
        return code
    except (UsageError, OutputPathError) as error:
        print(f"arena {args.command}: error: {error}", file=sys.stderr)
        return EXIT_USAGE
    except KeyboardInterrupt:
        try:
            print(
                f"arena {args.command}: interrupted; every bot process was stopped", file=sys.stderr
            )
        except OSError:  # a terminal that hung up (SIGHUP) cannot take it
            _mute_output()
        return _stopped_exit_code()
    except BrokenPipeError:
        # The reader went away (``arena standings --json | head``): not an error of ours.
        # Point stdout at /dev/null so the interpreter's final flush does not fail again.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return EXIT_OK if _stop_received() is None else _stopped_exit_code()
    except Exception as error:  # the last line of defence: one line, and exit 1
        if isinstance(error, OSError) and _stop_received() is not None:
            _mute_output()  # stopped, and the output is gone (a terminal that hung up)
            return _stopped_exit_code()
        print(internal_error(f"arena {args.command}", error), file=sys.stderr)
        return EXIT_FAILED


if __name__ == "__main__":
    sys.exit(main())
