"""``arena analyze REPLAY | --db TOURNAMENT``: every move judged by a reference evaluator."""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from arena.cli.errors import EXIT_FAILED, EXIT_OK, UsageError
from arena.cli.reading import _reading, _write_report
from arena.out_paths import Output, check_output, prepare_outputs
from arena.replay import read_replay
from arena.text import seat_name


def _analyze(args: argparse.Namespace) -> int:
    from arena.analysis.evaluator import make_evaluator

    evaluator = make_evaluator(args.bot)  # an unknown --bot is an ArenaError: exit 2
    if args.db is not None:
        if args.out is not None or args.html is not None:
            raise UsageError(
                "-o and --html are for one replay; --db analyses every replay in place"
            )
        return _analyze_db(args, evaluator.name)
    from arena.analysis.files import analyze_and_write

    replay = read_replay(args.replay)  # a ReplayError is an ArenaError: exit 2
    out = args.out or args.replay
    outputs = [Output(out, "-o" if args.out else "the replay")]
    if args.html is not None:
        outputs.append(Output(args.html, "--html"))
    for output in outputs:
        check_output(output)
    prepare_outputs(outputs)
    try:
        done = analyze_and_write(
            replay, args.replay, evaluator, out=out, html=args.html, seed=args.seed
        )
    except OSError as error:
        raise UsageError(f"cannot write {error.filename!r}: {error.strerror or error}") from None
    names = [seat_name(s) for s in done.replay.seats]
    seats = [_seat_json(s, names[s.seat]) for s in done.analysis.seats]
    if args.json:
        document = {
            "replay": str(done.written),
            "page": None if done.page is None else str(done.page),
            "bot": evaluator.name,
            "decisions": len(done.analysis.moves),
            "seats": seats,
        }
        print(json.dumps(document))
        return EXIT_OK
    print(
        f"analysed {args.replay} with {evaluator.name}: {len(done.analysis.moves)} decisions in "
        f"{len(done.replay.hands)} hands; wrote {done.written}"
        + ("" if done.page is None else f" and {done.page}")
    )
    for seat in seats:
        print("  " + _seat_line(seat))
    return EXIT_OK


def _seat_json(summary: Any, name: str) -> dict[str, Any]:
    return {
        "seat": summary.seat,
        "name": name,
        "decisions": summary.decisions,
        "accuracy": summary.accuracy,
        "mean_loss": summary.mean_loss,
        "inaccuracies": summary.inaccuracies,
        "mistakes": summary.mistakes,
        "blunders": summary.blunders,
    }


def _seat_line(seat: dict[str, Any]) -> str:
    who = f"seat {seat['seat']} {seat['name']}" if seat["seat"] >= 0 else seat["name"]
    return (
        f"{who}: accuracy {seat['accuracy']:.1f}% over {seat['decisions']} decisions, "
        f"mean loss {seat['mean_loss']:.2f}, {seat['inaccuracies']} inaccuracies, "
        f"{seat['mistakes']} mistakes, {seat['blunders']} blunders"
    )


def _analyze_db(args: argparse.Namespace, bot: str) -> int:
    from arena.analysis.summary import pooled_accuracy
    from arena.stop_signals import run
    from arena.tournament.analyze_pool import analyze_tournament, tournament_replays

    with _reading(args.db) as store:
        jobs, missing = tournament_replays(store, bot, args.seed)
        for note in missing:
            print(f"arena analyze: {note}", file=sys.stderr)
        results = run(analyze_tournament, jobs, args.workers)
        failed = [r for r in results if r.error is not None]
        per_bot: dict[str, list[Any]] = {}
        for result in results:
            if result.error is not None:
                print(f"arena analyze: {result.replay}: {result.error}", file=sys.stderr)
                continue
            if not args.json:
                print(f"analysed {result.replay}")
            for seat, name in zip(result.seats, result.names, strict=True):
                per_bot.setdefault(name, []).append(seat)
        pooled = {name: pooled_accuracy(items) for name, items in sorted(per_bot.items())}
        report = args.db.parent / "report.html"
        wrote_report = report.is_file() and _write_report(store, report, "arena analyze")
    bots = [_seat_json(p, name) for name, p in pooled.items() if p is not None]
    if args.json:
        print(json.dumps({"bot": bot, "replays": len(results) - len(failed), "bots": bots}))
    else:
        print(f"{len(results) - len(failed)} replays analysed with {bot}")
        for item in bots:
            print("  " + _seat_line(item))
        if wrote_report:
            print(f"wrote {report} (an accuracy column per bot)")
    return EXIT_FAILED if failed or missing else EXIT_OK


__all__ = ["_analyze"]
