"""What the tournament report knows of each match (:mod:`arena.tournament.html_report`).

Every recorded match of the store with its replay, its viewer page and its failure bundle,
wherever the tournament folder is now; a viewer page missing beside its replay is made here from
the replay, and every failure gets its step of that page and its evidence (under the failure
policy ``lenient`` the strikes and restarts too, from the replay). A replay that cannot be shown
keeps a note saying why.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

import msgspec

from arena.failure_report import bundle_path
from arena.failure_text import failures_of
from arena.policy import STRICT, FailurePolicy
from arena.replay import Replay, ReplayError, Status, read_replay
from arena.tournament.settings import TournamentSettings
from arena.tournament.store import MatchRow, Store
from arena.view.html import evidence_rows, failure_step, render_page, viewer_data
from arena.view.steps import Step, StepKind, StepsError, build_steps

#: The most of a bot's stderr tail one failure shows in the report (its end); the viewer page
#: linked next to it has more.
STDERR_KEEP = 1500


@dataclass
class FailureEntry:
    """One bot's failure in one match, with what the report shows of it.

    ``cost`` is what the failure cost (:class:`arena.failure_report.FailureEntry`):
    ``"forfeit"`` (the seat's failure, as stored), or under the failure policy ``lenient`` a
    ``"strike"`` or a ``"restart"`` (found in the replay).
    """

    table: int
    round: int
    seat: int
    entrant: int
    status: str
    detail: str
    opponents: list[str]
    cost: str = "forfeit"
    step: int | None = None
    hand: int | None = None
    evidence: list[list[str]] = field(default_factory=list)


@dataclass
class MatchEntry:
    """A recorded match: who sat where, and where its replay and its viewer page are."""

    row: MatchRow
    names: list[str]
    replay: Path | None = None
    page: Path | None = None
    made: bool = False
    note: str = ""
    failures: list[FailureEntry] = field(default_factory=list)
    bundle: Path | None = None
    #: Where a cluster played it: ``bwrap on host lab-7`` (empty for a match played here).
    ran_on: str = ""

    @property
    def idx(self) -> int:
        """The match's table number."""
        return self.row.table.idx

    @property
    def failed(self) -> bool:
        """Whether anything failed in the match: a seat's failure, a strike or a restart."""
        return any(
            s.status is not Status.OK or s.strikes or s.restarts for s in self.row.summary.seats
        )


@dataclass(frozen=True)
class ReportResult:
    """What :func:`arena.tournament.html_report.write_report` did."""

    path: Path
    matches: int
    pages_made: int
    notes: list[str]


def find_replay(stored: str, db_dir: Path, others: Sequence[Path] = ()) -> Path | None:
    """The replay file recorded as ``stored``, wherever it is now, or ``None``.

    First the file of that name in ``replays/`` beside the database (where ``arena tournament``
    writes them, so a tournament folder copied or moved as a whole is reported from its own
    files), then ``stored`` itself (a relative path from the current folder, then from each of
    ``others``).
    """
    path = Path(stored)
    candidates = [db_dir / "replays" / path.name, path]
    if not path.is_absolute():
        candidates += [base / path for base in others]
    for candidate in candidates:
        if candidate.is_file():
            return candidate
    return None


def find_bundle(replay: Path) -> Path | None:
    """The ``README.txt`` of the failure bundle beside ``replay`` (``NAME.failures/``,
    :func:`arena.failure_report.bundle_path`), or ``None`` when there is none."""
    readme = bundle_path(replay) / "README.txt"
    return readme if readme.is_file() else None


def tournament_policy(store: Store) -> FailurePolicy | None:
    """The failure policy of ``store``'s tournament, as stored with its settings (strict for a
    tournament recorded before policies existed); ``None`` when the stored settings do not
    make one (the reports show the rest)."""
    config = store.config()
    if config is None:
        return STRICT
    try:
        return TournamentSettings.from_dict(config).failure_policy()
    except (TypeError, ValueError):
        return None


def page_of(replay: Path) -> Path:
    return replay.with_suffix(".html")


def collect_matches(store: Store, others: Sequence[Path] = ()) -> list[MatchEntry]:
    """Every recorded match with its replay and viewer page; missing pages are made here.

    ``others``: more folders a relative replay path may start from (see :func:`find_replay`).
    """
    entrants = {e.id: e.name for e in store.entrants()}
    db_dir = store.path.parent
    entries = []
    for row in store.matches():
        names = [entrants.get(e, f"#{e}") for e in row.table.seats]
        entry = MatchEntry(row, names)
        entry.replay = find_replay(row.replay, db_dir, others)
        if entry.replay is None:
            entry.note = f"replay file not found ({row.replay})"
            stored = Path(row.replay)  # a page left from the run still shows the match
            pages = [page_of(db_dir / "replays" / stored.name), page_of(stored)]
            entry.page = next((page for page in pages if page.is_file()), None)
        else:
            page = page_of(entry.replay)
            entry.page = page if page.is_file() else None
            entry.bundle = find_bundle(entry.replay)
        failed = [s for s in row.summary.seats if s.status is not Status.OK]
        entry.failures = [
            FailureEntry(
                table=row.table.idx,
                round=row.table.round,
                seat=s.seat,
                entrant=row.table.seats[s.seat],
                status=s.status.value,
                detail=s.detail,
                opponents=[n for i, n in enumerate(names) if i != s.seat],
            )
            for s in failed
        ]
        if entry.replay is not None and (entry.page is None or entry.failed):
            _read_and_draw(entry)
        entries.append(entry)
    return entries


def _read_and_draw(entry: MatchEntry) -> None:
    """Read the match's replay: make its missing page, and find each failure's step."""
    assert entry.replay is not None
    linked = "linked as JSON" if entry.page is None else "its failures' steps are unknown"
    try:
        replay = read_replay(entry.replay)
        if len(replay.seats) != len(entry.row.table.seats):
            raise ReplayError(
                f"{len(replay.seats)} seats recorded, but the match had "
                f"{len(entry.row.table.seats)}: the replay of another match"
            )
        steps = build_steps(replay)
        if replay.host:
            entry.ran_on = f"{replay.mechanism or 'no sandbox'} on host {replay.host}"
    except (ReplayError, StepsError) as error:
        entry.note = f"the replay cannot be shown ({error}); {linked}"
        return
    except Exception as error:  # one bad replay must not stop the report of the others
        entry.note = (
            f"the replay cannot be shown (internal error: {type(error).__name__}: {error}); "
            f"{linked}"
        )
        return
    if entry.page is None:
        target = page_of(entry.replay)
        try:
            target.write_text(render_page(viewer_data(replay, steps)), encoding="utf-8")
        except OSError as error:
            entry.note = f"cannot write its viewer page {target} ({error.strerror or error})"
        else:
            entry.page, entry.made = target, True
    _failure_details(entry, replay, steps)


def _failure_details(entry: MatchEntry, replay: Replay, steps: Sequence[Step]) -> None:
    """Every failure of the match in match order, each with its step and evidence: the stored
    forfeits, and the strikes and restarts the replay records (a forfeit the replay does not
    show stays, as stored, at the end)."""
    stored = {item.seat: item for item in entry.failures}
    # The strike moves and the restarts, in match order: the same order as failures_of's.
    marked = [
        (number, step)
        for number, step in enumerate(steps, start=1)
        if step.kind is StepKind.RESTART
        or (step.kind is StepKind.MOVE and step.action is not None and step.action.strike)
    ]
    found: list[FailureEntry] = []
    for recorded in failures_of(replay):
        failure = recorded.failure
        if recorded.cost == "forfeit":
            item = stored.pop(recorded.seat, None)
            if item is None:  # the store is the record of the seats' results
                continue
            item.step = failure_step(replay, steps, recorded.seat)
            played = None
        else:
            item = FailureEntry(
                table=entry.idx,
                round=entry.row.table.round,
                seat=recorded.seat,
                entrant=entry.row.table.seats[recorded.seat],
                status=failure.status.value,
                detail=failure.detail,
                opponents=[n for i, n in enumerate(entry.names) if i != recorded.seat],
                cost=recorded.cost,
            )
            number, step = marked.pop(0) if marked else (None, None)
            if step is not None and step.seat == recorded.seat and step.failure == failure:
                item.step = number
            played = step.action if step is not None else None
        item.hand = failure.hand_number
        item.evidence = [
            [label, value[-STDERR_KEEP:] if label == "stderr tail" else value]
            for label, value in evidence_rows(failure)
            if label not in ("status", "what happened")
        ]
        if recorded.cost == "strike" and played is not None and item.step is not None:
            item.evidence.insert(0, ["played for the bot", _wire(played.move)])
        found.append(item)
    entry.failures = found + list(stored.values())


def _wire(move: object) -> str:
    """A move as it goes over the wire: ``{"action":"play","tile":[3,5],...}``."""
    return msgspec.json.encode(move).decode()
