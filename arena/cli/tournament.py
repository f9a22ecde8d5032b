"""`arena tournament`: a new tournament, or `--resume` of an interrupted one."""

from __future__ import annotations

import argparse
import datetime
import functools
import os
import secrets
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

import msgspec

from arena.cli.cluster import _cluster_options, cluster_flags
from arena.cli.errors import EXIT_FAILED, EXIT_OK, EXIT_USAGE, UsageError
from arena.cli.match_flags import _match_flags, rule_flag_dests
from arena.cli.parser import _build_parser, _policy
from arena.cli.reading import _write_report
from arena.cli.sandbox import _max_stdout_bytes, _sandbox_config, _sandbox_plan
from arena.errors import ArenaError
from arena.out_paths import Output, check_output, prepare_outputs, tournament_outputs
from arena.stop_signals import exit_code as _stopped_exit_code
from arena.text import printable_block, shell_line
from arena.tournament.clock_load import say_late_moves, warn_if_crowded

if TYPE_CHECKING:
    from arena.cli.serve import Live
    from arena.tournament.session import Opened
    from arena.tournament.settings import TournamentSettings


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
    from arena.tournament.resume import given_flags, resume_differences

    given = given_flags(_build_parser(), getattr(args, "argv", sys.argv[1:]), args.bots)
    rules = rule_flag_dests()
    return resume_differences(args, given, opened, out_dir, _tournament_settings, rules)


def _resume(
    args: argparse.Namespace, outputs: Callable[[Path, Path, Path | None], list[Output]]
) -> tuple[Opened, Path, Path]:
    """Open the tournament to resume, check it is the one the flags ask for, and build and
    check its bots again: the opened tournament, its database and its out folder."""
    from arena.tournament.resume import stored_out_dir
    from arena.tournament.session import open_existing, recheck_bots
    from arena.tournament.settings import run_outputs, sandbox_from_dict

    db = args.db or (args.out / "tournament.db" if args.out else None)
    if db is None:
        raise UsageError("--resume needs the tournament's --db (or its --out folder)")
    if args.events is not None:  # checked before the database is opened, as for a new run
        check_output(Output(args.events, "--events"))
    opened = open_existing(db)
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
    except BaseException:  # a SessionError or StoreError too: main says it (exit 2)
        opened.store.close()
        raise
    return opened, db, out_dir


def _check_serve_flags(args: argparse.Namespace) -> None:
    """``--serve`` and ``--serve-reveal`` refused before anything starts (the server itself
    starts once the bots are checked)."""
    if args.serve is None and not args.serve_reveal:
        return
    from arena.cli.serve import check_serve_flags

    check_serve_flags(args)


def _tournament(args: argparse.Namespace) -> int:
    from arena.tournament.live import LiveReporter, PlainReporter, Reporter
    from arena.tournament.report import final_report
    from arena.tournament.runner import RunOptions, TournamentError
    from arena.tournament.session import open_new
    from arena.tournament.session import run as run_session
    from arena.tournament.settings import run_outputs, sandbox_from_dict

    _check_serve_flags(args)
    outputs = functools.partial(
        tournament_outputs, out_given=args.out is not None, db_given=args.db is not None
    )
    if args.resume:
        opened, db, out_dir = _resume(args, outputs)
        cluster = _cluster_options(args, opened.settings.sandbox is not None)
    else:
        if not args.bots:
            raise UsageError("give the bots to play (command lines or bot folders)")
        seed = args.seed if args.seed is not None else secrets.randbelow(2**63)
        settings = _tournament_settings(args, seed)
        cluster = _cluster_options(args, settings.sandbox is not None)
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
        opened = open_new(  # an EntrantError or SessionError is an ArenaError: exit 2
            args.bots,
            settings,
            db,
            build_timeout_s=args.build_timeout,
            sandbox=plan,
            out_dir=out_dir,
        )
        for line in opened.skipped:
            print(f"  skipped {line}")
        for excluded in opened.excluded:
            reason = printable_block(excluded.reason)
            print(f"  left out {excluded.entrant.name}: {excluded.stage}: {reason}")
    live = _live(args, opened, out_dir, db)
    options = RunOptions(
        out_dir=out_dir,
        concurrency=args.concurrency,
        workers=args.workers,
        events=args.events,
        cluster=cluster,
        build_timeout_s=args.build_timeout,
        live=None if live is None else live.hub,
    )
    if cluster is None:  # a cluster's workers run one match per CPU of theirs
        warn_if_crowded("arena tournament", args.concurrency, opened.settings.move_ms)
    reporter: Reporter = LiveReporter() if sys.stdout.isatty() else PlainReporter()
    around = None if live is None else live.around
    # The out folder is stored with the tournament; named here too when it is not the
    # database's folder, so the command reads as what it does.
    elsewhere = os.path.abspath(out_dir) != os.path.abspath(db.parent)
    keep = ("--out", out_dir) if elsewhere else ()
    try:
        summary = run_session(opened, options, reporter, around)
    except KeyboardInterrupt:
        done = len(opened.store.finished())
        total = len(opened.store.tables())
        stopped = (
            "every running match was stopped and its bots ended"
            if cluster is None
            else "the matches running on the cluster finish there unrecorded"
        )
        print(
            f"\nInterrupted: {stopped}; {done} of "
            f"{total} matches are recorded in {db}.\nResume with: "
            + shell_line(
                "arena",
                "tournament",
                "--resume",
                "--db",
                db,
                *keep,
                *(() if cluster is None else cluster_flags(cluster)),
            ),
            file=sys.stderr,
        )
        return _stopped_exit_code()
    except ArenaError as error:
        if cluster is None or type(error).__name__ != "SchedulerLostError":
            raise
        # arena.cluster.lost is not imported to name the class: the local path has no Dask.
        done = len(opened.store.finished())
        total = len(opened.store.tables())
        print(
            f"arena tournament: error: {error}; {done} of {total} matches are recorded in "
            f"{db}.\nResume with: "
            + shell_line(
                "arena", "tournament", "--resume", "--db", db, *keep, *cluster_flags(cluster)
            ),
            file=sys.stderr,
        )
        return EXIT_USAGE
    except TournamentError as error:
        print(f"arena tournament: {error}", file=sys.stderr)
        return EXIT_FAILED

    def finish() -> None:
        report = _write_report(opened.store, out_dir / "report.html", "arena tournament")
        where = None if report is None else report.path
        print(final_report(opened.store, summary.standings, out_dir, db, report=where))
        print(summary.line())
        progress = summary.progress
        say_late_moves(progress.late_moves, progress.moves, progress.late_max_ms, args.concurrency)

    if live is not None:
        return live.after("tournament", finish)  # the report is written while it serves
    finish()
    return EXIT_OK


def _live(args: argparse.Namespace, opened: Opened, out_dir: Path, db: Path) -> Live | None:
    """The live server of ``--serve`` (None without it: nothing of it is imported)."""
    if args.serve is None and not args.serve_reveal:
        return None
    from arena.cli.serve import live_setup

    try:
        live = live_setup(args, f"Tournament {out_dir.name}", out_dir, "the tournament")
    except BaseException:
        opened.store.close()
        raise
    if live is not None:
        live.db = db
        live.hub.total = len(opened.store.tables())
    return live
