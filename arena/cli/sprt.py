"""`arena sprt`: paired games of two bots until the sequential test decides."""

from __future__ import annotations

import argparse
import datetime
import functools
import json
import secrets
import sys
from contextlib import AbstractAsyncContextManager
from pathlib import Path
from typing import TYPE_CHECKING, Any

import msgspec

from arena.cli.cluster import _cluster_options
from arena.cli.errors import EXIT_OK, UsageError
from arena.cli.match_flags import _match_flags
from arena.cli.parser import _policy
from arena.cli.sandbox import _max_stdout_bytes, _sandbox_config, _sandbox_plan
from arena.out_paths import prepare_outputs, tournament_outputs
from arena.stop_signals import exit_code as _stopped_exit_code
from arena.stop_signals import run as _run_stoppable
from arena.text import printable_block
from arena.tournament.clock_load import say_late_moves, warn_if_crowded

if TYPE_CHECKING:
    from arena.tournament.entrants import Entrant
    from arena.tournament.runner import RunOptions
    from arena.tournament.settings import TournamentSettings
    from arena.tournament.sprt_run import JobRunner


def _cluster_pool(
    options: RunOptions,
    entrants: list[Entrant],
    sandbox: dict[str, Any] | None,
    settings: TournamentSettings,
    concurrency: int,
    workers: int,
) -> AbstractAsyncContextManager[JobRunner]:
    """The SPRT's games on the cluster (``concurrency`` and ``workers`` do not apply there)."""
    from arena.tournament.runner import open_pool

    return open_pool(options, entrants, sandbox, settings.startup_ms)


def _sprt(args: argparse.Namespace) -> int:
    from arena.tournament.entrants import EntrantError, prepare, scan
    from arena.tournament.ratings import elo_from_counts
    from arena.tournament.runner import RunOptions
    from arena.tournament.settings import TournamentSettings, run_outputs, sandbox_to_dict
    from arena.tournament.sprt import Sprt
    from arena.tournament.sprt_run import SprtRun, sprt_discarded_text
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
    cluster = _cluster_options(args, sandbox is not None)
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
        reasons = "; ".join(
            f"{x.entrant.name}: {x.stage}: {printable_block(x.reason)}" for x in excluded
        )
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
    if cluster is None:
        warn_if_crowded("arena sprt", args.concurrency, settings.move_ms)
    run = SprtRun(
        settings, store, a, b, sprt, out_dir=out_dir, concurrency=args.concurrency,
        workers=args.workers, max_pairs=args.max_pairs,
        say=lambda line: print(line, flush=True),
    )  # fmt: skip
    if cluster is not None:
        run.runner = functools.partial(
            _cluster_pool, RunOptions(out_dir, cluster=cluster), kept, run.job_sandbox(), settings
        )
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
    discarded = sprt_discarded_text(outcome)
    if discarded:
        print(discarded)
    print(f"database: {out_dir / 'tournament.db'}   replays: {out_dir / 'replays'}")
    say_late_moves(run.late_moves, run.moves, run.late_max_ms, args.concurrency)
    return EXIT_OK
