"""`arena play` and `arena rematch`: one match, its replay and its result as text or JSON."""

from __future__ import annotations

import argparse
import datetime
import functools
import json
import os
import secrets
import sys
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from arena.cli.errors import EXIT_FAILED, EXIT_OK, UsageError
from arena.cli.inputs import _check_bot_command, _check_replay_path, _read
from arena.cli.match_flags import _match_flags
from arena.cli.parser import _policy
from arena.cli.sandbox import _max_stdout_bytes, _sandbox_config, _sandbox_plan, match_outputs
from arena.failure_report import explain, failures_of, rematch_command, write_failure_bundle
from arena.policy import make_policy
from arena.referee.channel import BotSpec
from arena.referee.clock import TimeLimits
from arena.referee.match import MatchConfig, freeze_startup_objects, play_match
from arena.referee.sandbox import SandboxConfig
from arena.replay import Replay, Status, write_replay
from arena.stop_signals import run as _run_stoppable
from arena.text import printable, seat_name, shell_line

if TYPE_CHECKING:
    from arena.cli.serve import Live


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
    live = None
    if args.serve is not None or args.serve_reveal:
        from arena.cli.serve import live_setup  # the live server only when asked for

        folder = replay_path.absolute().parent
        live = live_setup(args, f"Match, seed {seed}", folder, "the match")
        if live is not None:
            live.plays_here = True
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
    from arena.tournament.entrants import command_names

    bots = [BotSpec(c, None, n) for c, n in zip(args.bots, command_names(args.bots), strict=True)]
    return _run_match(config, bots, replay_path, "play", args.json, live)


def _sandbox_settings(config: SandboxConfig | None) -> dict[str, Any] | None:
    from arena.tournament.settings import sandbox_to_dict

    return None if config is None else sandbox_to_dict(config)


def _run_match(
    config: MatchConfig,
    bots: list[BotSpec],
    replay_path: Path,
    command: str,
    as_json: bool,
    live: Live | None = None,
) -> int:
    """Play the match, write its replay and failure bundle, and print the result; with
    ``live`` (``--serve``), served as it is played, and after it until Ctrl-C."""
    if not as_json:
        print(
            f"Playing {config.game.name}, {config.players} players, seed {config.seed}"
            + ("" if config.policy.name == "strict" else f", policy {config.policy.describe()}")
            + " ...",
            flush=True,
        )
    freeze_startup_objects()
    if live is None:
        replay = _run_stoppable(play_match, config, bots)
    else:
        replay = _run_stoppable(_play_watched, live, config, bots)
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
    code = EXIT_OK if written is not None else EXIT_FAILED
    if live is not None:
        live.recorded(1, replay, written)
        sys.stdout.flush()
        live.after(command)
    return code


async def _play_watched(live: Live, config: MatchConfig, bots: list[BotSpec]) -> Replay:
    """The match, served live as match 1 while it is played."""
    async with live.around():
        return await play_match(config, bots, observer=functools.partial(live.hub.feed, 1))


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
    bots = [BotSpec(s.command, s.folder, s.arena_name) for s in recorded.seats]
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
                "arena_name": s.arena_name,
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
        who = ", ".join(seat_name(replay.seats[w]) for w in outcome.winners)
        lines.append(
            f"hand {hand.hand_number}: {outcome.kind}, won by {who}, "
            f"award {outcome.award}, scores {outcome.scores}"
        )
    result = replay.result
    lines.append("")
    for seat in replay.seats:
        detail = printable(seat.detail)
        status = "" if seat.status is Status.OK else f"  [{seat.status.value}: {detail}]"
        if seat.strikes or seat.restarts:
            strikes = f"{seat.strikes} strike" + ("" if seat.strikes == 1 else "s")
            restarts = f"{seat.restarts} restart" + ("" if seat.restarts == 1 else "s")
            status += f"  ({strikes}, {restarts})"
        lines.append(
            f"  seat {seat.seat} {seat_name(seat):<16} {result.scores[seat.seat]:>4} points"
            + status
        )
    if result.winner is None:
        lines.append(f"Result: a draw ({result.reason}).")
    else:
        winner = replay.seats[result.winner]
        lines.append(f"Result: seat {winner.seat} ({seat_name(winner)}) wins ({result.reason}).")
    if path is not None:
        view, verify = shell_line("arena", "view", path), shell_line("arena", "verify", path)
        lines.append(f"Replay: {printable(str(path))}  ({view}; {verify})")
    else:
        lines.append("Replay: not written (see the error above)")
    if bundle is not None:
        lines.append(
            f"Failure bundle: {bundle}  (README.txt explains each failure; rematch.sh plays "
            "the match again)"
        )
    return "\n".join(lines)
