"""The ``arena`` command: argument parsing and wiring only.

Exit codes: 0 when the command did its job (a match with a result, even a bot's failure, or a
replay that verifies), 1 for a replay that does not verify or an internal error, 2 for a usage
error (a bad flag, a bot command that cannot be run, a file that cannot be read), 128 + the
signal's number when Ctrl-C, SIGTERM or SIGHUP stopped it (130, 143, 129; arena/stop_signals.py).
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence

from arena.cli.analyze import _analyze
from arena.cli.check import _check
from arena.cli.errors import EXIT_FAILED, EXIT_OK, EXIT_USAGE, UsageError, internal_error
from arena.cli.match_flags import _match_flags
from arena.cli.parser import _build_parser
from arena.cli.play import _play, _rematch
from arena.cli.reading import _report, _schema, _standings, _verify, _view
from arena.cli.sprt import _sprt
from arena.cli.tournament import _tournament
from arena.errors import ArenaError
from arena.stop_signals import exit_code as _stopped_exit_code
from arena.stop_signals import install as _install_stop_signals
from arena.stop_signals import mute_output as _mute_output
from arena.stop_signals import received as _stop_received

__all__ = [
    "EXIT_FAILED",
    "EXIT_OK",
    "EXIT_USAGE",
    "UsageError",
    "_build_parser",
    "_match_flags",
    "main",
]


def _serve_command(args: argparse.Namespace) -> int:
    from arena.cli.serve import _serve  # the live server only when asked for

    return _serve(args)


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
    "analyze": _analyze,
    "serve": _serve_command,
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
    except ArenaError as error:  # UsageError, a bad file, flag, command or database: one line
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
