"""Analyse one replay file: read it, judge every decision, write it back with its analysis.

The one function both ``arena analyze REPLAY`` and the ``--db`` workers call. The replay is
written atomically (:func:`arena.replay.write_replay`) with its ``analysis`` section set (any
earlier analysis replaced), every other field as it was read, so the file still verifies; the
viewer page, when asked for, is made from the analysed replay.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import msgspec

from arena.analysis.analyzer import DEFAULT_SEED, Evaluator, analyze_replay
from arena.analysis.record import Analysis
from arena.errors import ArenaError
from arena.replay import Replay, read_replay, write_replay
from arena.replay_walk import ReplayMismatch


class AnalysisInputError(ArenaError):
    """A replay that cannot be analysed (it does not verify); the message names the file."""


@dataclass(frozen=True)
class Analysed:
    """One analysed replay: the replay with its section, and where it was written."""

    replay: Replay
    analysis: Analysis
    written: Path
    page: Path | None


def analyze_file(
    path: Path,
    evaluator: Evaluator,
    *,
    out: Path | None = None,
    html: Path | None = None,
    seed: int = DEFAULT_SEED,
) -> Analysed:
    """Analyse the replay at ``path`` and write it to ``out`` (default: ``path`` itself).

    Raises:
        arena.replay.ReplayError: the file is not a readable replay.
        AnalysisInputError: the replay does not verify (the message is verify's).
        OSError: ``out`` or ``html`` cannot be written.
    """
    return analyze_and_write(
        read_replay(path), path, evaluator, out=out or path, html=html, seed=seed
    )


def analyze_and_write(
    replay: Replay,
    name: Path,
    evaluator: Evaluator,
    *,
    out: Path,
    html: Path | None = None,
    seed: int = DEFAULT_SEED,
) -> Analysed:
    """Analyse ``replay`` (read from ``name``) and write it, analysed, to ``out``; its viewer
    page to ``html`` when given.

    Raises:
        AnalysisInputError: the replay does not verify (the message is verify's).
        OSError: ``out`` or ``html`` cannot be written.
    """
    try:
        analysis = analyze_replay(replay, evaluator, seed)
    except ReplayMismatch as error:
        raise AnalysisInputError(
            f"replay {str(name)!r} does not verify: {error} (see arena verify)"
        ) from None
    analysed = msgspec.structs.replace(replay, analysis=analysis)
    written = write_replay(out, analysed)
    page = None
    if html is not None:
        from arena.view.html import write_html

        page = write_html(analysed, html)
    return Analysed(analysed, analysis, written, page)
