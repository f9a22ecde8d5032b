"""An analysis worker process (``python -m arena.analysis.worker BOT SEED``), for ``--db``.

Started by :mod:`arena.tournament.analyze_pool` through the referee's process layer. It reads
one job per line on stdin, ``{"replay": PATH, "page": PATH or null}``, analyses that replay
with the evaluator ``BOT`` and the analysis seed ``SEED`` (:func:`arena.analysis.files.
analyze_file`: the replay written back in place, its viewer page rewritten when asked), and
answers one line, ``{"replay": PATH, "error": null or one line, "seats": [SeatAccuracy...]}``.
It exits when its stdin closes.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import msgspec

from arena.analysis.evaluator import make_evaluator
from arena.analysis.files import analyze_file
from arena.errors import ArenaError


def main(argv: list[str]) -> int:
    """Serve jobs until stdin closes."""
    evaluator = make_evaluator(argv[0])
    seed = int(argv[1])
    for line in sys.stdin.buffer:
        job = json.loads(line)
        result: dict[str, object] = {"replay": job["replay"], "error": None, "seats": []}
        try:
            page = None if job.get("page") is None else Path(job["page"])
            done = analyze_file(Path(job["replay"]), evaluator, html=page, seed=seed)
            result["seats"] = msgspec.to_builtins(done.analysis.seats)
        except ArenaError as error:
            result["error"] = str(error)
        except OSError as error:
            result["error"] = f"cannot write {error.filename!r}: {error.strerror or error}"
        except Exception as error:  # one bad replay must not stop the others
            result["error"] = f"internal error: {type(error).__name__}: {error}"
        sys.stdout.write(json.dumps(result) + "\n")
        sys.stdout.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
