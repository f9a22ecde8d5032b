"""A machine too small for the clocks: the warning before a tournament, the share of moves the
referee took up late after it (real processes), and the texts themselves."""

from __future__ import annotations

import re
import subprocess
import sys
import uuid
from pathlib import Path

from arena.replay import Action, read_replay
from arena.tournament.clock_load import (
    concurrency_warning,
    default_concurrency,
    late_share_line,
    usable_cpus,
)
from arena.verify import verify_replay
from tests.processes import live_processes_with

ROOT = Path(__file__).parents[2]
PY = sys.executable


def test_a_tournament_with_more_matches_than_cpus_warns_and_reports_the_late_moves(
    tmp_path: Path,
) -> None:
    """``--concurrency`` over the CPUs with a move limit warns before the first match; a bot
    that stops its referee past a deadline (SIGSTOP, as an overloaded machine would) gets its
    reply accepted, flagged ``late_ms`` in the replay, and counted in the end-of-run line."""
    marker = f"late-{uuid.uuid4().hex}"
    cpus = usable_cpus()
    out = tmp_path / "t"
    staller = f"{PY} tests/bots/stall_referee.py 2 0.6 {marker}"
    run = subprocess.run(
        [PY, "-m", "arena", "tournament", staller, f"{PY} sample_bots/greedy.py {marker}",
         "--hands", "1", "--seed", "3", "--move-ms", "200", "--out", str(out),
         "--concurrency", str(cpus + 1), "--workers", "1", "--sandbox", "none"],
        cwd=ROOT, capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert run.returncode == 0, run.stderr
    assert (
        f"arena tournament: warning: {cpus + 1} matches at once on {cpus} CPUs with "
        f"--move-ms 200: bots' clocks may run late; use --concurrency {cpus} or fewer"
    ) in run.stderr
    late = []
    moves = 0
    for path in sorted((out / "replays").glob("*.json")):
        replay = read_replay(path)
        assert [s.status.value for s in replay.seats] == ["ok", "ok"]
        assert verify_replay(replay).ok
        actions = [e for h in replay.hands for e in h.events if isinstance(e, Action)]
        moves += len(actions)
        late += [a for a in actions if a.late_ms is not None]
    assert len(late) >= 2  # the staller's request 2 in each of the two matches
    assert all(a.elapsed_ms == 200.0 and a.late_ms > 0 for a in late)  # type: ignore[operator]
    worst = max(a.late_ms for a in late)  # type: ignore[type-var]
    share = f"{100 * len(late) / moves:.2g}%"
    assert (
        f"{len(late)} of {moves} moves ({share}) were accepted late because the referee itself "
        f"woke after their deadline (by up to {worst:.1f} ms; late_ms in the replays): "
        f"{cpus + 1} matches at once on {cpus} CPUs; use --concurrency {cpus} or fewer"
    ) in run.stdout
    assert live_processes_with(marker) == []


def test_no_warning_at_or_under_one_match_per_cpu() -> None:
    """As many matches at once as CPUs, or fewer, is no warning; the default never warns."""
    assert concurrency_warning(2, 2, 100) is None
    assert concurrency_warning(default_concurrency(), usable_cpus(), 100) is None
    assert default_concurrency(2) == 2
    assert default_concurrency(64) == 4


def test_the_late_share_line_names_the_concurrency_that_avoids_it() -> None:
    """Over the CPUs it says to use as many as the CPUs; at or under, half as many; no late
    move says nothing."""
    assert late_share_line(0, 100, 0.0, 8, 2) is None
    over = late_share_line(8, 100, 37.25, 100, 2)
    assert over == (
        "8 of 100 moves (8%) were accepted late because the referee itself woke after their "
        "deadline (by up to 37.2 ms; late_ms in the replays): 100 matches at once on 2 CPUs; "
        "use --concurrency 2 or fewer"
    )
    under = late_share_line(1, 3000, 5.0, 4, 4)
    assert under is not None
    assert re.search(r"\(0\.033%\).*other programs were using them too; use --concurrency 2", under)
    alone = late_share_line(1, 10, 5.0, 1, 2)
    assert alone is not None
    assert alone.endswith("other programs were using the CPUs; use a longer --move-ms")


def test_sprt_warns_too_and_reports_the_late_moves(tmp_path: Path) -> None:
    """``arena sprt`` over the CPUs warns before its games and ends with the late-move line."""
    marker = f"late-{uuid.uuid4().hex}"
    cpus = usable_cpus()
    run = subprocess.run(
        [PY, "-m", "arena", "sprt", f"{PY} tests/bots/stall_referee.py 2 0.6 {marker}",
         f"{PY} sample_bots/greedy.py {marker}", "--hands", "1", "--seed", "3",
         "--move-ms", "200", "--max-pairs", "1", "--out", str(tmp_path / "s"),
         "--concurrency", str(cpus + 1), "--workers", "1", "--sandbox", "none"],
        cwd=ROOT, capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert run.returncode == 0, run.stderr
    assert (
        f"arena sprt: warning: {cpus + 1} matches at once on {cpus} CPUs with --move-ms 200"
    ) in run.stderr
    assert re.search(
        r"^\d+ of \d+ moves \(.*\) were accepted late because the referee itself woke after "
        rf"their deadline .*: {cpus + 1} matches at once on {cpus} CPUs; use --concurrency "
        rf"{cpus} or fewer$",
        run.stdout,
        re.MULTILINE,
    )
    assert live_processes_with(marker) == []
