"""The commands that read what was played: standings, report, verify, view, schema."""

from __future__ import annotations

import argparse
import contextlib
import json
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

from arena.cli.errors import EXIT_FAILED, EXIT_OK, UsageError, internal_error
from arena.cli.inputs import _read
from arena.out_paths import Output, check_output, prepare_outputs
from arena.replay import Replay
from arena.text import shell_line

if TYPE_CHECKING:
    from arena.tournament.html_report import ReportResult
    from arena.tournament.store import Store


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


def _standings(args: argparse.Namespace) -> int:
    from arena.tournament.report import standings_csv, standings_document, standings_text

    with _reading(args.db) as store:  # a StoreError (damaged rows) is an ArenaError: exit 2
        if args.json:
            text = json.dumps(standings_document(store), indent=2) + "\n"
        elif args.csv:
            text = standings_csv(store)
        else:
            text = standings_text(store) + "\n"
    sys.stdout.write(text)
    return EXIT_OK


@contextlib.contextmanager
def _reading(db: Path) -> Iterator[Store]:
    """The tournament database ``db``, opened read-only (a usage error names what is wrong)."""
    from arena.tournament.store import Store

    if not db.exists():
        raise UsageError(f"no tournament database at {str(db)!r}")
    store = Store(db, read_only=True)  # a StoreError is an ArenaError: main says it, exit 2
    try:
        if store.config() is None:
            raise UsageError(f"{str(db)!r} holds no tournament")
        yield store
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
            f"({shell_line('arena', 'report', '--db', store.path, '-o')} FILE writes it elsewhere)",
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
