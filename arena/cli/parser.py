"""The ``arena`` command's argument parser: every subcommand and the failure-policy flags."""

from __future__ import annotations

import argparse
import os
from pathlib import Path

from arena import PRODUCT
from arena.cli.arg_types import _non_negative, _positive, _seed
from arena.cli.cluster import _add_cluster_flags
from arena.cli.errors import OneLineParser, UsageError
from arena.cli.match_flags import _add_match_flags
from arena.cli.sandbox import SANDBOX_CHOICES, _add_sandbox_flags
from arena.games.registry import DEFAULT_GAME, GAMES
from arena.policy import POLICY_NAMES, FailurePolicy, make_policy
from arena.tournament.clock_load import default_concurrency


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


def _build_parser() -> argparse.ArgumentParser:
    parser = OneLineParser(
        prog="arena",
        description=f"{PRODUCT}: play domino bots against each other under a referee.",
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
    check.add_argument("--game", default=DEFAULT_GAME, choices=sorted(GAMES), help="the game")
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
    _add_cluster_flags(tournament)

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
    _add_cluster_flags(sprt)

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
